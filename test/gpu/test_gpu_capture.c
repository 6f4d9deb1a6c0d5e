/*
 * test_gpu_capture.c - the device capture pipeline (src/data/capture.c) and the
 * backend registry (backends/device.c) over the emulated device
 * (backends/emu): byte-exact round trips at every chunk boundary, error
 * paths that must leave no buffer allocated and no stream busy, capture sets
 * that pin their buffers once for many captures (also through checkpoint
 * files), and the device_backends = off switch. The timing check that copies
 * overlap the file I/O is test_gpu_overlap.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/capture.h"
#include "format/ckpt_file.h"
#include "format/config.h"
#include "device.h"
#include "emu/emu.h"
#include "base/safe_fs.h"
#include "base/integrity.h"
#include "base/log.h"
#include "data/registry.h"

#define FILE_OFF 4096 /* variables sit at 4 KiB-aligned offsets in a checkpoint */
#define ERRLEN 512

/* ---- helpers -------------------------------------------------------------- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Deterministic bytes that differ at every position and per seed, so a chunk
 * written at the wrong offset cannot pass. */
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

static int open_scratch(const char *tag)
{
    const char *dir = getenv("FTI_TEST_DIR");
    char path[4096];
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    assert_int_equal(fti_mkdirs(dir), 0);
    snprintf(path, sizeof path, "%s/gpu_capture_%s_%ld.bin", dir, tag, (long)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    unlink(path); /* gone when closed, even if a test fails */
    return fd;
}

/* An emulated allocation of n bytes holding the pattern; the pattern's host
 * copy goes to *host (malloc'd, caller frees). */
static void *make_device_region(size_t n, uint64_t seed, unsigned char **host)
{
    *host = malloc(n ? n : 1);
    assert_non_null(*host);
    fill_pattern(*host, n, seed);
    void *dev = fti_emu_malloc(n);
    assert_non_null(dev);
    assert_int_equal(fti_emu_write(dev, *host, n), 0);
    return dev;
}

/* ---- counting ops: wraps emu to prove no leak and no busy stream ------------ */

static struct {
    int buffers, streams;      /* live */
    int allocs, creates;       /* host_alloc / stream_create calls that succeeded, ever */
    int pending_at_destroy;    /* streams destroyed with unsynchronised copies */
    int pending[64];           /* copies queued since the last sync, per stream */
    void *ids[64];
} cnt;

static int slot(void *s)
{
    for (int i = 0; i < 64; i++)
        if (cnt.ids[i] == s)
            return i;
    fail_msg("stream %p was not created through the counting ops", s);
    return -1;
}

static int c_stream_create(void **s)
{
    int rc = fti_emu_ops.stream_create(s);
    if (rc == 0) {
        cnt.streams++;
        cnt.creates++;
        cnt.ids[slot(NULL)] = *s;
    }
    return rc;
}

static void c_stream_destroy(void *s)
{
    int i = slot(s);
    if (cnt.pending[i] != 0)
        cnt.pending_at_destroy++;
    cnt.pending[i] = 0;
    cnt.ids[i] = NULL;
    cnt.streams--;
    fti_emu_ops.stream_destroy(s);
}

static int c_stream_sync(void *s)
{
    cnt.pending[slot(s)] = 0;
    return fti_emu_ops.stream_sync(s);
}

static int c_host_alloc(void **p, size_t n)
{
    int rc = fti_emu_ops.host_alloc(p, n);
    cnt.buffers += rc == 0;
    cnt.allocs += rc == 0;
    return rc;
}

static void c_host_free(void *p)
{
    cnt.buffers--;
    fti_emu_ops.host_free(p);
}

static int c_to_host(void *s, void *dst, const void *h, size_t off, size_t n)
{
    cnt.pending[slot(s)]++;
    return fti_emu_ops.to_host(s, dst, h, off, n);
}

static int c_to_device(void *s, void *h, size_t off, const void *src, size_t n)
{
    cnt.pending[slot(s)]++;
    return fti_emu_ops.to_device(s, h, off, src, n);
}

static fti_device_ops counting_ops(void)
{
    fti_device_ops o = fti_emu_ops;
    o.stream_create = c_stream_create;
    o.stream_destroy = c_stream_destroy;
    o.stream_sync = c_stream_sync;
    o.host_alloc = c_host_alloc;
    o.host_free = c_host_free;
    o.to_host = c_to_host;
    o.to_device = c_to_device;
    return o;
}

static void assert_all_released(void)
{
    assert_int_equal(cnt.buffers, 0);
    assert_int_equal(cnt.streams, 0);
    assert_int_equal(cnt.pending_at_destroy, 0);
}

static int reset_emu(void **state)
{
    (void)state;
    fti_emu_set_speed(0, 0);
    fti_emu_fail_after((size_t)-1);
    memset(&cnt, 0, sizeof cnt);
    return 0;
}

/* ---- registry and emulated device ----------------------------------------- */

static void test_lookup_claims_emu_only(void **state)
{
    (void)state;
    int on_stack = 0;
    void *heap = malloc(64);
    char *dev = fti_emu_malloc(100);
    fti_devptr_info info = {-1, -1};

    assert_ptr_equal(fti_device_lookup(dev, &info), &fti_emu_ops);
    assert_int_equal(info.device, 0);
    assert_int_equal(info.host_readable, 0);
    assert_ptr_equal(fti_device_lookup(dev + 99, NULL), &fti_emu_ops); /* interior */
    assert_null(fti_device_lookup(heap, &info));
    assert_null(fti_device_lookup(&on_stack, &info));
    assert_null(fti_device_lookup(NULL, &info));
    fti_emu_free(dev);
    assert_null(fti_device_lookup(dev, &info)); /* freed: host memory again */
    free(heap);
}

static void test_backends_by_name(void **state)
{
    (void)state;
    const fti_device_ops *const *all = fti_device_backends();
    int n = 0;
    assert_ptr_equal(fti_device_by_name("emu"), &fti_emu_ops);
    assert_null(fti_device_by_name("no-such-backend"));
    assert_null(fti_device_by_name(NULL));
    for (; all[n] != NULL; n++)
        assert_int_equal(all[n]->version, FTI_DEVICE_OPS_VERSION);
#ifdef FTI_HAVE_CUDA
    assert_non_null(fti_device_by_name("cuda"));
    assert_int_equal(n, 2);
#else
    assert_null(fti_device_by_name("cuda"));
    assert_int_equal(n, 1);
#endif
}

/* Copies run behind the caller's back and land in queue order. */
static void test_emu_streams_async_in_order(void **state)
{
    (void)state;
    const fti_device_ops *o = &fti_emu_ops;
    unsigned char *dev = fti_emu_malloc(3 * 256), dst[256];
    void *s;
    for (int k = 0; k < 3; k++) {
        unsigned char v[256];
        memset(v, 'a' + k, sizeof v);
        assert_int_equal(fti_emu_write(dev + k * 256, v, 256), 0);
    }
    memset(dst, 0, sizeof dst);
    assert_int_equal(o->stream_create(&s), 0);
    fti_emu_set_speed(0, 0.3);
    double t0 = now();
    for (int k = 0; k < 3; k++)
        assert_int_equal(o->to_host(s, dst, dev, (size_t)k * 256, 256), 0);
    unsigned char first = dst[0];
    double queued = now() - t0;
    assert_true(queued < 0.3); /* a blocking to_host would take 0.3 s for one copy */
    if (queued < 0.15)         /* only meaningful when we were not descheduled */
        assert_int_equal(first, 0);
    assert_int_equal(o->stream_sync(s), 0);
    assert_true(now() - t0 >= 0.89); /* the three latencies, one after another */
    assert_int_equal(dst[0], 'c');   /* the last queued copy landed last */
    assert_int_equal(dst[255], 'c');
    o->stream_destroy(s);
    fti_emu_free(dev);
}

static void test_emu_rejects_bad_ranges(void **state)
{
    (void)state;
    const fti_device_ops *o = &fti_emu_ops;
    char *dev = fti_emu_malloc(1000), host[2000];
    void *s;
    assert_int_equal(o->stream_create(&s), 0);
    assert_int_equal(o->to_host(s, host, dev, 500, 501), -1);
    assert_non_null(strstr(o->last_error(), "past the end of its allocation"));
    assert_int_equal(o->to_device(s, host, 0, dev, 10), -1);
    assert_non_null(strstr(o->last_error(), "not emulated device memory"));
    assert_int_equal(fti_emu_read(host, dev + 999, 2), -1);
    assert_int_equal(o->to_host(s, host, dev, 500, 500), 0); /* exactly to the end */
    assert_int_equal(o->stream_sync(s), 0);
    o->stream_destroy(s);
    fti_emu_free(dev);
}

/* ---- round trips ------------------------------------------------------------ */

/* Captures n bytes in chunks of `chunk`, checks the file bytes and the hash,
 * restores into a fresh allocation and checks every byte again. */
static void round_trip(size_t n, size_t chunk)
{
    fti_device_ops ops = counting_ops();
    unsigned char *src, *back = malloc(n ? n : 1), *file = malloc(n ? n : 1);
    void *dev = make_device_region(n, n * 31 + chunk, &src);
    void *dev2 = fti_emu_malloc(n);
    uint64_t want = fti_hash_buffer(src, n);
    fti_hash h;
    char err[ERRLEN];
    int fd = open_scratch("rt");

    assert_int_equal(fti_hash_init(&h), 0);
    if (fti_capture_to_file(NULL, &ops, dev, n, fd, FILE_OFF, chunk, &h, err, sizeof err) != 0)
        fail_msg("capture of %zu bytes (chunk %zu): %s", n, chunk, err);
    assert_true(fti_hash_final(&h) == want);
    fti_hash_free(&h);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal((size_t)st.st_size, n ? FILE_OFF + n : 0);
    assert_int_equal(pread(fd, file, n, FILE_OFF), (ssize_t)n);
    assert_memory_equal(file, src, n);

    memset(back, 0xA5, n);
    assert_int_equal(fti_emu_write(dev2, back, n), 0); /* no leftovers of src */
    assert_int_equal(fti_hash_init(&h), 0);
    if (fti_capture_from_file(NULL, &ops, dev2, n, fd, FILE_OFF, chunk, &h, err, sizeof err) != 0)
        fail_msg("restore of %zu bytes (chunk %zu): %s", n, chunk, err);
    assert_true(fti_hash_final(&h) == want);
    fti_hash_free(&h);
    assert_int_equal(fti_emu_read(back, dev2, n), 0);
    assert_memory_equal(back, src, n);
    assert_all_released();

    close(fd);
    fti_emu_free(dev2);
    fti_emu_free(dev);
    free(file);
    free(back);
    free(src);
}

static void sizes_matrix(size_t chunk)
{
    const size_t sizes[] = {0, 1, chunk - 1, chunk, chunk + 1, 10 * chunk + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        round_trip(sizes[i], chunk);
}

static void test_round_trip_sizes(void **state)
{
    (void)state;
    sizes_matrix(64 * 1024);
    sizes_matrix(1000); /* a chunk that is not a multiple of anything */
}

/* With a copy latency the bytes land late: a missing stream_sync in the
 * pipeline would write or restore stale buffers and fail here. */
static void test_round_trip_sizes_slow_device(void **state)
{
    (void)state;
    fti_emu_set_speed(2e9, 0.0005);
    sizes_matrix(64 * 1024);
}

static void test_hash_optional(void **state)
{
    (void)state;
    unsigned char *src;
    size_t n = 3 * 4096 + 1;
    void *dev = make_device_region(n, 7, &src);
    char err[ERRLEN];
    int fd = open_scratch("nohash");
    assert_int_equal(fti_capture_to_file(NULL, &fti_emu_ops, dev, n, fd, 0, 4096, NULL, err,
                                         sizeof err), 0);
    assert_int_equal(fti_capture_from_file(NULL, &fti_emu_ops, dev, n, fd, 0, 4096, NULL, err,
                                           sizeof err), 0);
    close(fd);
    fti_emu_free(dev);
    free(src);
}

/* ---- error paths -------------------------------------------------------------- */

static void test_injected_copy_failure_to_file(void **state)
{
    (void)state;
    size_t chunk = 64 * 1024, n = 10 * chunk + 7;
    fti_device_ops ops = counting_ops();
    unsigned char *src;
    void *dev = make_device_region(n, 3, &src);
    char err[ERRLEN];
    fti_hash h;
    int fd = open_scratch("fail_out");

    fti_emu_set_speed(0, 0.001); /* keep copies in flight when it fails */
    fti_emu_fail_after(3 * chunk + 5); /* the copy of chunk 3 fails */
    assert_int_equal(fti_hash_init(&h), 0);
    assert_int_equal(fti_capture_to_file(NULL, &ops, dev, n, fd, 0, chunk, &h, err, sizeof err),
                     -1);
    print_message("expected error: %s\n", err);
    assert_non_null(strstr(err, "emu backend"));
    assert_non_null(strstr(err, "device->host copy (chunk 3 of 11"));
    assert_non_null(strstr(err, "injected device failure"));
    assert_all_released();
    fti_hash_free(&h);
    close(fd);
    fti_emu_free(dev);
    free(src);
}

static void test_injected_copy_failure_from_file(void **state)
{
    (void)state;
    size_t chunk = 4096, n = 10 * chunk + 7;
    fti_device_ops ops = counting_ops();
    unsigned char *src;
    void *dev = make_device_region(n, 4, &src);
    char err[ERRLEN];
    int fd = open_scratch("fail_in");

    assert_int_equal(fti_capture_to_file(NULL, &ops, dev, n, fd, 0, chunk, NULL, err, sizeof err),
                     0);
    fti_emu_set_speed(0, 0.001);
    fti_emu_fail_after(6 * chunk); /* chunk 6 fails */
    assert_int_equal(fti_capture_from_file(NULL, &ops, dev, n, fd, 0, chunk, NULL, err, sizeof err),
                     -1);
    print_message("expected error: %s\n", err);
    assert_non_null(strstr(err, "host->device copy (chunk 6 of 11"));
    assert_non_null(strstr(err, "injected device failure"));
    assert_all_released();
    close(fd);
    fti_emu_free(dev);
    free(src);
}

static void test_write_error_names_offset_and_errno(void **state)
{
    (void)state;
    size_t chunk = 4096, n = 5 * chunk;
    fti_device_ops ops = counting_ops();
    unsigned char *src;
    void *dev = make_device_region(n, 5, &src);
    char err[ERRLEN], expect[128];
    int fd = open_scratch("ro");
    int ro = dup(fd);
    close(fd);
    /* Re-open read-only through /proc so pwrite fails with EBADF. */
    snprintf(expect, sizeof expect, "/proc/self/fd/%d", ro);
    fd = open(expect, O_RDONLY);
    assert_true(fd >= 0);

    assert_int_equal(fti_capture_to_file(NULL, &ops, dev, n, fd, 8192, chunk, NULL, err,
                                         sizeof err),
                     -1);
    snprintf(expect, sizeof expect, "write of 4096 bytes at file offset 8192 failed: %s",
             strerror(EBADF));
    assert_non_null(strstr(err, expect));
    assert_all_released();
    close(fd);
    close(ro);
    fti_emu_free(dev);
    free(src);
}

static void test_short_file_fails_restore(void **state)
{
    (void)state;
    size_t chunk = 4096, n = 5 * chunk + 100;
    fti_device_ops ops = counting_ops();
    unsigned char *src;
    void *dev = make_device_region(n, 6, &src);
    char err[ERRLEN];
    int fd = open_scratch("short");

    assert_int_equal(fti_capture_to_file(NULL, &ops, dev, n, fd, 0, chunk, NULL, err, sizeof err),
                     0);
    assert_int_equal(ftruncate(fd, (off_t)(n - 50)), 0);
    assert_int_equal(fti_capture_from_file(NULL, &ops, dev, n, fd, 0, chunk, NULL, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "read of 100 bytes at file offset 20480 failed"));
    assert_all_released();
    close(fd);
    fti_emu_free(dev);
    free(src);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    char err[ERRLEN], *dev = fti_emu_malloc(10);
    assert_int_equal(fti_capture_to_file(NULL, &fti_emu_ops, dev, 10, 1, 0, 0, NULL, err,
                                         sizeof err),
                     -1);
    assert_non_null(strstr(err, "gpu_host_bufsize"));
    assert_int_equal(fti_capture_to_file(NULL, NULL, dev, 10, 1, 0, 8, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "no device backend"));
    assert_int_equal(fti_capture_from_file(NULL, &fti_emu_ops, NULL, 10, 1, 0, 8, NULL, err,
                                           sizeof err), -1);
    assert_non_null(strstr(err, "NULL emu device region"));
    assert_int_equal(fti_capture_to_file(NULL, &fti_emu_ops, dev, 10, -1, 0, 8, NULL, err,
                                         sizeof err), -1);
    assert_non_null(strstr(err, "file descriptor -1"));
    fti_emu_free(dev);
}

/* ---- capture sets: buffers pinned once, kept across captures ----------------- */

/* An emulated allocation holding a pattern, and a second one to restore into. */
typedef struct region {
    unsigned char *src; /* host copy of dev's bytes */
    void *dev, *dev2;
    size_t n;
} region;

static void region_new(region *r, size_t n, uint64_t seed)
{
    r->n = n;
    r->dev = make_device_region(n, seed, &r->src);
    r->dev2 = fti_emu_malloc(n);
    assert_non_null(r->dev2);
}

static void region_free(region *r)
{
    fti_emu_free(r->dev2);
    fti_emu_free(r->dev);
    free(r->src);
}

/* Captures the first n bytes of r->dev through sets, checks the file,
 * restores them into a cleared r->dev2 and checks every byte. */
static void set_round_trip(fti_capture_sets *sets, const fti_device_ops *ops, region *r,
                           size_t n, size_t chunk, int fd)
{
    unsigned char *buf = malloc(n);
    char err[ERRLEN];
    assert_non_null(buf);
    if (fti_capture_to_file(sets, ops, r->dev, n, fd, FILE_OFF, chunk, NULL, err, sizeof err))
        fail_msg("capture of %zu bytes (chunk %zu): %s", n, chunk, err);
    assert_int_equal(pread(fd, buf, n, FILE_OFF), (ssize_t)n);
    assert_memory_equal(buf, r->src, n);
    memset(buf, 0x5A, n);
    assert_int_equal(fti_emu_write(r->dev2, buf, n), 0);
    if (fti_capture_from_file(sets, ops, r->dev2, n, fd, FILE_OFF, chunk, NULL, err, sizeof err))
        fail_msg("restore of %zu bytes (chunk %zu): %s", n, chunk, err);
    assert_int_equal(fti_emu_read(buf, r->dev2, n), 0);
    assert_memory_equal(buf, r->src, n);
    free(buf);
}

/* Six captures of a multi-chunk region: two buffers, two streams in all. A
 * copy latency makes the bytes land late, so a reused buffer read before its
 * stream is synchronised would show the previous capture's bytes. */
static void test_set_pins_buffers_once(void **state)
{
    (void)state;
    size_t chunk = 64 * 1024, n = 10 * chunk + 7;
    fti_device_ops ops = counting_ops();
    fti_capture_sets sets = {0};
    region r;
    int fd = open_scratch("set_once");
    region_new(&r, n, 11);
    fti_emu_set_speed(2e9, 0.0005);
    for (int k = 0; k < 3; k++)
        set_round_trip(&sets, &ops, &r, n - (size_t)k * 1000, chunk, fd);
    assert_int_equal(cnt.allocs, 2);
    assert_int_equal(cnt.creates, 2);
    assert_int_equal(cnt.buffers, 2); /* kept, for the next checkpoint */
    assert_int_equal(cnt.streams, 2);
    assert_int_equal(sets.n, 1);
    fti_capture_sets_free(&sets);
    assert_all_released();
    assert_int_equal(sets.n, 0);
    fti_capture_sets_free(&sets); /* empty, and NULL: both harmless */
    fti_capture_sets_free(NULL);
    assert_int_equal(cnt.allocs, 2);
    close(fd);
    region_free(&r);
}

/* Buffers grow to what a variable needs, at least doubling, never past a
 * chunk; a single-chunk variable uses one buffer and one stream. */
static void test_set_grows_to_the_chunk(void **state)
{
    (void)state;
    size_t chunk = 64 * 1024;
    const size_t sizes[] = {100, 150, 180, 3 * chunk + 1};
    const int allocs_after[] = {1, 2, 2, 4}; /* 100; 200 (doubled); -; chunk x 2 */
    const int creates_after[] = {1, 1, 1, 2};
    fti_device_ops ops = counting_ops();
    fti_capture_sets sets = {0};
    region r;
    int fd = open_scratch("set_grow");
    region_new(&r, 3 * chunk + 1, 12);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 4; i++) {
            set_round_trip(&sets, &ops, &r, sizes[i], chunk, fd);
            assert_int_equal(cnt.allocs, allocs_after[round ? 3 : i]);
            assert_int_equal(cnt.creates, creates_after[round ? 3 : i]);
        }
    assert_int_equal(sets.set[0].cap[0], chunk);
    assert_int_equal(sets.set[0].cap[1], chunk);
    assert_int_equal(cnt.buffers, 2);
    fti_capture_sets_free(&sets);
    assert_all_released();
    close(fd);
    region_free(&r);
}

/* A FTI_ProtectDevice view differs from its backend in the copies only. */
static int view_to_host(void *s, void *dst, const void *h, size_t off, size_t n)
{
    return c_to_host(s, dst, h, off, n);
}

static int view_to_device(void *s, void *h, size_t off, const void *src, size_t n)
{
    return c_to_device(s, h, off, src, n);
}

/* One set per backend: a view shares its backend's set, another backend
 * (another name) gets its own. */
static void test_set_per_backend(void **state)
{
    (void)state;
    size_t chunk = 4096, n = 5 * chunk;
    fti_device_ops ops = counting_ops(), view = ops, other = ops;
    fti_capture_sets sets = {0};
    region r;
    int fd = open_scratch("set_backend");
    view.to_host = view_to_host;
    view.to_device = view_to_device;
    other.name = "emu-other";
    region_new(&r, n, 13);
    set_round_trip(&sets, &ops, &r, n, chunk, fd);
    set_round_trip(&sets, &view, &r, n, chunk, fd);
    assert_int_equal(sets.n, 1);
    assert_int_equal(cnt.allocs, 2);
    set_round_trip(&sets, &other, &r, n, chunk, fd);
    assert_int_equal(sets.n, 2);
    assert_int_equal(cnt.allocs, 4);
    assert_string_equal(sets.set[1].ops.name, "emu-other");
    fti_capture_sets_free(&sets);
    assert_all_released();
    close(fd);
    region_free(&r);
}

/* More backends than FTI_CAPTURE_MAX_SETS: the extra one still works, with
 * buffers made and freed for the call. */
static void test_set_full_uses_transient_buffers(void **state)
{
    (void)state;
    static const char *names[FTI_CAPTURE_MAX_SETS + 1] = {"b0", "b1", "b2", "b3", "b4"};
    size_t chunk = 4096, n = 3 * chunk;
    fti_device_ops ops[FTI_CAPTURE_MAX_SETS + 1];
    fti_capture_sets sets = {0};
    region r;
    int fd = open_scratch("set_full");
    region_new(&r, n, 14);
    for (int k = 0; k <= FTI_CAPTURE_MAX_SETS; k++) {
        ops[k] = counting_ops();
        ops[k].name = names[k];
        set_round_trip(&sets, &ops[k], &r, n, chunk, fd);
        int kept = k < FTI_CAPTURE_MAX_SETS ? k + 1 : FTI_CAPTURE_MAX_SETS;
        assert_int_equal(sets.n, kept);
        assert_int_equal(cnt.buffers, 2 * kept);
        assert_int_equal(cnt.streams, 2 * kept);
    }
    assert_int_equal(cnt.allocs, 2 * (FTI_CAPTURE_MAX_SETS + 2)); /* the last: twice */
    fti_capture_sets_free(&sets);
    assert_all_released();
    close(fd);
    region_free(&r);
}

/* A failed capture empties its kept set (no stream busy, nothing leaked);
 * the next capture rebuilds it and succeeds. Both directions. */
static void test_set_emptied_by_failure(void **state)
{
    (void)state;
    size_t chunk = 4096, n = 10 * chunk + 7;
    fti_device_ops ops = counting_ops();
    fti_capture_sets sets = {0};
    region r;
    char err[ERRLEN];
    int fd = open_scratch("set_fail");
    region_new(&r, n, 15);
    set_round_trip(&sets, &ops, &r, n, chunk, fd);
    fti_emu_set_speed(0, 0.001); /* keep copies in flight when it fails */
    fti_emu_fail_after(3 * chunk + 5);
    assert_int_equal(fti_capture_to_file(&sets, &ops, r.dev, n, fd, FILE_OFF, chunk, NULL, err,
                                         sizeof err), -1);
    assert_non_null(strstr(err, "device->host copy (chunk 3 of 11"));
    assert_all_released();
    assert_int_equal(sets.n, 1);
    fti_emu_set_speed(0, 0);
    set_round_trip(&sets, &ops, &r, n, chunk, fd);
    assert_int_equal(cnt.allocs, 4);
    fti_emu_set_speed(0, 0.001);
    fti_emu_fail_after(6 * chunk);
    assert_int_equal(fti_capture_from_file(&sets, &ops, r.dev2, n, fd, FILE_OFF, chunk, NULL,
                                           err, sizeof err), -1);
    assert_non_null(strstr(err, "host->device copy (chunk 6 of 11"));
    assert_all_released();
    fti_emu_set_speed(0, 0);
    set_round_trip(&sets, &ops, &r, n, chunk, fd);
    assert_int_equal(cnt.allocs, 6);
    fti_capture_sets_free(&sets);
    assert_all_released();
    close(fd);
    region_free(&r);
}

/* ---- checkpoint files through kept sets ---------------------------------------- */

static fti_device_ops file_ops; /* static: the registry keeps a pointer to it */

static void scratch_path(char *path, size_t len, const char *tag)
{
    const char *dir = getenv("FTI_TEST_DIR");
    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    assert_int_equal(fti_mkdirs(dir), 0);
    snprintf(path, len, "%s/gpu_sets_%s_%ld.fti", dir, tag, (long)getpid());
}

/* Restores every variable of path into the registry (device ones cleared
 * first) and checks their bytes. */
static void restore_file(const char *path, uint64_t seq, fti_registry *reg, region *r, int nr,
                         fti_capture_sets *sets, size_t chunk)
{
    fti_file_header h;
    assert_int_equal(fti_file_verify(path, seq, 1, &h), FTI_E_OK);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    for (int i = 0; i < nr; i++) {
        unsigned char *back = malloc(r[i].n);
        assert_non_null(back);
        memset(back, 0xC3, r[i].n);
        assert_int_equal(fti_emu_write(r[i].dev, back, r[i].n), 0);
        assert_int_equal(fti_file_read_var_sets(fd, path, fti_file_find(&h, i + 1),
                                                fti_registry_find(reg, i + 1), chunk, sets, 0),
                         FTI_E_OK);
        assert_int_equal(fti_emu_read(back, r[i].dev, r[i].n), 0);
        assert_memory_equal(back, r[i].src, r[i].n);
        free(back);
    }
    close(fd);
    fti_file_header_free(&h);
}

/* Two checkpoint files of three device variables (one of many chunks, two
 * small) and a host one, then their restores: one pair of buffers for all.
 * fti_file_write without sets shares one pair per file and frees it. */
static void test_file_write_pins_once(void **state)
{
    (void)state;
    size_t chunk = 4096;
    const size_t sizes[3] = {10 * chunk + 7, 100, 3 * chunk};
    fti_registry reg;
    fti_capture_sets sets = {0};
    region r[3];
    int host = 42;
    char path[2][4096];
    file_ops = counting_ops();
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    for (int i = 0; i < 3; i++) {
        region_new(&r[i], sizes[i], 20 + (uint64_t)i);
        assert_int_equal(fti_registry_protect_device(&reg, i + 1, &file_ops, r[i].dev, NULL,
                                                     (int64_t)sizes[i], 0), FTI_E_OK);
    }
    assert_int_equal(fti_registry_protect(&reg, 9, &host, 1, 2), FTI_E_OK);
    for (int k = 0; k < 2; k++) {
        fti_file_header h = {.seq = (uint64_t)k + 1, .ckpt_id = k + 1, .level = 1};
        scratch_path(path[k], sizeof path[k], k ? "b" : "a");
        assert_int_equal(fti_file_write_sets(path[k], &reg, &h, chunk, &sets), FTI_E_OK);
        fti_file_header_free(&h);
    }
    for (int k = 0; k < 2; k++)
        restore_file(path[k], (uint64_t)k + 1, &reg, r, 3, &sets, chunk);
    assert_int_equal(cnt.allocs, 2);
    assert_int_equal(cnt.creates, 2);
    fti_capture_sets_free(&sets);
    assert_all_released();

    fti_file_header h = {.seq = 3, .ckpt_id = 3, .level = 1};
    assert_int_equal(fti_file_write(path[0], &reg, &h, chunk), FTI_E_OK);
    fti_file_header_free(&h);
    assert_all_released();
    assert_int_equal(cnt.allocs, 4);
    restore_file(path[0], 3, &reg, r, 3, NULL, chunk);
    assert_all_released();
    for (int k = 0; k < 2; k++)
        unlink(path[k]);
    fti_registry_free(&reg);
    for (int i = 0; i < 3; i++)
        region_free(&r[i]);
}

/* ---- device_backends = auto | off | cuda ------------------------------------------ */

/* off: FTI_Protect's lookup never asks a backend, so emulated device memory
 * stays plain memory; an explicit backend (FTI_ProtectDevice) still counts. */
static void test_device_backends_off_registry(void **state)
{
    (void)state;
    fti_registry reg;
    char *dev = fti_emu_malloc(64);
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(reg.no_device_lookup, 0); /* auto is the default */
    assert_int_equal(fti_registry_protect(&reg, 1, dev, 64, 0), FTI_E_OK);
    assert_ptr_equal(fti_registry_find(&reg, 1)->dev, &fti_emu_ops);
    reg.no_device_lookup = 1;
    assert_int_equal(fti_registry_protect(&reg, 1, dev, 64, 0), FTI_E_OK); /* re-protect */
    assert_null(fti_registry_find(&reg, 1)->dev);
    assert_int_equal(fti_registry_protect(&reg, 2, dev + 8, 8, 0), FTI_E_OK);
    assert_null(fti_registry_find(&reg, 2)->dev);
    assert_int_equal(fti_registry_protect_device(&reg, 3, &fti_emu_ops, dev, NULL, 64, 0),
                     FTI_E_OK);
    assert_ptr_equal(fti_registry_find(&reg, 3)->dev, &fti_emu_ops);
    fti_registry_free(&reg);
    fti_emu_free(dev);
}

/* Loads a config with `line` in [basic]; returns fti_config_load's result. */
static fti_err load_with(const char *line, fti_config *cfg)
{
    char path[4096];
    scratch_path(path, sizeof path, "cfg");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "[basic]\nckpt_dir = /tmp/l\nglbl_dir = /tmp/g\nmeta_dir = /tmp/m\n%s\n", line);
    fclose(f);
    fti_err e = fti_config_load(cfg, path);
    unlink(path);
    return e;
}

