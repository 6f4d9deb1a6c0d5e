/*
 * compare_driver - one timed step of bench/compare-fti.sh, written against
 * the FTI API only, so that the same source builds against FTI 1.6's fti.h
 * and ours.
 *
 *   compare_driver CONFIG ckpt LEVEL MIB      fill, time FTI_Checkpoint(1, LEVEL),
 *                                             then exit without FTI_Finalize (a crash:
 *                                             the files stay for the restart)
 *   compare_driver CONFIG restart LEVEL MIB   time FTI_Init + FTI_Protect + FTI_Recover,
 *                                             check every byte, FTI_Finalize
 *
 * Rank 0 prints "TIME <seconds>" (slowest rank) and "RSS_MIB <MiB>": the
 * largest peak resident set of the ranks (getrusage), the driver's own two
 * buffers of MIB each included, so the two libraries' figures differ by
 * what each library holds. Exit 0 on success.
 */
#include <fti.h>
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static void fill(unsigned char *p, size_t n, int rank)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(rank + 1);
    for (size_t i = 0; i < n; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(p + i, &x, n - i < 8 ? n - i : 8);
    }
}

static double slowest(double t)
{
    double m = 0;
    MPI_Reduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    return m;
}

static const char usage[] =
    "usage: compare_driver CONFIG ckpt|restart LEVEL MIB\n"
    "one timed step of bench/compare-fti.sh (the FTI API only)\n";

int main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        fputs(usage, stdout); /* no bench_util here: compare-fti.sh builds this file alone */
        return 0;
    }
    if (argc != 5) {
        fprintf(stderr, "usage: compare_driver CONFIG ckpt|restart LEVEL MIB\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rank, level = atoi(argv[3]), restart = strcmp(argv[2], "restart") == 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    size_t len = (size_t)atol(argv[4]) << 20;
    unsigned char *data = malloc(len), *want = malloc(len);
    if (data == NULL || want == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    fill(want, len, rank);
    if (restart)
        memset(data, 0, len); /* what FTI_Recover must undo */
    else
        memcpy(data, want, len);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 3);
    FTI_Protect(0, data, (long)len, FTI_CHAR);
    int ok = 1;
    if (restart) {
        ok = FTI_Status() != 0 && FTI_Recover() == FTI_SCES;
    } else {
        MPI_Barrier(FTI_COMM_WORLD);
        t0 = MPI_Wtime();
        ok = FTI_Checkpoint(1, level) == FTI_DONE;
    }
    double t = slowest(MPI_Wtime() - t0);
    if (restart && ok)
        ok = memcmp(data, want, len) == 0;
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long peak_kib = ru.ru_maxrss, max_kib = 0; /* Linux: KiB */
    MPI_Reduce(&peak_kib, &max_kib, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0 && all)
        printf("TIME %.4f\nRSS_MIB %.1f\n", t, (double)max_kib / 1024.0);
    if (rank == 0 && !all)
        fprintf(stderr, "compare_driver: %s at level %d failed%s\n", argv[2], level,
                restart ? " (or restored bytes differ)" : "");
    if (restart)
        FTI_Finalize();
    fflush(stdout);
    MPI_Finalize();
    return all ? 0 : 1;
}
