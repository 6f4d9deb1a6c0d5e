/*
 * h5_convert.h - an HDF5 checkpoint (ckpt_io = 5) turned back into the
 * rank's ordinary checkpoint file: the restart's path and fti-ckpt's. No
 * HDF5 type appears here, so its callers build the same with or without
 * HDF5: h5_file.c defines it where HDF5 is built, h5_none.c (a refusal
 * naming the file) where it is not.
 */
#ifndef FTI_H5_CONVERT_H
#define FTI_H5_CONVERT_H

#include "base/error.h"
#include "format/meta.h"

/* Not collective: writes to `out` the checkpoint file of rank's HDF5 file
 * `file` of commit c and verifies it (every checksum); `out` is removed on
 * failure. FTI_E_UNSUPPORTED in a build without HDF5. */
fti_err fti_h5_to_ckpt_file(const char *file, const char *out, const fti_commit *c, int rank);

#endif /* FTI_H5_CONVERT_H */
