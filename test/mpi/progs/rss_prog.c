/*
 * rss_prog - the memory one checkpoint or one restart adds:
 * rss_prog CONFIG MIB LEVEL protects MIB MiB per rank (written, so
 * resident). A fresh start takes two checkpoints at LEVEL (both slots); a
 * restart (the config's checkpoint exists) runs FTI_Init, FTI_Protect and
 * FTI_Recover and checks every restored byte. Rank 0 prints the largest
 * growth of the peak resident set (getrusage ru_maxrss) over the ranks:
 *   growth_kib=<n> level=<L>        (a fresh start)
 *   growth_kib=<n> level=restart    (a restart, bytes checked)
 * Exit 0, or 1 when a checkpoint or the restart failed.
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

static unsigned char pattern(size_t i, int rank)
{
    return (unsigned char)(i * 131 + (size_t)rank * 7 + (i >> 12));
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
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* no heads in these configs: FTI_COMM_WORLD's rank */
    unsigned char *data = malloc(len);
    if (data == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    /* resident before anything is measured: written in both modes (a restart
     * overwrites it) */
    for (size_t i = 0; i < len; i++)
        data[i] = pattern(i, rank);
    long before = peak_kib();
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int restart = FTI_Status() != 0, ok = 1;
    if (restart)
        memset(data, 0, len); /* what FTI_Recover must undo */
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    if (restart) {
        ok = FTI_Recover() == FTI_SCES;
        for (size_t i = 0; ok && i < len; i++)
            ok = data[i] == pattern(i, rank);
    } else {
        before = peak_kib();
        ok = FTI_Checkpoint(1, level) == FTI_DONE && FTI_Checkpoint(2, level) == FTI_DONE;
    }
    long growth = peak_kib() - before, most = 0;
    int all = 0;
    MPI_Reduce(&growth, &most, 1, MPI_LONG, MPI_MAX, 0, FTI_COMM_WORLD);
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, FTI_COMM_WORLD);
    if (rank == 0 && restart)
        printf("growth_kib=%ld level=restart%s\n", most, all ? "" : " (FAILED or bytes differ)");
    else if (rank == 0)
        printf("growth_kib=%ld level=%d\n", most, level);
    FTI_Finalize();
    free(data);
    MPI_Finalize();
    return all ? 0 : 1;
}
