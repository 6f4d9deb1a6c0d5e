/*
 * l4_store.c - the table of L4 stores (l4_store.h): each kind's ops, the
 * built store or its stub, and the choice of the stores from the config.
 */
#include "stores/l4_store.h"

#include "fti.h" /* FTI_L4_DCP, FTI_L4_H5_SINGLE */

const fti_l4_store *fti_l4_store_by_id(fti_l4_kind_id id)
{
    static const fti_l4_store *const stores[FTI_L4K_COUNT] = {
        [FTI_L4K_POSIX] = &fti_l4_posix_store,
        [FTI_L4K_MPIIO] = &fti_l4_mpiio_store,
        [FTI_L4K_DCP] = &fti_l4_dcp_store,
#ifdef FTI_HAVE_HDF5
        [FTI_L4K_H5] = &fti_l4_h5_store,
        [FTI_L4K_H5_SHARED] = &fti_l4_h5_shared_store,
#endif
    };
    return stores[id] != NULL ? stores[id] : fti_l4_store_stub(id);
}

const fti_l4_store *fti_l4_store_of(const fti_commit *c)
{
    const fti_l4_kind *k = fti_l4_kind_of(c);
    return k == NULL ? NULL : fti_l4_store_by_id(k->id);
}

void fti_l4_stores_choose(fti_ctx *ctx)
{
    const int levels[3] = {4, FTI_L4_DCP, FTI_L4_H5_SINGLE};
    for (int i = 0; i < 3; i++) {
        const fti_l4_kind *k = fti_l4_kind_for(&ctx->cfg, levels[i]);
        ctx->l4[levels[i]] = k == NULL ? NULL : fti_l4_store_by_id(k->id);
    }
    /* a full checkpoint while dCP is on makes the dCP layers obsolete */
    if (ctx->l4[FTI_L4_DCP] != NULL)
        ctx->l4[4] = &fti_l4_posix_dcp_store;
}

const fti_l4_store *fti_l4_store_from_local(const fti_ctx *ctx)
{
    const fti_l4_store *st = ctx->l4[4];
    return st != NULL && st->post != NULL ? st : &fti_l4_posix_store;
}

/* L4 checkpoint c took slot c->slot of level 4: the files another store
 * left in that slot are the dropped checkpoint's (c's own store wrote over
 * its own names). Each store removes its files of the slot; dCP's layers
 * have no slot and go by their own rule. Local, after the commit. */
void fti_l4_stores_clear_slot(fti_ctx *ctx, const fti_commit *c)
{
    const fti_l4_kind *mine = fti_l4_kind_of(c);
    if (mine == NULL)
        return;
    for (int k = 0; k < FTI_L4K_COUNT; k++) {
        const fti_l4_store *st = fti_l4_store_by_id((fti_l4_kind_id)k);
        if (k != (int)mine->id && st->remove != NULL)
            st->remove(ctx, c->slot);
    }
}
