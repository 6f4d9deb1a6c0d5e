/*
 * capture.h - the device capture pipeline: device memory to a checkpoint file
 * and back, in chunks through pinned host buffers on separate streams, so
 * that the copy of chunk i+1 overlaps the write of chunk i. Generic over the
 * device interface (backends/device.h); checksums are computed on the host
 * chunks on the way.
 *
 * The pinned buffers and streams are kept between captures in a capture set
 * (one per backend), because pinning host memory (cudaHostAlloc) and
 * creating streams cost milliseconds each, and a checkpoint captures every
 * device variable again. The library keeps its sets in the context from the
 * first capture to FTI_Finalize.
 */
#ifndef FTI_CAPTURE_H
#define FTI_CAPTURE_H

#include <stddef.h>
#include <sys/types.h>

#include "device.h"
#include "base/integrity.h"

#define FTI_CAPTURE_DEPTH 2    /* buffers (and streams) in flight */
#define FTI_CAPTURE_MAX_SETS 4 /* backends with kept buffers; more get transient ones */

/* The pinned buffers and streams of one backend. Created empty; buffers and
 * streams appear on first use and grow, up to the chunk size
 * (gpu_host_bufsize), when a larger variable needs them. Between captures
 * every stream is idle. */
typedef struct fti_capture_set {
    /* A copy, not a pointer: the ops of a FTI_ProtectDevice view live in
     * the variable, which may be freed before the set is. */
    fti_device_ops ops;
    void *stream[FTI_CAPTURE_DEPTH];
    void *buf[FTI_CAPTURE_DEPTH];
    size_t cap[FTI_CAPTURE_DEPTH]; /* bytes of buf[i] */
} fti_capture_set;

/* The capture sets of one user (the library context), one per backend.
 * All-zero is a valid empty value. Not thread-safe: one capture at a time. */
typedef struct fti_capture_sets {
    fti_capture_set set[FTI_CAPTURE_MAX_SETS];
    int n;
} fti_capture_sets;

/* Destroys every stream and frees every buffer of s (streams are idle
 * between captures, so nothing is waited for); s is empty afterwards.
 * NULL is accepted. */
void fti_capture_sets_free(fti_capture_sets *s);

/* Writes n bytes of device region `handle` to fd at offset `off`, in chunks
 * of `bufsize` bytes (> 0) through the pinned buffers of ops' set in `sets`,
 * updating *hash (may be NULL). sets NULL: buffers and streams are made for
 * this call and freed before it returns. After a failure the set's buffers
 * and streams are freed too, so a device error cannot leave a broken stream
 * for the next checkpoint. Returns 0, or -1 with a message naming the
 * backend and its error in err. */
int fti_capture_to_file(fti_capture_sets *sets, const fti_device_ops *ops, const void *handle,
                        size_t n, int fd, off_t off, size_t bufsize, fti_hash *hash, char *err,
                        size_t errlen);

/* Copies n bytes of device region `handle` into host memory dst (pageable),
 * in chunks of `bufsize` bytes queued on the streams of ops' set in `sets`
 * (as fti_capture_to_file: ordered after the application's device work).
 * Returns 0 once every byte is in dst, or -1 (err). */
int fti_capture_to_memory(fti_capture_sets *sets, const fti_device_ops *ops, const void *handle,
                          size_t n, void *dst, size_t bufsize, char *err, size_t errlen);

/* Reads n bytes from fd at `off` into device region `handle` (the reverse
 * pipeline), updating *hash with the bytes read; sets as above. Returns 0,
 * once every byte is on the device, or -1 (err). */
int fti_capture_from_file(fti_capture_sets *sets, const fti_device_ops *ops, void *handle,
                          size_t n, int fd, off_t off, size_t bufsize, fti_hash *hash, char *err,
                          size_t errlen);

#endif /* FTI_CAPTURE_H */