static void test_device_backends_key(void **state)
{
    (void)state;
    fti_config c;
    assert_int_equal(load_with("", &c), FTI_E_OK);
    assert_int_equal(c.device_backends, FTI_DEVICES_AUTO);
    assert_int_equal(load_with("device_backends = off", &c), FTI_E_OK);
    assert_int_equal(c.device_backends, FTI_DEVICES_OFF);
    assert_int_equal(load_with("device_backends = auto", &c), FTI_E_OK);
    assert_int_equal(c.device_backends, FTI_DEVICES_AUTO);
#ifdef FTI_HAVE_CUDA
    assert_int_equal(load_with("device_backends = cuda", &c), FTI_E_OK);
    assert_int_equal(c.device_backends, FTI_DEVICES_CUDA);
#else
    assert_int_equal(load_with("device_backends = cuda", &c), FTI_E_CONFIG);
    assert_non_null(strstr(fti_last_error(), "[basic] device_backends = cuda, but this library "
                                             "was built without the CUDA backend"));
#endif
    assert_int_equal(load_with("device_backends = gpu", &c), FTI_E_CONFIG);
    assert_non_null(strstr(fti_last_error(), "[basic] device_backends = 'gpu' is not one of "
                                             "auto, off, cuda"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_lookup_claims_emu_only, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_backends_by_name, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_emu_streams_async_in_order, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_emu_rejects_bad_ranges, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_round_trip_sizes, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_round_trip_sizes_slow_device, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_hash_optional, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_injected_copy_failure_to_file, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_injected_copy_failure_from_file, reset_emu,
                                        reset_emu),
        cmocka_unit_test_setup_teardown(test_write_error_names_offset_and_errno, reset_emu,
                                        reset_emu),
        cmocka_unit_test_setup_teardown(test_short_file_fails_restore, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_bad_arguments, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_set_pins_buffers_once, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_set_grows_to_the_chunk, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_set_per_backend, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_set_full_uses_transient_buffers, reset_emu,
                                        reset_emu),
        cmocka_unit_test_setup_teardown(test_set_emptied_by_failure, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_file_write_pins_once, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_device_backends_off_registry, reset_emu, reset_emu),
        cmocka_unit_test_setup_teardown(test_device_backends_key, reset_emu, reset_emu),
    };
    return cmocka_run_group_tests_name("gpu_capture (emulated device)", tests, NULL, NULL);
}
