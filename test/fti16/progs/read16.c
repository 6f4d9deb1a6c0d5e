/*
 * read16.c - restarts under our library from a checkpoint `fti-ckpt import`
 * made of FTI 1.6's files: protects the variables of vars16.h (as write16.c
 * did under FTI 1.6), requires a restart (FTI_Status() != 0), FTI_Recover,
 * and compares every byte with the pattern write16 checkpointed.
 * Prints "read16: rank R: all B bytes right" or the first wrong variable and
 * byte; exit 0 only when every rank's bytes are right. With NEXT_ID the
 * campaign goes on: a level 1 checkpoint NEXT_ID of the restored bytes.
 * Usage: read16 CONFIG [NEXT_ID]
 */
#include <fti.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vars16.h"

/* The first differing byte of variable `id`, or -1. */
static long first_diff(const void *got, const void *want, size_t n)
{
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; i++)
        if (g[i] != w[i])
            return (long)i;
    return -1;
}

static int check(int rank, const v16_vars *got, const v16_vars *want)
{
    const struct {
        int id;
        const void *g, *w;
        size_t n;
    } vars[] = {{0, got->ints, want->ints, sizeof want->ints},
                {1, got->dbls, want->dbls, sizeof want->dbls},
                {2, got->chars, want->chars, sizeof want->chars},
                {7, &got->step, &want->step, sizeof want->step},
                {9, got->pairs, want->pairs, sizeof want->pairs}};
    size_t total = 0;
    for (size_t k = 0; k < sizeof vars / sizeof vars[0]; k++) {
        long at = first_diff(vars[k].g, vars[k].w, vars[k].n);
        if (at >= 0) {
            printf("read16: rank %d: variable %d byte %ld differs\n", rank, vars[k].id, at);
            return 1;
        }
        total += vars[k].n;
    }
    printf("read16: rank %d: all %zu bytes right\n", rank, total);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2 || argc > 3 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "read16: usage: read16 CONFIG (or FTI_Init failed)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    static v16_vars got, want;
    memset(&got, 0, sizeof got);
    v16_fill(&want, rank);
    v16_protect(&got);
    int bad = 1;
    if (FTI_Status() == 0)
        printf("read16: rank %d: no restart (FTI_Status() 0)\n", rank);
    else if (FTI_Recover() != FTI_SCES)
        printf("read16: rank %d: FTI_Recover failed\n", rank);
    else
        bad = check(rank, &got, &want);
    if (!bad && argc == 3) {
        int rc = FTI_Checkpoint(atoi(argv[2]), 1);
        bad = rc != FTI_SCES && rc != FTI_DONE;
        printf("read16: rank %d: checkpoint %s: %s\n", rank, argv[2], bad ? "failed" : "taken");
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, FTI_COMM_WORLD);
    FTI_Finalize();
    MPI_Finalize();
    return any;
}
