/*
 * behave_prog - FTI behaviours applications test for (driven by
 * test/conformance/conformance_status_kept.sh and conformance_ckpt_id_mismatch.sh):
 *
 *   behave_prog CONFIG write SEED        one L1 checkpoint (id SEED), FTI_Finalize
 *   behave_prog CONFIG check SEED        FTI_Recover, every byte equal to
 *                                        checkpoint SEED's (exit 30 if not,
 *                                        20 if nothing was restored)
 *   behave_prog CONFIG idmix SEED RANK [LEVEL]
 *                                        checkpoint SEED on every rank, then a
 *                                        second one where rank RANK passes id
 *                                        SEED+2 and the others SEED+1 (both at
 *                                        LEVEL, default 1); exit without
 *                                        FTI_Finalize (the job dies; heads
 *                                        are ended with FTI_ENDW)
 *   behave_prog CONFIG stage SEED        FTI_SendFile of moved-<rank>.bin from
 *                                        the stage directory to staged/ (under
 *                                        the working directory): the request
 *                                        succeeds, the source is gone, the
 *                                        copy has every byte; then of
 *                                        kept-<rank>.bin to no-such-dir/: the
 *                                        request fails, the source stays whole
 *
 * Rank 0 prints, for write and check,
 *   status: before-init A after-init B after-recover C
 * (FTI_Status() before FTI_Init, right after it, and after FTI_Recover; C is
 * -1 in write mode), and for idmix every rank prints
 *   idmix: rank R rc X
 * (FTI_Checkpoint's return for the second checkpoint). The buffer of
 * checkpoint K is pattern K, so a restart shows which one it restored.
 * Rank 0 prints "PASS: <mode>" when every rank's bytes held.
 * FTI_TEST_THREAD_MULTIPLE=1 initialises MPI with MPI_THREAD_MULTIPLE (the
 * helper thread of staging_mib needs it).
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { EXIT_NOREC = 20, EXIT_CORRUPT = 30 };

#define NBUF(r) (48 * 1024 + 57 * (size_t)(r))

static int rank;

static unsigned char pattern(int seed, size_t i)
{
    uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)rank << 40 ^ i;
    x ^= x >> 31;
    x *= 0x94D049BB133111EBull;
    return (unsigned char)(x >> 29);
}

static void fill(unsigned char *buf, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = pattern(seed, i);
}

static int verdict(long bad, const char *mode)
{
    long total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (rank == 0)
        printf("%s: %s (%ld bytes wrong)\n", total ? "FAIL" : "PASS", mode, total);
    return total ? EXIT_CORRUPT : 0;
}

/* The job dies as FTI's programs simulate it with heads (FTI_COMM_WORLD
 * smaller than MPI_COMM_WORLD, one head first on each node): each rank
 * sends FTI_ENDW with FTI's final_tag to its node's head, and every rank
 * meets the heads in a barrier on MPI_COMM_WORLD, after which they end. */
