/*
 * h5_none.c - the HDF5 conversion of a build without HDF5 (compiled instead
 * of h5_file.c): an HDF5 checkpoint committed by another build is refused
 * naming its file, so fti-ckpt and the library need no #ifdef around it.
 */
#include "stores/hdf5/h5_convert.h"

#include "base/log.h"

fti_err fti_h5_to_ckpt_file(const char *file, const char *out, const fti_commit *c, int rank)
{
    (void)out, (void)rank;
    return fti_fail(FTI_E_UNSUPPORTED, "checkpoint #%llu: %s is an HDF5 checkpoint (ckpt_io = 5): "
                    "this build has no HDF5 support to read it", (unsigned long long)c->seq, file);
}
