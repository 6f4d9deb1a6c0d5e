/*
 * slow_rank - one rank arrives late at a checkpoint.
 *
 *   slow_rank CONFIG SECONDS   application rank 1 sleeps SECONDS before
 *                              FTI_Checkpoint; every rank checks its bytes
 *                              after a restore-free round (FTI_Recover is
 *                              not needed: the buffer must be unchanged)
 *
 * The library's watchdog must warn (FTI_WATCHDOG_S below SECONDS) and the
 * checkpoint must still commit: exit 0 on every rank.
 */
#include <fti.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 3 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "usage: slow_rank CONFIG SECONDS (or FTI_Init failed)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    double data[1024];
    for (int i = 0; i < 1024; i++)
        data[i] = rank * 1e4 + i;
    FTI_Protect(0, data, 1024, FTI_DBLE);
    if (rank == 1)
        sleep((unsigned)atoi(argv[2]));
    int rc = FTI_Checkpoint(1, 1);
    int bad = rc != FTI_DONE;
    for (int i = 0; i < 1024; i++)
        bad |= data[i] != rank * 1e4 + i;
    int any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, FTI_COMM_WORLD);
    if (rank == 0)
        printf("slow_rank: %s\n", any ? "FAIL" : "PASS");
    FTI_Finalize();
    MPI_Finalize();
    return any;
}
