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
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <fti.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

#define MAX_REPS 32

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

static const char usage[] =
    "usage: mpiexec -n 4 -bind-to none bench_async [DIR] [MIB] [REPS]\n"
    "the application's pause of an L4 checkpoint with staging_mib against a memcpy of\n"
    "the same bytes; defaults /dev/shm 64 5\n";

int main(int argc, char **argv)
{
    if (bench_answered_help(argc, argv, usage))
        return 0;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
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
