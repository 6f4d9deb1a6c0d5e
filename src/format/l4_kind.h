/*
 * l4_kind.h - what each L4 store is, without MPI: its number in the commit
 * record (fti_commit.io, on disk), its name and the config that selects it,
 * and the facts the recovery and fti-ckpt need about its files. The one
 * place that maps the config (ckpt_io, enable_dcp, h5_single_file_enable,
 * the level asked for) and a commit record's io to a store. The stores'
 * hooks are in l4_store.h.
 */
#ifndef FTI_L4_KIND_H
#define FTI_L4_KIND_H

#include "format/config.h"
#include "base/error.h"
#include "format/meta.h"

typedef enum fti_l4_kind_id {
    FTI_L4K_POSIX,     /* ckpt_io = 1 (and 3): one global file per rank */
    FTI_L4K_MPIIO,     /* ckpt_io = 2: one shared file, a piece per rank */
    FTI_L4K_DCP,       /* level 8 with enable_dcp = 1, ckpt_io = 1: a chain of layers per rank */
    FTI_L4K_H5,        /* ckpt_io = 5: one HDF5 file per rank */
    FTI_L4K_H5_SHARED, /* level 9, ckpt_io = 5, h5_single_file_enable = 1: one HDF5 file */
    FTI_L4K_COUNT
} fti_l4_kind_id;

typedef struct fti_l4_kind {
    fti_l4_kind_id id;
    int io;             /* fti_commit.io of its checkpoints (docs/FORMAT.md) */
    const char *name;   /* "POSIX", "MPI-IO", ... for messages and fti-ckpt */
    const char *config; /* the config that selects it, for messages */
    int built;          /* 0: this build cannot write or read it (HDF5 absent) */
    int level;          /* the level that asks for it: 4, or FTI's FTI_L4_DCP (8) and
                           FTI_L4_H5_SINGLE (9); fti-ckpt list shows it */
    int restart_status; /* FTI_Status during a restart from it (FTI: 3 for level 9) */
    int bytes_are_files; /* the commit's bytes sum the ranks' checkpoint files (not layers
                            or HDF5 files) */
    int rank_file;      /* a restart restores a checkpoint file of each rank (else the
                           variables are read from the store itself) */
    int any_ranks;      /* a restart may run on another number of ranks */
    int heads_copy_in_l1; /* FTI's heads keep their local copy of an L4 checkpoint in the
                             L1 directory, which a checkpoint of levels 1-3 replaces */
    int dataset_dims;   /* it keeps the dimensions of global datasets
                           (FTI_RecoverDatasetDimension reads them) */
} fti_l4_kind;

/* Indexed by fti_l4_kind_id. */
extern const fti_l4_kind fti_l4_kinds[FTI_L4K_COUNT];

/* The store of a committed checkpoint: NULL for levels 1-3. An io value
 * this library never wrote is read as POSIX, as before the stores. */
const fti_l4_kind *fti_l4_kind_of(const fti_commit *c);

/* The store a new checkpoint of `level` goes to under cfg: 4, or FTI's
 * FTI_L4_DCP (8) and FTI_L4_H5_SINGLE (9); NULL for levels 1-3, and for 8 or
 * 9 when the config does not enable them. */
const fti_l4_kind *fti_l4_kind_for(const fti_config *cfg, int level);

/* Config check of [basic] ckpt_io: a value no store serves, or a store not
 * built, is an error naming the key; FTI-FF (3) becomes POSIX (1), whose
 * files already describe themselves. cfg->ckpt_io_given keeps the value. */
fti_err fti_l4_kind_settle(fti_config *cfg);

/* Helpers for any committed checkpoint, levels 1-3 included. */
int fti_commit_rank_file(const fti_commit *c);      /* fti_l4_kind.rank_file, 1 below L4 */
int fti_commit_any_ranks(const fti_commit *c);      /* fti_l4_kind.any_ranks, 0 below L4 */
int fti_commit_bytes_are_files(const fti_commit *c); /* 1 below L4 */
int fti_commit_shown_level(const fti_commit *c);    /* the level, or fti_l4_kind.level */

#endif /* FTI_L4_KIND_H */
