/*
 * recovervar_prog - FTI_RecoverVarInit / FTI_RecoverVar / FTI_RecoverVarFinalize.
 *
 *   recovervar_prog CONFIG write SEED          fill variables 10, 11, 12 from SEED,
 *                                              FTI_Checkpoint(SEED, 1)
 *   recovervar_prog CONFIG check SEED ID...    restart: set every variable to the
 *                                              sentinel 0x5A, recover only the IDs;
 *                                              those must hold SEED's bytes, every
 *                                              other one must still be all 0x5A
 *
 * Prints "PASS" from rank 0 when every rank agrees.
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV 3
#define SENTINEL 0x5A

static const int ids[NV] = {10, 11, 12};

typedef struct vars {
    unsigned char *p[NV];
    size_t n[NV];
} vars;

static unsigned char pattern(int seed, int rank, int var, size_t i)
{
    uint64_t x = ((uint64_t)seed << 48 ^ (uint64_t)rank << 40 ^ (uint64_t)var << 32 ^ i) *
                 0x9E3779B97F4A7C15ull;
    return (unsigned char)(x >> 56);
}

/* 100 ints, 333+rank doubles, 77 bytes. */
static int protect_all(vars *v, int rank)
{
    static const fti_id_t *types[NV] = {&FTI_INTG, &FTI_DBLE, &FTI_CHAR};
    const size_t count[NV] = {100, 333 + (size_t)rank, 77}, size[NV] = {sizeof(int), 8, 1};
    int rc = FTI_SCES;
    for (int k = 0; k < NV; k++) {
        v->n[k] = count[k] * size[k];
        v->p[k] = malloc(v->n[k]);
        rc |= FTI_Protect(ids[k], v->p[k], (int64_t)count[k], *types[k]);
    }
    return rc;
}

static int selected(int id, int argc, char **argv)
{
    for (int a = 4; a < argc; a++)
        if (atoi(argv[a]) == id)
            return 1;
    return 0;
}

/* Wrong bytes: selected variables against SEED, the others against the sentinel. */
static long count_bad(const vars *v, int seed, int rank, int argc, char **argv)
{
    long bad = 0;
    for (int k = 0; k < NV; k++) {
        int sel = selected(ids[k], argc, argv);
        long here = 0;
        for (size_t i = 0; i < v->n[k]; i++)
            here += v->p[k][i] != (sel ? pattern(seed, rank, k, i) : SENTINEL);
        if (here)
            fprintf(stderr, "rank %d: variable %d (%s): %ld bytes wrong\n", rank, ids[k],
                    sel ? "recovered" : "untouched", here);
        bad += here;
    }
    return bad;
}

static long do_check(vars *v, int seed, int rank, int argc, char **argv)
{
    long bad = 0;
    for (int k = 0; k < NV; k++)
        memset(v->p[k], SENTINEL, v->n[k]);
    if (FTI_RecoverVarInit() != FTI_SCES)
        bad++;
    for (int a = 4; a < argc; a++)
        if (FTI_RecoverVar(atoi(argv[a])) != FTI_SCES) {
            fprintf(stderr, "rank %d: FTI_RecoverVar(%s) failed\n", rank, argv[a]);
            bad++;
        }
    if (FTI_RecoverVar(999) != FTI_NSCS) { /* never protected */
        fprintf(stderr, "rank %d: FTI_RecoverVar(999) did not fail\n", rank);
        bad++;
    }
    if (FTI_RecoverVarFinalize() != FTI_SCES)
        bad++;
    return bad + count_bad(v, seed, rank, argc, argv);
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: recovervar_prog CONFIG write|check SEED [ID...]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 3);
    int rank, seed = atoi(argv[3]);
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    vars v;
    long bad = protect_all(&v, rank) != FTI_SCES, total = 0;
    if (strcmp(argv[2], "write") == 0) {
        for (int k = 0; k < NV; k++)
            for (size_t i = 0; i < v.n[k]; i++)
                v.p[k][i] = pattern(seed, rank, k, i);
        bad += FTI_Checkpoint(seed, 1) != FTI_DONE;
    } else {
        bad += FTI_Status() == 0;
        bad += do_check(&v, seed, rank, argc, argv);
    }
    MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (rank == 0)
        printf("%s: recovervar %s\n", total ? "FAIL" : "PASS", argv[2]);
    for (int k = 0; k < NV; k++)
        free(v.p[k]);
    FTI_Finalize();
    MPI_Finalize();
    return total != 0;
}
