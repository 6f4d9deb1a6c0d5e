/*
 * bench_gpu.c - device capture bandwidth against the machine's own ceiling,
 * measured in the same run.
 *
 * Capture (device -> file) is bounded by the slower of the pinned
 * device->host copy and the raw write (+ fsync) to the target directory, so
 * its ceiling is min(d2h, write); restore (file -> device) likewise by
 * min(read, h2d). All eight figures are measured interleaved, rep after rep,
 * and each is the median of --reps (default 5). Prints one JSON line per
 * direction, then a table. The library figures include the XXH3 checksum
 * of every byte, as a checkpoint does; the ceilings do not. "library" is a
 * capture through a kept capture set, as every checkpoint after the first
 * does; "first" also pins the buffers and creates the streams, as the first
 * checkpoint (or a capture without a set) does.
 *
 *   bench_gpu [--backend emu|cuda] [--memory device|managed] [--size MiB]
 *             [--chunk MiB] [--dir DIR] [--reps N] [--emu-bw GB/s] [--emu-lat us]
 *
 * --memory managed (cuda only) protects cudaMallocManaged memory, moved to
 * the GPU before every figure (cudaMemset runs there), as after the
 * application's kernels. It adds the figures of the path the library does
 * not take: the CPU writing the file straight from the managed pointer and
 * reading it straight into it (no checksum; the driver moves or maps the
 * pages as it sees fit), and how long a GPU memset of the region takes
 * after each path.
 *
 * On the emulated device (the default), the copy speed is the model set by
 * --emu-bw/--emu-lat, so the numbers say how well the pipeline hides the
 * copies, not what a GPU does; the output marks them "emulated".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "data/capture.h"
#include "device.h"
#include "emu/emu.h"
#include "base/fio.h"
#include "base/integrity.h"

#ifdef FTI_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define MIB ((size_t)1 << 20)
#define MAX_REPS 100

typedef struct opts {
    const char *backend;
    int managed; /* --memory managed */
    size_t size, chunk;
    const char *dir;
    int reps;
    double emu_bw, emu_lat; /* GB/s, microseconds */
} opts;

typedef struct result {
    double d2h, h2d, wr, rd, capture, restore; /* GB/s */
    double capture_first, restore_first;      /* GB/s, buffers pinned in the call */
    double host_write, host_read; /* GB/s, managed only: the CPU on the managed pointer */
    /* s, managed only: a GPU memset of the region after the library's capture and
     * restore (pages left on the GPU), after the CPU's write, after its read */
    double touch_kept, touch_after_write, touch_after_read;
} result;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double gbps(size_t bytes, double seconds)
{
    return seconds > 0 ? (double)bytes / seconds / 1e9 : 0;
}

/* On stdout with exit 0 for --help, on stderr with exit 2 after a mistake. */
static int usage(const char *argv0, int help)
{
    fprintf(help ? stdout : stderr, "usage: %s [--backend emu|cuda] [--memory device|managed] [--size MiB] "
            "[--chunk MiB] [--dir DIR] [--reps N] [--emu-bw GB/s] [--emu-lat us]\n", argv0);
    return help ? 0 : 2;
}

static int parse_args(int argc, char **argv, opts *o)
{
    *o = (opts){"emu", 0, 256 * MIB, 16 * MIB, "/dev/shm", 5, 12.0, 10.0};
    const char *memory = "device";
    for (int i = 1; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL)
            return -1;
        if (strcmp(k, "--backend") == 0) o->backend = v;
        else if (strcmp(k, "--memory") == 0) memory = v;
        else if (strcmp(k, "--size") == 0) o->size = (size_t)strtoull(v, NULL, 10) * MIB;
        else if (strcmp(k, "--chunk") == 0) o->chunk = (size_t)strtoull(v, NULL, 10) * MIB;
        else if (strcmp(k, "--dir") == 0) o->dir = v;
        else if (strcmp(k, "--reps") == 0) o->reps = atoi(v);
        else if (strcmp(k, "--emu-bw") == 0) o->emu_bw = atof(v);
        else if (strcmp(k, "--emu-lat") == 0) o->emu_lat = atof(v);
        else return -1;
        i++;
    }
    if (strcmp(memory, "managed") == 0)
        o->managed = 1;
    else if (strcmp(memory, "device") != 0)
        return -1;
    return o->size > 0 && o->chunk > 0 && o->reps > 0 && o->reps <= MAX_REPS ? 0 : -1;
}

