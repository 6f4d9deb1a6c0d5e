/*
 * cuda.c - the CUDA device backend over the CUDA runtime API (see fti_cuda.h),
 * loaded at run time (cudart.h): libfti needs no libcudart.so to load.
 *
 * The application chooses its device with cudaSetDevice; this backend leaves
 * that choice as it found it. A copy of memory that lives on another device
 * switches to that device for the call and back, and runs on a stream of that
 * device (created lazily), so the copy uses the owning device's copy engine.
 *
 * Ordering with the application (order_after_app): FTI copies with
 * cudaMemcpy on the legacy default stream, which starts after all work
 * already queued on the device's blocking streams (the legacy default
 * stream, streams created without cudaStreamNonBlocking, and every thread's
 * per-thread default stream, which synchronises with the legacy one). We
 * record an event on cudaStreamLegacy and make our non-blocking stream wait
 * for it: the same guarantee, without blocking the host or the other
 * devices. Work on the application's cudaStreamNonBlocking streams is not
 * waited for, as with FTI.
 */
#include "fti_cuda.h"
#include "cudart.h"
#include "dev_error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDA_ERRLEN 512
#define CUDART_MIN_VERSION 10000 /* cudaPointerAttributes as used below */

static _Thread_local char cuda_errbuf[CUDA_ERRLEN];
static const fti_cudart *rt; /* set once by probe_devices */

/* Records a message for cuda_last_error. */
#define cuda_msg(...) (void)fti_dev_fail(cuda_errbuf, sizeof cuda_errbuf, __VA_ARGS__)

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
    cuda_msg("cuda: %s failed: %s (%s)", what, rt->GetErrorString(e), rt->GetErrorName(e));
    (void)rt->GetLastError();
    return -1;
}

/* ---- runtime and device presence ------------------------------------------- */

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int probe_done;        /* probe_ndev and probe_why are final */
static int probe_ndev;                /* devices found, 0 when none or no runtime */
static char probe_why[CUDA_ERRLEN];   /* why none, for messages */
static const char no_cuda_yet[] = "cuda: not asked: this process has not loaded CUDA "
                                  "(device_backends = auto looks for CUDA only in a process "
                                  "that uses it; device_backends = cuda loads it)";

/* Why the runtime reports no device, in words a user can act on. */
static void explain_no_device(cudaError_t e)
{
    int drv = 0, run = 0;
    (void)rt->DriverGetVersion(&drv);
    (void)rt->RuntimeGetVersion(&run);
    if (e == cudaErrorInsufficientDriver && drv == 0)
        snprintf(probe_why, sizeof probe_why, "cuda: no NVIDIA driver is installed or loadable "
                 "(runtime %s): cudaErrorInsufficientDriver", rt->origin);
    else if (e == cudaErrorInsufficientDriver)
        snprintf(probe_why, sizeof probe_why, "cuda: the NVIDIA driver (CUDA %d.%d) is older "
                 "than the CUDA runtime %s (CUDA %d.%d): cudaErrorInsufficientDriver; update the "
                 "driver, or run with a runtime the driver supports", drv / 1000,
                 drv % 1000 / 10, rt->origin, run / 1000, run % 1000 / 10);
    else
        snprintf(probe_why, sizeof probe_why, "cuda: no usable CUDA device: cudaGetDeviceCount "
                 "failed: %s (%s), runtime %s, driver CUDA %d.%d", rt->GetErrorString(e),
                 rt->GetErrorName(e), rt->origin, drv / 1000, drv % 1000 / 10);
    (void)rt->GetLastError();
}

/* 1 when a runtime was found and is recent enough (rt set); 0 when not
 * (probe_why says why); -1 when the process has not loaded CUDA yet. */
static int runtime_usable(void)
{
    const char *why;
    int version = 0;
    const fti_cudart *r;
    int found = fti_cudart_get(&r, &why);
    if (found <= 0) {
        if (found == 0)
            snprintf(probe_why, sizeof probe_why, "cuda: no CUDA runtime could be loaded (%s)", why);
        return found;
    }
    if (r->RuntimeGetVersion(&version) != cudaSuccess || version < CUDART_MIN_VERSION) {
        snprintf(probe_why, sizeof probe_why, "cuda: the CUDA runtime %s is version %d, older "
                 "than the %d this library needs", r->origin, version, CUDART_MIN_VERSION);
        return 0;
    }
    rt = r;
    return 1;
}

