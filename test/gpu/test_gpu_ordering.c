/*
 * test_gpu_ordering.c - a checkpoint or recovery of device memory is
 * ordered after the application's device work, as FTI's cudaMemcpy on the
 * legacy default stream is: on the emulated device (backends/emu), a
 * "kernel" launched just before still writes the memory when the capture
 * starts, and the capture must wait for it. Also: a pointer the host cannot
 * read that no backend claims is refused by FTI_Protect's registry with a
 * message, never treated as host memory.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/capture.h"
#include "device.h"
#include "emu/emu.h"
#include "base/fio.h"
#include "base/safe_fs.h"
#include "base/log.h"
#include "data/registry.h"

#define N (1u << 20)
#define CHUNK (64u << 10)
#define KERNEL_DELAY_NS 200000000L /* the kernel writes 0.2 s after its launch */

static void nap_ns(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31u + seed * 7u + (i >> 12));
}

/* An emulated kernel: sleeps, then writes `pattern` into `dev` in two
 * halves with a pause between, as a long kernel would. */
typedef struct slow_kernel {
    unsigned char *dev;
    const unsigned char *pattern;
} slow_kernel;

static void slow_kernel_fn(void *arg)
{
    slow_kernel *k = arg;
    nap_ns(KERNEL_DELAY_NS);
    memcpy(k->dev, k->pattern, N / 2);
    nap_ns(KERNEL_DELAY_NS / 4);
    memcpy(k->dev + N / 2, k->pattern + N / 2, N / 2);
}

static int scratch_file(void)
{
    const char *dir = getenv("FTI_TEST_DIR");
    char path[4096];
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    assert_int_equal(fti_mkdirs(dir), 0);
    snprintf(path, sizeof path, "%s/gpu_ordering_%ld.bin", dir, (long)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    unlink(path);
    return fd;
}

/* The kernel launched before the checkpoint has not written anything when
 * the checkpoint starts; the file must hold what it wrote, not zeros. */
static void test_checkpoint_waits_for_kernel(void **state)
{
    (void)state;
    unsigned char *dev = fti_emu_malloc(N), *want = malloc(N), *got = malloc(N);
    assert_non_null(dev);
    memset(dev, 0, N);
    fill(want, N, 1);
    slow_kernel k = {dev, want};
    int fd = scratch_file();
    char err[512];
    assert_int_equal(fti_emu_launch(slow_kernel_fn, &k), 0);
    assert_int_equal(fti_capture_to_file(NULL, &fti_emu_ops, dev, N, fd, 0, CHUNK, NULL, err,
                                         sizeof err), 0);
    assert_int_equal(fti_pread_full(fd, got, N, 0), 0);
    fti_emu_synchronize(); /* before asserting: a failed test frees dev */
    assert_memory_equal(got, want, N);
    close(fd);
    fti_emu_free(dev);
    free(want);
    free(got);
}

/* A recovery must not be overwritten by a kernel launched before it, and
 * its bytes are on the device when it returns (slow copies). */
static void test_recovery_after_kernel_and_complete(void **state)
{
    (void)state;
    unsigned char *dev = fti_emu_malloc(N), *stale = malloc(N), *saved = malloc(N),
                  *got = malloc(N);
    assert_non_null(dev);
    fill(stale, N, 2);
    fill(saved, N, 3);
    int fd = scratch_file();
    assert_int_equal(fti_pwrite_full(fd, saved, N, 0), 0);
    slow_kernel k = {dev, stale};
    char err[512];
    fti_emu_set_speed(200e6, 1e-4); /* 1 MiB takes ~5 ms: copies land late */
    assert_int_equal(fti_emu_launch(slow_kernel_fn, &k), 0);
    assert_int_equal(fti_capture_from_file(NULL, &fti_emu_ops, dev, N, fd, 0, CHUNK, NULL, err,
                                           sizeof err), 0);
    assert_int_equal(fti_emu_read(got, dev, N), 0);
    unsigned char *after = malloc(N);
    fti_emu_synchronize();
    assert_int_equal(fti_emu_read(after, dev, N), 0);
    assert_memory_equal(got, saved, N);
    assert_memory_equal(after, saved, N); /* the kernel ran before, not after */
    free(after);
    fti_emu_set_speed(0, 0);
    close(fd);
    fti_emu_free(dev);
    free(stale);
    free(saved);
    free(got);
}

/* Memory the host cannot read (a PROT_NONE mapping stands for a device
 * address whose runtime is absent) is refused with a message. */
static void test_unreadable_pointer_refused(void **state)
{
    (void)state;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    void *p = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    const fti_device_ops *ops = &fti_emu_ops;
    fti_devptr_info info;
    char err[1024];
    assert_int_equal(fti_device_host_readable(p, page), 0);
    assert_int_equal(fti_device_classify(p, page, &ops, &info, err, sizeof err), -1);
    assert_non_null(strstr(err, "not host memory"));
    char host[64];
    assert_int_equal(fti_device_classify(host, sizeof host, &ops, &info, err, sizeof err), 0);
    assert_null(ops);

    fti_registry r;
    assert_int_equal(fti_registry_init(&r), FTI_E_OK);
    assert_int_not_equal(fti_registry_protect(&r, 7, p, (int64_t)page, 0), FTI_E_OK);
    assert_non_null(strstr(fti_last_error(), "variable 7"));
    assert_null(fti_registry_find(&r, 7)); /* nothing half-registered */
    r.no_device_lookup = 1;
    assert_int_not_equal(fti_registry_protect(&r, 7, p, (int64_t)page, 0), FTI_E_OK);
    assert_non_null(strstr(fti_last_error(), "device_backends = off"));
    assert_int_equal(fti_registry_protect(&r, 8, host, sizeof host, 0), FTI_E_OK);
    fti_registry_free(&r);
    munmap(p, page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checkpoint_waits_for_kernel),
        cmocka_unit_test(test_recovery_after_kernel_and_complete),
        cmocka_unit_test(test_unreadable_pointer_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
