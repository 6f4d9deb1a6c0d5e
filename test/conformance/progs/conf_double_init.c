/*
 * conf_double_init - FTI_Init called twice in one job, as FTI's cornerCases
 * suite does it (double_fti_init, cases 4 and 3).
 *
 *   conf_double_init live CONFIG          Init, checkpoint, Init again (must
 *                                         return FTI_SCES and change nothing),
 *                                         checkpoint again (seed 3), Finalize
 *   conf_double_init segments CFG1 CFG2   Init/checkpoint (seed 5)/Finalize on
 *                                         CFG1, then the same (seed 6) on CFG2
 *   conf_double_init check CONFIG SEED    a restart: recover, compare each byte
 * Exit status = number of failures.
 */
#include <fti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

static int fails;
static int a[N];

static void expect(int cond, int rank, const char *what)
{
    if (!cond) {
        printf("rank %d: FAIL: %s\n", rank, what);
        fails++;
    }
}

static int value(int rank, int seed, int i)
{
    return seed * 1000003 + rank * 7919 + i;
}

static void fill(int rank, int seed)
{
    for (int i = 0; i < N; i++)
        a[i] = value(rank, seed, i);
}

static int same(int rank, int seed)
{
    for (int i = 0; i < N; i++)
        if (a[i] != value(rank, seed, i))
            return 0;
    return 1;
}

/* Init, protect, checkpoint at L1, Finalize. */
static void segment(const char *cfg, int rank, int seed)
{
    expect(FTI_Init(cfg, MPI_COMM_WORLD) == FTI_SCES, rank, "FTI_Init");
    fill(rank, seed);
    expect(FTI_Protect(1, a, N, FTI_INTG) == FTI_SCES, rank, "FTI_Protect");
    expect(FTI_Checkpoint(seed, 1) == FTI_DONE, rank, "FTI_Checkpoint");
    expect(FTI_Finalize() == FTI_SCES, rank, "FTI_Finalize");
}

static void live(const char *cfg, int rank)
{
    expect(FTI_Init(cfg, MPI_COMM_WORLD) == FTI_SCES, rank, "first FTI_Init");
    fill(rank, 2);
    expect(FTI_Protect(1, a, N, FTI_INTG) == FTI_SCES, rank, "FTI_Protect");
    expect(FTI_Checkpoint(2, 1) == FTI_DONE, rank, "first FTI_Checkpoint");
    expect(FTI_Init(cfg, MPI_COMM_WORLD) == FTI_SCES, rank, "second FTI_Init");
    expect(same(rank, 2), rank, "data untouched by the second FTI_Init");
    fill(rank, 3); /* variable 1 is still protected: the next checkpoint holds it */
    expect(FTI_Checkpoint(3, 1) == FTI_DONE, rank, "FTI_Checkpoint after the second FTI_Init");
    expect(FTI_Finalize() == FTI_SCES, rank, "FTI_Finalize");
}

static void check(const char *cfg, int rank, int seed)
{
    expect(FTI_Init(cfg, MPI_COMM_WORLD) == FTI_SCES, rank, "FTI_Init");
    /* FTI: 2, the previous run's FTI_Finalize kept its last checkpoint (keep_last_ckpt) */
    expect(FTI_Status() == 2, rank, "FTI_Status is 2 (restart of the kept checkpoint)");
    memset(a, 0, sizeof a);
    expect(FTI_Protect(1, a, N, FTI_INTG) == FTI_SCES, rank, "FTI_Protect");
    expect(FTI_Recover() == FTI_SCES, rank, "FTI_Recover");
    expect(same(rank, seed), rank, "recovered bytes");
    expect(FTI_Finalize() == FTI_SCES, rank, "FTI_Finalize");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc > 2 && strcmp(argv[1], "live") == 0) {
        live(argv[2], rank);
    } else if (argc > 3 && strcmp(argv[1], "segments") == 0) {
        segment(argv[2], rank, 5);
        segment(argv[3], rank, 6);
    } else if (argc > 3 && strcmp(argv[1], "check") == 0) {
        check(argv[2], rank, atoi(argv[3]));
    } else {
        expect(0, rank, "usage: live CFG | segments CFG1 CFG2 | check CFG SEED");
    }
    printf("rank %d: %d failures\n", rank, fails);
    MPI_Finalize();
    return fails;
}
