/*
 * write16.c - makes the FTI 1.6 import test data: built against FTI 1.6 (not
 * us), it protects the variables of vars16.h, takes one checkpoint at the
 * level given (argv[2]) and ends without FTI_Finalize, as a job that was
 * killed, so FTI keeps its checkpoint and metadata files.
 * Usage: write16 CONFIG LEVEL  (see test/fti16/data/README.md)
 */
#include <fti.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "vars16.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: write16 CONFIG LEVEL\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 1);
    int rank;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    static v16_vars v;
    v16_fill(&v, rank);
    v16_protect(&v);
    int rc = FTI_Checkpoint(3, atoi(argv[2]));
    if (rank == 0)
        printf("write16: FTI_Checkpoint level %s rc %d\n", argv[2], rc);
    MPI_Barrier(FTI_COMM_WORLD);
    MPI_Finalize(); /* no FTI_Finalize: the files stay, as after a crash */
    return rc == FTI_DONE ? 0 : 1; /* FTI 1.6 returns FTI_DONE on success */
}
