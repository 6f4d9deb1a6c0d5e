/*
 * capture.c - the device capture pipeline (see capture.h).
 *
 * Both directions first order their streams after the application's
 * device work already submitted (pipe_order), as FTI's cudaMemcpy on the
 * legacy default stream is.
 *
 * Checkpoint: chunk i+1 is copied device->host on one stream while chunk i,
 * already on the host, is written by this thread and hashed by a second one
 * (hash_worker.h; with one CPU, hashed here a piece at a time). Restore is
 * the mirror image: chunk i is read and hashed while chunk i-1 is copied
 * host->device. Two pinned buffers, one stream each, are enough for that
 * overlap; a buffer is reused only after its stream was synchronised.
 *
 * The buffers and streams come from a capture set that outlives the call
 * (capture.h). Every exit goes through pipe_close(), which waits for all
 * in-flight copies, so between captures no stream is busy and no buffer is
 * the target of a copy: a kept set is safe to reuse, grow or free. A set
 * that saw a failure is emptied there, and rebuilt by its next use.
 */
#include "data/capture.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/hash_worker.h"
#include "base/hashed_io.h"

/* Large files: offsets must be 64-bit (they are on every LP64 target). */
_Static_assert(sizeof(off_t) >= 8, "capture needs a 64-bit off_t");

typedef struct pipe {
    const fti_device_ops *ops; /* the copies go through these (a view's own) */
    fti_capture_set *set;      /* buffers and streams: the caller's, or scratch */
    fti_capture_set scratch;   /* when the caller keeps none */
    int keep;                  /* set is the caller's: kept after a success */
    int depth;      /* buffers/streams in use: 1 for a single chunk, else 2 */
    size_t chunk;   /* bytes per chunk */
    size_t nchunks;
    char *err;
    size_t errlen;
    int failed;     /* err already holds the first failure */
    fti_hash_worker hasher; /* hashes a chunk while this thread moves it; not running:
                               this thread hashes (hashed_io) */
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

/* ---- capture sets ----------------------------------------------------------- */

/* Frees the set's streams and buffers, keeping its backend. Every stream
 * must be idle (pipe_close synchronised it); destroy would wait anyway. */
static void set_release(fti_capture_set *s)
{
    for (int i = 0; i < FTI_CAPTURE_DEPTH; i++) {
        if (s->stream[i] != NULL)
            s->ops.stream_destroy(s->stream[i]);
        s->stream[i] = NULL;
    }
    for (int i = 0; i < FTI_CAPTURE_DEPTH; i++) {
        if (s->buf[i] != NULL)
            s->ops.host_free(s->buf[i]);
        s->buf[i] = NULL;
        s->cap[i] = 0;
    }
}

void fti_capture_sets_free(fti_capture_sets *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < s->n; i++)
        set_release(&s->set[i]);
    memset(s, 0, sizeof *s);
}

/* Same backend: buffers and streams of one serve the other. A view of
 * FTI_ProtectDevice differs from its backend in the copies only. */
static int same_backend(const fti_device_ops *a, const fti_device_ops *b)
{
    return a->host_alloc == b->host_alloc && a->host_free == b->host_free &&
           a->stream_create == b->stream_create && a->stream_destroy == b->stream_destroy &&
           a->stream_sync == b->stream_sync && a->name != NULL && b->name != NULL &&
           strcmp(a->name, b->name) == 0;
}

/* The kept set of ops in sets, added when new; NULL when sets is full. */
static fti_capture_set *sets_find(fti_capture_sets *sets, const fti_device_ops *ops)
{
    for (int i = 0; i < sets->n; i++)
        if (same_backend(&sets->set[i].ops, ops))
            return &sets->set[i];
    if (sets->n == FTI_CAPTURE_MAX_SETS)
        return NULL;
    fti_capture_set *s = &sets->set[sets->n++];
    memset(s, 0, sizeof *s);
    s->ops = *ops;
    return s;
}

/* Uses the caller's set for ops, or a scratch set freed at pipe_close. */
static void pipe_attach(pipe_t *p, fti_capture_sets *sets)
{
    p->set = sets != NULL ? sets_find(sets, p->ops) : NULL;
    p->keep = p->set != NULL;
    if (p->set == NULL) {
        memset(&p->scratch, 0, sizeof p->scratch);
        p->scratch.ops = *p->ops;
        p->set = &p->scratch;
    }
}

