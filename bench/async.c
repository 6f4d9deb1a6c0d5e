/*
 * bench_async - what an L4 checkpoint with staging_mib costs the application:
 * the time FTI_Checkpoint blocks while the helper thread writes in the
 * background, against a memcpy of the same bytes measured in the same run
 * (target: at most 1.2x), beside the synchronous L4 checkpoint.
 *
 *   mpiexec -n 4 -bind-to none bench_async [DIR] [MIB] [REPS]
 *   defaults: /dev/shm  64  5
 *
 * Each rank protects MIB MiB. Times are of the slowest rank, median of
 * REPS. Between staged checkpoints the ranks wait (twice the synchronous
 * time) and call FTI_Snapshot, which commits the finished background write,
 * so each FTI_Checkpoint measured is the copy alone, not a wait for the
 * previous one. The first staged checkpoint (buffer allocation and page
 * faults) is not counted. Prints the load average with the results: on a
 * loaded machine the ratio means little. JSON line, then a table.
 *
 *   mpiexec -n 4 -bind-to none bench_async --cow [DIR] [SIZES] [REPS]
 *   defaults: /dev/shm  64,512,2048  5
 *
 * Copy-on-write checkpoints ([advanced] cow_checkpoint = 1, L1): for each
 * size (MiB per rank) the application's pause in FTI_Checkpoint (median of
 * REPS, slowest rank, nothing rewritten) against a memcpy of the same bytes
 * (in pieces of at most 256 MiB into one pre-faulted buffer) and an
 * FTI_Checkpoint of 4 bytes; then the peak extra memory (VmHWM over the
 * RSS before the checkpoint, reset through /proc/self/clear_refs) when the
 * application rewrites 0%, 10% (1 MiB of every 10) and 100% of its data
 * right after FTI_Checkpoint returns. Before each measured checkpoint the
 * previous drain is given twice the time a drain took in the warm-up (at
 * least the time of a drain at 200 MB/s), so that the pause is not a wait
 * for it. The pool (cow_max_mib) is the size,
 * so no write waits. --cow-thp: the data is in transparent huge pages
 * (madvise(MADV_HUGEPAGE) before it is first written), whose protection
 * costs one entry per 2 MiB instead of 512. Targets: pause(largest) <= 2 x pause(smallest) and
 * < 0.05 x memcpy(largest); extra memory at 10% <= 0.15 of the data.
 */
#define _GNU_SOURCE /* nanosleep, MADV_HUGEPAGE */
#include <fti.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "bench_util.h"

#define MAX_REPS 32
#define MAX_SIZES 8
#define PIECE ((size_t)256 << 20) /* the memcpy's destination buffer */

static int rank, nranks;

static void write_config(const char *path, const char *dir, int staging_mib, const char *exec_id)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(f, "[basic]\nnode_size = 1\nckpt_dir = %s/local\nglbl_dir = %s/global\n"
               "meta_dir = %s/meta\ninline_l4 = 0\nkeep_last_ckpt = 0\nverbosity = 3\n"
               "staging_mib = %d\n[restart]\nexec_id = %s\n[advanced]\nlocal_test = 1\n",
            dir, dir, dir, staging_mib, exec_id);
    fclose(f);
}

static void pause_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Slowest rank's seconds of one FTI_Checkpoint(id, 4). */
static double timed_checkpoint(int id)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (FTI_Checkpoint(id, 4) != FTI_DONE) {
        fprintf(stderr, "bench_async: rank %d: FTI_Checkpoint(%d, 4) failed\n", rank, id);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
}

static double timed_memcpy(char *dst, const char *src, size_t len)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    memcpy(dst, src, len);
    return bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
}

/* Median time of REPS L4 checkpoints with staging_mib (0: synchronous);
 * memcpy[] gets a memcpy of the same bytes before each one. */
