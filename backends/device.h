/*
 * device.h - the device backend interface: where protected bytes live when
 * they are not plain host memory (CUDA, XRT, the emulated device).
 *
 * A backend is one ops table; the capture pipeline (src/data/capture.c) and the
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

    /* 1 when ptr is device memory of this backend (fills *info), 0 when it
     * is not, -1 when it is but cannot be checkpointed (a device this
     * process cannot use, an unusable runtime): last_error says why. Must be
     * cheap and must not fail for foreign pointers. */
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

    /* Optional (NULL: the backend has no application work to wait for).
     * Makes the copies queued next on `stream` start only after the device
     * work the application submitted so far, which may still write or read
     * `handle`: a checkpoint then sees what the application's kernels
     * wrote, and a recovery does not race them. Does not block the host. */
    int (*order_after_app)(void *stream, const void *handle);
} fti_device_ops;

/* A backend's table, built from its functions named <prefix>_owns,
 * <prefix>_stream_create, ... (one naming rule for every backend).
 * stream_destroy and order_after_app are given: backends built on the
 * stream queue share its destroy, and order_after_app may be NULL. */
#define FTI_DEVICE_OPS_TABLE(label, prefix, destroy, order_after)                                  \
    {                                                                                              \
        .version = FTI_DEVICE_OPS_VERSION, .name = (label), .owns = prefix##_owns,                 \
        .stream_create = prefix##_stream_create, .stream_destroy = (destroy),                      \
        .stream_sync = prefix##_stream_sync, .host_alloc = prefix##_host_alloc,                    \
        .host_free = prefix##_host_free, .to_host = prefix##_to_host,                              \
        .to_device = prefix##_to_device, .last_error = prefix##_last_error,                        \
        .order_after_app = (order_after),                                                          \
    }

/* The backends compiled into this build, NULL-terminated, host excluded. */
const fti_device_ops *const *fti_device_backends(void);

/* The backend owning ptr, or NULL for plain host memory (or memory a
 * backend claims but cannot checkpoint: see fti_device_classify). */
const fti_device_ops *fti_device_lookup(const void *ptr, fti_devptr_info *info);

/* 1 when the host can read the first of the n bytes at ptr, 0 when it
 * cannot (device memory, unmapped); NULL or n 0 count as readable. */
int fti_device_host_readable(const void *ptr, size_t n);

/* What FTI_Protect needs to know about the n bytes at ptr: *ops is the
 * backend owning them, or NULL for host memory. Returns 0, or -1 with a
 * message in err when they can be checkpointed neither way: a backend
 * claims them but cannot copy them, or no backend claims them and the host
 * cannot read them (device memory while its runtime is absent or broken),
 * which would otherwise crash the checkpoint. */
int fti_device_classify(const void *ptr, size_t n, const fti_device_ops **ops,
                        fti_devptr_info *info, char *err, size_t errlen);

/* The backend called name: built in first, then registered. NULL when
 * there is none. */
const fti_device_ops *fti_device_by_name(const char *name);

/* Adds a backend built outside libfti (the XRT backend compiled against the
 * XRT emulation library, in tests and examples) to those found by name.
 * Call before any other thread uses the library (e.g. from a constructor).
 * 0, or -1 when the table is full, the ops version differs, or the name is
 * already taken. */
int fti_device_register(const fti_device_ops *ops);

/* The names of every available backend, comma-separated, for messages. */
void fti_device_names(char *buf, size_t len);

#endif /* FTI_DEVICE_H */
