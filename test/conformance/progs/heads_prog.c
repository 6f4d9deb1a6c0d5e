/*
 * heads_prog - head ranks kept alive (head = 1, keep_heads_alive = 1), as
 * applications written for FTI use them (driven by
 * test/conformance/conformance_heads_world.sh):
 *
 *   heads_prog CONFIG write SEED   application ranks: one L1 checkpoint (id
 *                                  SEED) of a rank-dependent buffer, FTI_Finalize
 *   heads_prog CONFIG check SEED   application ranks: FTI_Recover, every byte
 *                                  equal to checkpoint SEED's (exit 30 if not)
 *
 * In both modes the heads get FTI_HEAD from FTI_Init once the application
 * ranks finalized, then do what FTI's users do right after: MPI_Comm_rank and
 * MPI_Comm_size on FTI_COMM_WORLD (FTI's communicator of all the head ranks)
 * and a collective on it. Each head prints
 *   head: global G rank R of S sum S2
 * (S2: the sum of the heads' global ranks, an MPI_Allreduce on FTI_COMM_WORLD).
 * A head that finds FTI_COMM_WORLD null prints "FAIL: head: ..." and exits 1.
 * Rank 0 of the application prints "PASS: <mode>" when every rank's check held.
 * After FTI_Finalize every application rank uses the FTI_COMM_WORLD it kept
 * from the run (FTI's stays valid), frees it and prints
 *   app: global G rank R of S sum S2 after FTI_Finalize
 * (S2: the sum of the application ranks' global ranks); it exits 1 when
 * FTI_COMM_WORLD is then null, another communicator, or cannot be freed.
 * With head = 0 every rank is an application rank.
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_NOREC = 20, EXIT_CORRUPT = 30 };

#define NBUF(r) (64 * 1024 + 101 * (size_t)(r))

static unsigned char pattern(int seed, int rank, size_t i)
{
    uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)rank << 40 ^ i;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return (unsigned char)(x >> 32);
}

/* FTI_HEAD: FTI_COMM_WORLD is the heads' communicator. */
static int head(void)
{
    int grank, rank = -1, size = -1, sum = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &grank);
    if (FTI_COMM_WORLD == MPI_COMM_NULL) {
        printf("FAIL: head: global %d: FTI_COMM_WORLD is MPI_COMM_NULL after FTI_HEAD\n", grank);
        return 1;
    }
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &size);
    MPI_Allreduce(&grank, &sum, 1, MPI_INT, MPI_SUM, FTI_COMM_WORLD);
    printf("head: global %d rank %d of %d sum %d\n", grank, rank, size, sum);
    return 0;
}

/* After FTI_Finalize, FTI_COMM_WORLD is still the application ranks'
 * communicator, as FTI 1.6 leaves it (it never frees it): programs that
 * kept a copy of it during the run finish on it, and may free it. */
static int after_finalize(MPI_Comm kept)
{
    int grank, rank = -1, size = -1, sum = -1, same = MPI_UNEQUAL;
    MPI_Comm_rank(MPI_COMM_WORLD, &grank);
    if (FTI_COMM_WORLD == MPI_COMM_NULL) {
        printf("FAIL: app: global %d: FTI_COMM_WORLD is MPI_COMM_NULL after FTI_Finalize\n", grank);
        return 1;
    }
    MPI_Comm_compare(kept, FTI_COMM_WORLD, &same);
    MPI_Comm_rank(kept, &rank);
    MPI_Comm_size(kept, &size);
    MPI_Allreduce(&grank, &sum, 1, MPI_INT, MPI_SUM, kept);
    int freed = MPI_Comm_free(&FTI_COMM_WORLD) == MPI_SUCCESS && FTI_COMM_WORLD == MPI_COMM_NULL;
    printf("app: global %d rank %d of %d sum %d after FTI_Finalize%s%s\n", grank, rank, size, sum,
           same == MPI_IDENT ? "" : " (not the communicator of the run)", freed ? "" : " (not freed)");
    return same != MPI_IDENT || !freed;
}

static int app(const char *mode, int seed)
{
    int rank;
    MPI_Comm kept = FTI_COMM_WORLD; /* as programs keep it in a variable of their own */
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    size_t n = NBUF(rank);
    unsigned char *buf = calloc(1, n);
    FTI_Protect(1, buf, (int64_t)n, FTI_CHAR);
    long bad = 0;
    if (strcmp(mode, "write") == 0) {
        for (size_t i = 0; i < n; i++)
            buf[i] = pattern(seed, rank, i);
        if (FTI_Checkpoint(seed, 1) != FTI_DONE) {
            fprintf(stderr, "rank %d: checkpoint %d failed\n", rank, seed);
            bad = 1;
        }
    } else {
        if (FTI_Status() == 0 || FTI_Recover() != FTI_SCES) {
            fprintf(stderr, "rank %d: nothing recovered (FTI_Status %d)\n", rank, FTI_Status());
            bad = 1;
        }
        for (size_t i = 0; i < n; i++)
            bad += buf[i] != pattern(seed, rank, i);
    }
    long total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %s (%ld bytes wrong)\n", total ? "FAIL" : "PASS", mode, total);
    FTI_Finalize();
    free(buf);
    if (after_finalize(kept) != 0)
        return 1;
    return total ? EXIT_CORRUPT : 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: heads_prog CONFIG write|check SEED\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rc = FTI_Init(argv[1], MPI_COMM_WORLD), status;
    if (rc == FTI_HEAD)
        status = head();
    else if (rc == FTI_SCES)
        status = app(argv[2], atoi(argv[3]));
    else
        fprintf(stderr, "FTI_Init returned %d\n", rc), status = EXIT_NOREC;
    fflush(stdout);
    MPI_Finalize();
    return status;
}
