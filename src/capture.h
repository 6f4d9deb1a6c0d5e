/*
 * capture.h - the device capture pipeline: device memory to a checkpoint file
 * and back, in chunks through pinned host buffers on separate streams, so
 * that the copy of chunk i+1 overlaps the write of chunk i. Generic over the
 * device interface (backends/device.h); checksums are computed on the host
 * chunks on the way.
 */
#ifndef FTI_CAPTURE_H
#define FTI_CAPTURE_H

#include <stddef.h>
#include <sys/types.h>

#include "device.h"
#include "integrity.h"

/* Writes n bytes of device region `handle` to fd at offset `off`, using
 * pinned buffers of `bufsize` bytes (at least two), updating *hash.
 * Returns 0, or -1 with a message naming the backend and its error in err. */
int fti_capture_to_file(const fti_device_ops *ops, const void *handle, size_t n, int fd,
                        off_t off, size_t bufsize, fti_hash *hash, char *err, size_t errlen);

/* Reads n bytes from fd at `off` into device region `handle` (the reverse
 * pipeline), updating *hash with the bytes read. Returns 0 or -1 (err). */
int fti_capture_from_file(const fti_device_ops *ops, void *handle, size_t n, int fd, off_t off,
                          size_t bufsize, fti_hash *hash, char *err, size_t errlen);

#endif /* FTI_CAPTURE_H */
