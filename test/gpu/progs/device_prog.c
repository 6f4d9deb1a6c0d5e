/*
 * device_prog - end-to-end: device variables protected with plain
 * FTI_Protect, checkpointed and recovered through the capture pipeline.
 * Built twice: test_prog_emu_prog on the emulated device (everywhere), and,
 * with CUDA, test_prog_cuda_prog on cudaMalloc memory of a real GPU (its
 * ctest twins skip where no device is usable). Driven by test/gpu/gpu_emu_e2e.sh,
 * gpu_emu_staging.sh and gpu_levels.sh (FTI_TEST_DEVICE=cuda: the CUDA build).
 *
 *   PROG --probe                            exit 0 and name the device when one is usable,
 *                                           else exit 77 saying why (no MPI)
 *   PROG CONFIG write SEED LEVEL [KIB]      fill, FTI_Checkpoint(SEED, LEVEL) must be FTI_DONE
 *   PROG CONFIG check SEED [LEVEL [KIB]]    restart: fresh device allocations full of
 *                                           garbage, FTI_Recover, every device byte compared
 *   PROG CONFIG staged SEED LEVEL           as write, then at once every variable, device
 *                                           ones included, is overwritten (staging_mib: the
 *                                           checkpoint must hold the bytes of the call)
 * The emulated device only (it can fail a copy and count pinned buffers):
 *   PROG CONFIG fail SEED LEVEL             as write, but the emulated device fails a copy on
 *                                           rank FAIL_RANK: FTI_Checkpoint must not succeed
 *   write-nodev, check-nodev                as write and check, with every device copy set
 *                                           to fail: they pass only when no device copy
 *                                           happens ([basic] device_backends = off)
 *   PROG CONFIG reuse SEED                  fresh: three L1 checkpoints; restart: FTI_Recover
 *                                           and one checkpoint. Either way the pipeline must
 *                                           pin exactly two buffers (gpu_host_bufsize 64 KiB)
 *                                           and free them in FTI_Finalize
 *
 * Variables: 0 a host int, 1 device doubles (256 KiB + rank), 2 device bytes of
 * odd size (KIB KiB, by default three 64 KiB chunks, plus a tail), 3 host
 * bytes. Byte values derive from (seed, rank, variable, index).
 * FTI_TEST_THREAD_MULTIPLE=1: MPI_THREAD_MULTIPLE (the helper thread).
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef TEST_DEVICE_CUDA
#include <cuda_runtime_api.h>
#else
#include "emu/emu.h"
#endif

#define FAIL_RANK 2

typedef struct state {
    int counter;
    double *grid; /* emulated device memory */
    size_t ngrid;
    unsigned char *bytes; /* emulated device memory */
    size_t nbytes;
    unsigned char host[1000];
} state;

static unsigned char pattern(int seed, int rank, int var, size_t i)
{
    uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)rank << 40 ^
                 (uint64_t)var << 56 ^ i;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (unsigned char)x;
}

static void fill(unsigned char *p, size_t n, int seed, int rank, int var)
{
    for (size_t i = 0; i < n; i++)
        p[i] = pattern(seed, rank, var, i);
}

static long mismatches(const unsigned char *p, size_t n, int seed, int rank, int var)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != pattern(seed, rank, var, i);
    return bad;
}

/* ---- the device: the emulated one or a real CUDA GPU ---------------------- */

#ifdef TEST_DEVICE_CUDA
static void *dev_alloc(size_t n)
{
    void *p = NULL;
    return cudaMalloc(&p, n) == cudaSuccess ? p : NULL;
}
static int dev_write(void *dev, const void *host, size_t n)
{
    return cudaMemcpy(dev, host, n, cudaMemcpyHostToDevice) == cudaSuccess ? 0 : -1;
}
static int dev_read(void *host, const void *dev, size_t n)
{
    return cudaMemcpy(host, dev, n, cudaMemcpyDeviceToHost) == cudaSuccess ? 0 : -1;
}
static void dev_free(void *p)
{
    if (p != NULL)
        cudaFree(p);
}
static int dev_probe(void)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        printf("SKIP: no usable CUDA device (%s)\n",
               e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        return 77;
    }
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
        printf("device: CUDA, %s (%d device(s))\n", prop.name, count);
    return 0;
}
#define DEVICE_IS_EMULATED 0
#else
static void *dev_alloc(size_t n) { return fti_emu_malloc(n); }
static int dev_write(void *dev, const void *host, size_t n) { return fti_emu_write(dev, host, n); }
static int dev_read(void *host, const void *dev, size_t n) { return fti_emu_read(host, dev, n); }
static void dev_free(void *p) { fti_emu_free(p); }
static int dev_probe(void)
{
    printf("device: emulated (backends/emu)\n");
    return 0;
}
#define DEVICE_IS_EMULATED 1
#endif

