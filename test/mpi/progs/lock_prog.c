/*
 * lock_prog - a job for the checkpoint-set lock tests.
 *
 *   lock_prog CONFIG hold READY STOP   FTI_Init, one L1 checkpoint, then rank 0
 *                                      writes its pid to READY and the job runs
 *                                      until the file STOP exists
 *   lock_prog CONFIG init              FTI_Init and FTI_Finalize; exit 0 when
 *                                      FTI_Init succeeded, 3 when it returned
 *                                      FTI_NSCS (the job goes on: no abort)
 */
#define _POSIX_C_SOURCE 200809L
#include <fti.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int hold(const char *ready, const char *stop)
{
    int rank, x = 7;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    FTI_Protect(0, &x, 1, FTI_INTG);
    if (FTI_Checkpoint(1, 1) == FTI_NSCS)
        return 1;
    if (rank == 0) {
        FILE *f = fopen(ready, "w");
        if (f == NULL)
            return 1;
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    const struct timespec tick = {0, 100000000};
    for (int i = 0; i < 3000 && access(stop, F_OK) != 0; i++)
        nanosleep(&tick, NULL);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "hold") == 0 && argc < 5)) {
        fprintf(stderr, "usage: lock_prog CONFIG hold READY STOP | lock_prog CONFIG init\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rc = FTI_Init(argv[1], MPI_COMM_WORLD);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d: FTI_Init returned %d\n", rank, rc);
    if (rc != FTI_SCES) {
        MPI_Finalize();
        return rc == FTI_NSCS ? 3 : 1;
    }
    int status = strcmp(argv[2], "hold") == 0 ? hold(argv[3], argv[4]) : 0;
    if (FTI_Finalize() != FTI_SCES)
        status = 1;
    MPI_Finalize();
    return status;
}