/* Bytes to allocate for a kept buffer of `have` bytes that must hold `need`:
 * at least double (up to a chunk), so variables of growing sizes cost a few
 * allocations, not one each. A scratch buffer gets exactly `need`. */
static size_t grown_size(const pipe_t *p, size_t have, size_t need)
{
    size_t want = p->keep && have <= p->chunk / 2 ? 2 * have : have;
    if (want > p->chunk)
        want = p->chunk;
    return want > need ? want : need;
}

/* Buffer i holds at least `need` bytes afterwards. Its stream is idle (all
 * are between captures), so the old buffer can go at once. */
static int ensure_buffer(pipe_t *p, int i, size_t need)
{
    fti_capture_set *s = p->set;
    if (s->buf[i] != NULL && s->cap[i] >= need)
        return 0;
    size_t bytes = grown_size(p, s->cap[i], need);
    if (s->buf[i] != NULL)
        s->ops.host_free(s->buf[i]);
    s->buf[i] = NULL;
    s->cap[i] = 0;
    if (s->ops.host_alloc(&s->buf[i], bytes) != 0) {
        s->buf[i] = NULL;
        return pipe_device_error(p, "host_alloc of a pinned buffer", 0);
    }
    s->cap[i] = bytes;
    return 0;
}

static int ensure_stream(pipe_t *p, int i)
{
    fti_capture_set *s = p->set;
    if (s->stream[i] != NULL)
        return 0;
    if (s->ops.stream_create(&s->stream[i]) != 0) {
        s->stream[i] = NULL;
        return pipe_device_error(p, "stream_create", 0);
    }
    return 0;
}

/* ---- the pipeline ------------------------------------------------------------ */

/* Waits for every stream in use, so that none is busy between captures and
 * the buffers may be reused or freed; then frees the set unless the caller
 * keeps it and all went well. Safe on a half-opened pipe. */
static void pipe_close(pipe_t *p)
{
    fti_hash_worker_stop(&p->hasher); /* no buffer is read by it afterwards */
    for (int i = 0; i < p->depth; i++)
        if (p->set->stream[i] != NULL && p->set->ops.stream_sync(p->set->stream[i]) != 0)
            pipe_device_error(p, "stream_sync while closing", 0);
    if (!p->keep || p->failed)
        set_release(p->set);
}

static int pipe_open(pipe_t *p, size_t n)
{
    p->nchunks = (n - 1) / p->chunk + 1;
    p->depth = p->nchunks > 1 ? FTI_CAPTURE_DEPTH : 1;
    size_t bytes = n < p->chunk ? n : p->chunk;
    for (int i = 0; i < p->depth; i++)
        if (ensure_buffer(p, i, bytes) != 0 || ensure_stream(p, i) != 0)
            return -1;
    return 0;
}

/* Orders every stream in use after the application's outstanding device
 * work on handle (device.h, order_after_app): a checkpoint must not copy
 * what a kernel is still writing, and a restore must not be overwritten by
 * one. */
