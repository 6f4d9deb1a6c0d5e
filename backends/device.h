/*
 * device.h - the device backend interface: where protected bytes live when
 * they are not plain host memory (CUDA, XRT, the emulated device).
 *
 * A backend is one ops table; the capture pipeline (src/capture.c) and the
 * checkpoint logic are written once against it. A device region is named by
 * an opaque handle (a CUDA device pointer, an XRT buffer object, an emulated
 * allocation) plus a byte offset.
 */
#ifndef FTI_DEVICE_H
#define FTI_DEVICE_H

#include <stddef.h>

#define FTI_DEVICE_OPS_VERSION 1

/* What a backend knows about a pointer it owns. */
typedef struct fti_devptr_info {
    int device;        /* device ordinal the memory lives on */
    int host_readable; /* 1 when the CPU may read it directly (managed, pinned host) */
} fti_devptr_info;

typedef struct fti_device_ops {
    int version;      /* FTI_DEVICE_OPS_VERSION */
    const char *name; /* "cuda", "emu", "xrt" */

    /* 1 when ptr is device memory of this backend (fills *info), else 0.
     * Must be cheap and must not fail for foreign pointers. */
    int (*owns)(const void *ptr, fti_devptr_info *info);

    /* Streams: independent queues of asynchronous copies. */
    int (*stream_create)(void **stream);
    void (*stream_destroy)(void *stream);
    int (*stream_sync)(void *stream);

    /* Page-locked host buffers for the copy pipeline. */
    int (*host_alloc)(void **p, size_t n);
    void (*host_free)(void *p);

    /* Asynchronous copies of n bytes at byte offset off of handle. */
    int (*to_host)(void *stream, void *dst, const void *handle, size_t off, size_t n);
    int (*to_device)(void *stream, void *handle, size_t off, const void *src, size_t n);

    /* Human-readable cause of the last failure of this backend (thread-local). */
    const char *(*last_error)(void);
} fti_device_ops;

/* The backends compiled into this build, NULL-terminated, host excluded. */
const fti_device_ops *const *fti_device_backends(void);

/* The backend owning ptr, or NULL for plain host memory. */
const fti_device_ops *fti_device_lookup(const void *ptr, fti_devptr_info *info);

/* The backend called name, or NULL when it was not built. */
const fti_device_ops *fti_device_by_name(const char *name);

#endif /* FTI_DEVICE_H */
