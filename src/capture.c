/*
 * capture.c - the device capture pipeline (see capture.h).
 *
 * Checkpoint: chunk i+1 is copied device->host on one stream while chunk i,
 * already on the host, is hashed and written by this thread. Restore is the
 * mirror image: chunk i is read and hashed while chunk i-1 is copied
 * host->device. Two pinned buffers, one stream each, are enough for that
 * overlap; a buffer is reused only after its stream was synchronised.
 *
 * Every exit goes through pipe_close(), which waits for all in-flight copies
 * before freeing the buffers they target, so no stream is left busy.
 */
#include "capture.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fio.h"

/* Large files: offsets must be 64-bit (they are on every LP64 target). */
_Static_assert(sizeof(off_t) >= 8, "capture needs a 64-bit off_t");

#define PIPE_DEPTH 2

typedef struct pipe {
    const fti_device_ops *ops;
    void *stream[PIPE_DEPTH];
    void *buf[PIPE_DEPTH];
    int depth;      /* buffers/streams in use: 1 for a single chunk, else 2 */
    size_t chunk;   /* bytes per chunk */
    size_t nchunks;
    char *err;
    size_t errlen;
    int failed;     /* err already holds the first failure */
} pipe_t;

/* Records the first failure only: later ones are usually its consequences. */
static int pipe_error(pipe_t *p, const char *fmt, ...)
{
    if (!p->failed && p->err != NULL && p->errlen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err, p->errlen, fmt, ap);
        va_end(ap);
    }
    p->failed = 1;
    return -1;
}

/* A device call failed: name the backend and its own error string, which
 * must be read now, before another call of the backend replaces it. */
static int pipe_device_error(pipe_t *p, const char *what, size_t idx)
{
    return pipe_error(p, "capture: %s backend: %s (chunk %zu of %zu, %zu bytes each) failed: %s",
                      p->ops->name, what, idx, p->nchunks, p->chunk, p->ops->last_error());
}

static size_t chunk_len(const pipe_t *p, size_t idx, size_t n)
{
    size_t start = idx * p->chunk;
    return n - start < p->chunk ? n - start : p->chunk;
}

/* Waits for every stream, frees everything; safe on a half-opened pipe. */
static void pipe_close(pipe_t *p)
{
    for (int i = 0; i < p->depth; i++) {
        if (p->stream[i] == NULL)
            continue;
        if (p->ops->stream_sync(p->stream[i]) != 0)
            pipe_device_error(p, "stream_sync while closing", 0);
        p->ops->stream_destroy(p->stream[i]);
        p->stream[i] = NULL;
    }
    for (int i = 0; i < p->depth; i++) {
        if (p->buf[i] != NULL)
            p->ops->host_free(p->buf[i]);
        p->buf[i] = NULL;
    }
}

static int pipe_open(pipe_t *p, size_t n)
{
    p->nchunks = (n - 1) / p->chunk + 1;
    p->depth = p->nchunks > 1 ? PIPE_DEPTH : 1;
    size_t bytes = n < p->chunk ? n : p->chunk;
    for (int i = 0; i < p->depth; i++) {
        if (p->ops->host_alloc(&p->buf[i], bytes) != 0) {
            p->buf[i] = NULL;
            return pipe_device_error(p, "host_alloc of a pinned buffer", 0);
        }
        if (p->ops->stream_create(&p->stream[i]) != 0) {
            p->stream[i] = NULL;
            return pipe_device_error(p, "stream_create", 0);
        }
    }
    return 0;
}

static int check_args(pipe_t *p, const void *handle, size_t n, int fd, off_t off,
                      size_t bufsize)
{
    if (p->ops == NULL)
        return pipe_error(p, "capture: no device backend given");
    if (p->ops->version != FTI_DEVICE_OPS_VERSION)
        return pipe_error(p, "capture: %s backend has ops version %d, expected %d",
                          p->ops->name, p->ops->version, FTI_DEVICE_OPS_VERSION);
    if (handle == NULL && n > 0)
        return pipe_error(p, "capture: NULL %s device region of %zu bytes", p->ops->name, n);
    if (fd < 0)
        return pipe_error(p, "capture: invalid file descriptor %d", fd);
    if (bufsize == 0)
        return pipe_error(p, "capture: host buffer size (gpu_host_bufsize) must be > 0");
    if (off < 0 || (uint64_t)n > (uint64_t)INT64_MAX - (uint64_t)off)
        return pipe_error(p, "capture: file range of %zu bytes at offset %lld is out of range",
                          n, (long long)off);
    return 0;
}

static void pipe_init(pipe_t *p, const fti_device_ops *ops, size_t bufsize, char *err,
                      size_t errlen)
{
    memset(p, 0, sizeof *p);
    p->ops = ops;
    p->chunk = bufsize;
    p->err = err;
    p->errlen = errlen;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
}

/* ---- file I/O ------------------------------------------------------------- */