static int pipe_order(pipe_t *p, const void *handle)
{
    if (p->ops->order_after_app == NULL)
        return 0;
    for (int i = 0; i < p->depth; i++)
        if (p->ops->order_after_app(p->set->stream[i], handle) != 0)
            return pipe_device_error(p, "ordering after the application's device work", 0);
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

/* What both directions do first: the arguments checked, the pipe attached
 * to sets. 1 when it is (pipe_close is then due), 0 when n is 0 (nothing to
 * copy), -1 on bad arguments (nothing to close). */
static int pipe_start(pipe_t *p, fti_capture_sets *sets, const void *handle, size_t n, int fd,
                      off_t off, size_t bufsize)
{
    if (check_args(p, handle, n, fd, off, bufsize) != 0)
        return -1;
    if (n == 0)
        return 0;
    pipe_attach(p, sets);
    return 1;
}

/* Buffers and streams for n bytes, ordered after the application's work on handle. */
static int pipe_ready(pipe_t *p, const void *handle, size_t n)
{
    int rc = pipe_open(p, n);
    return rc == 0 ? pipe_order(p, handle) : rc;
}

/* ---- file I/O ------------------------------------------------------------- */

/* Through hashed_io and fio (each piece hashed while in cache; EINTR and
 * short transfers retried, fault points applied). h may be NULL. */
static int write_full(pipe_t *p, int fd, const void *buf, size_t n, off_t off, fti_hash *h)
{
    if (fti_pwrite_hashed(fd, buf, n, off, h) != 0)
        return pipe_error(p, "capture: write of %zu bytes at file offset %lld failed: %s", n,
                          (long long)off, strerror(errno));
    return 0;
}

static int read_full(pipe_t *p, int fd, void *buf, size_t n, off_t off, fti_hash *h)
{
    if (fti_pread_hashed(fd, buf, n, off, h) != 0) {
        int e = errno;
        /* fio reports a file shorter than the region as EIO. */
        return pipe_error(p, "capture: read of %zu bytes at file offset %lld failed: %s%s", n,
                          (long long)off, strerror(e),
                          e == EIO ? " (I/O error, or the file ends before the region)" : "");
    }
    return 0;
}

/* ---- between a device region and a file ---------------------------------- */

/* One transfer between a device region and a file range, either way. */
typedef struct file_xfer {
    const void *src; /* the device region */
    void *dst;       /* the same region when a restore writes it, else NULL */
    size_t n;        /* bytes */
    int fd;
    off_t off;       /* where the region starts in the file */
    fti_hash *hash;  /* updated with the bytes moved; may be NULL */
} file_xfer;

static off_t file_offset(const pipe_t *p, const file_xfer *x, size_t idx)
{
    return x->off + (off_t)(idx * p->chunk);
}

/* ---- device -> file ------------------------------------------------------- */

static int copy_out(pipe_t *p, const file_xfer *x, size_t idx)
{
    int b = (int)(idx % (size_t)p->depth);
    if (p->ops->to_host(p->set->stream[b], p->set->buf[b], x->src, idx * p->chunk,
                        chunk_len(p, idx, x->n)) != 0)
        return pipe_device_error(p, "device->host copy", idx);
    return 0;
}

/* Chunk idx is in flight: wait for it, hash it, write it. With the hash
 * worker both at once; the buffer is free again when this returns. */
static int drain_out(pipe_t *p, const file_xfer *x, size_t idx)
{
    int b = (int)(idx % (size_t)p->depth);
    size_t len = chunk_len(p, idx, x->n);
    if (p->ops->stream_sync(p->set->stream[b]) != 0)
        return pipe_device_error(p, "device->host copy", idx);
    if (!p->hasher.running)
        return write_full(p, x->fd, p->set->buf[b], len, file_offset(p, x, idx), x->hash);
    fti_hash_worker_post(&p->hasher, p->set->buf[b], len);
    int rc = write_full(p, x->fd, p->set->buf[b], len, file_offset(p, x, idx), NULL);
    fti_hash_worker_wait(&p->hasher);
    return rc;
}

static void stream_out(pipe_t *p, const file_xfer *x)
{
    int rc = copy_out(p, x, 0);
    for (size_t i = 0; rc == 0 && i < p->nchunks; i++) {
        /* Start the next copy first: it runs while this chunk is written. */
        if (i + 1 < p->nchunks)
            rc = copy_out(p, x, i + 1);
        if (rc == 0)
            rc = drain_out(p, x, i);
    }
}

/* ---- file -> device ------------------------------------------------------- */

/* Reads len bytes at off into buf and hashes them. With the hash worker, each
 * piece is handed to it as soon as it is read, while the bytes are still in
 * the cache the two threads share (a whole chunk hashed after its read would
 * come back from memory); the last piece is hashed while the chunk is copied
 * to the device, and before the buffer's next read, as posting waits for the
 * piece before. Without the worker, this thread hashes each piece it reads. */
static int read_hashed(pipe_t *p, const file_xfer *x, char *buf, size_t len, off_t off)
{
    if (!p->hasher.running)
        return read_full(p, x->fd, buf, len, off, x->hash);
    for (size_t done = 0; done < len;) {
        size_t piece = len - done < FTI_HASH_PIECE ? len - done : FTI_HASH_PIECE;
        if (read_full(p, x->fd, buf + done, piece, off + (off_t)done, NULL) != 0)
            return -1;
        fti_hash_worker_post(&p->hasher, buf + done, piece);
        done += piece;
    }
    return 0;
}

/* Reads and hashes chunk idx into its buffer once the buffer's previous copy
 * (chunk idx - depth) is done, then starts the copy to the device. */
static int fill_in(pipe_t *p, const file_xfer *x, size_t idx)
{
    int b = (int)(idx % (size_t)p->depth);
    size_t len = chunk_len(p, idx, x->n);
    if (idx >= (size_t)p->depth && p->ops->stream_sync(p->set->stream[b]) != 0)
        return pipe_device_error(p, "host->device copy", idx - (size_t)p->depth);
    if (read_hashed(p, x, p->set->buf[b], len, file_offset(p, x, idx)) != 0)
        return -1;
    if (p->ops->to_device(p->set->stream[b], x->dst, idx * p->chunk, p->set->buf[b], len) != 0)
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
        if (p->ops->stream_sync(p->set->stream[b]) != 0)
            return pipe_device_error(p, "host->device copy", idx);
    }
    return 0;
}

