/*
 * realloc_prog - FTI_GetStoredSize and FTI_Realloc across a size change.
 *
 *   realloc_prog CONFIG write SEED N   protect N+rank doubles (id 0) and an int
 *                                      (id 1), FTI_Checkpoint(SEED, 1)
 *   realloc_prog CONFIG check SEED N   restart: protect 1 double as id 0;
 *                                      FTI_Recover must refuse the small buffer;
 *                                      FTI_GetStoredSize(0) must be (N+rank)*8;
 *                                      FTI_Realloc refuses a stack buffer and
 *                                      static data (NULL, no abort), then grows it; FTI_Recover restores
 *                                      every value of both variables
 *
 * Prints "PASS" from rank 0 when every rank restored every value.
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double value(int seed, int rank, int64_t i)
{
    return seed * 1e6 + rank * 1e4 + (double)i + 0.5;
}

static int do_write(int seed, int rank, int64_t n)
{
    double *a = malloc((size_t)n * sizeof *a);
    int tag = seed * 100 + rank;
    for (int64_t i = 0; i < n; i++)
        a[i] = value(seed, rank, i);
    int rc = FTI_Protect(0, a, n, FTI_DBLE) | FTI_Protect(1, &tag, 1, FTI_INTG);
    if (rc == FTI_SCES && FTI_Checkpoint(seed, 1) != FTI_DONE)
        rc = FTI_NSCS;
    free(a);
    return rc == FTI_SCES ? 0 : 1;
}

/* Number of wrong values after the recovery of n doubles and the tag. */
static long count_bad(const double *a, int64_t n, int tag, int seed, int rank)
{
    long bad = tag != seed * 100 + rank;
    for (int64_t i = 0; i < n; i++)
        bad += a[i] != value(seed, rank, i);
    return bad;
}

/* Each failed step prints its reason and counts as one error. */
static long step(int ok, int rank, const char *what)
{
    if (!ok)
        fprintf(stderr, "rank %d: %s\n", rank, what);
    return !ok;
}

static long do_check(int seed, int rank, int64_t n)
{
    double *a = calloc(1, sizeof *a);
    int tag = -1;
    long bad = step(FTI_Status() != 0, rank, "FTI_Status() is 0 on a restart");
    bad += step(FTI_Protect(0, a, 1, FTI_DBLE) == FTI_SCES, rank, "protect small buffer");
    bad += step(FTI_Protect(1, &tag, 1, FTI_INTG) == FTI_SCES, rank, "protect tag");
    bad += step(FTI_Recover() == FTI_NSCS, rank, "FTI_Recover accepted a too small buffer");
    bad += step(FTI_GetStoredSize(0) == n * (int64_t)sizeof(double), rank,
                "FTI_GetStoredSize(0) is not the stored size");
    bad += step(FTI_GetStoredSize(1) == (int64_t)sizeof(int), rank, "FTI_GetStoredSize(1)");
    bad += step(FTI_GetStoredSize(99) == 0, rank, "FTI_GetStoredSize of an unknown id");
    /* Memory realloc(3) cannot take (on the stack, static data): refused
     * with NULL, and the variable stays usable. */
    static double in_data[4];
    double on_stack[4] = {0};
    bad += step(FTI_Protect(0, on_stack, 1, FTI_DBLE) == FTI_SCES, rank, "protect a stack buffer");
    bad += step(FTI_Realloc(0, on_stack) == NULL, rank, "FTI_Realloc took a stack buffer");
    bad += step(FTI_Protect(0, in_data, 1, FTI_DBLE) == FTI_SCES, rank, "protect static data");
    bad += step(FTI_Realloc(0, in_data) == NULL, rank, "FTI_Realloc took static data");
    bad += step(FTI_Protect(0, a, 1, FTI_DBLE) == FTI_SCES, rank, "protect the heap buffer again");
    double *grown = FTI_Realloc(0, a);
    bad += step(grown != NULL, rank, "FTI_Realloc returned NULL");
    if (grown == NULL)
        return bad;
    bad += step(FTI_Recover() == FTI_SCES, rank, "FTI_Recover after FTI_Realloc");
    long wrong = count_bad(grown, n, tag, seed, rank);
    if (wrong)
        fprintf(stderr, "rank %d: %ld values differ after recovery\n", rank, wrong);
    free(grown);
    return bad + wrong;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: realloc_prog CONFIG write|check SEED N\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int rank, seed = atoi(argv[3]);
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    int64_t n = atoll(argv[4]) + rank;
    long bad = 0, total = 0;
    if (strcmp(argv[2], "write") == 0)
        bad = do_write(seed, rank, n);
    else
        bad = do_check(seed, rank, n);
    MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (rank == 0)
        printf("%s: realloc %s\n", total ? "FAIL" : "PASS", argv[2]);
    FTI_Finalize();
    MPI_Finalize();
    return total != 0;
}
