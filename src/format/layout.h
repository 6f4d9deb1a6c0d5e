/*
 * layout.h - where files live. Node-local: <ckpt_dir>/<exec_id>/, or with
 * [advanced] local_test = 1 (several simulated nodes on one machine, as in
 * FTI) <ckpt_dir>/node<K>/<exec_id>/ for node K; global:
 * <glbl_dir>/<exec_id>/; commit record: <meta_dir>/<exec_id>/commit.
 * Each level keeps two slots of files; a new checkpoint overwrites the slot
 * that is not the committed one, so the last committed checkpoint is never
 * touched before the new one is committed.
 */
#ifndef FTI_LAYOUT_H
#define FTI_LAYOUT_H

#include <stdint.h>

#include "format/config.h"
#include "base/error.h"

typedef struct fti_layout {
    char exec_id[FTI_NAME_MAX];
    char local[FTI_PATH_MAX];
    char global[FTI_PATH_MAX];
    char meta[FTI_PATH_MAX];
    char commit[FTI_PATH_MAX];
    int l4_files_per_dir; /* [advanced] l4_files_per_dir: the L4 fan-out, 0: flat */
} fti_layout;

/* Fills the paths; exec_id is [restart] exec_id or derived from the config
 * file's absolute path (one fixed id per config). No I/O besides realpath. */
fti_err fti_layout_init(fti_layout *l, const fti_config *cfg);

/* With [advanced] local_test = 1, points the node-local directory at node
 * `node`'s own folder, <ckpt_dir>/node<K>/<exec_id>: a rank then reads and
 * writes only its node's folder, other nodes' files reach it only through
 * the L2/L3 messages. Without the key, nothing changes (a real node). */
void fti_layout_place_node(fti_layout *l, const fti_config *cfg, int node);

/* The node-local directory of `node` below `root` (node < 0: the directory
 * of a real node, <root>/<exec_id>); the one naming rule for the library and
 * fti-ckpt --nodes. */
void fti_layout_node_local(char *out, const char *root, int node, const char *exec_id);

/* Creates the directories this rank needs (0700); errors name the key. */
fti_err fti_layout_create(const fti_layout *l, const fti_config *cfg, int need_local,
                          int need_shared);

/* File paths (buffers of FTI_PATH_MAX). */
void fti_path_local(const fti_layout *l, char *out, int level, int slot, int rank);
/* Where recovery rebuilds rank's local file (from a partner copy, parity
 * or the global copy) until every rank can restore: renamed over the local
 * file then, removed when the restart is refused, so a refusal writes
 * nothing. */
void fti_path_rebuilt(const fti_layout *l, char *out, int level, int slot, int rank);
void fti_path_partner(const fti_layout *l, char *out, int slot, int rank);
void fti_path_parity(const fti_layout *l, char *out, int slot, int rank);
/* Where recovery re-creates a lost parity file, under the same rule as
 * fti_path_rebuilt: adopted with the checkpoint, removed when refused. */
void fti_path_parity_rebuilt(const fti_layout *l, char *out, int slot, int rank);
/* The L4 fan-out ([advanced] l4_files_per_dir = N > 0): rank r < N keeps its
 * L4 files in the job's global folder, as before the key existed; rank
 * r >= N in <global>/l4-ranks<A>-<B>/ with A = r - r % N, B = A + N - 1.
 * So no folder gets more than N rank files per checkpoint and a job of N
 * ranks or fewer keeps the flat layout. The one rule for the library,
 * fti-ckpt and the import; `base` is the global folder or the archive's.
 * N = 0: every rank in `base`. */
void fti_path_fanout_dir(const fti_layout *l, char *out, const char *base, int rank);
/* Creates rank's L4 folder below the global folder (fti_job_mkdirs rules)
 * and syncs the global folder when the folder is new; errors name the key. */