static double run(const char *dir, char *data, char *copy, size_t len, int reps, int staging_mib,
                  double settle, double *memcpy_t)
{
    char cfg[4200];
    snprintf(cfg, sizeof cfg, "%s/bench-%d.fti", dir, staging_mib);
    if (rank == 0)
        write_config(cfg, dir, staging_mib, staging_mib ? "bench-staged" : "bench-sync");
    MPI_Barrier(MPI_COMM_WORLD);
    if (FTI_Init(cfg, MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 4);
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    double t[MAX_REPS];
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up, not counted */
        double m = timed_memcpy(copy, data, len);
        data[(size_t)(r + 1) * 4096 % len]++; /* a new state to checkpoint */
        double c = timed_checkpoint(r + 2);
        if (r >= 0) {
            t[r] = c;
            memcpy_t[r] = m;
        }
        pause_s(settle); /* the application computes; the thread writes */
        FTI_Snapshot();  /* commits the finished background checkpoint */
    }
    FTI_Finalize();
    return bench_median(t, reps);
}

/* ---- copy-on-write -------------------------------------------------------- */

/* kB of a line of /proc/self/status ("VmRSS:", "VmHWM:"); -1 when absent. */
static long status_kb(const char *key)
{
    char line[256];
    long kb = -1;
    FILE *f = fopen("/proc/self/status", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, key, strlen(key)) == 0)
            kb = atol(line + strlen(key));
    if (f != NULL)
        fclose(f);
    return kb;
}

/* The peak RSS starts again from the current RSS (0 when the kernel refuses). */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    int ok = f != NULL && fputs("5", f) >= 0;
    if (f != NULL && fclose(f) != 0)
        ok = 0;
    return ok;
}

static void cow_config(const char *path, const char *dir, int pool_mib, const char *exec_id)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(f, "[basic]\nnode_size = 1\nckpt_dir = %s/local\nglbl_dir = %s/global\n"
               "meta_dir = %s/meta\nkeep_last_ckpt = 0\nverbosity = 1\n[restart]\n"
               "exec_id = %s\n[advanced]\nlocal_test = 1\ncow_checkpoint = 1\n"
               "cow_max_mib = %d\n", dir, dir, dir, exec_id, pool_mib);
    fclose(f);
}

/* Slowest rank's seconds of one FTI_Checkpoint(id, 1). */
static double timed_l1(int id)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (FTI_Checkpoint(id, 1) != FTI_DONE) {
        fprintf(stderr, "bench_async: rank %d: FTI_Checkpoint(%d, 1) failed\n", rank, id);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
}

/* A memcpy of len bytes, in pieces into one buffer of PIECE bytes. */
static double timed_memcpy_pieces(char *dst, const char *src, size_t len)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (size_t at = 0; at < len; at += PIECE)
        memcpy(dst, src + at, len - at < PIECE ? len - at : PIECE);
    return bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
}

/* The application's writes right after FTI_Checkpoint: pct% of the data,
 * 1 MiB of every 100 / pct MiB. */
static void rewrite(char *data, size_t len, int pct)
{
    size_t mib = (size_t)1 << 20, stride = pct > 0 ? 100 / (size_t)pct * mib : 0;
    for (size_t at = 0; pct > 0 && at < len; at += stride)
        memset(data + at, (int)(at / mib), len - at < mib ? len - at : mib);
}

typedef struct cow_result {
    int mib;
    double pause, memcpy_t;
    double first; /* the first checkpoint's pause: huge pages collapsed once (cow_huge_pages) */
    double extra[3]; /* peak extra MiB at 0, 10, 100% rewritten (largest rank) */
} cow_result;

static const int rewrite_pct[3] = {0, 10, 100};

/* The peak extra memory of one checkpoint with pct% rewritten during the
 * drain, MiB, largest rank; settle: seconds the drain is given. */
