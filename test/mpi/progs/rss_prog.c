/*
 * rss_prog - the memory one checkpoint adds: rss_prog CONFIG MIB LEVEL
 * protects MIB MiB per rank (written, so resident), takes two checkpoints at
 * LEVEL (both slots) and prints, from rank 0, the largest growth of the peak
 * resident set (getrusage ru_maxrss) over the ranks:
 *   growth_kib=<n> level=<L>
 * Exit 0, or 1 when a checkpoint failed.
 */
#include <fti.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

static long peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; /* KiB on Linux */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 4) {
        fprintf(stderr, "usage: rss_prog CONFIG MIB LEVEL\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t len = (size_t)atol(argv[2]) << 20;
    int level = atoi(argv[3]), rank;
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    unsigned char *data = malloc(len);
    if (data == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = 0; i < len; i++)
        data[i] = (unsigned char)(i * 131 + (size_t)rank * 7 + (i >> 12));
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    long before = peak_kib();
    int ok = FTI_Checkpoint(1, level) == FTI_DONE && FTI_Checkpoint(2, level) == FTI_DONE;
    long growth = peak_kib() - before, most = 0;
    MPI_Reduce(&growth, &most, 1, MPI_LONG, MPI_MAX, 0, FTI_COMM_WORLD);
    if (rank == 0)
        printf("growth_kib=%ld level=%d\n", most, level);
    FTI_Finalize();
    free(data);
    MPI_Finalize();
    return ok ? 0 : 1;
}
