/*
 * test_gpu_cudart.c - the CUDA backend over a runtime loaded at run time,
 * without a GPU: the runtime is test/gpu/fake_cudart.c (SONAME
 * libcudart.so.13). One mode per process, since the runtime is looked up
 * once:
 *
 *   app SHIM         the application loaded the runtime (dlopen, local) and
 *                    FTI_CUDA_RUNTIME=none forbids any other: libfti must use
 *                    the application's. Pointers of two devices are claimed
 *                    with their device, each copy runs with its device
 *                    current (the shim counts violations), the caller's
 *                    device is restored, bytes round-trip, a pointer of a
 *                    device the process cannot see is refused, and a capture
 *                    waits for a kernel on the legacy default stream.
 *   none             no runtime: an address the host cannot read is refused
 *                    with a message naming the missing runtime.
 *   old_driver SHIM  FTI_CUDA_RUNTIME=SHIM, whose driver is older than its
 *                    runtime: the message says so (cudaErrorInsufficientDriver).
 *   late SHIM        no FTI_CUDA_RUNTIME, CUDA not loaded: the backend loads no
 *                    runtime (none mapped afterwards) and says CUDA is not
 *                    loaded; once the application loads its runtime, the
 *                    next lookup finds it and claims its device memory.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "data/capture.h"
#include "cuda/fti_cuda.h"
#include "device.h"
#include "base/fio.h"
#include "base/safe_fs.h"

#define N (256u << 10)
#define CHUNK (64u << 10)

static int failures;

#define check(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            failures++;                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                  \
            fputc('\n', stderr);                                           \
        }                                                                  \
    } while (0)

static void *(*shim_malloc)(size_t, int, int);
static void (*shim_stats)(int *, int *, int *);
static void (*shim_launch)(void (*)(void *), void *);
static int (*shim_set_device)(int);
static int (*shim_get_device)(int *);

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 13u + seed * 101u + (i >> 10));
}

static int scratch_file(void)
{
    const char *dir = getenv("FTI_TEST_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/cudart_%ld.bin", dir && *dir ? dir : "/tmp", (long)getpid());
    fti_mkdirs(dir && *dir ? dir : "/tmp");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    unlink(path);
    return fd;
}

/* The message classify gives an address the host cannot read. */
static void unreadable_message(char *err, size_t len)
{
    void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    const fti_device_ops *ops;
    fti_devptr_info info;
    check(fti_device_classify(p, 4096, &ops, &info, err, len) == -1,
          "an unreadable address is refused");
    munmap(p, 4096);
}

/* ---- mode app ------------------------------------------------------------------ */

static int load_shim(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        fprintf(stderr, "cannot load %s: %s\n", path, dlerror());
        return -1;
    }
    *(void **)&shim_malloc = dlsym(h, "fake_cudart_malloc");
    *(void **)&shim_stats = dlsym(h, "fake_cudart_stats");
    *(void **)&shim_launch = dlsym(h, "fake_cudart_launch");
    *(void **)&shim_set_device = dlsym(h, "cudaSetDevice");
    *(void **)&shim_get_device = dlsym(h, "cudaGetDevice");
    return shim_malloc && shim_stats && shim_launch && shim_set_device ? 0 : -1;
}

static void check_classification(void)
{
    fti_devptr_info info = {-1, -1};
    void *d0 = shim_malloc(64, 0, 0), *d1 = shim_malloc(64, 1, 0), *m = shim_malloc(64, 0, 1);
    void *other = shim_malloc(64, 5, 0), *host = malloc(64);
    check(fti_device_lookup(d0, &info) == &fti_cuda_ops && info.device == 0,
          "device memory of device 0 is cuda's, on device 0 (got %d)", info.device);
    check(fti_device_lookup(d1, &info) == &fti_cuda_ops && info.device == 1,
          "device memory of device 1 is on device 1 (got %d)", info.device);
    check(fti_device_lookup(m, &info) == &fti_cuda_ops && info.host_readable == 0,
          "managed memory goes through the pipeline");
    check(fti_device_lookup(host, &info) == NULL, "malloc'd memory is host memory");
    const fti_device_ops *ops;
    char err[1024] = "";
    check(fti_device_classify(other, 64, &ops, &info, err, sizeof err) == -1 &&
              strstr(err, "device 5") != NULL,
          "a pointer of a device the process cannot see is refused: '%s'", err);
    free(host);
}

/* Round trip of a variable on `dev` while device 1 is current. */
static void round_trip(fti_capture_sets *sets, int dev)
{
    unsigned char *src = shim_malloc(N, dev, 0), *dst = shim_malloc(N, dev, 0);
    unsigned char *want = malloc(N);
    char err[512];
    fill(want, N, (unsigned)dev + 1);
    memcpy(src, want, N);
    int fd = scratch_file();
    check(fti_capture_to_file(sets, &fti_cuda_ops, src, N, fd, 0, CHUNK, NULL, err,
                              sizeof err) == 0, "capture on device %d: %s", dev, err);
    check(fti_capture_from_file(sets, &fti_cuda_ops, dst, N, fd, 0, CHUNK, NULL, err,
                                sizeof err) == 0, "restore on device %d: %s", dev, err);
    check(memcmp(dst, want, N) == 0, "device %d: restored bytes equal the saved ones", dev);
    close(fd);
    free(want);
}

