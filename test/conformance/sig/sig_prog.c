/*
 * sig_prog.c - one FTI caller written either against FTI 1.6's released
 * fti.h (-DFTI_SIG_V16: int dimension arrays, size_t offsets, int32_t
 * counts and stored sizes) or against FTI master's (int64_t everywhere).
 * conformance_api_signatures.sh compiles it as C and as C++, each with
 * -Werror -Wall -Wextra, so a signature our fti.h does not accept fails the
 * build, and a wrong reading of the arguments fails the run.
 *
 *   sig_prog CONFIG write H5   checkpoint at level 4, exit 0
 *   sig_prog CONFIG check H5   restart: stored sizes and every byte, "PASS: check"
 *
 * -DFTI_SIG_EXTERN_C (C++) includes fti.h inside extern "C".
 * H5 = 1 also places variable 1 with FTI_DefineDataset (needs an HDF5 build);
 * the script reads the stored shapes back with h5dump.
 */
#if defined(__cplusplus) && defined(FTI_SIG_EXTERN_C)
extern "C" { /* as C++ code wraps C headers; MPI's C++ bindings are off */
#include <fti.h>
}
#else
#include <fti.h>
#endif
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef FTI_SIG_V16
typedef int dim_t;         /* FTI 1.6: int *dimLength, int *dim_sizes */
typedef size_t offset_t;   /* FTI 1.6: size_t offset */
typedef int32_t count_t;   /* FTI 1.6: int32_t count, int32_t stored size */
#define FORM "v1.6"
#else
typedef int64_t dim_t;
typedef int64_t offset_t;
typedef int64_t count_t;
#define FORM "master"
#endif

#define NCELLS 5
#define GRID_R 4
#define GRID_C 5

typedef struct cell {
    int id;
    double pos[2][3];
} cell;

static cell cells[NCELLS];
static int grid[GRID_R * GRID_C];

static int fail(int rank, const char *what)
{
    fprintf(stderr, "FAIL (%s, rank %d): %s\n", FORM, rank, what);
    return 1;
}

static void fill(int rank)
{
    for (int i = 0; i < NCELLS; i++) {
        cells[i].id = 100 * rank + i;
        for (int k = 0; k < 6; k++)
            cells[i].pos[k / 3][k % 3] = rank + i * 0.5 + k * 0.125;
    }
    for (int i = 0; i < GRID_R * GRID_C; i++)
        grid[i] = 1000 * rank + i;
}

/* The composite type of `cell`, declared with this form's argument types. */
static int cell_type(fti_id_t *t)
{
    dim_t dims[2] = {2, 3};
    *t = FTI_InitCompositeType("cell", sizeof(cell), NULL);
    if (*t == FTI_NSCS)
        return FTI_NSCS;
    offset_t id_off = (offset_t)offsetof(cell, id);
    offset_t pos_off = (offset_t)offsetof(cell, pos);
    if (FTI_AddScalarField(*t, "id", FTI_INTG, id_off) != FTI_SCES)
        return FTI_NSCS;
    return FTI_AddVectorField(*t, "pos", FTI_DBLE, pos_off, 2, dims);
}

#ifdef FTI_SIG_V16
#define define_dataset(id, rank, dims, name, group) FTI_DefineDataset(id, rank, dims, name, group)
#else
/* Master's entry point keeps its C symbol and type: the master form calls
 * it through a pointer of master's type (what a dispatch table, dlsym or a
 * Fortran binding holds). */
static int (*const define_dataset)(int, int, int64_t *, const char *, FTIT_H5Group *) =
    FTI_DefineDataset;
#endif

static int protect(int rank, int h5)
{
    fti_id_t t;
    if (cell_type(&t) != FTI_SCES)
        return fail(rank, "FTI_AddVectorField / FTI_AddScalarField refused the cell type");
    count_t ncells = NCELLS, ngrid = GRID_R * GRID_C;
    if (FTI_Protect(0, cells, ncells, t) != FTI_SCES ||
        FTI_Protect(1, grid, ngrid, FTI_INTG) != FTI_SCES)
        return fail(rank, "FTI_Protect");
    if (h5) {
        dim_t shape[2] = {GRID_R, GRID_C};
        if (define_dataset(1, 2, shape, "grid", NULL) != FTI_SCES)
            return fail(rank, "FTI_DefineDataset refused a 4x5 shape for 20 elements");
    }
    return 0;
}

static int check(int rank)
{
    count_t want0 = (count_t)sizeof cells, want1 = (count_t)sizeof grid;
    count_t got0 = FTI_GetStoredSize(0), got1 = FTI_GetStoredSize(1);
    if (got0 != want0 || got1 != want1) {
        fprintf(stderr, "stored sizes %lld %lld, expected %lld %lld\n", (long long)got0,
                (long long)got1, (long long)want0, (long long)want1);
        return fail(rank, "FTI_GetStoredSize");
    }
    memset(cells, 0, sizeof cells);
    memset(grid, 0, sizeof grid);
    if (FTI_Recover() != FTI_SCES)
        return fail(rank, "FTI_Recover");
    cell want_cells[NCELLS];
    int want_grid[GRID_R * GRID_C];
    memcpy(want_cells, cells, sizeof cells);
    memcpy(want_grid, grid, sizeof grid);
    fill(rank);
    if (memcmp(want_cells, cells, sizeof cells) != 0 || memcmp(want_grid, grid, sizeof grid) != 0)
        return fail(rank, "restored bytes differ");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return fprintf(stderr, "usage: sig_prog CONFIG write|check H5\n"), 2;
    int h5 = atoi(argv[3]), writing = strcmp(argv[2], "write") == 0;
    MPI_Init(&argc, &argv);
    int rank = 0, bad = 0;
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        bad = fail(rank, "FTI_Init");
    } else {
        MPI_Comm_rank(FTI_COMM_WORLD, &rank);
        fill(rank);
        bad = bad || protect(rank, h5);
        if (!bad && writing && FTI_Checkpoint(1, 4) != FTI_DONE)
            bad = fail(rank, "FTI_Checkpoint");
        if (!bad && !writing)
            bad = FTI_Status() == 0 ? fail(rank, "no restart") : check(rank);
        FTI_Finalize();
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        printf("PASS: %s (%s)\n", argv[2], FORM);
    MPI_Finalize();
    return any;
}