/* ---- device regions, per backend -------------------------------------------- */

static void *dev_alloc(const opts *o, size_t n)
{
    if (strcmp(o->backend, "emu") == 0)
        return fti_emu_malloc(n);
#ifdef FTI_HAVE_CUDA
    void *p = NULL;
    cudaError_t e = o->managed ? cudaMallocManaged(&p, n, cudaMemAttachGlobal) : cudaMalloc(&p, n);
    if (e == cudaSuccess)
        return p;
    fprintf(stderr, "bench_gpu: %s(%zu): %s\n", o->managed ? "cudaMallocManaged" : "cudaMalloc",
            n, cudaGetErrorString(e));
#endif
    return NULL;
}

/* Managed memory: moves every page to the GPU (the memset runs there), as
 * the application's kernels leave it, so that each figure starts alike.
 * Seconds it took (the application's next kernel pays as much), -1 on error. */
static double managed_to_gpu(const opts *o, void *dev, size_t n)
{
#ifdef FTI_HAVE_CUDA
    if (!o->managed)
        return 0;
    double t0 = now();
    cudaError_t e = cudaMemset(dev, 0x5a, n);
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        fprintf(stderr, "bench_gpu: cudaMemset of the managed region: %s\n", cudaGetErrorString(e));
    return e == cudaSuccess ? now() - t0 : -1;
#else
    (void)o, (void)dev, (void)n;
    return 0;
#endif
}

static void dev_free(const char *backend, void *p)
{
    if (strcmp(backend, "emu") == 0)
        fti_emu_free(p);
#ifdef FTI_HAVE_CUDA
    else
        cudaFree(p);
#endif
}

/* Fills the device region through the backend itself, chunk by chunk. */
static int dev_fill(const fti_device_ops *ops, void *dev, size_t n, void *pinned, size_t chunk)
{
    void *s;
    int rc = ops->stream_create(&s);
    for (size_t off = 0; rc == 0 && off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        memset(pinned, (int)(off / chunk) + 1, len);
        rc = ops->to_device(s, dev, off, pinned, len);
        if (rc == 0)
            rc = ops->stream_sync(s);
    }
    if (rc != 0)
        fprintf(stderr, "bench_gpu: filling the %s region: %s\n", ops->name, ops->last_error());
    ops->stream_destroy(s);
    return rc;
}

/* ---- ceilings ------------------------------------------------------------- */

/* All chunks copied back to back over two streams into two pinned buffers,
 * so the copy engine never idles: the pipeline's copy ceiling. */
static double copy_time(const fti_device_ops *ops, void *dev, size_t n, void *pinned[2],
                        size_t chunk, int to_device)
{
    void *s[2] = {NULL, NULL};
    int rc = ops->stream_create(&s[0]) || ops->stream_create(&s[1]);
    double t0 = now();
    for (size_t off = 0, i = 0; rc == 0 && off < n; off += chunk, i++) {
        size_t len = n - off < chunk ? n - off : chunk;
        rc = to_device ? ops->to_device(s[i % 2], dev, off, pinned[i % 2], len)
                       : ops->to_host(s[i % 2], pinned[i % 2], dev, off, len);
    }
    rc |= ops->stream_sync(s[0]) | ops->stream_sync(s[1]);
    double t = now() - t0;
    if (rc != 0)
        fprintf(stderr, "bench_gpu: %s copy: %s\n", ops->name, ops->last_error());
    ops->stream_destroy(s[1]);
    ops->stream_destroy(s[0]);
    return rc ? -1 : t;
}

