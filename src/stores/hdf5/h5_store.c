/*
 * h5_store.c - the two HDF5 L4 stores (stores/l4_store.h), built only with
 * HDF5: one file per rank (ckpt_io = 5, h5_file.c) and the shared file of
 * level 9 (h5_single.c). Both are written directly from the variables. Apart
 * from h5_file.c so that fti-ckpt, which converts HDF5 files too, links none
 * of the MPI-using stores.
 */
#include <unistd.h>

#include "stores/hdf5/h5_file.h"
#include "stores/hdf5/h5_single.h"
#include "stores/l4_common.h"
#include "stores/l4_store.h"

static int always(fti_ctx *ctx, const fti_commit *c)
{
    (void)ctx, (void)c;
    return 1;
}

/* This rank's HDF5 file of c, converted into a checkpoint file at the
 * temporary the recovery adopts. */
static fti_err h5_restore(fti_ctx *ctx, const fti_commit *c)
{
    int rank = ctx->topo.app_rank;
    char file[FTI_PATH_MAX], local[FTI_PATH_MAX];
    fti_path_global_h5(&ctx->dirs, file, c->slot, rank);
    fti_path_rebuilt(&ctx->dirs, local, 4, c->slot, rank);
    fti_err e = fti_h5_to_ckpt_file(file, local, c, rank);
    if (e == FTI_E_OK)
        e = fti_l4_verify_restored(ctx, local, c, rank, "HDF5", file, NULL);
    if (e != FTI_E_OK)
        unlink(local);
    return e;
}

const fti_l4_store fti_l4_h5_store = {
    .kind = &fti_l4_kinds[FTI_L4K_H5], .direct = always, .write = fti_h5_write,
    .restore = h5_restore, .remove = fti_l4_h5_remove};

/* Collective, whatever this rank holds: the ranks share the checking; the
 * variables are read straight from the shared file. */
static fti_err h5s_verify(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    (void)own_ok;
    return fti_h5s_verify(ctx, c);
}

const fti_l4_store fti_l4_h5_shared_store = {
    .kind = &fti_l4_kinds[FTI_L4K_H5_SHARED], .direct = always, .write = fti_h5s_write,
    .verify = h5s_verify, .read_var = fti_h5s_read_var, .remove = fti_l4_h5s_remove};
