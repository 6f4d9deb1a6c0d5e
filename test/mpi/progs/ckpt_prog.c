/*
 * ckpt_prog - the MPI program driven by the integration tests.
 *
 *   ckpt_prog CONFIG write  SEED LEVEL [KIB]   fill, FTI_Checkpoint(SEED, LEVEL), finalize
 *   ckpt_prog CONFIG check  SEED [KIB]         restart: recover, assert every byte
 *                                              ($CKPT_PROG_TAMPER=FILE: rank 0 changes one
 *                                              byte in the middle of FILE between FTI_Init and
 *                                              FTI_Recover)
 *   ckpt_prog CONFIG roundtrip SEED LEVEL [KIB] fill, checkpoint, scribble, FTI_Recover in
 *                                              the same run, assert every byte
 *   ckpt_prog CONFIG expect-fail               FTI_Init must fail (prints the code)
 *   ckpt_prog CONFIG fresh SEED LEVEL [KIB]    FTI_Init must return FTI_NREC (no checkpoint
 *                                              can be restored) with the library up as a
 *                                              fresh start (FTI_Status() 0), as in FTI; then
 *                                              as write (LEVEL 0: no checkpoint)
 *   ($CKPT_PROG_SKIP_FINALIZE set: the job ends without FTI_Finalize, as one
 *   that crashed after its work would leave the checkpoint files)
 *   ckpt_prog CONFIG staged SEED LEVEL KIB N [R]  N checkpoints (SEED..SEED+N-1), each
 *                                              followed at once by overwriting every buffer;
 *                                              then FTI_Recover must restore SEED+R (the last
 *                                              committed one; default R = N-2: the newest is
 *                                              still in flight), then finalize
 *
 * $CKPT_PROG_SCRIBBLE_PCT=P: mode staged overwrites only the first P% of the grid (and
 * nothing else) after each FTI_Checkpoint, instead of every buffer.
 * $CKPT_PROG_ALIAS set: variable 5 protects the grid's first half again (pages two
 * variables share: copy-on-write cannot protect them twice).
 * $CKPT_PROG_SALT=N (N > 0): other bytes for the same SEED and checkpoint id (another
 * job's data, tests of two jobs sharing the folders).
 * $CKPT_PROG_MAPS set: at the end, each rank prints every line of its /proc/self/maps
 * that maps a CUDA library (libcudart, libcuda) as "rank R maps CUDA: LINE" (a CPU-only
 * program must map none).
 *
 * Variables: 0 an int, 1 doubles (KIB KiB, default 256, + rank; + rank *
 * $CKPT_PROG_RANK_KIB KiB when set), 2 bytes of odd
 * size, 3 a composite struct array, 4 an empty one. Byte values derive from
 * (seed, rank, variable, index), so a restore from the wrong checkpoint, rank
 * or offset is caught.
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct particle {
    double pos[3];
    int id;
    char tag;
} particle;

static uint64_t salt; /* $CKPT_PROG_SALT */

static unsigned char pattern(int seed, int rank, int var, size_t i)
{
    uint64_t x = ((uint64_t)seed ^ salt << 32) * 0x9E3779B97F4A7C15ull ^ (uint64_t)rank << 40 ^ (uint64_t)var << 56 ^ i;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (unsigned char)x;
}

static void fill(void *p, size_t n, int seed, int rank, int var)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)p)[i] = pattern(seed, rank, var, i);
}

static long mismatches(const void *p, size_t n, int seed, int rank, int var)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += ((const unsigned char *)p)[i] != pattern(seed, rank, var, i);
    return bad;
}

typedef struct state {
    int counter;
    double *grid;
    size_t ngrid;
    char *bytes;
    size_t nbytes;
    particle parts[7];
    fti_id_t ptype;
} state;

