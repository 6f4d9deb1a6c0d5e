/*
 * h5_prog - HDF5 checkpoints (ckpt_io = 5): every predefined type, an
 * opaque type and a nested composite type, placed with FTI's group API.
 *
 *   h5_prog CONFIG write   protect, FTI_Checkpoint(1, 4)
 *   h5_prog CONFIG check   restart: FTI_Recover, compare every byte
 *
 * Datasets (rank r): /ints/counts (int, 2x3, FTI_DefineDataset in group
 * "ints"), /ints/deep/shorts (short, in "ints/deep"), /particles
 * (composite, FTI_setIDFromString name), /opaque (FTI_InitType, named with
 * FTI_SetAttribute), and Dataset_<id> for the others. Values depend on the
 * rank. "PASS" from rank 0 when every rank restored every byte.
 */
#include <fti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct inner {
    int a;
    double b[3];
} inner;

typedef struct outer {
    char tag;
    inner in;
    float f[2][2];
} outer;

#define N 6

typedef struct state {
    char c[N];
    short s[N];
    int i[N];
    long l[N];
    unsigned char uc[N];
    unsigned short us[N];
    unsigned u[N];
    unsigned long ul[N];
    float f[N];
    double d[N];
    long double ld[N];
    outer o[4];
    unsigned char opaque[4][12];
} state;

static void fill(state *st, int r)
{
    memset(st, 0, sizeof *st); /* padding of long double and outer too */
    for (int k = 0; k < N; k++) {
        st->c[k] = (char)('a' + k + r);
        st->s[k] = (short)(-100 * k - r);
        st->i[k] = 1000 * r + k;
        st->l[k] = -(long)r * 1000000000L - k;
        st->uc[k] = (unsigned char)(200 + k + r);
        st->us[k] = (unsigned short)(60000 + k + r);
        st->u[k] = 4000000000u + (unsigned)(k + r);
        st->ul[k] = 18000000000000000000ul + (unsigned long)(k + r);
        st->f[k] = 0.5f * (float)k + (float)r;
        st->d[k] = 1.0 / (k + 1) + r;
        st->ld[k] = (long double)k / 3 + r;
    }
    for (int k = 0; k < 4; k++) {
        st->o[k].tag = (char)('A' + k);
        st->o[k].in.a = 10 * r + k;
        for (int j = 0; j < 3; j++)
            st->o[k].in.b[j] = r + k + 0.25 * j;
        for (int j = 0; j < 4; j++)
            st->o[k].f[j / 2][j % 2] = (float)(r * 100 + k * 10 + j);
        for (int j = 0; j < 12; j++)
            st->opaque[k][j] = (unsigned char)(r * 16 + k * 3 + j);
    }
}

static int types(fti_id_t *outer_t, fti_id_t *opaque_t)
{
    FTIT_H5Group g;
    memset(&g, 0, sizeof g);
    fti_id_t in = FTI_InitCompositeType("inner", sizeof(inner), NULL);
    int64_t three[1] = {3}, two2[2] = {2, 2};
    int rc = FTI_AddScalarField(in, "a", FTI_INTG, offsetof(inner, a)) |
             FTI_AddVectorField(in, "b", FTI_DBLE, offsetof(inner, b), 1, three);
    *outer_t = FTI_InitCompositeType("outer", sizeof(outer), NULL);
    rc |= FTI_AddScalarField(*outer_t, "tag", FTI_CHAR, offsetof(outer, tag)) |
          FTI_AddScalarField(*outer_t, "in", in, offsetof(outer, in)) |
          FTI_AddVectorField(*outer_t, "f", FTI_SFLT, offsetof(outer, f), 2, two2);
    rc |= FTI_InitType(opaque_t, 12);
    return rc != FTI_SCES || in < 0 || *outer_t < 0;
}

static int protect(state *st)
{
    fti_id_t outer_t, opaque_t;
    if (types(&outer_t, &opaque_t))
        return 1;
    void *p[11] = {st->c, st->s, st->i, st->l, st->uc, st->us, st->u, st->ul, st->f, st->d, st->ld};
    fti_id_t t[11] = {FTI_CHAR, FTI_SHRT, FTI_INTG, FTI_LONG, FTI_UCHR, FTI_USHT,
                      FTI_UINT, FTI_ULNG, FTI_SFLT, FTI_DBLE, FTI_LDBE};
    int rc = 0;
    for (int k = 0; k < 11; k++)
        rc |= FTI_Protect(k, p[k], N, t[k]);
    int pid = FTI_setIDFromString("particles");
    rc |= FTI_Protect(pid, st->o, 4, outer_t);
    rc |= FTI_Protect(20, st->opaque, 4, opaque_t);
    FTIT_attribute at;
    memset(&at, 0, sizeof at);
    strcpy(at.name, "opaque");
    rc |= FTI_SetAttribute(20, at, FTI_ATTRIBUTE_NAME);
    FTIT_H5Group ints, deep;
    int64_t dims[2] = {2, 3};
    rc |= FTI_InitGroup(&ints, "ints", NULL) | FTI_InitGroup(&deep, "deep", &ints);
    rc |= FTI_DefineDataset(2, 2, dims, "counts", &ints);
    rc |= FTI_DefineDataset(1, 1, (int64_t[]){N}, "shorts", &deep);
    return rc != FTI_SCES;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 3 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        MPI_Finalize();
        return 2;
    }
    int rank, rc;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    state *st = malloc(sizeof *st), *want = malloc(sizeof *want);
    fill(want, rank);
    if (strcmp(argv[2], "write") == 0) {
        memcpy(st, want, sizeof *st);
        rc = protect(st) || FTI_Checkpoint(1, 4) != FTI_DONE;
    } else {
        memset(st, 0, sizeof *st);
        rc = protect(st) || FTI_Status() == 0 || FTI_Recover() != FTI_SCES ||
             memcmp(st, want, sizeof *st) != 0;
        if (rc)
            fprintf(stderr, "rank %d: restore failed or bytes differ\n", rank);
        int all = 0;
        MPI_Allreduce(&rc, &all, 1, MPI_INT, MPI_MAX, FTI_COMM_WORLD);
        if (rank == 0 && all == 0)
            printf("PASS\n");
    }
    FTI_Finalize();
    free(st);
    free(want);
    MPI_Finalize();
    return rc;
}
