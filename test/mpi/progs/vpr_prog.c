/*
 * vpr_prog - restart on a different number of ranks from the shared HDF5
 * file of FTI_L4_H5_SINGLE (level 9) checkpoints.
 *
 *   vpr_prog CONFIG write    n ranks split the rows of two global datasets,
 *                            "grid" (int, ROWS x COLS) and "/pairs/pair"
 *                            (composite {int one, two}); each local row is a
 *                            protected variable and a subset. The datasets
 *                            first hold COLS/2 columns and grow to COLS
 *                            (FTI_UpdateGlobalDataset / FTI_UpdateSubset)
 *                            before FTI_Checkpoint(1, 9).
 *   vpr_prog CONFIG write LEVEL
 *                            the same, checkpointed at LEVEL (not 9: the
 *                            restart has no dataset dimensions to give).
 *   vpr_prog CONFIG check [var]
 *                            restart on any number of ranks: FTI_Status()
 *                            is 3, the dimensions come back with
 *                            FTI_RecoverDatasetDimension, each rank
 *                            protects its new rows and recovers them
 *                            (FTI_Recover, or FTI_RecoverVar one by one).
 * Value of (row, col): row * COLS + col + 1; pair: {v, 2v}. "PASS" from
 * rank 0 when every rank's rows are exact.
 */
#include <fti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 16
#define COLS 1000

typedef struct pair {
    int one, two;
} pair;

static int value(int row, int col)
{
    return row * COLS + col + 1;
}

typedef struct local {
    int rank, size, first, nrows;
    int **grid;
    pair **pairs;
} local;

static void split(local *l)
{
    MPI_Comm_rank(FTI_COMM_WORLD, &l->rank);
    MPI_Comm_size(FTI_COMM_WORLD, &l->size);
    l->first = l->rank * ROWS / l->size;
    l->nrows = (l->rank + 1) * ROWS / l->size - l->first;
    l->grid = calloc((size_t)l->nrows + 1, sizeof *l->grid);
    l->pairs = calloc((size_t)l->nrows + 1, sizeof *l->pairs);
}

/* Protects the local rows with `cols` columns as subsets of datasets 0, 1. */
static int protect_rows(local *l, fti_id_t pt, int cols, int update)
{
    int rc = 0;
    for (int i = 0; i < l->nrows; i++) {
        l->grid[i] = realloc(l->grid[i], (size_t)cols * sizeof(int));
        l->pairs[i] = realloc(l->pairs[i], (size_t)cols * sizeof(pair));
        FTIT_hsize_t off[2] = {(FTIT_hsize_t)(l->first + i), 0}, cnt[2] = {1, (FTIT_hsize_t)cols};
        rc |= FTI_Protect(i, l->grid[i], cols, FTI_INTG);
        rc |= FTI_Protect(ROWS + i, l->pairs[i], cols, pt);
        if (update)
            rc |= FTI_UpdateSubset(i, 2, off, cnt, 0) | FTI_UpdateSubset(ROWS + i, 2, off, cnt, 1);
        else
            rc |= FTI_AddSubset(i, 2, off, cnt, 0) | FTI_AddSubset(ROWS + i, 2, off, cnt, 1);
    }
    return rc;
}

static void fill(local *l, int cols)
{
    for (int i = 0; i < l->nrows; i++)
        for (int j = 0; j < cols; j++) {
            int v = value(l->first + i, j);
            l->grid[i][j] = v;
            l->pairs[i][j] = (pair){v, 2 * v};
        }
}

static long wrong(const local *l)
{
    long bad = 0;
    for (int i = 0; i < l->nrows; i++)
        for (int j = 0; j < COLS; j++) {
            int v = value(l->first + i, j);
            bad += l->grid[i][j] != v || l->pairs[i][j].one != v || l->pairs[i][j].two != 2 * v;
        }
    return bad;
}

static fti_id_t pair_type(FTIT_H5Group *g)
{
    fti_id_t t = FTI_InitCompositeType("pair", sizeof(pair), NULL);
    FTI_AddScalarField(t, "one", FTI_INTG, offsetof(pair, one));
    FTI_AddScalarField(t, "two", FTI_INTG, offsetof(pair, two));
    FTI_InitGroup(g, "pairs", NULL);
    return t;
}

static int do_write(local *l, int level)
{
    FTIT_H5Group g;
    fti_id_t pt = pair_type(&g);
    FTIT_hsize_t half[2] = {ROWS, COLS / 2}, full[2] = {ROWS, COLS};
    int rc = FTI_DefineGlobalDataset(0, 2, half, "grid", NULL, FTI_INTG) |
             FTI_DefineGlobalDataset(1, 2, half, "pair", &g, pt) |
             protect_rows(l, pt, COLS / 2, 0);
    rc |= FTI_UpdateGlobalDataset(0, 2, full) | FTI_UpdateGlobalDataset(1, 2, full) |
          protect_rows(l, pt, COLS, 1);
    fill(l, COLS);
    return rc != FTI_SCES || FTI_Checkpoint(1, level) != FTI_DONE;
}

static int do_check(local *l, int by_var)
{
    FTIT_H5Group g;
    fti_id_t pt = pair_type(&g);
    FTIT_hsize_t none[2] = {0, 0};
    int rc = FTI_DefineGlobalDataset(0, 2, none, "grid", NULL, FTI_INTG) |
             FTI_DefineGlobalDataset(1, 2, none, "pair", &g, pt);
    rc |= FTI_RecoverDatasetDimension(0) | FTI_RecoverDatasetDimension(1);
    if (rc != FTI_SCES || FTI_Status() != 3 || FTI_GetDatasetRank(0) != 2) {
        fprintf(stderr, "rank %d: status %d, dataset dimensions not recovered\n", l->rank,
                FTI_Status());
        return 1;
    }
    FTIT_hsize_t *span = FTI_GetDatasetSpan(1, 2);
    if (span == NULL || span[0] != ROWS || span[1] != COLS) {
        fprintf(stderr, "rank %d: span of dataset 1 is wrong\n", l->rank);
        return 1;
    }
    rc = protect_rows(l, pt, COLS, 0);
    if (by_var) {
        rc |= FTI_RecoverVarInit();
        for (int i = l->nrows - 1; i >= 0; i--)
            rc |= FTI_RecoverVar(ROWS + i) | FTI_RecoverVar(i);
        rc |= FTI_RecoverVarFinalize();
    } else {
        rc |= FTI_Recover();
    }
    long bad = rc != FTI_SCES ? 1 : wrong(l), all = 0;
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (bad)
        fprintf(stderr, "rank %d: %ld wrong values (rc %d)\n", l->rank, bad, rc);
    if (l->rank == 0 && all == 0)
        printf("PASS %d ranks\n", l->size);
    return all != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        MPI_Finalize();
        return 2;
    }
    local l;
    split(&l);
    int rc = strcmp(argv[2], "write") == 0 ? do_write(&l, argc > 3 ? atoi(argv[3]) : 9)
                                            : do_check(&l, argc > 3);
    FTI_Finalize();
    for (int i = 0; i < l.nrows; i++)
        free(l.grid[i]), free(l.pairs[i]);
    free(l.grid);
    free(l.pairs);
    MPI_Finalize();
    return rc;
}