static double extra_memory(char *data, size_t len, int id, int pct, double settle)
{
    FTI_Snapshot(); /* the previous checkpoint committed */
    long before = status_kb("VmRSS:");
    int reset = reset_peak();
    timed_l1(id);
    rewrite(data, len, pct);
    pause_s(settle);
    long peak = status_kb("VmHWM:");
    double mib = reset && before >= 0 && peak >= before ? (double)(peak - before) / 1024 : -1;
    double all;
    MPI_Allreduce(&mib, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

/* One size: the pause (median of reps, nothing rewritten), then memory. */
static void cow_size(const char *dir, char *data, char *copy, int mib, int reps, cow_result *r)
{
    size_t len = (size_t)mib << 20;
    char cfg[4200], exec_id[64];
    snprintf(cfg, sizeof cfg, "%s/cow-%d.fti", dir, mib);
    snprintf(exec_id, sizeof exec_id, "bench-cow-%d", mib);
    if (rank == 0)
        cow_config(cfg, dir, mib, exec_id);
    MPI_Barrier(MPI_COMM_WORLD);
    if (FTI_Init(cfg, MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 4);
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    double t[MAX_REPS], m[MAX_REPS];
    /* Warm-up (pool, file), not counted: the second checkpoint waits for the
     * first one's drain, so it measures about how long a drain takes. Each
     * measured checkpoint must find the previous drain finished, or its
     * pause is a wait for it: twice that, and at least a drain at 200 MB/s. */
    r->first = timed_l1(1);
    double settle = 2 * timed_l1(2) + 0.05, floor_s = 0.1 + (double)len / 200e6;
    settle = settle > floor_s ? settle : floor_s;
    for (int k = 0; k < reps; k++) {
        pause_s(settle);
        FTI_Snapshot(); /* commits the finished drain */
        m[k] = timed_memcpy_pieces(copy, data, len);
        t[k] = timed_l1(k + 3);
    }
    pause_s(settle);
    r->mib = mib;
    r->pause = bench_median(t, reps);
    r->memcpy_t = bench_median(m, reps);
    for (int i = 0; i < 3; i++)
        r->extra[i] = extra_memory(data, len, 100 + i, rewrite_pct[i], settle);
    FTI_Finalize();
}

/* The pause of a checkpoint of 4 bytes, median of reps. */
static double cow_empty(const char *dir, int reps)
{
    char cfg[4200];
    int one = 1;
    snprintf(cfg, sizeof cfg, "%s/cow-empty.fti", dir);
    if (rank == 0)
        cow_config(cfg, dir, 1, "bench-cow-empty");
    MPI_Barrier(MPI_COMM_WORLD);
    if (FTI_Init(cfg, MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 4);
    FTI_Protect(0, &one, 1, FTI_INTG);
    double t[MAX_REPS];
    for (int k = -1; k < reps; k++) {
        double c = timed_l1(k + 2);
        pause_s(0.02);
        FTI_Snapshot();
        if (k >= 0)
            t[k] = c;
    }
    FTI_Finalize();
    return bench_median(t, reps);
}

static void cow_report(const cow_result *r, int n, double empty, int reps, int thp,
                       const char *dir, const char *load0, const char *load1)
{
    const cow_result *lo = &r[0], *hi = &r[n - 1];
    double growth = hi->pause / lo->pause, vs_memcpy = hi->pause / hi->memcpy_t;
    double extra10 = hi->extra[1] / hi->mib;
    printf("{\"bench\":\"async_cow\",\"ranks\":%d,\"reps\":%d,\"thp\":%d,\"dir\":\"%s\","
           "\"empty_s\":%.6f,\"sizes\":[", nranks, reps, thp, dir, empty);
    for (int i = 0; i < n; i++)
        printf("%s{\"mib\":%d,\"pause_s\":%.6f,\"first_s\":%.6f,\"memcpy_s\":%.6f,"
               "\"extra_mib\":[%.1f,%.1f,%.1f]}",
               i ? "," : "", r[i].mib, r[i].pause, r[i].first, r[i].memcpy_t, r[i].extra[0],
               r[i].extra[1], r[i].extra[2]);
    printf("],\"pause_growth\":%.3f,\"pause_vs_memcpy\":%.4f,\"extra10_share\":%.3f,"
           "\"targets\":{\"pause_growth\":2,\"pause_vs_memcpy\":0.05,\"extra10_share\":0.15},"
           "\"load_before\":\"%s\",\"load_after\":\"%s\"}\n", growth, vs_memcpy, extra10,
           load0, load1);
    printf("copy-on-write, %d ranks, %s pages, median of %d, load %s -> %s\n", nranks,
           thp ? "transparent huge" : "4 KiB", reps, load0, load1);
    printf("  empty FTI_Checkpoint %.6f s\n", empty);
    printf("  MiB/rank   pause s    first s    memcpy s   pause/memcpy  extra MiB at 0%% 10%% 100%%\n");
    for (int i = 0; i < n; i++)
        printf("  %8d  %.6f  %.6f  %.6f  %.4f        %.1f %.1f %.1f\n", r[i].mib, r[i].pause,
               r[i].first, r[i].memcpy_t, r[i].pause / r[i].memcpy_t, r[i].extra[0], r[i].extra[1],
               r[i].extra[2]);
    printf("  pause %d MiB / %d MiB = %.2f (target <= 2) %s\n", hi->mib, lo->mib, growth,
           growth <= 2 ? "ok" : "OVER");
    printf("  pause / memcpy at %d MiB = %.4f (target < 0.05) %s\n", hi->mib, vs_memcpy,
           vs_memcpy < 0.05 ? "ok" : "OVER");
    printf("  extra memory at 10%% rewritten = %.3f of the data (target <= 0.15) %s\n", extra10,
           extra10 >= 0 && extra10 <= 0.15 ? "ok" : "OVER");
}

/* Sizes "64,512,2048" into mib[], in the order given; their count. */
static int parse_sizes(const char *text, int *mib)
{
    int n = 0;
    char *end = NULL;
    for (const char *p = text; n < MAX_SIZES; p = end + 1) {
        long v = strtol(p, &end, 10);
        if (v > 0)
            mib[n++] = (int)v;
        if (*end != ',')
            break;
    }
    return n;
}

/* len bytes, filled; in transparent huge pages when thp (as far as the
 * kernel grants them). */
static char *cow_data(size_t len, int thp)
{
    size_t huge = (size_t)2 << 20, n = (len + huge - 1) / huge * huge;
    char *p = aligned_alloc(huge, n);
    if (p == NULL) {
        fprintf(stderr, "bench_async: rank %d: cannot allocate %zu bytes\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 5);
    }
    if (thp)
        madvise(p, n, MADV_HUGEPAGE);
    bench_fill(p, len, 1 + (unsigned)rank);
    return p;
}

static int main_cow(int argc, char **argv)
{
    int thp = strcmp(argv[1], "--cow-thp") == 0;
    const char *base = argc > 2 ? argv[2] : "/dev/shm";
    int mib[MAX_SIZES], n = parse_sizes(argc > 3 ? argv[3] : "64,512,2048", mib);
    int reps = argc > 4 ? atoi(argv[4]) : 5;
    if (reps < 1 || reps > MAX_REPS)
        reps = 5;
    if (n == 0)
        mib[n++] = 64;
    int largest = 0;
    for (int i = 0; i < n; i++)
        largest = mib[i] > largest ? mib[i] : largest;
    size_t len = (size_t)largest << 20;
    char dir[4096], load0[64], load1[64];
    bench_mkdtemp(base, "fti-bench-cow-", dir, sizeof dir, MPI_COMM_WORLD);
    char *data = cow_data(len, thp);
    char *copy = bench_alloc(len < PIECE ? len : PIECE, 99);
    bench_loadavg_text(load0, sizeof load0);
    double empty = cow_empty(dir, reps);
    cow_result r[MAX_SIZES];
    for (int i = 0; i < n; i++)
        cow_size(dir, data, copy, mib[i], reps, &r[i]);
    bench_loadavg_text(load1, sizeof load1);
    if (rank == 0)
        cow_report(r, n, empty, reps, thp, dir, load0, load1);
    free(copy);
    free(data);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        bench_rmtree(dir);
    return 0;
}

static const char usage[] =
    "usage: mpiexec -n 4 -bind-to none bench_async [DIR] [MIB] [REPS]\n"
    "the application's pause of an L4 checkpoint with staging_mib against a memcpy of\n"
    "the same bytes; defaults /dev/shm 64 5\n"
    "       mpiexec -n 4 -bind-to none bench_async --cow|--cow-thp [DIR] [SIZES] [REPS]\n"
    "copy-on-write checkpoints: the pause at each size (MiB per rank, comma-separated)\n"
    "against a memcpy and an empty checkpoint, and the peak extra memory with 0, 10 and\n"
    "100% rewritten during the drain (--cow-thp: data in transparent huge pages);\n"
    "defaults /dev/shm 64,512,2048 5\n";

int main(int argc, char **argv)
{
    if (bench_answered_help(argc, argv, usage))
        return 0;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc > 1 && (strcmp(argv[1], "--cow") == 0 || strcmp(argv[1], "--cow-thp") == 0)) {
        int rc = main_cow(argc, argv);
        MPI_Finalize();
        return rc;
    }
    const char *base = argc > 1 ? argv[1] : "/dev/shm";
    int mib = argc > 2 ? atoi(argv[2]) : 64;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    if (reps < 1 || reps > MAX_REPS)
        reps = 5;
    if (mib < 1)
        mib = 64;
    if (provided < MPI_THREAD_MULTIPLE && rank == 0)
        fprintf(stderr, "bench_async: MPI gives no MPI_THREAD_MULTIPLE: checkpoints stay "
                        "synchronous, the ratio is meaningless\n");
    size_t len = (size_t)mib << 20;
    char dir[4096], load0[64], load1[64];
    bench_mkdtemp(base, "fti-bench-async-", dir, sizeof dir, MPI_COMM_WORLD);
    char *data = bench_alloc(len, 1 + (unsigned)rank);
    char *copy = bench_alloc(len, 99); /* pre-faulted, as the library's kept copy is */
    bench_loadavg_text(load0, sizeof load0);
    double mc_sync[MAX_REPS], mc[MAX_REPS];
    double sync = run(dir, data, copy, len, reps, 0, 0.01, mc_sync);
    double staged = run(dir, data, copy, len, reps, mib + 1, 2 * sync + 0.05, mc);
    double memcpy_t = bench_median(mc, reps);
    bench_loadavg_text(load1, sizeof load1);
    if (rank == 0) {
        printf("{\"bench\":\"async\",\"ranks\":%d,\"mib_per_rank\":%d,\"reps\":%d,\"dir\":\"%s\","
               "\"memcpy_s\":%.6f,\"l4_sync_s\":%.6f,\"l4_staged_s\":%.6f,\"ratio_memcpy\":%.3f,"
               "\"target\":1.2,\"load_before\":\"%s\",\"load_after\":\"%s\"}\n",
               nranks, mib, reps, dir, memcpy_t, sync, staged, staged / memcpy_t, load0, load1);
        printf("%d ranks x %d MiB in %s, median of %d, load %s -> %s\n", nranks, mib, dir, reps,
               load0, load1);
        printf("  memcpy             %.4f s (%.2f GB/s per rank)\n", memcpy_t,
               (double)len / memcpy_t / 1e9);
        printf("  L4 synchronous     %.4f s\n", sync);
        printf("  L4 staged (wait)   %.4f s = %.2f x memcpy (target <= 1.2) %s\n", staged,
               staged / memcpy_t, staged / memcpy_t <= 1.2 ? "ok" : "OVER");
    }
    free(copy);
    free(data);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        bench_rmtree(dir);
    MPI_Finalize();
    return 0;
}
