/*
 * xrt_backend.c - the "xrt" device backend over XRT's native C API: a
 * device region is an xrtBufferHandle (a buffer object) plus a byte offset.
 * Device -> host is xrtBOSync(FROM_DEVICE) of the range, then xrtBORead out
 * of the buffer's host store; host -> device is xrtBOWrite, then
 * xrtBOSync(TO_DEVICE).
 *
 * XRT's C API has no asynchronous sync, so each stream is a worker thread
 * draining a FIFO of copies: the capture pipeline's copy of chunk i+1 then
 * really overlaps the file write of chunk i. A failed copy is remembered and
 * reported at the stream's next sync; later copies of that stream are
 * dropped until then (their destination would be stale anyway).
 *
 * Built into libfti when XRT is found; otherwise the tests and examples build
 * this same file against the XRT emulation library (backends/xrt_emu).
 */
#include "fti_xrt.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xrt/xrt_bo.h>

#define XRT_ERRLEN 256
#define XRT_HOST_ALIGN 4096

static _Thread_local char xrt_errbuf[XRT_ERRLEN];

static int xrt_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int xrt_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(xrt_errbuf, sizeof xrt_errbuf, fmt, ap);
    va_end(ap);
    return -1;
}

static const char *xrt_last_error(void)
{
    return xrt_errbuf[0] ? xrt_errbuf : "xrt: no error";
}

/* XRT's C calls return 0 or an errno value, negative or positive. */
static const char *code_text(int rc)
{
    return strerror(rc < 0 ? -rc : rc);
}

/* XRT buffer handles are opaque: a raw pointer cannot be recognised, so
 * XRT buffers are protected through FTI_ProtectDevice only. */
static int xrt_owns(const void *ptr, fti_devptr_info *info)
{
    (void)ptr, (void)info;
    return 0;
}

/* ---- one copy -------------------------------------------------------------- */

typedef struct xrt_op {
    struct xrt_op *next;
    int to_device;
    xrtBufferHandle bo;
    size_t off, n;
    void *host;
} xrt_op;

static int op_run(const xrt_op *op, char *err, size_t errlen)
{
    int rc;
    const char *step;
    if (op->to_device) {
        step = "xrtBOWrite";
        rc = xrtBOWrite(op->bo, op->host, op->n, op->off);
        if (rc == 0) {
            step = "xrtBOSync(TO_DEVICE)";
            rc = xrtBOSync(op->bo, XCL_BO_SYNC_BO_TO_DEVICE, op->n, op->off);
        }
    } else {
        step = "xrtBOSync(FROM_DEVICE)";
        rc = xrtBOSync(op->bo, XCL_BO_SYNC_BO_FROM_DEVICE, op->n, op->off);
        if (rc == 0) {
            step = "xrtBORead";
            rc = xrtBORead(op->bo, op->host, op->n, op->off);
        }
    }
    if (rc != 0)
        snprintf(err, errlen, "xrt: %s of %zu bytes at offset %zu of buffer %p returned %d (%s)",
                 step, op->n, op->off, op->bo, rc, code_text(rc));
    return rc;
}

/* ---- streams ------------------------------------------------------------------ */

typedef struct xrt_stream {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake, idle;
    xrt_op *head, *tail;
    int busy, stop, failed;
    char err[XRT_ERRLEN];
} xrt_stream;

/* Takes the next op, or NULL when stopping with nothing queued. */
static xrt_op *next_op(xrt_stream *s)
{
    while (s->head == NULL && !s->stop)
        pthread_cond_wait(&s->wake, &s->lock);
    xrt_op *op = s->head;
    if (op != NULL && (s->head = op->next) == NULL)
        s->tail = NULL;
    return op;
}