/* Through fio (EINTR and short transfers retried, fault points applied). */
static int write_full(pipe_t *p, int fd, const void *buf, size_t n, off_t off)
{
    if (fti_pwrite_full(fd, buf, n, off) != 0)
        return pipe_error(p, "capture: write of %zu bytes at file offset %lld failed: %s", n,
                          (long long)off, strerror(errno));
    return 0;
}

static int read_full(pipe_t *p, int fd, void *buf, size_t n, off_t off)
{
    if (fti_pread_full(fd, buf, n, off) != 0) {
        int e = errno;
        /* fio reports a file shorter than the region as EIO. */
        return pipe_error(p, "capture: read of %zu bytes at file offset %lld failed: %s%s", n,
                          (long long)off, strerror(e),
                          e == EIO ? " (I/O error, or the file ends before the region)" : "");
    }
    return 0;
}

/* ---- device -> file ------------------------------------------------------- */

static int copy_out(pipe_t *p, const void *handle, size_t idx, size_t n)
{
    int b = (int)(idx % (size_t)p->depth);
    if (p->ops->to_host(p->stream[b], p->buf[b], handle, idx * p->chunk,
                        chunk_len(p, idx, n)) != 0)
        return pipe_device_error(p, "device->host copy", idx);
    return 0;
}

/* Chunk idx is in flight: wait for it, hash it, write it. */
static int drain_out(pipe_t *p, size_t idx, size_t n, int fd, off_t off, fti_hash *hash)
{
    int b = (int)(idx % (size_t)p->depth);
    size_t len = chunk_len(p, idx, n);
    if (p->ops->stream_sync(p->stream[b]) != 0)
        return pipe_device_error(p, "device->host copy", idx);
    if (hash != NULL)
        fti_hash_update(hash, p->buf[b], len);
    return write_full(p, fd, p->buf[b], len, off + (off_t)(idx * p->chunk));
}

int fti_capture_to_file(const fti_device_ops *ops, const void *handle, size_t n, int fd,
                        off_t off, size_t bufsize, fti_hash *hash, char *err, size_t errlen)
{
    pipe_t p;
    pipe_init(&p, ops, bufsize, err, errlen);
    if (check_args(&p, handle, n, fd, off, bufsize) != 0)
        return -1;
    if (n == 0)
        return 0;
    int rc = pipe_open(&p, n);
    if (rc == 0)
        rc = copy_out(&p, handle, 0, n);
    for (size_t i = 0; rc == 0 && i < p.nchunks; i++) {
        /* Start the next copy first: it runs while this chunk is written. */
        if (i + 1 < p.nchunks)
            rc = copy_out(&p, handle, i + 1, n);
        if (rc == 0)
            rc = drain_out(&p, i, n, fd, off, hash);
    }
    pipe_close(&p);
    return p.failed ? -1 : 0;
}

/* ---- file -> device ------------------------------------------------------- */

/* Reads and hashes chunk idx into its buffer once the buffer's previous copy
 * (chunk idx - depth) is done, then starts the copy to the device. */
static int fill_in(pipe_t *p, void *handle, size_t idx, size_t n, int fd, off_t off,
                   fti_hash *hash)
{
    int b = (int)(idx % (size_t)p->depth);
    size_t len = chunk_len(p, idx, n);
    if (idx >= (size_t)p->depth && p->ops->stream_sync(p->stream[b]) != 0)
        return pipe_device_error(p, "host->device copy", idx - (size_t)p->depth);
    if (read_full(p, fd, p->buf[b], len, off + (off_t)(idx * p->chunk)) != 0)
        return -1;
    if (hash != NULL)
        fti_hash_update(hash, p->buf[b], len);
    if (p->ops->to_device(p->stream[b], handle, idx * p->chunk, p->buf[b], len) != 0)
        return pipe_device_error(p, "host->device copy", idx);
    return 0;
}

/* The last copies are still in flight: a restore is complete only once they
 * are, so their errors must be reported here rather than in pipe_close. */
static int finish_in(pipe_t *p)
{
    for (int b = 0; b < p->depth; b++) {
        size_t last = p->nchunks - 1;
        size_t idx = last - (last - (size_t)b) % (size_t)p->depth;
        if (p->ops->stream_sync(p->stream[b]) != 0)
            return pipe_device_error(p, "host->device copy", idx);
    }
    return 0;
}

int fti_capture_from_file(const fti_device_ops *ops, void *handle, size_t n, int fd, off_t off,
                          size_t bufsize, fti_hash *hash, char *err, size_t errlen)
{
    pipe_t p;
    pipe_init(&p, ops, bufsize, err, errlen);
    if (check_args(&p, handle, n, fd, off, bufsize) != 0)
        return -1;
    if (n == 0)
        return 0;
    int rc = pipe_open(&p, n);
    for (size_t i = 0; rc == 0 && i < p.nchunks; i++)
        rc = fill_in(&p, handle, i, n, fd, off, hash);
    if (rc == 0)
        finish_in(&p);
    pipe_close(&p);
    return p.failed ? -1 : 0;
}