static void stream_in(pipe_t *p, const file_xfer *x)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->nchunks; i++)
        rc = fill_in(p, x, i);
    if (rc == 0)
        finish_in(p);
}

/* ---- the two file directions ------------------------------------------------ */

/* Runs one direction's loop (stream_out or stream_in) on a pipe opened for x;
 * both directions check, attach, order and close alike. */
static int capture_file(void (*loop)(pipe_t *, const file_xfer *), fti_capture_sets *sets,
                        const fti_device_ops *ops, const file_xfer *x, size_t bufsize,
                        char *err, size_t errlen)
{
    pipe_t p;
    pipe_init(&p, ops, bufsize, err, errlen);
    int started = pipe_start(&p, sets, x->src, x->n, x->fd, x->off, bufsize);
    if (started <= 0)
        return started;
    if (pipe_ready(&p, x->src, x->n) == 0) {
        if (x->hash != NULL && p.nchunks > 1)
            fti_hash_worker_start(&p.hasher, x->hash); /* else (-1) this thread hashes */
        loop(&p, x);
    }
    pipe_close(&p); /* a failure is recorded in p.failed, here or before */
    return p.failed ? -1 : 0;
}

int fti_capture_to_file(fti_capture_sets *sets, const fti_device_ops *ops, const void *handle,
                        size_t n, int fd, off_t off, size_t bufsize, fti_hash *hash, char *err,
                        size_t errlen)
{
    file_xfer x = {.src = handle, .n = n, .fd = fd, .off = off, .hash = hash};
    return capture_file(stream_out, sets, ops, &x, bufsize, err, errlen);
}

int fti_capture_from_file(fti_capture_sets *sets, const fti_device_ops *ops, void *handle,
                          size_t n, int fd, off_t off, size_t bufsize, fti_hash *hash, char *err,
                          size_t errlen)
{
    file_xfer x = {.src = handle, .dst = handle, .n = n, .fd = fd, .off = off, .hash = hash};
    return capture_file(stream_in, sets, ops, &x, bufsize, err, errlen);
}

/* ---- device -> host memory ------------------------------------------------ */

int fti_capture_to_memory(fti_capture_sets *sets, const fti_device_ops *ops, const void *handle,
                          size_t n, void *dst, size_t bufsize, char *err, size_t errlen)
{
    pipe_t p;
    pipe_init(&p, ops, bufsize, err, errlen);
    if (check_args(&p, handle, n, 0, 0, bufsize) != 0)
        return -1;
    if (dst == NULL && n > 0)
        return pipe_error(&p, "capture: NULL host destination of %zu bytes", n);
    if (n == 0)
        return 0;
    pipe_attach(&p, sets);
    int rc = pipe_open(&p, n);
    if (rc == 0)
        rc = pipe_order(&p, handle);
    for (size_t i = 0; rc == 0 && i < p.nchunks; i++) {
        int b = (int)(i % (size_t)p.depth);
        if (ops->to_host(p.set->stream[b], (char *)dst + i * p.chunk, handle, i * p.chunk,
                         chunk_len(&p, i, n)) != 0)
            rc = pipe_device_error(&p, "device->host copy", i);
    }
    pipe_close(&p); /* waits for every copy; a failed one is recorded there */
    return p.failed ? -1 : 0;
}