/* Device variables get their bytes through the device API only. */
static int fill_device(void *dev, size_t n, int seed, int rank, int var)
{
    unsigned char *tmp = malloc(n);
    if (tmp == NULL)
        return -1;
    fill(tmp, n, seed, rank, var);
    int rc = dev_write(dev, tmp, n);
    free(tmp);
    return rc;
}

static long check_device(const void *dev, size_t n, int seed, int rank, int var)
{
    unsigned char *tmp = malloc(n);
    long bad = -1;
    if (tmp != NULL && dev_read(tmp, dev, n) == 0)
        bad = mismatches(tmp, n, seed, rank, var);
    free(tmp);
    return bad;
}

/* Fresh device allocations, filled with garbage so a skipped restore shows;
 * variable 2 holds kib KiB and an odd tail. */
static int protect_all(state *s, int rank, size_t kib)
{
    s->ngrid = 256 * 1024 / sizeof(double) + (size_t)rank;
    s->nbytes = kib * 1024 + 5 + (size_t)rank * 13;
    s->grid = dev_alloc(s->ngrid * sizeof(double));
    s->bytes = dev_alloc(s->nbytes);
    if (s->grid == NULL || s->bytes == NULL)
        return -1;
    size_t njunk = s->ngrid * sizeof(double) > s->nbytes ? s->ngrid * sizeof(double) : s->nbytes;
    unsigned char *junk = malloc(njunk);
    if (junk == NULL)
        return -1;
    memset(junk, 0xEE, njunk);
    int rc = dev_write(s->grid, junk, s->ngrid * sizeof(double)) |
             dev_write(s->bytes, junk, s->nbytes);
    free(junk);
    s->counter = -1;
    memset(s->host, 0xEE, sizeof s->host);
    rc |= FTI_Protect(0, &s->counter, 1, FTI_INTG);
    rc |= FTI_Protect(1, s->grid, (int64_t)s->ngrid, FTI_DBLE);
    rc |= FTI_Protect(2, s->bytes, (int64_t)s->nbytes, FTI_CHAR);
    rc |= FTI_Protect(3, s->host, (int64_t)sizeof s->host, FTI_UCHR);
    return rc;
}

static int fill_all(state *s, int seed, int rank)
{
    fill((unsigned char *)&s->counter, sizeof s->counter, seed, rank, 0);
    fill(s->host, sizeof s->host, seed, rank, 3);
    return fill_device(s->grid, s->ngrid * sizeof(double), seed, rank, 1) |
           fill_device(s->bytes, s->nbytes, seed, rank, 2);
}

static long check_all(state *s, int seed, int rank)
{
    long g = check_device(s->grid, s->ngrid * sizeof(double), seed, rank, 1);
    long b = check_device(s->bytes, s->nbytes, seed, rank, 2);
    if (g < 0 || b < 0)
        return -1;
    return g + b + mismatches((unsigned char *)&s->counter, sizeof s->counter, seed, rank, 0) +
           mismatches(s->host, sizeof s->host, seed, rank, 3);
}

static int do_write(state *s, int seed, int level, int rank, int inject, size_t kib)
{
    if (protect_all(s, rank, kib) != 0 || fill_all(s, seed, rank) != 0) {
        fprintf(stderr, "rank %d: protect/fill failed\n", rank);
        return 1;
    }
#if DEVICE_IS_EMULATED
    if (inject && rank == FAIL_RANK)
        fti_emu_fail_after(100000); /* inside variable 1, after a few chunks */
#endif
    int rc = FTI_Checkpoint(seed, level);
    if (inject) {
        printf("rank %d: FTI_Checkpoint with a device failure on rank %d returned %d\n", rank,
               FAIL_RANK, rc);
        return rc == FTI_DONE; /* success would be a lie */
    }
    if (rc != FTI_DONE)
        fprintf(stderr, "rank %d: FTI_Checkpoint returned %d\n", rank, rc);
    return rc != FTI_DONE;
}

/* FTI_Checkpoint returned: the application moves on at once. */
static int do_staged(state *s, int seed, int level, int rank, size_t kib)
{
    int rc = do_write(s, seed, level, rank, 0, kib);
    return rc | fill_all(s, seed + 1000, rank);
}