static int protect_all(state *s, int rank, size_t kib)
{
    /* CKPT_PROG_RANK_KIB=N: rank r protects r*N KiB more (files of different sizes) */
    const char *step = getenv("CKPT_PROG_RANK_KIB");
    kib += step != NULL ? (size_t)rank * (size_t)atol(step) : 0;
    s->ngrid = kib * 1024 / sizeof(double) + (size_t)rank;
    s->nbytes = 4097 + (size_t)rank * 13;
    s->grid = calloc(s->ngrid, sizeof(double));
    s->bytes = calloc(s->nbytes, 1);
    memset(s->parts, 0, sizeof s->parts);
    s->ptype = FTI_InitCompositeType("particle", sizeof(particle), NULL);
    int64_t three = 3;
    if (s->ptype < 0 || FTI_AddVectorField(s->ptype, "pos", FTI_DBLE, 0, 1, &three) != FTI_SCES ||
        FTI_AddScalarField(s->ptype, "id", FTI_INTG, offsetof(particle, id)) != FTI_SCES ||
        FTI_AddScalarField(s->ptype, "tag", FTI_CHAR, offsetof(particle, tag)) != FTI_SCES)
        return -1;
    int rc = FTI_Protect(0, &s->counter, 1, FTI_INTG);
    rc |= FTI_Protect(1, s->grid, (int64_t)s->ngrid, FTI_DBLE);
    rc |= FTI_Protect(2, s->bytes, (int64_t)s->nbytes, FTI_CHAR);
    rc |= FTI_Protect(3, s->parts, 7, s->ptype);
    rc |= FTI_Protect(4, NULL, 0, FTI_DBLE);
    if (getenv("CKPT_PROG_ALIAS") != NULL)
        rc |= FTI_Protect(5, s->grid, (int64_t)s->ngrid / 2, FTI_DBLE);
    FTIT_attribute at = {.name = "grid", .dim = {1, {(int64_t)s->ngrid}}};
    rc |= FTI_SetAttribute(1, at, FTI_ATTRIBUTE_NAME | FTI_ATTRIBUTE_DIM);
    return rc;
}

static void fill_all(state *s, int seed, int rank)
{
    fill(&s->counter, sizeof s->counter, seed, rank, 0);
    fill(s->grid, s->ngrid * sizeof(double), seed, rank, 1);
    fill(s->bytes, s->nbytes, seed, rank, 2);
    fill(s->parts, sizeof s->parts, seed, rank, 3);
}

static long check_all(state *s, int seed, int rank)
{
    return mismatches(&s->counter, sizeof s->counter, seed, rank, 0) +
           mismatches(s->grid, s->ngrid * sizeof(double), seed, rank, 1) +
           mismatches(s->bytes, s->nbytes, seed, rank, 2) +
           mismatches(s->parts, sizeof s->parts, seed, rank, 3);
}

/* Flips the byte in the middle of path (a file FTI_Init already verified). */
static void tamper(const char *path)
{
    FILE *f = fopen(path, "r+b");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 6);
    }
    long mid = ftell(f) / 2;
    fseek(f, mid, SEEK_SET);
    int b = fgetc(f);
    fseek(f, mid, SEEK_SET);
    fputc(b ^ 0x5a, f);
    fclose(f);
}

/* What the application does right after FTI_Checkpoint returns in mode
 * staged: overwrite every buffer, or pct% of the grid. */
static void scribble(state *s, int rank)
{
    const char *pct = getenv("CKPT_PROG_SCRIBBLE_PCT");
    if (pct == NULL) {
        fill_all(s, 7777, rank);
        return;
    }
    size_t n = s->ngrid * sizeof(double) / 100 * (size_t)atoi(pct);
    fill(s->grid, n, 7777, rank, 1);
}

/* Mode "staged" (staging_mib): the buffers change as soon as FTI_Checkpoint
 * returns, so a checkpoint written from the live buffers in the background
 * would hold the wrong bytes; check SEED+N-1 proves it holds these. */
static int staged(state *s, int seed, int rank, int level, int n, int r)
{
    int status = 0;
    for (int k = 0; k < n; k++) {
        fill_all(s, seed + k, rank);
        if (FTI_Checkpoint(seed + k, level) != FTI_DONE) {
            fprintf(stderr, "rank %d: FTI_Checkpoint(%d) failed\n", rank, seed + k);
            status = 1;
        }
        scribble(s, rank);
    }
    if (r >= 0) {
        long bad = FTI_Recover() == FTI_SCES ? check_all(s, seed + r, rank) : -1;
        if (bad != 0) {
            fprintf(stderr, "rank %d: FTI_Recover in the same run: %ld bytes differ from "
                    "checkpoint %d\n", rank, bad, seed + r);
            status = 1;
        }
    }
    return status;
}

