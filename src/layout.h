/*
 * layout.h - where files live. Node-local: <ckpt_dir>/<exec_id>/; global:
 * <glbl_dir>/<exec_id>/; commit record: <meta_dir>/<exec_id>/commit.
 * Each level keeps two slots of files; a new checkpoint overwrites the slot
 * that is not the committed one, so the last committed checkpoint is never
 * touched before the new one is committed.
 */
#ifndef FTI_LAYOUT_H
#define FTI_LAYOUT_H

#include "config.h"
#include "error.h"

typedef struct fti_layout {
    char exec_id[FTI_NAME_MAX];
    char local[FTI_PATH_MAX];
    char global[FTI_PATH_MAX];
    char meta[FTI_PATH_MAX];
    char commit[FTI_PATH_MAX];
} fti_layout;

/* Fills the paths; exec_id is [restart] exec_id or derived from the config
 * file's absolute path (one fixed id per config). No I/O besides realpath. */
fti_err fti_layout_init(fti_layout *l, const fti_config *cfg);

/* Creates the directories this rank needs (0700); errors name the key. */
fti_err fti_layout_create(const fti_layout *l, const fti_config *cfg, int need_local,
                          int need_shared);

/* File paths (buffers of FTI_PATH_MAX). */
void fti_path_local(const fti_layout *l, char *out, int level, int slot, int rank);
void fti_path_partner(const fti_layout *l, char *out, int slot, int rank);
void fti_path_parity(const fti_layout *l, char *out, int slot, int rank);
void fti_path_global(const fti_layout *l, char *out, int slot, int rank);
void fti_path_global_h5(const fti_layout *l, char *out, int slot, int rank); /* ckpt_io = 5 */
void fti_path_global_h5single(const fti_layout *l, char *out, int slot); /* FTI_L4_H5_SINGLE */
void fti_path_global_shared(const fti_layout *l, char *out, int slot);
void fti_path_archive_dir(const fti_layout *l, char *out, long long ckpt_seq);

#endif /* FTI_LAYOUT_H */
