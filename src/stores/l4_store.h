/*
 * l4_store.h - one ops table per L4 store (POSIX, MPI-IO, dCP, HDF5 per
 * rank, HDF5 shared file): how a checkpoint goes to the global file system
 * and comes back. The checkpoint, post-processing, recovery and cleanup
 * paths call these hooks and never ask which store they hold; a store this
 * build lacks is a stub whose hooks fail naming the config key or the file.
 * What each store is (its on-disk number, name, facts) is in l4_kind.h.
 */
#ifndef FTI_L4_STORE_H
#define FTI_L4_STORE_H

#include <stdint.h>

#include "core/context.h"
#include "format/l4_kind.h"
#include "levels/ring.h"

typedef struct fti_l4_store {
    const fti_l4_kind *kind; /* describe: number, name, config key, facts */
    /* 1 when checkpoint c is written straight to the global file system,
     * with no local file and no post-processing (then `write`). */
    int (*direct)(fti_ctx *ctx, const fti_commit *c);
    /* Writes this rank's part of c straight from the protected variables.
     * Collective over the application ranks for MPI-IO and the HDF5 shared
     * file; *bytes: what this rank's checkpoint counts in c.bytes. */
    fti_err (*write)(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes);
    /* From the local file: as fti_level_ops.post (collective over ring).
     * NULL: the store is written directly only. */
    fti_err (*post)(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring);
    /* 0 when `post` needs the application ranks together (no head rank). */
    int post_on_heads;
    /* Restart: as fti_level_ops.rebuild (collective). NULL: own_ok is
     * enough, else `restore` (not collective). */
    fti_err (*verify)(fti_ctx *ctx, const fti_commit *c, int own_ok);
    /* Not collective: restores this rank's checkpoint file of c at
     * fti_path_rebuilt, verified. NULL when the store has no rank file. */
    fti_err (*restore)(fti_ctx *ctx, const fti_commit *c);
    /* 1 when this rank's file of c is read where it is, never copied back
     * (`path` gets it). NULL: never. */
    int (*reads_in_place)(const fti_ctx *ctx, const fti_commit *c, char *path);
    /* Local: variable v from the chosen checkpoint when the store keeps no
     * rank file (kind->rank_file = 0). */
    fti_err (*read_var)(fti_ctx *ctx, const fti_var *v);
    /* Local, after the commit of c: what c made obsolete goes. NULL: none. */
    void (*committed)(fti_ctx *ctx, const fti_commit *c);
    /* Local: this rank's global files of `slot` (rank 0: shared ones too).
     * NULL: the store removes its files itself (`committed`). */
    void (*remove)(fti_ctx *ctx, int slot);
    /* 1 when the stored copy may be written by the helper thread from a
     * staged copy of the data (staging_mib). */
    int stages;
} fti_l4_store;

/* The stores by fti_l4_kind_id: the built ones, or stubs. */
const fti_l4_store *fti_l4_store_by_id(fti_l4_kind_id id);

/* The store of committed checkpoint c (its io); NULL below level 4. */
const fti_l4_store *fti_l4_store_of(const fti_commit *c);

/* Chooses, once from ctx->cfg, the stores of levels 4, FTI_L4_DCP and
 * FTI_L4_H5_SINGLE into ctx->l4 (NULL where the config enables none). */
void fti_l4_stores_choose(fti_ctx *ctx);

/* The store that copies a local file of level 1-3 to the global file
 * system (keep_last_ckpt): level 4's, or POSIX where level 4's is written
 * directly only (HDF5). */
const fti_l4_store *fti_l4_store_from_local(const fti_ctx *ctx);

/* The stub that stands for a store this build lacks (l4_store_stub.c):
 * every hook fails naming the config key or the checkpoint's file. */
const fti_l4_store *fti_l4_store_stub(fti_l4_kind_id id);

/* The stores, each beside its writer (l4_pfs.c, l4_mpiio.c, dcp.c,
 * hdf5/h5_store.c); the table in l4_store.c holds the built ones and points
 * only down to them. What they share is in l4_common.h. */
extern const fti_l4_store fti_l4_posix_store, fti_l4_posix_dcp_store, fti_l4_mpiio_store,
    fti_l4_dcp_store, fti_l4_h5_store, fti_l4_h5_shared_store;

/* After L4 checkpoint c committed: every other store removes its files of
 * the slot c took (a slot holds one checkpoint's files). */
void fti_l4_stores_clear_slot(fti_ctx *ctx, const fti_commit *c);

#endif /* FTI_L4_STORE_H */