/* 1 when the answer (probe_ndev, probe_why) is final. */
static int probe_devices(void)
{
    int n = 0;
    int usable = runtime_usable();
    if (usable <= 0)
        return usable == 0;
    cudaError_t e = rt->GetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        explain_no_device(e != cudaSuccess ? e : cudaErrorNoDevice);
        n = 0;
    }
    probe_ndev = n;
    return 1;
}

/* Number of devices; asking once keeps owns() cheap on machines without a
 * GPU, where every runtime call would fail the same way. Until the process
 * loads CUDA the answer is 0 and is asked again (a few RTLD_NOLOAD lookups). */
static int device_count(void)
{
    if (!probe_done) {
        pthread_mutex_lock(&probe_lock);
        if (!probe_done && probe_devices())
            probe_done = 1;
        pthread_mutex_unlock(&probe_lock);
    }
    return probe_done ? probe_ndev : 0;
}

void fti_cuda_allow_loading(void)
{
    fti_cudart_allow_loading();
}

/* Why no device is usable: the probe's final word, or that CUDA is not loaded. */
static const char *no_device_why(void)
{
    return probe_done ? probe_why : no_cuda_yet;
}

static int require_devices(const char *what)
{
    if (device_count() > 0)
        return 0;
    cuda_msg("%s: %s", what, no_device_why());
    return -1;
}

static const char *cuda_last_error(void)
{
    if (cuda_errbuf[0])
        return cuda_errbuf;
    return device_count() == 0 ? no_device_why() : "cuda: no error";
}

/* ---- pointers ----------------------------------------------------------------- */

/* Newer runtimes may grow the struct: room for them to write into. */
typedef union ptr_attrs {
    struct cudaPointerAttributes a;
    char room[sizeof(struct cudaPointerAttributes) + 256];
} ptr_attrs;

/* Managed memory goes through the pipeline like device memory (copies with
 * cudaMemcpyDefault): it is then ordered after the application's kernels
 * like device memory, and the checkpoint does not migrate it to the host. */
static int cuda_owns(const void *ptr, fti_devptr_info *info)
{
    ptr_attrs u;
    int n = device_count();
    if (ptr == NULL || n == 0)
        return 0;
    if (rt->PointerGetAttributes(&u.a, ptr) != cudaSuccess) {
        (void)rt->GetLastError(); /* foreign pointer: not an error of the app */
        return 0;
    }
    /* Pinned or registered host memory is host memory: the writer reads it
     * directly, no staging. */
    if (u.a.type != cudaMemoryTypeDevice && u.a.type != cudaMemoryTypeManaged)
        return 0;
    if (u.a.device < 0 || u.a.device >= n) {
        cuda_msg("cuda: %p lives on device %d, but this process sees devices 0..%d "
                 "(CUDA_VISIBLE_DEVICES?)", ptr, u.a.device, n - 1);
        return -1;
    }
    if (info != NULL) {
        info->device = u.a.device;
        info->host_readable = 0;
    }
    return 1;
}

/* The device holding p, or -1 with a message when p is not CUDA memory. */
static int device_of(const void *p, const char *what, int *dev)
{
    fti_devptr_info info;
    int claim = cuda_owns(p, &info);
    if (claim == 0)
        cuda_msg("cuda: %s: %p is not CUDA device or managed memory", what, p);
    if (claim <= 0)
        return -1;
    *dev = info.device;
    return 0;
}

/* Makes dev current, remembering the application's device in *prev. */
static int device_enter(int dev, int *prev, const char *what)
{
    cudaError_t e = rt->GetDevice(prev);
    if (e != cudaSuccess)
        return cuda_fail(e, "%s: cudaGetDevice", what);
    if (*prev == dev)
        return 0;
    e = rt->SetDevice(dev);
    if (e != cudaSuccess)
        return cuda_fail(e, "%s: cudaSetDevice(%d)", what, dev);
    return 0;
}

