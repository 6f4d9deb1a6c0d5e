/*
 * sem_prog - the behaviours FTI's own test suites check, one mode each
 * (driven by test/conformance/conformance_sem_*.sh):
 *
 *   sem_prog CONFIG crash  SEED LEVEL...  one checkpoint per LEVEL (ids SEED,
 *                                         SEED+1, ...), then exit without
 *                                         FTI_Finalize (FTI's crash simulation)
 *   sem_prog CONFIG finish SEED LEVEL...  the same, then FTI_Finalize (LIST_LOCAL=DIR:
 *                                         list the files below DIR first)
 *   sem_prog CONFIG check  SEED           restart: FTI_Recover, every byte equal to
 *                                         checkpoint SEED's; exit 20 when FTI_Init
 *                                         or FTI_Recover fails, 30 on wrong bytes;
 *                                         a 5th argument "crash": no FTI_Finalize
 *   sem_prog CONFIG names-write LEVEL     variables named with FTI_setIDFromString
 *   sem_prog CONFIG names-check           restart: ids found by FTI_getIDFromString
 *   sem_prog CONFIG mixed-write LEVEL     rank-dependent, growing sizes
 *   sem_prog CONFIG mixed-check           even ranks FTI_Recover, odd ranks
 *                                         FTI_RecoverVar*, FTI_Realloc and retry
 *   sem_prog CONFIG inplace LEVEL         FTI_Recover right after FTI_Checkpoint
 *   sem_prog CONFIG stage                 FTI_SendFile with relative remote paths
 *   sem_prog CONFIG endw SEED NODE_SIZE   checkpoint (L1), then end the heads as
 *                                         FTI's test programs do: FTI_ENDW (995)
 *                                         with final_tag 3107 to the node's head,
 *                                         MPI_Barrier(MPI_COMM_WORLD), no FTI_Finalize
 *   sem_prog CONFIG report SEED NODE_SIZE LEVEL...
 *                                         one checkpoint per LEVEL (head = 1,
 *                                         inline_lX = 0), then wait for FTI's
 *                                         head-to-rank message itself (general_tag
 *                                         2612 on MPI_COMM_WORLD, value = the last
 *                                         LEVEL), then end the heads as endw does
 *
 * Prints "PASS: <mode>" on rank 0 when every rank's check held.
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum { EXIT_NOREC = 20, EXIT_CORRUPT = 30 };

static int rank;

static unsigned char pattern(int seed, int var, size_t i)
{
    uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)rank << 40 ^ (uint64_t)var << 56 ^ i;
    x ^= x >> 31;
    x *= 0xD6E8FEB86659FD93ull;
    x ^= x >> 32;
    return (unsigned char)x;
}

static void fill(void *p, size_t n, int seed, int var)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)p)[i] = pattern(seed, var, i);
}

static long mismatches(const void *p, size_t n, int seed, int var)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += ((const unsigned char *)p)[i] != pattern(seed, var, i);
    return bad;
}

/* Every rank's verdict; rank 0 prints it. Returns the exit status. */
static int verdict(long bad, const char *what)
{
    long total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (bad != 0)
        fprintf(stderr, "rank %d: %s: %ld bytes wrong\n", rank, what, bad);
    if (rank == 0)
        printf("%s: %s\n", total ? "FAIL" : "PASS", what);
    return total ? EXIT_CORRUPT : 0;
}

static void crash(void)
{
    MPI_Barrier(FTI_COMM_WORLD);
    MPI_Finalize();
    exit(0);
}

/* With LIST_LOCAL=DIR: rank 0 prints "local: <path>" for each file below
 * DIR once every rank's checkpoints returned (what the job keeps locally
 * while it runs). */
static void list_local_files(void)
{
    const char *dir = getenv("LIST_LOCAL");
    if (dir == NULL)
        return;
    MPI_Barrier(FTI_COMM_WORLD);
    if (rank == 0) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd, "find '%s' -type f | sed 's/^/local: /'", dir);
        fflush(stdout);
        if (system(cmd) != 0)
            fprintf(stderr, "LIST_LOCAL: cannot list %s\n", dir);
    }
    MPI_Barrier(FTI_COMM_WORLD);
}

/* ---- crash / finish / check: one buffer of rank-dependent size ------------ */

#define NBUF(r) (96 * 1024 + 37 * (size_t)(r))