static double io_failed(const char *what, size_t off)
{
    fprintf(stderr, "bench_gpu: %s at offset %zu of the target file: %s\n", what, off,
            strerror(errno));
    return -1;
}

/* n bytes written chunk by chunk from one host buffer, then fsync. */
static double write_time(int fd, const void *buf, size_t n, size_t chunk)
{
    double t0 = now();
    for (size_t off = 0; off < n; off += chunk)
        if (fti_pwrite_full(fd, buf, n - off < chunk ? n - off : chunk, (off_t)off) != 0)
            return io_failed("write", off);
    if (fti_fsync(fd) != 0)
        return io_failed("fsync", n);
    return now() - t0;
}

static double read_time(int fd, void *buf, size_t n, size_t chunk)
{
    double t0 = now();
    for (size_t off = 0; off < n; off += chunk)
        if (fti_pread_full(fd, buf, n - off < chunk ? n - off : chunk, (off_t)off) != 0)
            return io_failed("read", off);
    return now() - t0;
}

/* Managed only: the CPU writes the file straight from the managed pointer
 * (+ fsync), or reads it straight into it. */
static double host_path_time(int fd, void *managed, size_t n, size_t chunk, int restore)
{
    return restore ? read_time(fd, managed, n, chunk) : write_time(fd, managed, n, chunk);
}

/* ---- the library ---------------------------------------------------------- */

/* sets: the kept capture set, or NULL to pin buffers for this call only. */
static double capture_time(fti_capture_sets *sets, const fti_device_ops *ops, void *dev, size_t n,
                           int fd, size_t chunk, int restore)
{
    char err[512];
    fti_hash h;
    if (fti_hash_init(&h) != 0)
        return -1;
    double t0 = now();
    int rc = restore ? fti_capture_from_file(sets, ops, dev, n, fd, 0, chunk, &h, err, sizeof err)
                     : fti_capture_to_file(sets, ops, dev, n, fd, 0, chunk, &h, err, sizeof err);
    if (rc == 0 && !restore && fti_fsync(fd) != 0) {
        snprintf(err, sizeof err, "fsync: %s", strerror(errno));
        rc = -1;
    }
    double t = now() - t0;
    fti_hash_free(&h);
    if (rc != 0)
        fprintf(stderr, "bench_gpu: %s\n", err);
    return rc ? -1 : t;
}

/* ---- driver --------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Records the bandwidth of t seconds for n bytes as sample i. */
static int sample(double *v, int i, size_t n, double t)
{
    if (t < 0)
        return -1;
    v[i] = gbps(n, t);
    return 0;
}

#define FIGURES 13

/* Records seconds t as sample i. */
static int seconds(double *v, int i, double t)
{
    v[i] = t;
    return t < 0 ? -1 : 0;
}

/* One rep of the eight figures (thirteen with managed memory: the two host
 * paths and three memset times), as sample i of v. Only the host paths may
 * take managed pages off the GPU; a memset brings them back after each. */
static int measure_rep(const opts *o, const fti_device_ops *ops, void *dev, void *pinned[2],
                       int fd, fti_capture_sets *sets, double v[FIGURES][MAX_REPS], int i)
{
    size_t n = o->size, c = o->chunk;
    int rc = sample(v[0], i, n, copy_time(ops, dev, n, pinned, c, 0)) ||
             sample(v[1], i, n, write_time(fd, pinned[0], n, c)) ||
             sample(v[2], i, n, capture_time(sets, ops, dev, n, fd, c, 0)) ||
             sample(v[3], i, n, read_time(fd, pinned[0], n, c)) ||
             sample(v[4], i, n, copy_time(ops, dev, n, pinned, c, 1)) ||
             sample(v[5], i, n, capture_time(sets, ops, dev, n, fd, c, 1)) ||
             sample(v[6], i, n, capture_time(NULL, ops, dev, n, fd, c, 0)) ||
             sample(v[7], i, n, capture_time(NULL, ops, dev, n, fd, c, 1));
    if (rc || !o->managed)
        return rc;
    return seconds(v[10], i, managed_to_gpu(o, dev, n)) ||
           sample(v[8], i, n, host_path_time(fd, dev, n, c, 0)) ||
           seconds(v[11], i, managed_to_gpu(o, dev, n)) ||
           sample(v[9], i, n, host_path_time(fd, dev, n, c, 1)) ||
           seconds(v[12], i, managed_to_gpu(o, dev, n));
}