static void device_leave(int dev, int prev)
{
    if (prev != dev)
        (void)rt->SetDevice(prev);
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
        cuda_msg("cuda: stream_create: out of host memory");
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
        cuda_msg("cuda: device %d out of range (0..%d)", dev, cs->ndev - 1);
        return -1;
    }
    if (cs->s[dev] == NULL) {
        /* Non-blocking: our copies must not serialise with the app's legacy
         * default stream, nor it with them (order_after_app orders them
         * once, explicitly). */
        cudaError_t e = rt->StreamCreateWithFlags(&cs->s[dev], cudaStreamNonBlocking);
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
    (void)for_each_stream(cs, rt->StreamDestroy, "cudaStreamDestroy");
    free(cs);
}

static int cuda_stream_sync(void *stream)
{
    cuda_stream *cs = stream;
    if (cs == NULL) {
        cuda_msg("cuda: stream_sync: NULL stream");
        return -1;
    }
    return for_each_stream(cs, rt->StreamSynchronize, "cudaStreamSynchronize");
}

/* ---- ordering after the application's work ----------------------------------- */

/* Our stream on dev (current) waits for what the legacy default stream
 * waits for now. The event may be destroyed at once: the wait is queued. */
static int wait_for_legacy(cudaStream_t s, int dev)
{
    cudaEvent_t ev;
    cudaError_t e = rt->EventCreateWithFlags(&ev, cudaEventDisableTiming);
    if (e != cudaSuccess)
        return cuda_fail(e, "cudaEventCreateWithFlags on device %d", dev);
    e = rt->EventRecord(ev, cudaStreamLegacy);
    if (e == cudaSuccess)
        e = rt->StreamWaitEvent(s, ev, 0);
    int rc = e == cudaSuccess ? 0
                              : cuda_fail(e, "ordering after the application's work on device "
                                          "%d (cudaEventRecord/cudaStreamWaitEvent)", dev);
    (void)rt->EventDestroy(ev);
    return rc;
}

static int cuda_order_after_app(void *stream, const void *handle)
{
    int dev, prev;
    cudaStream_t s = NULL;
    if (stream == NULL) {
        cuda_msg("cuda: order_after_app on a NULL stream");
        return -1;
    }
    if (device_of(handle, "order_after_app", &dev) != 0 ||
        device_enter(dev, &prev, "order_after_app") != 0)
        return -1;
    int rc = stream_on(stream, dev, &s);
    if (rc == 0)
        rc = wait_for_legacy(s, dev);
    device_leave(dev, prev);
    return rc;
}

/* ---- host buffers and copies -------------------------------------------------- */

static int cuda_host_alloc(void **p, size_t n)
{
    if (require_devices("host_alloc") != 0)
        return -1;
    /* Portable: pinned for every device, whichever one a copy runs on. */
    cudaError_t e = rt->HostAlloc(p, n ? n : 1, cudaHostAllocPortable);
    if (e != cudaSuccess) {
        *p = NULL;
        return cuda_fail(e, "cudaHostAlloc of %zu pinned bytes", n);
    }
    return 0;
}

static void cuda_host_free(void *p)
{
    if (p != NULL)
        (void)rt->FreeHost(p);
}

/* Queues an n-byte copy on the stream of dev_ptr's device, that device being
 * current for the call; dev_ptr names the device-side address. */
static int copy_async(void *stream, void *dst, const void *src, size_t n, const void *dev_ptr,
                      const char *what)
{
    int dev, prev;
    cudaStream_t s = NULL;
    if (stream == NULL) {
        cuda_msg("cuda: %s on a NULL stream", what);
        return -1;
    }
    if (n == 0)
        return 0;
    if (device_of(dev_ptr, what, &dev) != 0 || device_enter(dev, &prev, what) != 0)
        return -1;
    int rc = stream_on(stream, dev, &s);
    if (rc == 0) {
        /* Default kind: unified addressing tells device from managed memory. */
        cudaError_t e = rt->MemcpyAsync(dst, src, n, cudaMemcpyDefault, s);
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

const fti_device_ops fti_cuda_ops =
    FTI_DEVICE_OPS_TABLE("cuda", cuda, cuda_stream_destroy, cuda_order_after_app);
