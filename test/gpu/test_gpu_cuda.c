/*
 * test_gpu_cuda.c - the CUDA backend (backends/cuda) and the capture pipeline
 * on a real device: pointer classification, byte-exact round trips at every
 * chunk boundary, the application's current device left as it was (also
 * across devices when there are several), with buffers pinned per call and
 * with one capture set kept across all captures, as the library keeps it
 * (also for memory of several devices), managed memory, and captures that
 * wait for work the application still has queued on the legacy and the
 * per-thread default streams. Exits 77 ("skipped") when no CUDA
 * device is usable at run time.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "data/capture.h"
#include "cuda/fti_cuda.h"
#include "device.h"
#include "base/safe_fs.h"
#include "base/integrity.h"

#define CHUNK ((size_t)1 << 20)
#define FILE_OFF 4096

static int failures;

static void check(int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", ok ? "ok" : "FAIL");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures += !ok;
}

static int cuda_ok(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        check(0, "%s: %s", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

static void fill_pattern(unsigned char *p, size_t n, uint64_t seed)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)(x >> 24);
    }
}

static int open_scratch(void)
{
    const char *dir = getenv("FTI_TEST_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/gpu_cuda_%ld.bin", dir && *dir ? dir : "/tmp",
             (long)getpid());
    if (dir && *dir && fti_mkdirs(dir) != 0)
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0)
        unlink(path);
    return fd;
}

static void test_classification(void)
{
    void *dev = NULL, *pinned = NULL, *managed = NULL, *heap = malloc(64);
    fti_devptr_info info = {-1, -1};
    int cur = -1;
    cudaGetDevice(&cur);
    if (!cuda_ok(cudaMalloc(&dev, 4096), "cudaMalloc") ||
        !cuda_ok(cudaMallocHost(&pinned, 4096), "cudaMallocHost") ||
        !cuda_ok(cudaMallocManaged(&managed, 4096, cudaMemAttachGlobal), "cudaMallocManaged"))
        goto out;
    check(fti_device_lookup(dev, &info) == &fti_cuda_ops && info.device == cur &&
              info.host_readable == 0, "device memory is claimed by cuda on device %d", cur);
    check(fti_device_lookup((char *)dev + 4095, NULL) == &fti_cuda_ops,
          "an interior device pointer is claimed");
    check(fti_device_lookup(managed, &info) == &fti_cuda_ops && info.host_readable == 0,
          "managed memory is claimed and copied through the pipeline");
    check(fti_device_lookup(pinned, &info) == NULL, "pinned host memory is host memory");
    check(fti_device_lookup(heap, &info) == NULL, "malloc'd memory is host memory");
    check(cudaGetLastError() == cudaSuccess, "lookups leave no CUDA error behind");
out:
    cudaFree(managed);
    cudaFreeHost(pinned);
    cudaFree(dev);
    free(heap);
}

static void round_trip(fti_capture_sets *sets, size_t n, int fd)
{
    unsigned char *src = malloc(n + 1), *back = malloc(n + 1), *file = malloc(n + 1);
    void *dev = NULL, *dev2 = NULL;
    char err[512];
    fti_hash h1, h2;
    int before = -1, after = -2;
    fill_pattern(src, n, n + 17);
    uint64_t want = fti_hash_buffer(src, n);
    if (fti_hash_init(&h1) || fti_hash_init(&h2) || !cuda_ok(cudaMalloc(&dev, n + 1), "malloc") ||
        !cuda_ok(cudaMalloc(&dev2, n + 1), "malloc") ||
        !cuda_ok(cudaMemcpy(dev, src, n, cudaMemcpyHostToDevice), "fill") ||
        !cuda_ok(cudaMemset(dev2, 0xA5, n + 1), "clear"))
        goto out;
    cudaGetDevice(&before);
    int rc = fti_capture_to_file(sets, &fti_cuda_ops, dev, n, fd, FILE_OFF, CHUNK, &h1, err,
                                 sizeof err);
    check(rc == 0, "capture %zu bytes%s%s", n, rc ? ": " : "", rc ? err : "");
    check(pread(fd, file, n, FILE_OFF) == (ssize_t)n && memcmp(file, src, n) == 0,
          "file holds the %zu device bytes", n);
    rc = fti_capture_from_file(sets, &fti_cuda_ops, dev2, n, fd, FILE_OFF, CHUNK, &h2, err,
                               sizeof err);
    check(rc == 0, "restore %zu bytes%s%s", n, rc ? ": " : "", rc ? err : "");
    cudaGetDevice(&after);
    check(cuda_ok(cudaMemcpy(back, dev2, n, cudaMemcpyDeviceToHost), "read back") &&
              memcmp(back, src, n) == 0, "restored %zu bytes are byte-exact", n);
    check(fti_hash_final(&h1) == want && fti_hash_final(&h2) == want,
          "checksums of %zu bytes match a one-shot hash", n);
    check(before == after, "current device unchanged (%d)", before);
out:
    fti_hash_free(&h1);
    fti_hash_free(&h2);
    cudaFree(dev2);
    cudaFree(dev);
    free(file);
    free(back);
    free(src);
}

/* Memory on device 1 while the application has device 0 current. */
static void test_other_device(fti_capture_sets *sets, int fd)
{
    unsigned char src[8192], back[8192];
    void *dev = NULL;
    char err[512];
    int cur = -1;
    fill_pattern(src, sizeof src, 99);
    cudaSetDevice(1);
    int ok = cuda_ok(cudaMalloc(&dev, sizeof src), "cudaMalloc on device 1") &&
             cuda_ok(cudaMemcpy(dev, src, sizeof src, cudaMemcpyHostToDevice), "fill");
    cudaSetDevice(0);
    if (!ok)
        return;
    int rc = fti_capture_to_file(sets, &fti_cuda_ops, dev, sizeof src, fd, 0, 4096, NULL, err,
                                 sizeof err);
    cudaGetDevice(&cur);
    check(rc == 0 && cur == 0, "capture from device 1 keeps device 0 current%s%s",
          rc ? ": " : "", rc ? err : "");
    check(pread(fd, back, sizeof back, 0) == (ssize_t)sizeof back &&
              memcmp(back, src, sizeof src) == 0, "device 1 bytes captured byte-exact");
    cudaSetDevice(1);
    cudaFree(dev);
    cudaSetDevice(0);
}

