/*
 * consumer - an FTI application built out of tree against an installed FTI.
 *
 *   consumer CONFIG write   fill the buffers, FTI_Checkpoint(1, 1), finalize
 *   consumer CONFIG check   restart: FTI_Recover, assert every byte, finalize
 *
 * Bytes derive from (rank, index), so a restore from the wrong rank or offset
 * is caught. Exit status 0 only when every rank's bytes match.
 */
#include <fti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDOUBLES (64 * 1024)

static unsigned char expected(int rank, size_t i)
{
    return (unsigned char)((i * 2654435761u) >> 7 ^ (unsigned)rank * 97u);
}

static long mismatches(const unsigned char *p, size_t n, int rank)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += p[i] != expected(rank, i);
    return bad;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 3 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "usage: consumer CONFIG write|check (or FTI_Init failed)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    char header_version[32];
    snprintf(header_version, sizeof header_version, "%d.%d.%d", FTI_VERSION_MAJOR,
             FTI_VERSION_MINOR, FTI_VERSION_PATCH);
    if (strcmp(FTI_GetVersion(), header_version) != 0 || FTI_VERSION_NUMBER < 10600) {
        fprintf(stderr, "library %s, header %s: mismatch or older than FTI 1.6\n",
                FTI_GetVersion(), header_version);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    double *grid = calloc(NDOUBLES, sizeof(double));
    int step = 0;
    FTI_Protect(0, &step, 1, FTI_INTG);
    FTI_Protect(1, grid, NDOUBLES, FTI_DBLE);
    size_t nbytes = NDOUBLES * sizeof(double);
    long bad = 0;
    if (strcmp(argv[2], "write") == 0) {
        for (size_t i = 0; i < nbytes; i++)
            ((unsigned char *)grid)[i] = expected(rank, i);
        step = 42;
        if (FTI_Checkpoint(1, 1) != FTI_DONE)
            bad = -1;
    } else {
        if (FTI_Status() == 0 || FTI_Recover() != FTI_SCES)
            bad = -1;
        else
            bad = mismatches((unsigned char *)grid, nbytes, rank) + (step != 42);
    }
    long worst;
    MPI_Allreduce(&bad, &worst, 1, MPI_LONG, MPI_MIN, FTI_COMM_WORLD);
    long total;
    MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %s (%ld bad bytes)\n", argv[2], worst < 0 || total ? "FAIL" : "PASS", total);
    FTI_Finalize();
    free(grid);
    MPI_Finalize();
    return worst < 0 || total ? 1 : 0;
}
