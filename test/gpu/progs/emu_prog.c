/*
 * emu_prog - end-to-end: device variables on the emulated device, protected
 * with plain FTI_Protect, checkpointed and recovered through the capture
 * pipeline. Driven by test/gpu/gpu_emu_e2e.sh and gpu_levels.sh.
 *
 *   emu_prog CONFIG write SEED LEVEL [KIB]  fill, FTI_Checkpoint(SEED, LEVEL) must be FTI_DONE
 *   emu_prog CONFIG fail SEED LEVEL         as write, but the emulated device fails a copy on
 *                                           rank FAIL_RANK: FTI_Checkpoint must not succeed
 *   emu_prog CONFIG check SEED [LEVEL [KIB]]  restart: fresh device allocations full of
 *                                           garbage, FTI_Recover, every device byte compared
 *   write-nodev, check-nodev                as write and check, with every device copy set
 *                                           to fail: they pass only when no device copy
 *                                           happens ([basic] device_backends = off)
 *   emu_prog CONFIG staged SEED LEVEL       as write, then at once every variable, device
 *                                           ones included, is overwritten (staging_mib: the
 *                                           checkpoint must hold the bytes of the call)
 *   emu_prog CONFIG reuse SEED              fresh: three L1 checkpoints; restart: FTI_Recover
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

#include "emu/emu.h"

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

/* Device variables get their bytes through the device API only. */
static int fill_device(void *dev, size_t n, int seed, int rank, int var)
{
    unsigned char *tmp = malloc(n);
    if (tmp == NULL)
        return -1;
    fill(tmp, n, seed, rank, var);
    int rc = fti_emu_write(dev, tmp, n);
    free(tmp);
    return rc;
}

static long check_device(const void *dev, size_t n, int seed, int rank, int var)
{
    unsigned char *tmp = malloc(n);
    long bad = -1;
    if (tmp != NULL && fti_emu_read(tmp, dev, n) == 0)
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
    s->grid = fti_emu_malloc(s->ngrid * sizeof(double));
    s->bytes = fti_emu_malloc(s->nbytes);
    if (s->grid == NULL || s->bytes == NULL)
        return -1;
    size_t njunk = s->ngrid * sizeof(double) > s->nbytes ? s->ngrid * sizeof(double) : s->nbytes;
    unsigned char *junk = malloc(njunk);
    if (junk == NULL)
        return -1;
    memset(junk, 0xEE, njunk);
    int rc = fti_emu_write(s->grid, junk, s->ngrid * sizeof(double)) |
             fti_emu_write(s->bytes, junk, s->nbytes);
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
    if (inject && rank == FAIL_RANK)
        fti_emu_fail_after(100000); /* inside variable 1, after a few chunks */
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

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: emu_prog CONFIG write|fail|check[-nodev] SEED [LEVEL [KIB]]\n");
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
    /* A little copy latency keeps copies in flight while the file is written. */
    fti_emu_set_speed(8e9, 100e-6);
    int rank, status = 0, seed = atoi(argv[3]), level = argc > 4 ? atoi(argv[4]) : 1;
    size_t kib = argc > 5 ? (size_t)strtoul(argv[5], NULL, 10) : 3 * 64;
    const char *mode = nodev_mode(argv[2]);
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    state s = {0};
    if (strcmp(mode, "write") == 0 || strcmp(mode, "fail") == 0)
        status = do_write(&s, seed, level, rank, strcmp(mode, "fail") == 0, kib);
    else if (strcmp(mode, "staged") == 0)
        status = do_staged(&s, seed, level, rank, kib);
    else if (strcmp(mode, "check") == 0)
        status = do_check(&s, seed, rank, kib);
    else if (strcmp(mode, "reuse") == 0)
        status = do_reuse(&s, seed, rank); /* finalizes itself */
    else
        status = 2;
    if (strcmp(mode, "reuse") != 0)
        FTI_Finalize();
    fti_emu_free(s.bytes);
    fti_emu_free(s.grid);
    MPI_Finalize();
    return status;
}
