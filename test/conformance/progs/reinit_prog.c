/*
 * reinit_prog - two FTI_Init..FTI_Finalize segments in one process on the
 * same config, the way an application that re-initialises FTI (PDI's FTI
 * plugin under PDI_finalize / PDI_init) runs it. Driven by
 * test/conformance/conformance_status_reinit.sh:
 *
 *   reinit_prog CONFIG SEED
 *
 * Segment 1 protects a buffer of pattern SEED, takes checkpoint SEED at L1
 * and calls FTI_Finalize (keep_last_ckpt = 1 in CONFIG: it keeps it and
 * writes [restart] failure = 2). Segment 2 calls FTI_Init on the same file,
 * protects a zeroed buffer, restores it with FTI_RecoverVarInit /
 * FTI_RecoverVar / FTI_RecoverVarFinalize (PDI's recover_var), zeroes it
 * again and restores it with FTI_Recover. Every rank prints
 *   reinit: rank R after-init S after-recovervar V after-recover T wrong N
 * (FTI_Status() after the second FTI_Init, after FTI_RecoverVarFinalize and
 * after FTI_Recover; N counts the bytes that differ from pattern SEED after
 * either restore). Exit 0 unless an FTI call failed.
 */
#include <fti.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUF (8 * 1024 + 13)

static unsigned char pattern(int rank, int seed, size_t i)
{
    uint64_t x = (uint64_t)seed * 0x9E3779B97F4A7C15ull ^ (uint64_t)rank << 32 ^ i;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    return (unsigned char)(x >> 31);
}

static int fail(int rank, const char *what, int rc)
{
    fprintf(stderr, "reinit_prog: rank %d: %s returned %d\n", rank, what, rc);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: reinit_prog CONFIG SEED\n");
        return 2;
    }
    int seed = atoi(argv[2]), rank, rc;
    static unsigned char buf[NBUF];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    if ((rc = FTI_Init(argv[1], MPI_COMM_WORLD)) != FTI_SCES)
        return fail(rank, "first FTI_Init", rc);
    for (size_t i = 0; i < NBUF; i++)
        buf[i] = pattern(rank, seed, i);
    FTI_Protect(0, buf, NBUF, FTI_CHAR);
    if ((rc = FTI_Checkpoint(seed, 1)) != FTI_DONE)
        return fail(rank, "FTI_Checkpoint", rc);
    if ((rc = FTI_Finalize()) != FTI_SCES)
        return fail(rank, "first FTI_Finalize", rc);

    /* No barrier of ours here: FTI_Finalize's own ordering is under test. */
    if ((rc = FTI_Init(argv[1], MPI_COMM_WORLD)) != FTI_SCES)
        return fail(rank, "second FTI_Init", rc);
    int after_init = FTI_Status();
    memset(buf, 0, sizeof buf);
    FTI_Protect(0, buf, NBUF, FTI_CHAR);
    if ((rc = FTI_RecoverVarInit()) != FTI_SCES || (rc = FTI_RecoverVar(0)) != FTI_SCES ||
        (rc = FTI_RecoverVarFinalize()) != FTI_SCES)
        return fail(rank, "FTI_RecoverVar*", rc);
    int after_recovervar = FTI_Status();
    long wrong = 0;
    for (size_t i = 0; i < NBUF; i++)
        wrong += buf[i] != pattern(rank, seed, i);
    memset(buf, 0, sizeof buf);
    if ((rc = FTI_Recover()) != FTI_SCES)
        return fail(rank, "FTI_Recover", rc);
    int after_recover = FTI_Status();
    for (size_t i = 0; i < NBUF; i++)
        wrong += buf[i] != pattern(rank, seed, i);
    printf("reinit: rank %d after-init %d after-recovervar %d after-recover %d wrong %ld\n", rank,
           after_init, after_recovervar, after_recover, wrong);
    fflush(stdout);
    if ((rc = FTI_Finalize()) != FTI_SCES)
        return fail(rank, "second FTI_Finalize", rc);
    MPI_Finalize();
    return 0;
}
