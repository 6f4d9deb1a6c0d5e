/*
 * h5_file.h - HDF5 checkpoints (ckpt_io = 5, built only with HDF5): at level
 * 4 each rank writes its protected variables straight to one HDF5 file on
 * the global file system, one dataset per variable, typed with HDF5 types
 * derived from ours (composite types as compound types). A restart turns
 * the file back into the rank's ordinary checkpoint file, checking each
 * variable's XXH3 checksum (stored as an attribute).
 */
#ifndef FTI_H5_FILE_H
#define FTI_H5_FILE_H

#include <hdf5.h>
#include <stdint.h>

#include "core/context.h"
#include "stores/hdf5/h5_convert.h"


/* Our type as an HDF5 type (predefined: native; composite: compound;
 * FTI_InitType: opaque); the caller closes it; -1 when unknown. */
hid_t fti_h5_type(const fti_registry *reg, int type);

/* Not collective: writes this rank's file of checkpoint c (temporary name,
 * fsync, rename). *bytes: the file's size. */
fti_err fti_h5_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes);

/* A scalar attribute `name` of HDF5 type `type` on obj; 0 or -1. */
int fti_h5_put_attr(hid_t obj, const char *name, hid_t type, const void *v);
/* Reads the attribute `name` of obj as `type` into v; 0 or -1. */
int fti_h5_get_attr(hid_t obj, const char *name, hid_t type, void *v);

/* The file's root attribute fti_nonce (the commit's nonce, docs/FORMAT.md)
 * into *nonce; 0 when the file has none (written before nonces). -1 when it
 * cannot be read. */
int fti_h5_get_nonce(hid_t f, uint64_t *nonce);

/* fti_h5_to_ckpt_file, the conversion back (restart, fti-ckpt): h5_convert.h. */

#endif /* FTI_H5_FILE_H */