fti_err fti_layout_create_fanout(const fti_layout *l, const fti_config *cfg, int rank);
void fti_path_global(const fti_layout *l, char *out, int slot, int rank);
void fti_path_global_h5(const fti_layout *l, char *out, int slot, int rank); /* ckpt_io = 5 */
void fti_path_global_h5single(const fti_layout *l, char *out, int slot); /* FTI_L4_H5_SINGLE */
void fti_path_global_shared(const fti_layout *l, char *out, int slot);
/* keep_l4_ckpt: FTI's archive, <global>/l4_archive/Ckpt<id>-Rank<r>.fti
 * (r: application rank; in the fan-out's folder of r below l4_archive,
 * fti_path_fanout_dir), or Ckpt<id>-mpiio.fti for the shared file of
 * ckpt_io = 2 (rank < 0). A checkpoint id used twice keeps the newest, as
 * in FTI. The folder of rank's archived files (rank < 0: l4_archive). */
void fti_path_archive_dir(const fti_layout *l, char *out, int rank);
void fti_path_archive(const fti_layout *l, char *out, long long id, int rank);

/* dCP: rank's layer `seq` in directory dir, <dir>/l4-dcp-rank<R>-<seq>.fti. */
void fti_path_dcp_layer(char *out, const char *dir, int rank, uint64_t seq);

/* A temporary file beside `path`: its last suffix (".fti", ".h5") follows
 * ".<tag>" (l4-s0-rank1.fti -> l4-s0-rank1.tmp.fti), so the file stays one
 * that the parsers below (and the cleanup) recognise as ours. */
void fti_path_temp(char *out, const char *path, const char *tag);

/* ---- parsing the names built above (a file name, not a path) ---- */

/* Every name built above, as fti_name_parse reads it back. */
typedef enum fti_name_kind {
    FTI_NAME_NONE = 0, /* not a name of ours */
    FTI_NAME_RANK,     /* l<L>-s<S>-rank<R>.fti: a rank's file (local, or its L4 copy) */
    FTI_NAME_PARTNER,  /* l2-s<S>-partner-rank<R>.fti */
    FTI_NAME_PARITY,   /* l3-s<S>-parity-rank<R>.fti */
    FTI_NAME_SHARED,   /* l4-s<S>-shared.fti (ckpt_io = 2) */
    FTI_NAME_H5,       /* l4-s<S>-rank<R>.h5 (ckpt_io = 5) */
    FTI_NAME_H5SINGLE, /* l4-s<S>-single.h5 (FTI_L4_H5_SINGLE) */
    FTI_NAME_DCP,      /* l4-dcp-rank<R>-<seq>.fti */
    FTI_NAME_COMMIT,   /* commit, the commit record */
    FTI_NAME_FANOUT,   /* l4-ranks<A>-<B>: a folder of the L4 fan-out (rank = A) */
} fti_name_kind;

typedef struct fti_name_info {
    fti_name_kind kind;
    int level, slot, rank; /* -1 where the name has none */
    uint64_t seq;          /* a dCP layer's sequence number */
    char tag[24];          /* "rebuilt", "tmp", "z", "rebuilt.tmp": a file beside the named one */
} fti_name_info;

/* Parses a file name (not a path) built above: 1 with *n filled, else 0
 * (n->kind FTI_NAME_NONE). The one reader of our names: the library's
 * cleanup and recovery and fti-ckpt's 'names' command (which fti-fault
 * uses) all go through it. */
int fti_name_parse(const char *name, fti_name_info *n);

/* "rank", "partner", ...: the kind's word in fti-ckpt names' output. */
const char *fti_name_kind_str(fti_name_kind kind);

/* A folder of the L4 fan-out, l4-ranks<A>-<B>: 1, else 0. */
int fti_name_fanout_dir(const char *name);

/* A checkpoint file of this library, l<L>-...(.fti|.h5) with level L 1-4:
 * returns L and sets *rank to R when it is rank R's (a partner copy names
 * the rank it belongs to; a dCP layer, the shared files: -1). Returns 0
 * for any other name. */
int fti_name_ckpt(const char *name, int *rank);

/* A dCP layer of `rank`, l4-dcp-rank<R>-<seq>.fti or its temporary
 * .tmp.fti: 1 with *seq and *tmp set, else 0. */
int fti_name_dcp_layer(const char *name, int rank, uint64_t *seq, int *tmp);

#endif /* FTI_LAYOUT_H */
