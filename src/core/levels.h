/*
 * levels.h - what each level adds to the local (L1) file of a checkpoint:
 * L2 a copy on the partner node, L3 Reed-Solomon parity across the group,
 * L4 a copy on the global file system. One file per level; recovery asks
 * them, cheapest first, to rebuild what is lost.
 */
#ifndef FTI_LEVELS_H
#define FTI_LEVELS_H

#include "core/context.h"
#include "base/fault.h"
#include "levels/ring.h"

typedef struct fti_level_ops {
    int level;
    const char *name;
    /* The fault-injection phase of its post-processing (FTI_FAULT): the
     * caller's fti_fault_phase before `post`, the level's fti_fault_wrote
     * after each file it writes. */
    fti_phase phase;
    /* Collective over `ring` (application ranks, or the heads of the group's
     * nodes): after every rank wrote its local file of checkpoint c. This
     * member handles the files of ring->app_rank[ring->pos]. Returns this
     * member's result. */
    fti_err (*post)(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring);
    /* Collective: own_ok says whether this rank's local file of c is valid.
     * Rebuilds a lost local file at fti_path_rebuilt (never over the local
     * file); returns FTI_E_OK on this rank when its local file is valid or
     * was rebuilt there and verified. Sets ctx->rec.extra_ok (this rank's
     * partner copy or parity file is valid). Writes nothing else. Must
     * not hang when other ranks fail. */
    fti_err (*rebuild)(fti_ctx *ctx, const fti_commit *c, int own_ok);
    /* Collective, after every rank's local file of c is in place (the
     * checkpoint was chosen): re-creates this level's lost extra files
     * (partner copies, parity). With may_defer, the level may leave that
     * to a later call (returns 1: the caller calls again, without
     * may_defer, at the next checkpoint or FTI_Finalize) while c still
     * survives the loss of one more node. NULL when there are none to
     * re-create. */
    int (*reprotect)(fti_ctx *ctx, const fti_commit *c, int may_defer);
    /* Local: c was not chosen; removes what a crashed reprotect may have
     * left beside the extra files. NULL when reprotect writes none there. */
    void (*discard)(fti_ctx *ctx, const fti_commit *c);
    /* Removes this level's extra files for `slot` (local; keep_last_ckpt=0). */
    void (*remove)(fti_ctx *ctx, int slot);
} fti_level_ops;

/* The ops of level 2-4, or NULL. A registry only: the levels never call it. */
const fti_level_ops *fti_level(int level);

extern const fti_level_ops fti_l2_ops, fti_l3_ops, fti_l4_ops;

#endif /* FTI_LEVELS_H */
