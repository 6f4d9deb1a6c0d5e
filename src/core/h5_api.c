/*
 * h5_api.c - FTI_InitGroup, FTI_RenameGroup and FTI_DefineDataset. They
 * place protected variables in the HDF5 checkpoints of ckpt_io = 5; in a
 * build without HDF5 they fail with a message, as ckpt_io = 5 does. The
 * context's table is freed by api.c through h5_groups.h, so api.c never
 * calls back into this file (which calls api.c's fti_api_ctx).
 */
#include <stdio.h>
#include <stdlib.h>

#include "fti.h"

#include "core/context.h"
#include "stores/hdf5/h5_groups.h"
#include "stores/hdf5/h5_single.h"
#include "format/l4_kind.h"
#include "base/log.h"

/* The live context with its group table, or NULL with the error recorded. */
static fti_ctx *h5_ctx(const char *fn)
{
    fti_ctx *ctx = fti_api_ctx(fn);
    if (ctx == NULL)
        return NULL;
#ifndef FTI_HAVE_HDF5
    fti_fail(FTI_E_UNSUPPORTED, "%s: HDF5 datasets (ckpt_io = 5) are not supported by this build "
             "(configured without hdf5-mpich); protected variables are checkpointed in our own "
             "format", fn);
    return NULL;
#else
    if (ctx->h5 == NULL && (ctx->h5 = calloc(1, sizeof *ctx->h5)) == NULL) {
        fti_fail(FTI_E_NOMEM, "%s: out of memory", fn);
        return NULL;
    }
    return ctx;
#endif
}

int FTI_InitGroup(FTIT_H5Group *h5group, const char *name, FTIT_H5Group *parent)
{
    fti_ctx *ctx = h5_ctx("FTI_InitGroup");
    if (ctx == NULL)
        return FTI_NSCS;
    return fti_h5_group_init(ctx->h5, h5group, name, parent) == FTI_E_OK ? FTI_SCES : FTI_NSCS;
}

int FTI_RenameGroup(FTIT_H5Group *h5group, const char *name)
{
    fti_ctx *ctx = h5_ctx("FTI_RenameGroup");
    if (ctx == NULL)
        return FTI_NSCS;
    return fti_h5_group_rename(ctx->h5, h5group, name) == FTI_E_OK ? FTI_SCES : FTI_NSCS;
}

/* Checks FTI_DefineDataset's shape against the protected count. */
static fti_err check_shape(const fti_var *v, int rank, const int64_t *dims)
{
    if (rank < 0 || rank > FTI_MAX_DIMS || (rank > 0 && dims == NULL))
        return fti_fail(FTI_E_ARG, "FTI_DefineDataset(%d): rank %d (0-%d, dimLength given when "
                        "> 0)", v->id, rank, FTI_MAX_DIMS);
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n *= dims[i] < 0 ? 0 : dims[i];
    if (rank > 0 && n != v->count)
        return fti_fail(FTI_E_ARG, "FTI_DefineDataset(%d): the dimensions hold %lld elements, the "
                        "variable %lld", v->id, (long long)n, (long long)v->count);
    return FTI_E_OK;
}

int (FTI_DefineDataset)(int id, int rank, int64_t *dimLength, const char *name,
                        FTIT_H5Group *h5group)
{
    fti_ctx *ctx = h5_ctx("FTI_DefineDataset");
    fti_var *v = ctx != NULL ? fti_registry_require(&ctx->reg, "FTI_DefineDataset", id) : NULL;
    if (v == NULL)
        return FTI_NSCS;
    if (check_shape(v, rank, dimLength) != FTI_E_OK ||
        fti_h5_place_var(ctx->h5, id, h5group) != FTI_E_OK)
        return FTI_NSCS;
    if (name != NULL && name[0] != '\0')
        fti_var_set_name(v, name);
    v->ndims = rank;
    for (int i = 0; i < rank; i++)
        v->dims[i] = dimLength[i];
    return FTI_SCES;
}

/* ---- global datasets (FTI_L4_H5_SINGLE) --------------------------------------- */

int FTI_DefineGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength, const char *name,
                            FTIT_H5Group *h5group, fti_id_t tid)
{
    fti_ctx *ctx = h5_ctx("FTI_DefineGlobalDataset");
    if (ctx == NULL)
        return FTI_NSCS;
    if (fti_registry_type(&ctx->reg, tid) == NULL) {
        fti_fail(FTI_E_ARG, "FTI_DefineGlobalDataset(%d): unknown type %d", id, tid);
        return FTI_NSCS;
    }
    fti_err e = fti_h5_global_define(ctx->h5, id, rank, dimLength, name, h5group, tid);
    return e == FTI_E_OK ? FTI_SCES : FTI_NSCS;
}

