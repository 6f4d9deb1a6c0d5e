/*
 * xrt_backend.c - the "xrt" device backend over XRT's native C API: a
 * device region is an xrtBufferHandle (a buffer object) plus a byte offset.
 * Device -> host is xrtBOSync(FROM_DEVICE) of the range, then xrtBORead out
 * of the buffer's host store; host -> device is xrtBOWrite, then
 * xrtBOSync(TO_DEVICE).
 *
 * XRT's C API has no asynchronous sync, so each stream is a worker thread
 * draining a FIFO of copies (backends/stream_queue.c): the capture
 * pipeline's copy of chunk i+1 then really overlaps the file write of chunk
 * i. A failed copy is remembered and reported at the stream's next sync;
 * later copies of that stream are dropped until then (their destination
 * would be stale anyway).
 *
 * Built into libfti when XRT is found; otherwise the tests and examples build
 * this same file against the XRT emulation library (test/support/xrt_emu).
 */
#include "fti_xrt.h"
#include "dev_error.h"
#include "stream_queue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xrt/xrt_bo.h>

#define XRT_ERRLEN 256
#define XRT_HOST_ALIGN 4096

static _Thread_local char xrt_errbuf[XRT_ERRLEN];

/* Records a failure for xrt_last_error; returns -1. */
#define xrt_fail(...) fti_dev_fail(xrt_errbuf, sizeof xrt_errbuf, __VA_ARGS__)

static const char *xrt_last_error(void)
{
    return fti_dev_last_error(xrt_errbuf, "xrt: no error");
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
    fti_sq_op link; /* first: the stream queue chains and frees it */
    int to_device;
    xrtBufferHandle bo;
    size_t off, n;
    void *host;
} xrt_op;

/* Runs one copy on the stream's worker thread (fti_sq_run_fn). */
static int op_run(fti_sq_op *link, char *err, size_t errlen)
{
    const xrt_op *op = (const xrt_op *)link;
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

/* A stream is a stream queue (stream_queue.h): one worker thread per stream. */
static int xrt_stream_create(void **stream)
{
    return fti_sq_stream_create(stream, op_run, "xrt", xrt_errbuf, sizeof xrt_errbuf);
}

static int xrt_stream_sync(void *stream)
{
    return fti_sq_stream_sync(stream, "xrt", xrt_errbuf, sizeof xrt_errbuf);
}

/* Checks the range against the buffer now, so the error names the caller's
 * mistake rather than a later, asynchronous XRT failure. */
static int enqueue(void *stream, int to_device, const void *handle, size_t off, void *host,
                   size_t n)
{
    xrtBufferHandle bo = (xrtBufferHandle)handle;
    if (stream == NULL || bo == NULL || (host == NULL && n > 0))
        return xrt_fail("xrt: %s: NULL stream, buffer or host pointer",
                        to_device ? "to_device" : "to_host");
    size_t size = xrtBOSize(bo);
    if (off > size || n > size - off)
        return xrt_fail("xrt: %s: %zu bytes at offset %zu run past the end of buffer %p (%zu "
                        "bytes)", to_device ? "to_device" : "to_host", n, off, handle, size);
    xrt_op *op = malloc(sizeof *op);
    if (op == NULL)
        return xrt_fail("xrt: out of memory queueing a %zu-byte copy", n);
    *op = (xrt_op){.to_device = to_device, .bo = bo, .off = off, .n = n, .host = host};
    fti_sq_push(stream, &op->link);
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

/* destroy: queued copies complete first; XRT has no application work to order after */
const fti_device_ops fti_xrt_ops = FTI_DEVICE_OPS_TABLE("xrt", xrt, fti_sq_stream_destroy, NULL);
