/*
 * fake_cudart.c - a stand-in for libcudart.so with the few entry points the
 * CUDA backend loads (backends/cuda/cudart.c), for testing the run-time
 * loading, the error mapping and the multi-device rules on machines without
 * a GPU. Built with SONAME libcudart.so.13, so a process that loaded it is
 * "an application that already has its CUDA runtime".
 *
 * FAKE_CUDART_MODE=old_driver: the driver is older than the runtime
 * (cudaGetDeviceCount fails with cudaErrorInsufficientDriver). Otherwise two
 * devices. "Device memory" is host memory from fake_cudart_malloc; every
 * copy checks that the memory's device is current and that the stream
 * belongs to it, and counts violations. Copies are synchronous; a kernel
 * (fake_cudart_launch) runs in a thread on the legacy default stream, and
 * cudaStreamWaitEvent on an event recorded there waits for it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define FAKE_EXPORT __attribute__((visibility("default")))
#define MAX_ALLOCS 64
#define NDEV 2

typedef struct alloc {
    char *base;
    size_t size;
    int device;
    enum cudaMemoryType type;
} alloc;

typedef struct fake_stream {
    int device;
} fake_stream;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static alloc allocs[MAX_ALLOCS];
static int nallocs;
static _Thread_local int current;
static cudaError_t last;
static unsigned long long launched, finished;
static int violations, copies_on[8];

static int old_driver(void)
{
    const char *m = getenv("FAKE_CUDART_MODE");
    return m != NULL && strcmp(m, "old_driver") == 0;
}

static cudaError_t fail(cudaError_t e)
{
    last = e;
    return e;
}

static const alloc *find(const void *p)
{
    for (int i = 0; i < nallocs; i++)
        if ((const char *)p >= allocs[i].base && (const char *)p < allocs[i].base + allocs[i].size)
            return &allocs[i];
    return NULL;
}

/* ---- test hooks ------------------------------------------------------------- */

FAKE_EXPORT void *fake_cudart_malloc(size_t n, int device, int managed)
{
    alloc *a = &allocs[nallocs++];
    a->base = calloc(1, n);
    a->size = n;
    a->device = device;
    a->type = managed ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
    return a->base;
}

FAKE_EXPORT void fake_cudart_stats(int *bad, int *dev0, int *dev1)
{
    pthread_mutex_lock(&lock);
    *bad = violations;
    *dev0 = copies_on[0];
    *dev1 = copies_on[1];
    pthread_mutex_unlock(&lock);
}

typedef struct kernel {
    void (*fn)(void *);
    void *arg;
} kernel;

static void *kernel_thread(void *p)
{
    kernel k = *(kernel *)p;
    free(p);
    k.fn(k.arg);
    pthread_mutex_lock(&lock);
    finished++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    return NULL;
}

FAKE_EXPORT void fake_cudart_launch(void (*fn)(void *), void *arg)
{
    pthread_t t;
    kernel *k = malloc(sizeof *k);
    k->fn = fn;
    k->arg = arg;
    pthread_mutex_lock(&lock);
    launched++;
    pthread_mutex_unlock(&lock);
    pthread_create(&t, NULL, kernel_thread, k);
    pthread_detach(t);
}

/* ---- the runtime ------------------------------------------------------------- */

FAKE_EXPORT cudaError_t cudaGetDeviceCount(int *n)
{
    if (old_driver()) {
        *n = 0;
        return fail(cudaErrorInsufficientDriver);
    }
    *n = NDEV;
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaGetDevice(int *d)
{
    *d = current;
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaSetDevice(int d)
{
    if (d < 0 || d >= NDEV)
        return fail(cudaErrorInvalidDevice);
    current = d;
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaDriverGetVersion(int *v)
{
    *v = old_driver() ? 11040 : 13000;
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaRuntimeGetVersion(int *v)
{
    *v = 13000;
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last;
    last = cudaSuccess;
    return e;
}

FAKE_EXPORT const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaErrorInsufficientDriver ? "CUDA driver version is insufficient for CUDA "
                                              "runtime version"
                                            : "fake error";
}

FAKE_EXPORT const char *cudaGetErrorName(cudaError_t e)
{
    return e == cudaErrorInsufficientDriver ? "cudaErrorInsufficientDriver"
           : e == cudaErrorInvalidDevice    ? "cudaErrorInvalidDevice"
                                            : "cudaErrorInvalidValue";
}

FAKE_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p)
{
    const alloc *al = find(p);
    memset(a, 0, sizeof *a);
    a->type = al ? al->type : cudaMemoryTypeUnregistered;
    a->device = al ? al->device : -2;
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
    fake_stream *fs = malloc(sizeof *fs);
    (void)flags;
    fs->device = current;
    *s = (cudaStream_t)fs;
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    free(s);
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    (void)s;
    return cudaSuccess;
}

/* An event is the number of kernels launched when it was recorded. */
FAKE_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags)
{
    (void)flags;
    *e = (cudaEvent_t)calloc(1, sizeof(unsigned long long));
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    if (s != cudaStreamLegacy)
        return fail(cudaErrorInvalidValue);
    pthread_mutex_lock(&lock);
    *(unsigned long long *)e = launched;
    pthread_mutex_unlock(&lock);
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags)
{
    (void)s, (void)flags;
    pthread_mutex_lock(&lock);
    while (finished < *(unsigned long long *)e)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    free(e);
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags)
{
    (void)flags;
    *p = malloc(n);
    return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

FAKE_EXPORT cudaError_t cudaFreeHost(void *p)
{
    free(p);
    return cudaSuccess;
}

FAKE_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n,
                                        enum cudaMemcpyKind kind, cudaStream_t s)
{
    const alloc *a = find(dst) ? find(dst) : find(src);
    int bad = a == NULL || kind != cudaMemcpyDefault || a->device != current ||
              ((fake_stream *)s)->device != current;
    pthread_mutex_lock(&lock);
    violations += bad;
    if (a != NULL)
        copies_on[a->device]++;
    pthread_mutex_unlock(&lock);
    if (bad)
        return fail(cudaErrorInvalidDevice);
    memcpy(dst, src, n);
    return cudaSuccess;
}