/* The application's work still queued on `app` (the legacy default stream,
 * or the per-thread one) writes the memory when the capture starts: the
 * checkpoint must hold its final bytes (ordering, as FTI's cudaMemcpy). */
static void test_ordering(cudaStream_t app, const char *name, int managed)
{
    const size_t n = (size_t)256 << 20;
    void *dev = NULL;
    unsigned char *back = malloc(n);
    char err[512];
    int fd = open_scratch();
    cudaError_t e = managed ? cudaMallocManaged(&dev, n, cudaMemAttachGlobal) : cudaMalloc(&dev, n);
    if (!cuda_ok(e, "allocating 256 MiB") || back == NULL || fd < 0)
        goto out;
    cudaMemset(dev, 0, n);
    cudaDeviceSynchronize();
    for (int i = 1; i <= 40; i++) /* ~40 x 256 MiB of writes still queued */
        cudaMemsetAsync(dev, i == 40 ? 0x77 : i, n, app);
    int rc = fti_capture_to_file(NULL, &fti_cuda_ops, dev, n, fd, 0, CHUNK, NULL, err, sizeof err);
    check(rc == 0, "capture after queued work on the %s stream%s%s", name, rc ? ": " : "",
          rc ? err : "");
    size_t bad = 0;
    if (pread(fd, back, n, 0) == (ssize_t)n)
        for (size_t i = 0; i < n; i++)
            bad += back[i] != 0x77;
    check(bad == 0, "%s memory: the checkpoint waited for the %s stream's work (%zu stale bytes)",
          managed ? "managed" : "device", name, bad);
out:
    cudaDeviceSynchronize();
    cudaFree(dev);
    free(back);
    if (fd >= 0)
        close(fd);
}

static void test_host_pointer_rejected(void)
{
    void *s = NULL;
    char host[64], dst[64];
    if (fti_cuda_ops.stream_create(&s) != 0) {
        check(0, "stream_create: %s", fti_cuda_ops.last_error());
        return;
    }
    check(fti_cuda_ops.to_host(s, dst, host, 0, sizeof dst) == -1 &&
              strstr(fti_cuda_ops.last_error(), "not CUDA device or managed memory") != NULL,
          "a host pointer as device region fails with a clear message");
    fti_cuda_ops.stream_destroy(s);
}

int main(void)
{
    int ndev = 0;
    cudaError_t e = cudaGetDeviceCount(&ndev);
    if (e != cudaSuccess || ndev == 0) {
        printf("skipped: no CUDA device (%s)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        return 77;
    }
    int fd = open_scratch();
    if (fd < 0) {
        perror("scratch file");
        return 1;
    }
    printf("testing on %d CUDA device(s)\n", ndev);
    test_classification();
    const size_t sizes[] = {0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 10 * CHUNK + 7};
    fti_capture_sets kept = {0};
    for (int pass = 0; pass < 2; pass++) { /* buffers per call, then one kept set */
        fti_capture_sets *sets = pass ? &kept : NULL;
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            round_trip(sets, sizes[i], fd);
        if (ndev > 1)
            test_other_device(sets, fd);
    }
    check(kept.n == 1 && kept.set[0].buf[0] != NULL && kept.set[0].buf[1] != NULL,
          "one kept set with two pinned buffers for all captures");
    fti_capture_sets_free(&kept);
    check(cudaGetLastError() == cudaSuccess, "freeing the kept set leaves no CUDA error");
    test_host_pointer_rejected();
    test_ordering(cudaStreamLegacy, "legacy default", 0);
    test_ordering(cudaStreamPerThread, "per-thread default", 0);
    test_ordering(cudaStreamLegacy, "legacy default", 1);
    close(fd);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
