/*
 * cuda.c - the CUDA device backend over the CUDA runtime API (see fti_cuda.h).
 *
 * The application chooses its device with cudaSetDevice; this backend leaves
 * that choice as it found it. A copy of memory that lives on another device
 * switches to that device for the call and back, and runs on a stream of that
 * device (created lazily), so the copy uses the owning device's copy engine.
 */
#include "fti_cuda.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define CUDA_ERRLEN 256

static _Thread_local char cuda_errbuf[CUDA_ERRLEN];

/* Records what failed with CUDA's name and text for e, then clears the
 * runtime's last-error slot so the application's own cudaGetLastError does
 * not report our failure as its own (sticky errors stay, as they must). */
static int cuda_fail(cudaError_t e, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(cuda_errbuf, sizeof cuda_errbuf, "cuda: %s failed: %s (%s)", what,
             cudaGetErrorString(e), cudaGetErrorName(e));
    (void)cudaGetLastError();
    return -1;
}

static const char *cuda_last_error(void)
{
    return cuda_errbuf[0] ? cuda_errbuf : "cuda: no error";
}

/* ---- device presence -------------------------------------------------------- */

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_ndev;            /* devices found, 0 when none or no driver */
static cudaError_t probe_status;  /* why none, for messages */

static void probe_devices(void)
{
    int n = 0;
    probe_status = cudaGetDeviceCount(&n);
    if (probe_status != cudaSuccess) {
        (void)cudaGetLastError();
        n = 0;
    }
    probe_ndev = n;
}

/* Number of devices; asking once keeps owns() cheap on machines without a
 * GPU, where every runtime call would fail the same way. */
static int device_count(void)
{
    pthread_once(&probe_once, probe_devices);
    return probe_ndev;
}

static int require_devices(const char *what)
{
    if (device_count() > 0)
        return 0;
    if (probe_status == cudaSuccess)
        probe_status = cudaErrorNoDevice;
    return cuda_fail(probe_status, "%s: no usable CUDA device", what);
}

/* ---- pointers ----------------------------------------------------------------- */

static int cuda_owns(const void *ptr, fti_devptr_info *info)
{
    struct cudaPointerAttributes a;
    if (ptr == NULL || device_count() == 0)
        return 0;
    if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
        (void)cudaGetLastError(); /* foreign pointer: not an error of the app */
        return 0;
    }
    /* Pinned or registered host memory is host memory: the writer reads it
     * directly, no staging. */
    if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
        return 0;
    if (info != NULL) {
        info->device = a.device;
        info->host_readable = a.type == cudaMemoryTypeManaged;
    }
    return 1;
}

/* The device holding p, or -1 with a message when p is not CUDA memory. */
static int device_of(const void *p, const char *what, int *dev)
{
    fti_devptr_info info;
    if (!cuda_owns(p, &info)) {
        snprintf(cuda_errbuf, sizeof cuda_errbuf,
                 "cuda: %s: %p is not CUDA device or managed memory", what, p);
        return -1;
    }
    *dev = info.device;
    return 0;
}

/* Makes dev current, remembering the application's device in *prev. */
static int device_enter(int dev, int *prev, const char *what)
{
    cudaError_t e = cudaGetDevice(prev);
    if (e != cudaSuccess)
        return cuda_fail(e, "%s: cudaGetDevice", what);
    if (*prev == dev)
        return 0;
    e = cudaSetDevice(dev);
    if (e != cudaSuccess)
        return cuda_fail(e, "%s: cudaSetDevice(%d)", what, dev);
    return 0;
}

static void device_leave(int dev, int prev)
{
    if (prev != dev)
        (void)cudaSetDevice(prev);
}

/* ---- streams ------------------------------------------------------------------ */

/* One backend stream is one CUDA stream per device, created on first use. */
typedef struct cuda_stream {
    int ndev;
    cudaStream_t s[];
} cuda_stream;

static int cuda_stream_create(void **stream)
{
    if (require_devices("stream_create") != 0)
        return -1;
    int n = device_count();
    cuda_stream *cs = calloc(1, sizeof *cs + (size_t)n * sizeof(cudaStream_t));
    if (cs == NULL) {
        snprintf(cuda_errbuf, sizeof cuda_errbuf, "cuda: stream_create: out of host memory");
        return -1;
    }
    cs->ndev = n;
    *stream = cs;
    return 0;
}

