/*
 * h5_single.h - the shared HDF5 file of FTI_L4_H5_SINGLE checkpoints
 * (ckpt_io = 5, h5_single_file_enable = 1): every global dataset of
 * FTI_DefineGlobalDataset, each rank writing its variables' hyperslabs
 * (FTI_AddSubset) with parallel HDF5. A restart may run on any number of
 * ranks: each reads the hyperslabs of its own subsets.
 */
#ifndef FTI_H5_SINGLE_H
#define FTI_H5_SINGLE_H

#include <stdint.h>

#include "core/context.h"
#include "fti.h" /* FTI_L4_H5_SINGLE */


#ifdef FTI_HAVE_HDF5

/* Collective over the application ranks: writes the shared file of c
 * (temporary name, renamed by rank 0 once every rank wrote). *bytes: the
 * file's size on rank 0, 0 elsewhere. Every rank returns the same result. */
fti_err fti_h5s_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes);

/* Collective: the file of c exists and every subset written matches its
 * checksum (the ranks share the reading). */
fti_err fti_h5s_verify(fti_ctx *ctx, const fti_commit *c);

/* Local: reads variable v's subset from the file of the recovered
 * checkpoint. */
fti_err fti_h5s_read_var(fti_ctx *ctx, const fti_var *v);

/* Local: the dimensions of global dataset did in the recovered checkpoint. */
fti_err fti_h5s_dataset_dims(fti_ctx *ctx, int did);

#endif /* FTI_HAVE_HDF5 */

#endif /* FTI_H5_SINGLE_H */