typedef struct late_write {
    unsigned char *dev;
    const unsigned char *bytes;
} late_write;

static void late_kernel(void *arg)
{
    late_write *k = arg;
    struct timespec ts = {0, 150000000L};
    nanosleep(&ts, NULL);
    memcpy(k->dev, k->bytes, N);
}

static void check_ordering(void)
{
    unsigned char *dev = shim_malloc(N, 0, 0), *want = malloc(N), *got = malloc(N);
    char err[512];
    fill(want, N, 9);
    late_write k = {dev, want};
    int fd = scratch_file();
    shim_launch(late_kernel, &k);
    check(fti_capture_to_file(NULL, &fti_cuda_ops, dev, N, fd, 0, CHUNK, NULL, err,
                              sizeof err) == 0, "capture: %s", err);
    check(fti_pread_full(fd, got, N, 0) == 0 && memcmp(got, want, N) == 0,
          "the checkpoint holds what the kernel launched before it wrote");
    close(fd);
    free(want);
    free(got);
}

static int mode_app(const char *shim)
{
    setenv("FTI_CUDA_RUNTIME", "none", 1); /* only the application's runtime may be used */
    if (load_shim(shim) != 0)
        return 1;
    check_classification();
    fti_capture_sets sets = {0};
    int bad, on0, on1, cur = -1;
    shim_set_device(1);
    round_trip(&sets, 0);
    round_trip(&sets, 1);
    round_trip(NULL, 0);
    fti_capture_sets_free(&sets);
    shim_get_device(&cur);
    check(cur == 1, "the application's current device (1) is restored, got %d", cur);
    shim_stats(&bad, &on0, &on1);
    check(bad == 0 && on0 > 0 && on1 > 0,
          "every copy ran with its memory's device current and on its stream (%d violations, "
          "%d copies on device 0, %d on device 1)", bad, on0, on1);
    check_ordering();
    return 0;
}

/* ---- mode late ------------------------------------------------------------------ */

/* 1 when this process maps a library whose path holds `name`. */
static int maps_library(const char *name)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return -1;
    while (!found && fgets(line, sizeof line, f) != NULL)
        found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

static int mode_late(const char *shim)
{
    char err[1024] = "";
    fti_devptr_info info;
    unsetenv("FTI_CUDA_RUNTIME");
    unreadable_message(err, sizeof err);
    check(strstr(err, "cuda: not asked: this process has not loaded CUDA") != NULL,
          "before the application loads CUDA, the backend says so: '%s'", err);
    check(maps_library("/libcudart") == 0 && maps_library("/libcuda.") == 0,
          "no CUDA library is mapped before the application loads one");
    if (load_shim(shim) != 0)
        return 1;
    void *d0 = shim_malloc(64, 0, 0);
    check(fti_device_lookup(d0, &info) == &fti_cuda_ops && info.device == 0,
          "the runtime the application loaded later is found and claims its memory");
    return 0;
}

/* ---- modes none and old_driver ---------------------------------------------------- */

static int mode_none(void)
{
    char err[1024] = "";
    setenv("FTI_CUDA_RUNTIME", "none", 1);
    unreadable_message(err, sizeof err);
    check(strstr(err, "no CUDA runtime could be loaded") != NULL &&
              strstr(err, "FTI_CUDA_RUNTIME=none") != NULL,
          "the message names the missing runtime: '%s'", err);
    void *s = NULL;
    check(fti_cuda_ops.stream_create(&s) != 0 &&
              strstr(fti_cuda_ops.last_error(), "no CUDA runtime") != NULL,
          "device calls fail with the reason: '%s'", fti_cuda_ops.last_error());
    return 0;
}

static int mode_old_driver(const char *shim)
{
    char err[1024] = "";
    setenv("FTI_CUDA_RUNTIME", shim, 1);
    setenv("FAKE_CUDART_MODE", "old_driver", 1);
    unreadable_message(err, sizeof err);
    check(strstr(err, "older than the CUDA runtime") != NULL &&
              strstr(err, "cudaErrorInsufficientDriver") != NULL && strstr(err, "11.4") != NULL,
          "the message says the driver (11.4) is too old: '%s'", err);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 2;
    if (argc >= 3 && strcmp(argv[1], "app") == 0)
        rc = mode_app(argv[2]);
    else if (argc >= 2 && strcmp(argv[1], "none") == 0)
        rc = mode_none();
    else if (argc >= 3 && strcmp(argv[1], "old_driver") == 0)
        rc = mode_old_driver(argv[2]);
    else if (argc >= 3 && strcmp(argv[1], "late") == 0)
        rc = mode_late(argv[2]);
    else
        fprintf(stderr, "usage: %s app SHIM | none | old_driver SHIM | late SHIM\n", argv[0]);
    if (rc == 0 && failures == 0)
        printf("ok: %s\n", argv[1]);
    return rc != 0 ? rc : failures != 0;
}