/* The CUDA stream of cs on dev (dev is current), created when first needed. */
static int stream_on(cuda_stream *cs, int dev, cudaStream_t *out)
{
    if (dev < 0 || dev >= cs->ndev) {
        snprintf(cuda_errbuf, sizeof cuda_errbuf, "cuda: device %d out of range (0..%d)",
                 dev, cs->ndev - 1);
        return -1;
    }
    if (cs->s[dev] == NULL) {
        /* Non-blocking: our copies must not serialise with the app's legacy
         * default stream, nor it with them. */
        cudaError_t e = cudaStreamCreateWithFlags(&cs->s[dev], cudaStreamNonBlocking);
        if (e != cudaSuccess) {
            cs->s[dev] = NULL;
            return cuda_fail(e, "cudaStreamCreateWithFlags on device %d", dev);
        }
    }
    *out = cs->s[dev];
    return 0;
}

/* Calls op on every CUDA stream of cs with its device current; returns the
 * first failure, but visits all streams. */
static int for_each_stream(cuda_stream *cs, cudaError_t (*op)(cudaStream_t), const char *name)
{
    int rc = 0;
    for (int d = 0; d < cs->ndev; d++) {
        int prev;
        if (cs->s[d] == NULL)
            continue;
        if (device_enter(d, &prev, name) != 0) {
            rc = -1;
            continue;
        }
        cudaError_t e = op(cs->s[d]);
        if (e != cudaSuccess && rc == 0)
            rc = cuda_fail(e, "%s on device %d", name, d);
        device_leave(d, prev);
    }
    return rc;
}

static void cuda_stream_destroy(void *stream)
{
    cuda_stream *cs = stream;
    if (cs == NULL)
        return;
    (void)for_each_stream(cs, cudaStreamDestroy, "cudaStreamDestroy");
    free(cs);
}

static int cuda_stream_sync(void *stream)
{
    cuda_stream *cs = stream;
    if (cs == NULL) {
        snprintf(cuda_errbuf, sizeof cuda_errbuf, "cuda: stream_sync: NULL stream");
        return -1;
    }
    return for_each_stream(cs, cudaStreamSynchronize, "cudaStreamSynchronize");
}

/* ---- host buffers and copies -------------------------------------------------- */

static int cuda_host_alloc(void **p, size_t n)
{
    if (require_devices("host_alloc") != 0)
        return -1;
    /* Portable: pinned for every device, whichever one a copy runs on. */
    cudaError_t e = cudaHostAlloc(p, n ? n : 1, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        *p = NULL;
        return cuda_fail(e, "cudaHostAlloc of %zu pinned bytes", n);
    }
    return 0;
}

static void cuda_host_free(void *p)
{
    if (p != NULL)
        (void)cudaFreeHost(p);
}

/* Queues an n-byte copy on the stream of dev_ptr's device, that device being
 * current for the call; dev_ptr names the device-side address. */
static int copy_async(void *stream, void *dst, const void *src, size_t n, const void *dev_ptr,
                      const char *what)
{
    int dev, prev;
    cudaStream_t s = NULL;
    if (stream == NULL) {
        snprintf(cuda_errbuf, sizeof cuda_errbuf, "cuda: %s on a NULL stream", what);
        return -1;
    }
    if (n == 0)
        return 0;
    if (device_of(dev_ptr, what, &dev) != 0 || device_enter(dev, &prev, what) != 0)
        return -1;
    int rc = stream_on(stream, dev, &s);
    if (rc == 0) {
        /* Default kind: unified addressing tells device from managed memory. */
        cudaError_t e = cudaMemcpyAsync(dst, src, n, cudaMemcpyDefault, s);
        if (e != cudaSuccess)
            rc = cuda_fail(e, "%s: cudaMemcpyAsync of %zu bytes on device %d", what, n, dev);
    }
    device_leave(dev, prev);
    return rc;
}

static int cuda_to_host(void *stream, void *dst, const void *handle, size_t off, size_t n)
{
    const char *src = (const char *)handle + off;
    return copy_async(stream, dst, src, n, src, "to_host");
}

static int cuda_to_device(void *stream, void *handle, size_t off, const void *src, size_t n)
{
    char *dst = (char *)handle + off;
    return copy_async(stream, dst, src, n, dst, "to_device");
}

const fti_device_ops fti_cuda_ops = {
    .version = FTI_DEVICE_OPS_VERSION,
    .name = "cuda",
    .owns = cuda_owns,
    .stream_create = cuda_stream_create,
    .stream_destroy = cuda_stream_destroy,
    .stream_sync = cuda_stream_sync,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .to_host = cuda_to_host,
    .to_device = cuda_to_device,
    .last_error = cuda_last_error,
};
