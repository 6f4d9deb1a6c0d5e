/*
 * api_compat.c - FTI 1.6's forms of FTI_DefineDataset and FTI_AddVectorField,
 * whose dimension arrays are int where master's (our exported symbols) are
 * int64_t. fti.h routes a call with an int array here (C _Generic, C++
 * overloads); each widens the array and calls the master form, which
 * validates everything.
 */
#include <stdint.h>

#include "fti.h"

/* FTIT_shape's limit: no call of either form takes more dimensions. */
#define COMPAT_MAX_DIMS 32

/* Widens n ints into out; NULL when there is nothing to widen or n is out of
 * range, so that the master form rejects the call with its own message. */
static int64_t *widen(const int *dims, int n, int64_t out[COMPAT_MAX_DIMS])
{
    if (dims == NULL || n <= 0 || n > COMPAT_MAX_DIMS)
        return NULL;
    for (int i = 0; i < n; i++)
        out[i] = dims[i];
    return out;
}

int fti_compat_define_dataset_int(int id, int rank, int *dimLength, const char *name,
                                  FTIT_H5Group *h5group)
{
    int64_t wide[COMPAT_MAX_DIMS];
    return (FTI_DefineDataset)(id, rank, widen(dimLength, rank, wide), name, h5group);
}

int fti_compat_add_vector_field_int(fti_id_t id, const char *name, fti_id_t tid, int64_t offset,
                                    int ndims, int *dims)
{
    int64_t wide[COMPAT_MAX_DIMS];
    return (FTI_AddVectorField)(id, name, tid, offset, ndims, widen(dims, ndims, wide));
}