static int checkpoints(char **levels, int n, int seed, int finalize)
{
    unsigned char *buf = malloc(NBUF(rank));
    FTI_Protect(1, buf, (int64_t)NBUF(rank), FTI_CHAR);
    for (int i = 0; i < n; i++) {
        fill(buf, NBUF(rank), seed + i, 1);
        if (FTI_Checkpoint(seed + i, atoi(levels[i])) != FTI_DONE) {
            fprintf(stderr, "rank %d: checkpoint %d (level %s) failed\n", rank, seed + i, levels[i]);
            return 1;
        }
    }
    if (!finalize)
        crash();
    list_local_files();
    FTI_Finalize();
    free(buf);
    return 0;
}

static int check(int seed, int then_crash)
{
    unsigned char *buf = calloc(1, NBUF(rank));
    FTI_Protect(1, buf, (int64_t)NBUF(rank), FTI_CHAR);
    int rc = FTI_Status() != 0 ? FTI_Recover() : FTI_NREC;
    int ok = rc == FTI_SCES, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, FTI_COMM_WORLD);
    if (!all) {
        fprintf(stderr, "rank %d: FTI_Status %d, FTI_Recover %d\n", rank, FTI_Status(), rc);
        return EXIT_NOREC;
    }
    int status = verdict(mismatches(buf, NBUF(rank), seed, 1), "check");
    if (then_crash && status == 0)
        crash();
    FTI_Finalize();
    free(buf);
    return status;
}

/* ---- names: FTI_setIDFromString, then FTI_getIDFromString on restart ------- */

#define NNAMES 6
static const char *names[NNAMES] = {"density", "velocity", "pressure", "mesh", "step", "energy"};
#define NAME_LEN(i) (40 + 13 * (size_t)(i))

