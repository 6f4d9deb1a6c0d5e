/*
 * h5_api.h - the library side of FTI's HDF5 group and dataset calls
 * (FTI_InitGroup, FTI_RenameGroup, FTI_DefineDataset live in h5_api.c).
 */
#ifndef FTI_H5_API_H
#define FTI_H5_API_H

#include "core/context.h"

/* Frees the groups and dataset places (FTI_Finalize, failed FTI_Init). */
void fti_h5_release(fti_ctx *ctx);

#endif /* FTI_H5_API_H */
