/*
 * conf_init_rc - what an application sees when FTI_Init fails: the code on
 * every rank, FTI_COMM_WORLD still the communicator given (as FTI leaves
 * it) and usable, and a clean MPI_Finalize.
 *
 *   conf_init_rc CONFIG    prints "rank R: FTI_Init returned C, comm given G, sum S"
 *                          (S: MPI_Allreduce of 1 over FTI_COMM_WORLD); exit 0
 */
#include <fti.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = FTI_Init(argc > 1 ? argv[1] : "", MPI_COMM_WORLD);
    int same = MPI_UNEQUAL, one = 1, sum = 0;
    if (FTI_COMM_WORLD != MPI_COMM_NULL) {
        MPI_Comm_compare(FTI_COMM_WORLD, MPI_COMM_WORLD, &same);
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, FTI_COMM_WORLD);
    }
    printf("rank %d: FTI_Init returned %d, comm given %d, sum %d\n", rank, rc,
           same == MPI_IDENT, sum);
    fflush(stdout);
    if (rc == FTI_SCES)
        FTI_Finalize();
    MPI_Finalize();
    return 0;
}
