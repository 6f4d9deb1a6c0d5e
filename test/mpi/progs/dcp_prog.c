/*
 * dcp_prog - differential checkpoints (level 8) step by step.
 *
 *   dcp_prog CONFIG STEP [LEVEL]
 *
 * On a restart it first recovers and checks that every byte equals the
 * state of the step stored in the checkpoint ("RESTORED step=S" from rank
 * 0 when all ranks agree, exit 1 otherwise). Then it builds the state of
 * STEP and takes FTI_Checkpoint(STEP, LEVEL) (default 8), printing
 * "CKPT step=STEP". The state of step s is a pure function of (s, rank):
 *   - var 1: 2 MiB of doubles; step s changes the first double of the
 *     4 KiB blocks that pct(s) selects (100% at step 1, then 0%, 1%, 10%,
 *     100%, repeating);
 *   - var 2: ints whose count grows and shrinks with the step;
 *   - var 0: the step itself.
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDBL (256 * 1024)  /* 2 MiB */
#define PER_BLOCK 512      /* doubles in a 4 KiB block */

static int pct(int s)
{
    static const int p[] = {0, 1, 10, 100};
    return s <= 1 ? 100 : p[(s - 2) % 4];
}

static int changed(int s, int64_t b)
{
    return (int)((b * 7919 + (int64_t)s * 104729) % 100) < pct(s);
}

static void state_dbl(double *a, int s, int rank)
{
    for (int64_t i = 0; i < NDBL; i++)
        a[i] = rank * 1e6 + (double)i;
    for (int t = 1; t <= s; t++)
        for (int64_t b = 0; b < NDBL / PER_BLOCK; b++)
            if (changed(t, b))
                a[b * PER_BLOCK] += t;
}

static int64_t int_count(int s)
{
    return 3000 + 1500 * (s % 3) + (s % 2) * 17; /* grows, shrinks, odd tails */
}

static void state_int(int *v, int s, int rank)
{
    for (int64_t i = 0; i < int_count(s); i++)
        v[i] = (int)i * 3 + rank * 100000 + (int)(i < 100 ? s : 0);
}

static long check(int rank, int s, const double *a, const int *v, int64_t nv)
{
    double *ea = malloc(NDBL * sizeof *ea);
    int *ev = malloc((size_t)int_count(s) * sizeof *ev);
    state_dbl(ea, s, rank);
    state_int(ev, s, rank);
    long bad = nv != int_count(s) || memcmp(ea, a, NDBL * sizeof *a) != 0 ||
               memcmp(ev, v, (size_t)nv * sizeof *v) != 0;
    if (bad)
        fprintf(stderr, "rank %d: restored bytes differ from step %d\n", rank, s);
    free(ea);
    free(ev);
    return bad;
}

static int recover(int rank, double *a, int **v, int *stored)
{
    FTI_Protect(0, stored, 1, FTI_INTG);
    int64_t bytes = FTI_GetStoredSize(2);
    *v = realloc(*v, (size_t)bytes);
    FTI_Protect(2, *v, bytes / (int64_t)sizeof(int), FTI_INTG);
    if (FTI_Recover() != FTI_SCES) {
        fprintf(stderr, "rank %d: FTI_Recover failed\n", rank);
        return 1;
    }
    long bad = check(rank, *stored, a, *v, bytes / (int64_t)sizeof(int));
    long all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("RESTORED step=%d\n", *stored);
    return all != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        MPI_Finalize();
        return 2;
    }
    int s = atoi(argv[2]), level = argc > 3 ? atoi(argv[3]) : 8, rank, stored = 0, rc = 0;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    double *a = malloc(NDBL * sizeof *a);
    int *v = malloc(sizeof *v);
    FTI_Protect(1, a, NDBL, FTI_DBLE);
    if (FTI_Status() != 0)
        rc = recover(rank, a, &v, &stored);
    if (rc == 0) {
        state_dbl(a, s, rank);
        v = realloc(v, (size_t)int_count(s) * sizeof *v);
        state_int(v, s, rank);
        stored = s;
        FTI_Protect(0, &stored, 1, FTI_INTG);
        FTI_Protect(2, v, int_count(s), FTI_INTG);
        rc = FTI_Checkpoint(s, level) != FTI_DONE;
        if (rc == 0 && rank == 0)
            printf("CKPT step=%d\n", s);
    }
    FTI_Finalize();
    free(a);
    free(v);
    MPI_Finalize();
    return rc;
}
