/*
 * device.c - the registry of device backends built into this library, and
 * pointer-to-backend lookup (see device.h).
 */
#include "device.h"

#include <string.h>

#include "emu/emu.h"
#ifdef FTI_HAVE_CUDA
#include "cuda/fti_cuda.h"
#endif
#ifdef FTI_HAVE_XRT
/* Defined by backends/xrt when XRT is found. */
extern const fti_device_ops fti_xrt_ops;
#endif

/* emu first: its owns() is a table lookup, while the first CUDA query can
 * initialise the CUDA runtime; the backends claim disjoint pointers, so the
 * order decides only the cost of a lookup. */
static const fti_device_ops *const backends[] = {
    &fti_emu_ops,
#ifdef FTI_HAVE_CUDA
    &fti_cuda_ops,
#endif
#ifdef FTI_HAVE_XRT
    &fti_xrt_ops,
#endif
    NULL,
};

const fti_device_ops *const *fti_device_backends(void)
{
    return backends;
}

const fti_device_ops *fti_device_lookup(const void *ptr, fti_devptr_info *info)
{
    fti_devptr_info scratch;
    if (info == NULL)
        info = &scratch;
    if (ptr == NULL)
        return NULL;
    for (size_t i = 0; backends[i] != NULL; i++)
        if (backends[i]->owns(ptr, info))
            return backends[i];
    return NULL;
}

const fti_device_ops *fti_device_by_name(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; backends[i] != NULL; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}
