/*
 * h5_groups.h - FTI's HDF5 group API (FTI_InitGroup, FTI_RenameGroup) and
 * FTI_DefineDataset: where each protected variable goes in an HDF5
 * checkpoint (ckpt_io = 5). Bookkeeping only; h5_file.c writes the files.
 */
#ifndef FTI_H5_GROUPS_H
#define FTI_H5_GROUPS_H

#include "base/error.h"
#include "fti.h"

typedef struct fti_h5_place {
    int var_id;
    int group;        /* index into groups; 0 is the root */
} fti_h5_place;

#define FTI_H5_MAXDIM 32

/* FTI_DefineGlobalDataset: one dataset of the shared file (FTI_L4_H5_SINGLE). */
typedef struct fti_h5_global {
    int id, ndims, group, type;
    FTIT_hsize_t dims[FTI_H5_MAXDIM];
    char name[FTI_BUFS];
} fti_h5_global;

/* FTI_AddSubset: a protected variable is the hyperslab (offset, count) of
 * global dataset did. */
typedef struct fti_h5_subset {
    int var_id, did, ndims;
    FTIT_hsize_t offset[FTI_H5_MAXDIM], count[FTI_H5_MAXDIM];
} fti_h5_subset;

typedef struct fti_h5_groups {
    FTIT_H5Group *groups; /* the library's copies; [0] is the root "/" */
    int ngroups;
    fti_h5_place *places;
    int nplaces;
    fti_h5_global *globals;
    int nglobals;
    fti_h5_subset *subsets;
    int nsubsets;
} fti_h5_groups;

/* Creates `name` under parent (NULL: the root) and fills *g. */
fti_err fti_h5_group_init(fti_h5_groups *h, FTIT_H5Group *g, const char *name,
                          const FTIT_H5Group *parent);
fti_err fti_h5_group_rename(fti_h5_groups *h, FTIT_H5Group *g, const char *name);

/* Creates the root group on first use. */
fti_err fti_h5_groups_ready(fti_h5_groups *h);

/* Variable var_id goes into group g (NULL: the root). */
fti_err fti_h5_place_var(fti_h5_groups *h, int var_id, const FTIT_H5Group *g);

/* The full path of the group of var_id ("" for the root). */
const char *fti_h5_var_group(const fti_h5_groups *h, int var_id);

void fti_h5_groups_free(fti_h5_groups *h);
/* The table *h (NULL: none) and its contents freed, *h set to NULL: what
 * FTI_Finalize and a failed FTI_Init do with the context's table. */
void fti_h5_groups_release(fti_h5_groups **h);

/* ---- global datasets (h5_global.c) ---- */
fti_err fti_h5_global_define(fti_h5_groups *h, int id, int ndims, const FTIT_hsize_t *dims,
                             const char *name, const FTIT_H5Group *g, int type);
fti_err fti_h5_global_update(fti_h5_groups *h, int id, int ndims, const FTIT_hsize_t *dims);
fti_h5_global *fti_h5_global_find(fti_h5_groups *h, int id);
/* add: a new subset of var_id (error when it has one); update: replace it. */
fti_err fti_h5_subset_set(fti_h5_groups *h, int var_id, int ndims, const FTIT_hsize_t *offset,
                          const FTIT_hsize_t *count, int did, int update);
const fti_h5_subset *fti_h5_subset_of(const fti_h5_groups *h, int var_id);
/* The path of global dataset g in the shared file. */
void fti_h5_global_path(const fti_h5_groups *h, const fti_h5_global *g, char *out, size_t n);

#endif /* FTI_H5_GROUPS_H */