static int do_check(state *s, int seed, int rank, size_t kib)
{
    if (FTI_Status() == 0) {
        fprintf(stderr, "rank %d: FTI_Status() is 0, expected a restart\n", rank);
        return 1;
    }
    if (protect_all(s, rank, kib) != 0)
        return 1;
    int rc = FTI_Recover();
    long bad = rc == FTI_SCES ? check_all(s, seed, rank) : -1, total = 0, worst = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    MPI_Allreduce(&bad, &worst, 1, MPI_LONG, MPI_MIN, FTI_COMM_WORLD);
    if (bad != 0)
        fprintf(stderr, "rank %d: FTI_Recover %d, %ld bytes differ\n", rank, rc, bad);
    int failed = total != 0 || worst < 0;
    if (rank == 0)
        printf("%s: restored device bytes %s\n", failed ? "FAIL" : "PASS",
               failed ? "differ" : "identical");
    return failed;
}

#if DEVICE_IS_EMULATED
/* Fresh: three checkpoints; restart: recover, then one checkpoint. */
static int reuse_steps(state *s, int seed, int rank)
{
    if (FTI_Status() != 0) {
        if (do_check(s, seed, rank, 3 * 64) != 0)
            return 1;
    } else if (protect_all(s, rank, 3 * 64) != 0 || fill_all(s, seed, rank) != 0) {
        return 1;
    }
    for (int k = 0; k < (FTI_Status() != 0 ? 1 : 3); k++)
        if (FTI_Checkpoint(seed + k, 1) != FTI_DONE)
            return 1;
    return 0;
}

/* The capture sets of the context: two buffers pinned for all the device
 * variables of every checkpoint and recovery, none left after FTI_Finalize. */
static int do_reuse(state *s, int seed, int rank)
{
    size_t made, live, made_end, live_end;
    int rc = reuse_steps(s, seed, rank);
    fti_emu_host_stats(&made, &live);
    FTI_Finalize();
    fti_emu_host_stats(&made_end, &live_end);
    printf("rank %d: %zu pinned buffers made, %zu alive before FTI_Finalize, %zu after\n",
           rank, made, live, live_end);
    return rc != 0 || made != 2 || live != 2 || made_end != 2 || live_end != 0;
}

/* write-nodev / check-nodev: any device copy from here on fails. */
static const char *nodev_mode(const char *mode)
{
    if (strcmp(mode, "write-nodev") != 0 && strcmp(mode, "check-nodev") != 0)
        return mode;
    fti_emu_fail_after(0);
    return mode[0] == 'w' ? "write" : "check";
}
#endif

#if !DEVICE_IS_EMULATED
/* A mode this build of the program cannot run: a usage error, not a skip. */
static int emulated_only(const char *mode)
{
    fprintf(stderr, "device_prog: mode %s needs the emulated device\n", mode);
    return 2;
}
#endif

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--probe") == 0)
        return dev_probe();
    if (argc < 4) {
        fprintf(stderr, "usage: device_prog --probe | CONFIG write|fail|check[-nodev]|staged|reuse "
                        "SEED [LEVEL [KIB]]\n");
        return 2;
    }
    const char *tm = getenv("FTI_TEST_THREAD_MULTIPLE");
    int provided;
    if (tm && atoi(tm))
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "FTI_Init failed\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
#if DEVICE_IS_EMULATED
    /* A little copy latency keeps copies in flight while the file is written. */
    fti_emu_set_speed(8e9, 100e-6);
    const char *mode = nodev_mode(argv[2]);
#else
    const char *mode = argv[2];
#endif
    int rank, status = 0, seed = atoi(argv[3]), level = argc > 4 ? atoi(argv[4]) : 1;
    size_t kib = argc > 5 ? (size_t)strtoul(argv[5], NULL, 10) : 3 * 64;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    state s = {0};
    int finalized = 0;
    if (strcmp(mode, "write") == 0)
        status = do_write(&s, seed, level, rank, 0, kib);
    else if (strcmp(mode, "staged") == 0)
        status = do_staged(&s, seed, level, rank, kib);
    else if (strcmp(mode, "check") == 0)
        status = do_check(&s, seed, rank, kib);
#if DEVICE_IS_EMULATED
    else if (strcmp(mode, "fail") == 0)
        status = do_write(&s, seed, level, rank, 1, kib);
    else if (strcmp(mode, "reuse") == 0)
        status = do_reuse(&s, seed, rank), finalized = 1; /* finalizes itself */
#else
    else if (strcmp(mode, "fail") == 0 || strcmp(mode, "reuse") == 0 ||
             strstr(mode, "-nodev") != NULL)
        status = emulated_only(mode);
#endif
    else
        status = 2;
    if (!finalized)
        FTI_Finalize();
    dev_free(s.bytes);
    dev_free(s.grid);
    MPI_Finalize();
    return status;
}