/* The figures are measured interleaved, rep after rep, so all of them see
 * the same machine state; each is the median over the reps. The kept set is
 * warmed by one capture first: its pinning is what "first" measures. */
static int measure(const opts *o, const fti_device_ops *ops, void *dev, void *pinned[2], int fd,
                   result *r)
{
    double v[FIGURES][MAX_REPS];
    fti_capture_sets sets = {0};
    int rc = write_time(fd, pinned[0], o->size, o->chunk) < 0 || /* allocate the file once */
             managed_to_gpu(o, dev, o->size) < 0;
    if (rc == 0)
        rc = capture_time(&sets, ops, dev, o->size, fd, o->chunk, 0) < 0;
    for (int i = 0; rc == 0 && i < o->reps; i++)
        rc = measure_rep(o, ops, dev, pinned, fd, &sets, v, i);
    fti_capture_sets_free(&sets);
    if (rc != 0)
        return -1;
    int k = o->reps;
    *r = (result){.d2h = median(v[0], k), .wr = median(v[1], k), .capture = median(v[2], k),
                  .rd = median(v[3], k), .h2d = median(v[4], k), .restore = median(v[5], k),
                  .capture_first = median(v[6], k), .restore_first = median(v[7], k)};
    if (o->managed) {
        r->host_write = median(v[8], k);
        r->host_read = median(v[9], k);
        r->touch_kept = median(v[10], k);
        r->touch_after_write = median(v[11], k);
        r->touch_after_read = median(v[12], k);
    }
    return 0;
}

static double min2(double a, double b)
{
    return a < b ? a : b;
}

static void report(const opts *o, const result *r)
{
    int emu = strcmp(o->backend, "emu") == 0;
    char model[96] = "";
    if (emu)
        snprintf(model, sizeof model, ",\"emu_model\":\"%.1f GB/s + %.0f us per copy\"",
                 o->emu_bw, o->emu_lat);
    const char *names[2] = {"capture", "restore"};
    double lib[2] = {r->capture, r->restore}, first[2] = {r->capture_first, r->restore_first};
    double dev[2] = {r->d2h, r->h2d}, io[2] = {r->wr, r->rd};
    for (int d = 0; d < 2; d++) {
        double ceil = min2(dev[d], io[d]);
        char host[160] = "";
        if (o->managed && d)
            snprintf(host, sizeof host, ",\"host_path_GBps\":%.3f,\"gpu_touch_after_host_path_s\":"
                     "%.4f", r->host_read, r->touch_after_read);
        else if (o->managed)
            snprintf(host, sizeof host, ",\"host_path_GBps\":%.3f,\"gpu_touch_after_library_s\":"
                     "%.4f,\"gpu_touch_after_host_path_s\":%.4f", r->host_write, r->touch_kept,
                     r->touch_after_write);
        printf("{\"bench\":\"gpu_%s\",\"backend\":\"%s\",\"memory\":\"%s\",\"emulated\":%s%s,"
               "\"dir\":\"%s\",\"size_bytes\":%zu,\"chunk_bytes\":%zu,\"copy_GBps\":%.3f,"
               "\"%s_GBps\":%.3f,\"ceiling_GBps\":%.3f,\"library_GBps\":%.3f,\"ratio\":%.3f,"
               "\"first_call_GBps\":%.3f%s}\n",
               names[d], o->backend, o->managed ? "managed" : "device", emu ? "true" : "false",
               model, o->dir, o->size, o->chunk, dev[d], d ? "read" : "write_fsync", io[d], ceil,
               lib[d], lib[d] / ceil, first[d], host);
    }
    printf("\n%s device%s, %s memory, %zu MiB in %zu MiB chunks, %s, median of %d (GB/s)\n",
           o->backend, emu ? " (EMULATED: copy speed is the model, not hardware)" : "",
           o->managed ? "managed" : "device", o->size / MIB, o->chunk / MIB, o->dir, o->reps);
    printf("%-9s %10s %10s %10s %10s %7s %10s%s\n", "direction", "copy", "file I/O", "ceiling",
           "library", "ratio", "first", o->managed ? "  CPU on the managed pointer" : "");
    for (int d = 0; d < 2; d++) {
        printf("%-9s %10.2f %10.2f %10.2f %10.2f %7.2f %10.2f", names[d], dev[d], io[d],
               min2(dev[d], io[d]), lib[d], lib[d] / min2(dev[d], io[d]), first[d]);
        if (o->managed)
            printf("  %10.2f", d ? r->host_read : r->host_write);
        printf("\n");
    }
    if (o->managed)
        printf("GPU memset of the region afterwards: %.4f s after the library's capture and "
               "restore (pages left on the GPU), %.4f s after the CPU wrote the file from it, "
               "%.4f s after the CPU read the file into it\n",
               r->touch_kept, r->touch_after_write, r->touch_after_read);
}