/* A permutation of 0..NNAMES-1 that differs between runs and ranks. */
static void shuffle(int *order, unsigned seed)
{
    for (int i = 0; i < NNAMES; i++)
        order[i] = i;
    srand(seed);
    for (int i = NNAMES - 1; i > 0; i--) {
        int j = rand() % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

static int names_write(int level)
{
    int order[NNAMES];
    unsigned char *v[NNAMES];
    shuffle(order, 17u + (unsigned)rank);
    for (int k = 0; k < NNAMES; k++) {
        int i = order[k];
        v[i] = malloc(NAME_LEN(i));
        fill(v[i], NAME_LEN(i), 5, i);
        FTI_Protect(FTI_setIDFromString(names[i]), v[i], (int64_t)NAME_LEN(i), FTI_CHAR);
    }
    if (FTI_Checkpoint(1, level) != FTI_DONE)
        return 1;
    crash();
    return 0;
}

static int names_check(void)
{
    int order[NNAMES], ids[NNAMES];
    unsigned char *v[NNAMES];
    long bad = FTI_Status() == 0 ? 1 : 0;
    shuffle(order, 91u + 3u * (unsigned)rank);
    FTI_RecoverVarInit();
    for (int k = 0; k < NNAMES; k++) {
        int i = order[k];
        ids[i] = FTI_getIDFromString(names[i]);
        v[i] = calloc(1, NAME_LEN(i));
        if (ids[i] < 0 || FTI_Protect(ids[i], v[i], (int64_t)NAME_LEN(i), FTI_CHAR) != FTI_SCES ||
            FTI_RecoverVar(ids[i]) != FTI_SCES) {
            fprintf(stderr, "rank %d: name '%s': id %d not recovered\n", rank, names[i], ids[i]);
            bad++;
            continue;
        }
        bad += mismatches(v[i], NAME_LEN(i), 5, i);
    }
    FTI_RecoverVarFinalize();
    for (int i = 0; i < NNAMES; i++) /* the name keeps its id in this run */
        bad += FTI_setIDFromString(names[i]) != ids[i];
    int fresh = FTI_setIDFromString("not-in-the-checkpoint");
    for (int i = 0; i < NNAMES; i++)
        bad += fresh == ids[i];
    bad += FTI_getIDFromString("never-named") != -1;
    int status = verdict(bad, "names-check");
    FTI_Finalize();
    return status;
}

/* ---- mixed: ranks recover with different calls ----------------------------- */

typedef struct progress {
    int iter;
    int count;
} progress;

#define MIXED_START(r) (1000 + 100 * (r))
#define MIXED_GROW(r) (333 * (r)) /* rank 0 keeps its size */

static int mixed_write(int level)
{
    progress p = {0, MIXED_START(rank)};
    fti_id_t pt;
    FTI_InitType(&pt, sizeof p);
    FTI_Protect(1, &p, 1, pt);
    int32_t *buf = NULL;
    for (p.iter = 0; p.iter < 3; p.iter++) {
        p.count += MIXED_GROW(rank);
        buf = realloc(buf, (size_t)p.count * sizeof *buf);
        fill(buf, (size_t)p.count * sizeof *buf, p.iter, 2);
        FTI_Protect(2, buf, p.count, FTI_INTG);
        if (FTI_Checkpoint(p.iter + 1, level) != FTI_DONE)
            return 1;
    }
    crash();
    return 0;
}

static int recover_my_way(void)
{
    if (rank % 2 == 0)
        return FTI_Recover();
    int rc = FTI_RecoverVarInit();
    rc += FTI_RecoverVar(1);
    rc += FTI_RecoverVar(2);
    rc += FTI_RecoverVarFinalize();
    return rc;
}

static int mixed_check(void)
{
    progress p = {-1, MIXED_START(rank)};
    fti_id_t pt;
    FTI_InitType(&pt, sizeof p);
    FTI_Protect(1, &p, 1, pt);
    int32_t *buf = calloc((size_t)p.count, sizeof *buf);
    FTI_Protect(2, buf, p.count, FTI_INTG); /* the size at the start: wrong but on rank 0 */
    long bad = FTI_Status() == 0;
    if (recover_my_way() != FTI_SCES) {
        int32_t *grown = FTI_Realloc(2, buf);
        buf = grown != NULL ? grown : buf;
        if (grown == NULL || recover_my_way() != FTI_SCES) {
            fprintf(stderr, "rank %d: recovery failed after FTI_Realloc\n", rank);
            bad++;
        }
    }
    int last = 2;
    bad += p.iter != last || p.count != MIXED_START(rank) + 3 * MIXED_GROW(rank);
    bad += FTI_GetStoredSize(2) != (int64_t)p.count * 4;
    if (!bad)
        bad += mismatches(buf, (size_t)p.count * sizeof *buf, last, 2);
    /* Everyone goes on together: a rank stuck in a recovery call would hang here. */
    bad += FTI_Checkpoint(10, 1) != FTI_DONE;
    int status = verdict(bad, "mixed-check");
    FTI_Finalize();
    free(buf);
    return status;
}

/* ---- inplace: FTI_Recover within the run that checkpointed ----------------- */

static int inplace(int level)
{
    size_t n = NBUF(rank);
    unsigned char *buf = malloc(n);
    int step = 0;
    FTI_Protect(1, buf, (int64_t)n, FTI_CHAR);
    FTI_Protect(2, &step, 1, FTI_INTG);
    long bad = FTI_Status() != 0 || FTI_Recover() == FTI_SCES; /* nothing to roll back to yet */
    fill(buf, n, 71, 1);
    step = 1;
    bad += FTI_Checkpoint(1, level) != FTI_DONE;
    memset(buf, 0, n);
    step = 99;
    bad += FTI_Recover() != FTI_SCES || step != 1;
    bad += mismatches(buf, n, 71, 1);
    fill(buf, n, 72, 1); /* a second checkpoint replaces the first as the rollback point */
    step = 2;
    bad += FTI_Checkpoint(2, level) != FTI_DONE;
    memset(buf, 0xff, n);
    bad += FTI_RecoverVarInit() != FTI_SCES || FTI_RecoverVar(1) != FTI_SCES;
    bad += FTI_RecoverVarFinalize() != FTI_SCES || step != 2; /* variable 2 untouched */
    bad += mismatches(buf, n, 72, 1) + (FTI_GetStoredSize(1) != (int64_t)n);
    int status = verdict(bad, "inplace");
    FTI_Finalize();
    free(buf);
    return status;
}

/* ---- stage: relative remote paths are relative to the working directory ---- */

static int stage(void)
{
    char dir[1024], local[1200], remote[256];
    long bad = FTI_GetStageDir(dir, sizeof dir) != FTI_SCES;
    unsigned char data[3000], back[3000];
    fill(data, sizeof data, 9, 3);
    snprintf(local, sizeof local, "%s/out-%d.bin", dir, rank);
    FILE *f = fopen(local, "wb");
    bad += f == NULL || fwrite(data, 1, sizeof data, f) != sizeof data;
    if (f)
        fclose(f);
    if (rank == 0)
        mkdir("staged", 0700);
    MPI_Barrier(FTI_COMM_WORLD);
    snprintf(remote, sizeof remote, "staged/out-%d.bin", rank);
    int id = FTI_SendFile(local, remote);
    while (id >= 0 && FTI_GetStageStatus(id) == FTI_SI_ACTV)
        ;
    bad += id < 0 || FTI_GetStageStatus(id) != FTI_SI_SCES;
    f = fopen(remote, "rb"); /* where FTI puts it: under the working directory */
    bad += f == NULL || fread(back, 1, sizeof back, f) != sizeof back || memcmp(back, data, sizeof data);
    if (f)
        fclose(f);
    /* FTI does not create the remote directory: the request fails. */
    snprintf(remote, sizeof remote, "no-such-dir/out-%d.bin", rank);
    id = FTI_SendFile(local, remote);
    bad += id >= 0 && FTI_GetStageStatus(id) == FTI_SI_SCES;
    int status = verdict(bad, "stage");
    FTI_Finalize();
    return status;
}

/* ---- endw: FTI's crash simulation with head ranks -------------------------- */

static int endw(int seed, int node_size)
{
    unsigned char *buf = malloc(NBUF(rank));
    FTI_Protect(1, buf, (int64_t)NBUF(rank), FTI_CHAR);
    fill(buf, NBUF(rank), seed, 1);
    if (FTI_Checkpoint(seed, 1) != FTI_DONE)
        return 1;
    int grank, value = 995; /* FTI_ENDW */
    MPI_Comm_rank(MPI_COMM_WORLD, &grank);
    MPI_Barrier(FTI_COMM_WORLD);
    MPI_Send(&value, 1, MPI_INT, grank - grank % node_size, 3107, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD); /* the heads join it, then end */
    if (rank == 0)
        printf("PASS: endw\n");
    crash();
    return 0;
}

/* ---- report: FTI's head-to-rank message, received by the program --------- */

/* FTI's test programs (cornerCases, nodeFlag) wait for the head's message
 * after their last checkpoint, then end the heads and exit: every message
 * before it was taken by the library at the next checkpoint. */
static int report(int seed, int node_size, char **levels, int n)
{
    unsigned char *buf = malloc(NBUF(rank));
    FTI_Protect(1, buf, (int64_t)NBUF(rank), FTI_CHAR);
    for (int i = 0; i < n; i++) {
        fill(buf, NBUF(rank), seed + i, 1);
        if (FTI_Checkpoint(seed + i, atoi(levels[i])) != FTI_DONE)
            return 1;
    }
    int grank, head, got = -99, value = 995; /* FTI_ENDW */
    MPI_Comm_rank(MPI_COMM_WORLD, &grank);
    head = grank - grank % node_size;
    MPI_Recv(&got, 1, MPI_INT, head, 2612, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int want = atoi(levels[n - 1]);
    if (got != want)
        fprintf(stderr, "rank %d: the head reported %d, expected level %d\n", rank, got, want);
    int status = verdict(got != want, "report");
    MPI_Send(&value, 1, MPI_INT, head, 3107, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD); /* the heads join it, then end */
    MPI_Finalize();
    exit(status);
}

static int run(int argc, char **argv)
{
    const char *mode = argv[2];
    int arg = argc > 3 ? atoi(argv[3]) : 1;
    if (strcmp(mode, "crash") == 0 || strcmp(mode, "finish") == 0)
        return checkpoints(argv + 4, argc - 4, arg, mode[0] == 'f');
    if (strcmp(mode, "check") == 0)
        return check(arg, argc > 4 && strcmp(argv[4], "crash") == 0);
    if (strcmp(mode, "names-write") == 0)
        return names_write(arg);
    if (strcmp(mode, "names-check") == 0)
        return names_check();
    if (strcmp(mode, "mixed-write") == 0)
        return mixed_write(arg);
    if (strcmp(mode, "mixed-check") == 0)
        return mixed_check();
    if (strcmp(mode, "inplace") == 0)
        return inplace(arg);
    if (strcmp(mode, "stage") == 0)
        return stage();
    if (strcmp(mode, "endw") == 0)
        return endw(arg, argc > 4 ? atoi(argv[4]) : 2);
    if (strcmp(mode, "report") == 0 && argc > 5)
        return report(arg, atoi(argv[4]), argv + 5, argc - 5);
    fprintf(stderr, "sem_prog: unknown mode '%s'\n", mode);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: sem_prog CONFIG MODE [ARGS...]\n");
        return 2;
    }
    MPI_Init(&argc, &argv);
    int rc = FTI_Init(argv[1], MPI_COMM_WORLD);
    if (rc != FTI_SCES) {
        fprintf(stderr, "FTI_Init failed\n");
        if (rc == FTI_NREC) /* the library is up, as in FTI: this releases the heads */
            FTI_Finalize();
        MPI_Finalize();
        return EXIT_NOREC;
    }
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    int status = run(argc, argv);
    MPI_Finalize();
    return status;
}
