/*
 * many_prog - very many small variables.
 *
 *   many_prog CONFIG write SEED N   protect N ints (ids 0..N-1), FTI_Checkpoint(SEED, 1)
 *   many_prog CONFIG check SEED N   restart: protect them again, FTI_Recover, assert each
 *
 * Rank 0 prints "protect: N variables in S s" (the slowest rank's time) and,
 * for check, "PASS: restored bytes identical" when every rank restored every
 * value. Values derive from (seed, rank, id).
 */
#include <fti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int value(int seed, int rank, int id)
{
    return seed * 1000003 + rank * 7919 + id * 31;
}

/* Protects a[0..n-1] as ids 0..n-1; returns the slowest rank's seconds, or -1. */
static double protect_all(int *a, int n)
{
    double t0 = MPI_Wtime(), mine, slowest;
    int rc = FTI_SCES;
    for (int i = 0; i < n && rc == FTI_SCES; i++)
        rc = FTI_Protect(i, &a[i], 1, FTI_INTG);
    mine = rc == FTI_SCES ? MPI_Wtime() - t0 : 1e9;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, FTI_COMM_WORLD);
    return slowest >= 1e9 ? -1 : slowest;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: many_prog CONFIG write|check SEED N\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int check = strcmp(argv[2], "check") == 0, seed = atoi(argv[3]), n = atoi(argv[4]);
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int rank;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    int *a = calloc((size_t)n, sizeof *a);
    for (int i = 0; i < n && !check; i++)
        a[i] = value(seed, rank, i);
    double secs = protect_all(a, n);
    if (rank == 0)
        printf("protect: %d variables in %.3f s\n", n, secs);
    int status = secs < 0;
    if (!check && FTI_Checkpoint(seed, 1) != FTI_DONE)
        status = 1;
    if (check) {
        long bad = FTI_Recover() == FTI_SCES ? 0 : n, total = 0;
        for (int i = 0; i < n && bad == 0; i++)
            bad += a[i] != value(seed, rank, i);
        MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
        status = total != 0;
        if (rank == 0)
            printf("%s: restored bytes %s\n", status ? "FAIL" : "PASS", status ? "differ" : "identical");
    }
    FTI_Finalize();
    free(a);
    MPI_Finalize();
    return status;
}