static int set_subset(const char *fn, int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count,
                      int did, int update)
{
    fti_ctx *ctx = h5_ctx(fn);
    if (ctx == NULL)
        return FTI_NSCS;
    if (fti_registry_require(&ctx->reg, fn, id) == NULL)
        return FTI_NSCS;
    fti_err e = fti_h5_subset_set(ctx->h5, id, rank, offset, count, did, update);
    return e == FTI_E_OK ? FTI_SCES : FTI_NSCS;
}

int FTI_AddSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did)
{
    return set_subset("FTI_AddSubset", id, rank, offset, count, did, 0);
}

int FTI_UpdateSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did)
{
    return set_subset("FTI_UpdateSubset", id, rank, offset, count, did, 1);
}

int FTI_UpdateGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength)
{
    fti_ctx *ctx = h5_ctx("FTI_UpdateGlobalDataset");
    if (ctx == NULL)
        return FTI_NSCS;
    return fti_h5_global_update(ctx->h5, id, rank, dimLength) == FTI_E_OK ? FTI_SCES : FTI_NSCS;
}

/* The dataset did, or NULL with the error recorded. */
static fti_h5_global *global_of(const char *fn, int did)
{
    fti_ctx *ctx = h5_ctx(fn);
    fti_h5_global *g = ctx != NULL ? fti_h5_global_find(ctx->h5, did) : NULL;
    if (ctx != NULL && g == NULL)
        fti_fail(FTI_E_ARG, "%s: dataset %d is not defined (FTI_DefineGlobalDataset)", fn, did);
    return g;
}

int FTI_GetDatasetRank(int did)
{
    fti_h5_global *g = global_of("FTI_GetDatasetRank", did);
    return g != NULL ? g->ndims : FTI_NSCS;
}

/* The dimensions live in the library until FTI_Finalize or the next update. */
FTIT_hsize_t *FTI_GetDatasetSpan(int did, int rank)
{
    fti_h5_global *g = global_of("FTI_GetDatasetSpan", did);
    if (g != NULL && rank != g->ndims) {
        fti_fail(FTI_E_ARG, "FTI_GetDatasetSpan(%d): rank %d, the dataset has %d", did, rank,
                 g->ndims);
        return NULL;
    }
    return g != NULL ? g->dims : NULL;
}

/* Only the shared HDF5 file of level 9 keeps the dimensions of the global
 * datasets: a restart from another store's checkpoint is refused naming
 * the checkpoint and its store (FTI_E_STATE), else FTI_E_OK. */
static fti_err not_from_shared_file(const fti_ctx *ctx, int did)
{
    const fti_commit *c = &ctx->rec.chosen;
    const fti_l4_kind *k = fti_l4_kind_of(c);
    if (!ctx->rec.available)
        return fti_fail(FTI_E_STATE, "FTI_RecoverDatasetDimension(%d): this run restores no "
                        "checkpoint (FTI_Status() is 0)", did);
    if (k != NULL && k->dataset_dims)
        return FTI_E_OK;
    char store[160];
    snprintf(store, sizeof store, "%s%s%s", k != NULL ? k->name : "local files",
             k != NULL ? ", " : "", k != NULL ? k->config : "");
    return fti_fail(FTI_E_STATE, "FTI_RecoverDatasetDimension(%d): checkpoint #%llu is of level "
                    "%d (%s), not in the shared HDF5 file of level 9 (FTI_L4_H5_SINGLE), the "
                    "only one that keeps the dimensions of global datasets", did,
                    (unsigned long long)c->seq, fti_commit_shown_level(c), store);
}

int FTI_RecoverDatasetDimension(int did)
{
    fti_ctx *ctx = h5_ctx("FTI_RecoverDatasetDimension");
    if (ctx == NULL || not_from_shared_file(ctx, did) != FTI_E_OK)
        return FTI_NSCS;
#ifdef FTI_HAVE_HDF5
    return fti_h5s_dataset_dims(ctx, did) == FTI_E_OK ? FTI_SCES : FTI_NSCS;
#else
    return FTI_NSCS; /* not reached: h5_ctx refused */
#endif
}
