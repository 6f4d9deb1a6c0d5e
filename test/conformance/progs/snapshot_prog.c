/*
 * snapshot_prog - an FTI_Snapshot loop, as FTI's syncIntv program drives it
 * (driven by test/conformance/conformance_sem_snapshot_sync.sh):
 *
 *   snapshot_prog CONFIG SECONDS   calls FTI_Snapshot once per iteration of
 *                                  about 5 ms for SECONDS, then FTI_Finalize;
 *                                  rank 0 prints "Checkpoint made i = <i>"
 *                                  (i from 0) whenever FTI_Snapshot returns
 *                                  FTI_DONE, as FTI's program does
 */
#define _POSIX_C_SOURCE 200809L
#include <fti.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: snapshot_prog CONFIG SECONDS\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "FTI_Init failed\n");
        MPI_Finalize();
        return 20;
    }
    int rank, failed = 0;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    double data[1024];
    for (int k = 0; k < 1024; k++)
        data[k] = rank + k;
    FTI_Protect(1, data, 1024, FTI_DBLE);
    double end = MPI_Wtime() + atof(argv[2]);
    int go = 1;
    for (int i = 0; go; i++) {
        int rc = FTI_Snapshot();
        if (rc != FTI_SCES && rc != FTI_DONE)
            failed = 1;
        if (rc == FTI_DONE && rank == 0)
            printf("Checkpoint made i = %d\n", i);
        nap_ms(5);
        /* every rank stops at the same iteration, so the collectives match */
        int mine = MPI_Wtime() < end, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, FTI_COMM_WORLD);
        go = all;
    }
    FTI_Finalize();
    MPI_Finalize();
    return failed;
}
