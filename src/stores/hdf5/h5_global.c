/*
 * h5_global.c - FTI_DefineGlobalDataset / FTI_AddSubset bookkeeping: the
 * datasets of the shared HDF5 file and which hyperslab of which dataset
 * each protected variable is. h5_single.c writes and reads them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stores/hdf5/h5_groups.h"
#include "base/log.h"

fti_h5_global *fti_h5_global_find(fti_h5_groups *h, int id)
{
    for (int i = 0; i < h->nglobals; i++)
        if (h->globals[i].id == id)
            return &h->globals[i];
    return NULL;
}

static fti_err check_dims(const char *fn, int id, int ndims, const FTIT_hsize_t *dims)
{
    if (ndims < 1 || ndims > FTI_H5_MAXDIM || dims == NULL)
        return fti_fail(FTI_E_ARG, "%s(%d): rank %d (1-%d, dimLength given)", fn, id, ndims,
                        FTI_H5_MAXDIM);
    return FTI_E_OK;
}

fti_err fti_h5_global_define(fti_h5_groups *h, int id, int ndims, const FTIT_hsize_t *dims,
                             const char *name, const FTIT_H5Group *g, int type)
{
    fti_err e = check_dims("FTI_DefineGlobalDataset", id, ndims, dims);
    if (e == FTI_E_OK && (e = fti_h5_groups_ready(h)) != FTI_E_OK)
        return e;
    if (e != FTI_E_OK)
        return e;
    if (fti_h5_global_find(h, id) != NULL || name == NULL || name[0] == '\0' ||
        strchr(name, '/') != NULL || (g != NULL && (g->id < 0 || g->id >= h->ngroups)))
        return fti_fail(FTI_E_ARG, "FTI_DefineGlobalDataset(%d): id already taken, empty name or "
                        "with '/', or a group not made by FTI_InitGroup", id);
    fti_h5_global *grown = realloc(h->globals, (size_t)(h->nglobals + 1) * sizeof *grown);
    if (grown == NULL)
        return fti_fail(FTI_E_NOMEM, "FTI_DefineGlobalDataset: out of memory");
    h->globals = grown;
    fti_h5_global *d = &h->globals[h->nglobals++];
    memset(d, 0, sizeof *d);
    d->id = id;
    d->ndims = ndims;
    d->group = g != NULL ? g->id : 0;
    d->type = type;
    memcpy(d->dims, dims, (size_t)ndims * sizeof *dims);
    snprintf(d->name, sizeof d->name, "%s", name);
    return FTI_E_OK;
}

fti_err fti_h5_global_update(fti_h5_groups *h, int id, int ndims, const FTIT_hsize_t *dims)
{
    fti_h5_global *d = fti_h5_global_find(h, id);
    fti_err e = check_dims("FTI_UpdateGlobalDataset", id, ndims, dims);
    if (e != FTI_E_OK)
        return e;
    if (d == NULL || d->ndims != ndims)
        return fti_fail(FTI_E_ARG, "FTI_UpdateGlobalDataset(%d): no such dataset, or rank %d "
                        "differs from its definition", id, ndims);
    memcpy(d->dims, dims, (size_t)ndims * sizeof *dims);
    return FTI_E_OK;
}

const fti_h5_subset *fti_h5_subset_of(const fti_h5_groups *h, int var_id)
{
    for (int i = 0; i < h->nsubsets; i++)
        if (h->subsets[i].var_id == var_id)
            return &h->subsets[i];
    return NULL;
}

fti_err fti_h5_subset_set(fti_h5_groups *h, int var_id, int ndims, const FTIT_hsize_t *offset,
                          const FTIT_hsize_t *count, int did, int update)
{
    const char *fn = update ? "FTI_UpdateSubset" : "FTI_AddSubset";
    fti_h5_global *d = fti_h5_global_find(h, did);
    if (d == NULL || ndims != d->ndims || offset == NULL || count == NULL)
        return fti_fail(FTI_E_ARG, "%s(%d): dataset %d not defined, or rank %d differs from it",
                        fn, var_id, did, ndims);
    fti_h5_subset *s = (fti_h5_subset *)fti_h5_subset_of(h, var_id);
    if (s != NULL && !update)
        return fti_fail(FTI_E_ARG, "FTI_AddSubset(%d): the variable already has a subset "
                        "(FTI_UpdateSubset changes it)", var_id);
    if (s == NULL) {
        fti_h5_subset *grown = realloc(h->subsets, (size_t)(h->nsubsets + 1) * sizeof *grown);
        if (grown == NULL)
            return fti_fail(FTI_E_NOMEM, "%s: out of memory", fn);
        h->subsets = grown;
        s = &h->subsets[h->nsubsets++];
    }
    memset(s, 0, sizeof *s);
    s->var_id = var_id;
    s->did = did;
    s->ndims = ndims;
    memcpy(s->offset, offset, (size_t)ndims * sizeof *offset);
    memcpy(s->count, count, (size_t)ndims * sizeof *count);
    return FTI_E_OK;
}

void fti_h5_global_path(const fti_h5_groups *h, const fti_h5_global *g, char *out, size_t n)
{
    snprintf(out, n, "%s/%s", h->groups[g->group].fullName, g->name);
}