/* Opens the scratch file; the caller unlinks path. */
static int open_target(const opts *o, char *path, size_t len)
{
    snprintf(path, len, "%s/bench_gpu.%ld.bin", o->dir, (long)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        fprintf(stderr, "bench_gpu: cannot create %s: %s\n", path, strerror(errno));
    return fd;
}

static int run(const opts *o, const fti_device_ops *ops)
{
    void *pinned[2] = {NULL, NULL}, *dev = dev_alloc(o, o->size);
    char path[4096];
    int rc = -1, fd = open_target(o, path, sizeof path);
    result r;
    if (dev == NULL || fd < 0)
        goto out;
    if (ops->host_alloc(&pinned[0], o->chunk) || ops->host_alloc(&pinned[1], o->chunk)) {
        fprintf(stderr, "bench_gpu: pinned buffers: %s\n", ops->last_error());
        goto out;
    }
    if (dev_fill(ops, dev, o->size, pinned[0], o->chunk) != 0)
        goto out;
    if (strcmp(o->backend, "emu") == 0)
        fti_emu_set_speed(o->emu_bw * 1e9, o->emu_lat * 1e-6);
    rc = measure(o, ops, dev, pinned, fd, &r);
    if (rc == 0)
        report(o, &r);
out:
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
    for (int i = 0; i < 2; i++)
        if (pinned[i] != NULL)
            ops->host_free(pinned[i]);
    if (dev != NULL)
        dev_free(o->backend, dev);
    return rc;
}

int main(int argc, char **argv)
{
    opts o;
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return usage(argv[0], 1);
    if (parse_args(argc, argv, &o) != 0)
        return usage(argv[0], 0);
    if (strcmp(o.backend, "emu") != 0 && strcmp(o.backend, "cuda") != 0) {
        fprintf(stderr, "bench_gpu: --backend must be emu or cuda, not '%s'\n", o.backend);
        return 2;
    }
    if (o.managed && strcmp(o.backend, "cuda") != 0) {
        fprintf(stderr, "bench_gpu: --memory managed needs --backend cuda\n");
        return 2;
    }
    const fti_device_ops *ops = fti_device_by_name(o.backend);
    if (ops == NULL) {
        fprintf(stderr, "bench_gpu: backend '%s' is not built into this library (built:",
                o.backend);
        for (const fti_device_ops *const *b = fti_device_backends(); *b != NULL; b++)
            fprintf(stderr, " %s", (*b)->name);
        fprintf(stderr, ")\n");
        return 1;
    }
    return run(&o, ops) == 0 ? 0 : 1;
}
