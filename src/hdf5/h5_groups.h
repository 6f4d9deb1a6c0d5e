/*
 * h5_groups.h - FTI's HDF5 group API (FTI_InitGroup, FTI_RenameGroup) and
 * FTI_DefineDataset: where each protected variable goes in an HDF5
 * checkpoint (ckpt_io = 5). Bookkeeping only; h5_file.c writes the files.
 */
#ifndef FTI_H5_GROUPS_H
#define FTI_H5_GROUPS_H

#include "error.h"
#include "fti.h"

typedef struct fti_h5_place {
    int var_id;
    int group;        /* index into groups; 0 is the root */
} fti_h5_place;

typedef struct fti_h5_groups {
    FTIT_H5Group *groups; /* the library's copies; [0] is the root "/" */
    int ngroups;
    fti_h5_place *places;
    int nplaces;
} fti_h5_groups;

/* Creates `name` under parent (NULL: the root) and fills *g. */
fti_err fti_h5_group_init(fti_h5_groups *h, FTIT_H5Group *g, const char *name,
                          const FTIT_H5Group *parent);
fti_err fti_h5_group_rename(fti_h5_groups *h, FTIT_H5Group *g, const char *name);

/* Variable var_id goes into group g (NULL: the root). */
fti_err fti_h5_place_var(fti_h5_groups *h, int var_id, const FTIT_H5Group *g);

/* The full path of the group of var_id ("" for the root). */
const char *fti_h5_var_group(const fti_h5_groups *h, int var_id);

void fti_h5_groups_free(fti_h5_groups *h);

#endif /* FTI_H5_GROUPS_H */
