/*
 * init_prog - does FTI_Init accept a config?
 *
 *   init_prog CONFIG [LEVEL...]   FTI_Init; protect one int and take one
 *                                 checkpoint at each LEVEL given; FTI_Finalize
 *
 * Every application rank prints "rank R: FTI_Init returned C" (head ranks
 * stay inside FTI_Init until the application finalizes), then for each
 * level "rank R: FTI_Checkpoint(ID, LEVEL) returned C". Exit status 0 when
 * FTI_Init succeeded and every checkpoint returned FTI_DONE. With
 * INIT_PROG_NO_FINALIZE set it returns without FTI_Finalize (an application
 * that forgot it: test/fti_run/not_finalized.sh).
 */
#include <fti.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: init_prog CONFIG [LEVEL]\n");
        return 2;
    }
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = FTI_Init(argv[1], MPI_COMM_WORLD);
    printf("rank %d: FTI_Init returned %d\n", rank, rc);
    if (rc != FTI_SCES) {
        MPI_Finalize();
        return 1;
    }
    int status = 0, x = 42;
    FTI_Protect(0, &x, 1, FTI_INTG);
    for (int a = 2; a < argc; a++) {
        int level = atoi(argv[a]);
        int c = FTI_Checkpoint(a - 1, level);
        printf("rank %d: FTI_Checkpoint(%d, %d) returned %d\n", rank, a - 1, level, c);
        status |= c != FTI_DONE;
    }
    if (getenv("INIT_PROG_NO_FINALIZE") == NULL && FTI_Finalize() != FTI_SCES)
        status = 1;
    MPI_Finalize();
    return status;
}