static void *stream_main(void *arg)
{
    xrt_stream *s = arg;
    char err[XRT_ERRLEN];
    pthread_mutex_lock(&s->lock);
    for (xrt_op *op; (op = next_op(s)) != NULL;) {
        int skip = s->failed;
        s->busy = 1;
        pthread_mutex_unlock(&s->lock);
        int rc = skip ? 0 : op_run(op, err, sizeof err);
        free(op);
        pthread_mutex_lock(&s->lock);
        if (rc != 0 && !s->failed) {
            s->failed = 1;
            memcpy(s->err, err, sizeof err);
        }
        s->busy = 0;
        if (s->head == NULL)
            pthread_cond_broadcast(&s->idle);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static int xrt_stream_create(void **stream)
{
    xrt_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        return xrt_fail("xrt: stream_create: out of memory");
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->wake, NULL);
    pthread_cond_init(&s->idle, NULL);
    int rc = pthread_create(&s->thread, NULL, stream_main, s);
    if (rc != 0) {
        pthread_cond_destroy(&s->idle);
        pthread_cond_destroy(&s->wake);
        pthread_mutex_destroy(&s->lock);
        free(s);
        return xrt_fail("xrt: stream_create: cannot start the copy thread: %s", strerror(rc));
    }
    *stream = s;
    return 0;
}

/* Queued copies complete first (they target buffers the caller still owns). */
static void xrt_stream_destroy(void *stream)
{
    xrt_stream *s = stream;
    if (s == NULL)
        return;
    pthread_mutex_lock(&s->lock);
    s->stop = 1;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    pthread_cond_destroy(&s->idle);
    pthread_cond_destroy(&s->wake);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static int xrt_stream_sync(void *stream)
{
    xrt_stream *s = stream;
    if (s == NULL)
        return xrt_fail("xrt: stream_sync: NULL stream");
    pthread_mutex_lock(&s->lock);
    while (s->head != NULL || s->busy)
        pthread_cond_wait(&s->idle, &s->lock);
    int failed = s->failed;
    if (failed) {
        memcpy(xrt_errbuf, s->err, sizeof xrt_errbuf);
        s->failed = 0;
    }
    pthread_mutex_unlock(&s->lock);
    return failed ? -1 : 0;
}

/* Checks the range against the buffer now, so the error names the caller's
 * mistake rather than a later, asynchronous XRT failure. */
static int enqueue(void *stream, int to_device, const void *handle, size_t off, void *host,
                   size_t n)
{
    xrt_stream *s = stream;
    xrtBufferHandle bo = (xrtBufferHandle)handle;
    if (s == NULL || bo == NULL || (host == NULL && n > 0))
        return xrt_fail("xrt: %s: NULL stream, buffer or host pointer",
                        to_device ? "to_device" : "to_host");
    size_t size = xrtBOSize(bo);
    if (off > size || n > size - off)
        return xrt_fail("xrt: %s: %zu bytes at offset %zu run past the end of buffer %p (%zu "
                        "bytes)", to_device ? "to_device" : "to_host", n, off, handle, size);
    xrt_op *op = malloc(sizeof *op);
    if (op == NULL)
        return xrt_fail("xrt: out of memory queueing a %zu-byte copy", n);
    *op = (xrt_op){NULL, to_device, bo, off, n, host};
    pthread_mutex_lock(&s->lock);
    if (s->tail != NULL)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->lock);
    return 0;
}

static int xrt_to_host(void *stream, void *dst, const void *handle, size_t off, size_t n)
{
    return enqueue(stream, 0, handle, off, dst, n);
}

static int xrt_to_device(void *stream, void *handle, size_t off, const void *src, size_t n)
{
    return enqueue(stream, 1, handle, off, (void *)src, n);
}

/* ---- host buffers --------------------------------------------------------------- */

/* Page-aligned, so O_DIRECT writes from it work; XRT copies into it from the
 * buffer object's own (pinned) host store. */
static int xrt_host_alloc(void **p, size_t n)
{
    size_t size = (n + XRT_HOST_ALIGN - 1) / XRT_HOST_ALIGN * XRT_HOST_ALIGN;
    *p = aligned_alloc(XRT_HOST_ALIGN, size ? size : XRT_HOST_ALIGN);
    return *p ? 0 : xrt_fail("xrt: host_alloc(%zu): out of host memory", n);
}

static void xrt_host_free(void *p)
{
    free(p);
}

const fti_device_ops fti_xrt_ops = {
    .version = FTI_DEVICE_OPS_VERSION,
    .name = "xrt",
    .owns = xrt_owns,
    .stream_create = xrt_stream_create,
    .stream_destroy = xrt_stream_destroy,
    .stream_sync = xrt_stream_sync,
    .host_alloc = xrt_host_alloc,
    .host_free = xrt_host_free,
    .to_host = xrt_to_host,
    .to_device = xrt_to_device,
    .last_error = xrt_last_error,
};