static void end_heads(void)
{
    int wsize, asize, grank, value = FTI_ENDW;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_size(FTI_COMM_WORLD, &asize);
    if (wsize == asize)
        return;
    int node_size = wsize / (wsize - asize);
    MPI_Comm_rank(MPI_COMM_WORLD, &grank);
    MPI_Send(&value, 1, MPI_INT, grank - grank % node_size, 3107, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
}

static int idmix(unsigned char *buf, size_t n, int seed, int odd, int level)
{
    fill(buf, n, seed);
    if (FTI_Checkpoint(seed, level) != FTI_DONE) {
        fprintf(stderr, "rank %d: checkpoint %d failed\n", rank, seed);
        return 1;
    }
    fill(buf, n, seed + 1);
    int rc = FTI_Checkpoint(rank == odd ? seed + 2 : seed + 1, level);
    printf("idmix: rank %d rc %d\n", rank, rc);
    fflush(stdout);
    MPI_Barrier(FTI_COMM_WORLD);
    end_heads();
    MPI_Finalize(); /* the job dies: no FTI_Finalize */
    exit(0);
}

/* Writes n bytes of pattern `seed` to path; 0 on success. */
static int put(const char *path, size_t n, int seed)
{
    unsigned char *data = malloc(n);
    fill(data, n, seed);
    FILE *f = fopen(path, "wb");
    int bad = f == NULL || fwrite(data, 1, n, f) != n;
    if (f != NULL && fclose(f) != 0)
        bad = 1;
    free(data);
    return bad;
}

/* How many of path's bytes differ from n bytes of pattern `seed` (n + 1
 * when it cannot be read whole, or is longer). */
static long differ(const char *path, size_t n, int seed)
{
    unsigned char *back = malloc(n + 1);
    FILE *f = fopen(path, "rb");
    long bad = f == NULL || fread(back, 1, n + 1, f) != n ? (long)n + 1 : 0;
    for (size_t i = 0; bad == 0 && i < n; i++)
        bad += back[i] != pattern(seed, i);
    if (f != NULL)
        fclose(f);
    free(back);
    return bad;
}

/* The request's outcome once it left FTI_SI_ACTV. */
static int outcome(int id)
{
    int st;
    while (id >= 0 && (st = FTI_GetStageStatus(id)) == FTI_SI_ACTV)
        ;
    return id < 0 ? FTI_SI_FAIL : st;
}

static long stage(int seed)
{
    char dir[1024], moved[1200], kept[1200], remote[256];
    const size_t n = 200 * 1024 + 13 * (size_t)rank;
    long bad = FTI_GetStageDir(dir, sizeof dir) != FTI_SCES;
    snprintf(moved, sizeof moved, "%s/moved-%d.bin", dir, rank);
    snprintf(kept, sizeof kept, "%s/kept-%d.bin", dir, rank);
    bad += put(moved, n, seed) + put(kept, n, seed + 1);
    snprintf(remote, sizeof remote, "staged/moved-%d.bin", rank);
    if (outcome(FTI_SendFile(moved, remote)) != FTI_SI_SCES)
        fprintf(stderr, "rank %d: FTI_SendFile %s failed\n", rank, moved), bad++;
    if (access(moved, F_OK) == 0)
        fprintf(stderr, "rank %d: %s is still there after the move\n", rank, moved), bad++;
    long d = differ(remote, n, seed);
    if (d != 0)
        fprintf(stderr, "rank %d: %s: %ld bytes wrong\n", rank, remote, d), bad += d;
    snprintf(remote, sizeof remote, "no-such-dir/kept-%d.bin", rank);
    if (outcome(FTI_SendFile(kept, remote)) != FTI_SI_FAIL)
        fprintf(stderr, "rank %d: FTI_SendFile to %s did not fail\n", rank, remote), bad++;
    d = differ(kept, n, seed + 1);
    if (d != 0)
        fprintf(stderr, "rank %d: %s after the failed move: %ld bytes wrong\n", rank, kept, d), bad += d;
    return bad;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: behave_prog CONFIG write|check|idmix SEED [RANK]\n");
        return 2;
    }
    /* FTI_TEST_THREAD_MULTIPLE=1: staging_mib's helper thread needs it. */
    const char *tm = getenv("FTI_TEST_THREAD_MULTIPLE");
    int provided;
    if (tm != NULL && atoi(tm))
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    const char *mode = argv[2];
    int seed = atoi(argv[3]);
    int before = FTI_Status();
    int rc = FTI_Init(argv[1], MPI_COMM_WORLD);
    int after = FTI_Status(), recovered = -1;
    if (rc != FTI_SCES) {
        fprintf(stderr, "FTI_Init returned %d\n", rc);
        MPI_Finalize();
        return EXIT_NOREC;
    }
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    size_t n = NBUF(rank);
    unsigned char *buf = calloc(1, n);
    FTI_Protect(1, buf, (int64_t)n, FTI_CHAR);
    long bad = 0;
    if (strcmp(mode, "idmix") == 0)
        return idmix(buf, n, seed, argc > 4 ? atoi(argv[4]) : 1, argc > 5 ? atoi(argv[5]) : 1);
    if (strcmp(mode, "stage") == 0) {
        bad = stage(seed);
    } else if (strcmp(mode, "write") == 0) {
        fill(buf, n, seed);
        bad = FTI_Checkpoint(seed, 1) != FTI_DONE;
    } else {
        if (after == 0 || FTI_Recover() != FTI_SCES) {
            fprintf(stderr, "rank %d: nothing restored (FTI_Status %d)\n", rank, after);
            bad = 1;
        }
        recovered = FTI_Status();
        for (size_t i = 0; i < n; i++)
            bad += buf[i] != pattern(seed, i);
    }
    if (rank == 0 && strcmp(mode, "stage") != 0)
        printf("status: before-init %d after-init %d after-recover %d\n", before, after, recovered);
    int status = verdict(bad, mode);
    FTI_Finalize();
    free(buf);
    MPI_Finalize();
    return status;
}