/* The CUDA libraries this process mapped, one "rank R maps CUDA: ..." line each. */
static void print_cuda_maps(int rank)
{
    char line[4096];
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL) {
        printf("rank %d maps CUDA: cannot read /proc/self/maps\n", rank);
        return;
    }
    while (fgets(line, sizeof line, f) != NULL)
        if (strstr(line, "/libcudart") != NULL || strstr(line, "/libcuda.") != NULL)
            printf("rank %d maps CUDA: %s", rank, line);
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: ckpt_prog CONFIG write|check|expect-fail ...\n");
        return 2;
    }
    /* FTI_TEST_THREAD_MULTIPLE=1: the helper-thread post-processing needs it. */
    const char *tm = getenv("FTI_TEST_THREAD_MULTIPLE");
    int provided;
    if (tm && atoi(tm))
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    const char *mode = argv[2];
    const char *salted = getenv("CKPT_PROG_SALT");
    salt = salted != NULL ? strtoull(salted, NULL, 10) : 0;
    int rc = FTI_Init(argv[1], MPI_COMM_WORLD);
    if (strcmp(mode, "expect-fail") == 0) {
        printf("FTI_Init returned %d\n", rc);
        MPI_Finalize();
        return rc == FTI_SCES ? 1 : 0;
    }
    int fresh = strcmp(mode, "fresh") == 0;
    /* An unexpected FTI_Init result ends the rank through MPI_Finalize, not
     * MPI_Abort: the launcher may drop output not yet forwarded when it kills
     * the job, and the tests judge the library's error message. FTI_Init
     * agrees on its result, so every rank takes this path together. */
    if (rc != (fresh ? FTI_NREC : FTI_SCES)) {
        fprintf(stderr, "FTI_Init returned %d, expected %d\n", rc, fresh ? FTI_NREC : FTI_SCES);
        MPI_Finalize();
        return 3;
    }
    if (fresh && FTI_Status() != 0) {
        fprintf(stderr, "FTI_Status() is %d after FTI_NREC, expected 0\n", FTI_Status());
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    int rank;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    int seed = argc > 3 ? atoi(argv[3]) : 1;
    state s = {0};
    int status = 0;
    if (strcmp(mode, "write") == 0 || fresh) {
        int level = argc > 4 ? atoi(argv[4]) : 1;
        size_t kib = argc > 5 ? (size_t)atol(argv[5]) : 256;
        if (FTI_Status() != 0 && rank == 0)
            printf("note: a checkpoint exists already (restart state)\n");
        if (protect_all(&s, rank, kib) != 0)
            MPI_Abort(MPI_COMM_WORLD, 4);
        fill_all(&s, seed, rank);
        rc = level > 0 ? FTI_Checkpoint(seed, level) : FTI_DONE;
        if (rc != FTI_DONE) {
            fprintf(stderr, "rank %d: FTI_Checkpoint returned %d\n", rank, rc);
            status = 1;
        }
    } else if (strcmp(mode, "roundtrip") == 0) {
        int level = argc > 4 ? atoi(argv[4]) : 1;
        size_t kib = argc > 5 ? (size_t)atol(argv[5]) : 256;
        if (protect_all(&s, rank, kib) != 0)
            MPI_Abort(MPI_COMM_WORLD, 4);
        fill_all(&s, seed, rank);
        rc = FTI_Checkpoint(seed, level);
        fill_all(&s, seed + 1, rank); /* what FTI_Recover must undo */
        int rc2 = rc == FTI_DONE ? FTI_Recover() : rc;
        long bad = rc2 == FTI_SCES ? check_all(&s, seed, rank) : -1, total = 0;
        MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
        if (bad != 0)
            fprintf(stderr, "rank %d: FTI_Checkpoint %d, FTI_Recover %d, %ld bytes differ\n", rank,
                    rc, rc2, bad);
        status = total != 0;
        if (rank == 0)
            printf("%s: restored bytes %s\n", status ? "FAIL" : "PASS", status ? "differ" : "identical");
    } else if (strcmp(mode, "staged") == 0 && argc > 6) {
        size_t kib = (size_t)atol(argv[5]);
        if (protect_all(&s, rank, kib) != 0)
            MPI_Abort(MPI_COMM_WORLD, 4);
        int n = atoi(argv[6]);
        status = staged(&s, seed, rank, atoi(argv[4]), n, argc > 7 ? atoi(argv[7]) : n - 2);
    } else if (strcmp(mode, "check") == 0) {
        size_t kib = argc > 4 ? (size_t)atol(argv[4]) : 256;
        if (FTI_Status() == 0) {
            fprintf(stderr, "rank %d: FTI_Status() is 0, expected a restart\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 5);
        }
        if (protect_all(&s, rank, kib) != 0)
            MPI_Abort(MPI_COMM_WORLD, 4);
        const char *victim = getenv("CKPT_PROG_TAMPER");
        if (victim != NULL && rank == 0)
            tamper(victim);
        MPI_Barrier(FTI_COMM_WORLD);
        rc = FTI_Recover();
        long bad = rc == FTI_SCES ? check_all(&s, seed, rank) : -1;
        long total = 0;
        MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
        if (bad != 0)
            fprintf(stderr, "rank %d: FTI_Recover %d, %ld bytes differ\n", rank, rc, bad);
        status = total != 0;
        if (rank == 0)
            printf("%s: restored bytes %s\n", status ? "FAIL" : "PASS", status ? "differ" : "identical");
    }
    if (getenv("CKPT_PROG_SKIP_FINALIZE") == NULL)
        FTI_Finalize();
    if (getenv("CKPT_PROG_MAPS") != NULL)
        print_cuda_maps(rank);
    free(s.grid);
    free(s.bytes);
    MPI_Finalize();
    return status;
}
