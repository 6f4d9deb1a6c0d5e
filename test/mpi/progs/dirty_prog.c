/*
 * dirty_prog - differential checkpoints with dirty page tracking
 * ([advanced] dcp_dirty_tracking): several level-8 checkpoints in one run.
 *
 *   dirty_prog CONFIG FIRST LAST
 *
 * When FTI_Status() says restart, it first recovers and checks every byte
 * against the state of the step stored ("RESTORED step=S", exit 1 on a
 * difference). Then for s = FIRST..LAST it builds the state of step s from
 * the previous one and takes FTI_Checkpoint(s, 8), printing
 * "CKPT step=S pages=N" (rank 0), N the 4 KiB pages of var 1 it wrote.
 * The state of step s is a pure function of (s, rank):
 *   - var 1: 8 MiB of doubles, page-aligned; step s > 1 writes one double
 *     in 1% of its pages: some by this thread, one page by another thread,
 *     and 64 doubles of one page with MPI_Recv from the previous rank;
 *     steps 100 and 101 write every page instead of 1% (dcp_dirty_full.sh),
 *     step 111 every 8th page (dcp_dirty_scattered.sh);
 *   - var 2: 3000 bytes at an odd address (no whole page: not tracked);
 *   - var 0: the step.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NDBL (1024 * 1024) /* 8 MiB */
#define PER_PAGE 512       /* doubles in 4 KiB */
#define NPAGES (NDBL / PER_PAGE)
#define SMALL 3000
#define RECV_PAGE 1000     /* MPI_Recv lands here at every step */
#define THREAD_PAGE 1500   /* another thread writes here at every step */

/* 1% of the pages, a different choice each step (every page at steps 100
 * and 101, every 8th at 111); never RECV_PAGE or THREAD_PAGE. */
static int picked(int s, int64_t p)
{
    int all = s == 100 || s == 101;
    if (s == 111) /* every 8th page: scattered (dcp_dirty_scattered.sh) */
        return p != RECV_PAGE && p != THREAD_PAGE && p % 8 == 3;
    return p != RECV_PAGE && p != THREAD_PAGE && (all || (p * 7919 + (int64_t)s * 104729) % 100 == 0);
}

static double recv_value(int s, int src, int i)
{
    return s * 1000.0 + src * 10.0 + i;
}

/* Step s's changes, applied to a (the state of s - 1), except the MPI part. */
static int local_changes(double *a, int s)
{
    int n = 0;
    for (int64_t p = 0; p < NPAGES; p++)
        if (picked(s, p)) {
            a[p * PER_PAGE + s % PER_PAGE] += s;
            n++;
        }
    return n;
}

static void *thread_write(void *arg)
{
    int s = *(int *)((void **)arg)[1];
    double *a = ((void **)arg)[0];
    a[THREAD_PAGE * PER_PAGE + 3] = -s;
    return NULL;
}

static void recv_changes_expected(double *a, int s, int rank, int size)
{
    int src = (rank + size - 1) % size;
    for (int i = 0; i < 64; i++)
        a[RECV_PAGE * PER_PAGE + i] = recv_value(s, src, i);
}

/* The whole state of step s, built from scratch (for the check). */
static void state(double *a, unsigned char *small, int s, int rank, int size)
{
    for (int64_t i = 0; i < NDBL; i++)
        a[i] = rank * 1e7 + (double)i;
    for (int t = 2; t <= s; t++) {
        local_changes(a, t);
        a[THREAD_PAGE * PER_PAGE + 3] = -t;
        recv_changes_expected(a, t, rank, size);
    }
    for (int i = 0; i < SMALL; i++)
        small[i] = (unsigned char)(i * 7 + rank);
}

/* Step s's changes to the live buffers: this thread, another thread, MPI. */
static int step(double *a, int s, int rank, int size)
{
    int n = local_changes(a, s);
    void *arg[2] = {a, &s};
    pthread_t t;
    pthread_create(&t, NULL, thread_write, arg);
    pthread_join(t, NULL);
    double out[64];
    for (int i = 0; i < 64; i++)
        out[i] = recv_value(s, rank, i);
    MPI_Sendrecv(out, 64, MPI_DOUBLE, (rank + 1) % size, 5, &a[RECV_PAGE * PER_PAGE], 64,
                 MPI_DOUBLE, (rank + size - 1) % size, 5, FTI_COMM_WORLD, MPI_STATUS_IGNORE);
    return n + 2;
}

static int check(double *a, unsigned char *small, int stored, int rank, int size)
{
    double *ea = malloc(NDBL * sizeof *ea);
    unsigned char es[SMALL];
    state(ea, es, stored, rank, size);
    long bad = memcmp(ea, a, NDBL * sizeof *a) != 0 || memcmp(es, small, SMALL) != 0, all = 0;
    if (bad)
        fprintf(stderr, "rank %d: restored bytes differ from step %d\n", rank, stored);
    free(ea);
    MPI_Allreduce(&bad, &all, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("RESTORED step=%d\n", stored);
    return all != 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        MPI_Finalize();
        return 2;
    }
    int first = atoi(argv[2]), last = atoi(argv[3]), rank, size, stored = 0, rc = 0;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &size);
    double *a = NULL;
    unsigned char *block = malloc(SMALL + 64), *small = block + 5;
    if (posix_memalign((void **)&a, 4096, NDBL * sizeof *a) != 0)
        return 2;
    FTI_Protect(0, &stored, 1, FTI_INTG);
    FTI_Protect(1, a, NDBL, FTI_DBLE);
    FTI_Protect(2, small, SMALL, FTI_CHAR);
    if (FTI_Status() != 0) {
        rc = FTI_Recover() != FTI_SCES;
        if (rc == 0)
            rc = check(a, small, stored, rank, size);
    } else {
        state(a, small, first - 1, rank, size);
    }
    for (int s = first; rc == 0 && s <= last; s++) {
        int n = s > 1 ? step(a, s, rank, size) : NPAGES;
        stored = s;
        rc = FTI_Checkpoint(s, 8) != FTI_DONE;
        if (rc == 0 && rank == 0)
            printf("CKPT step=%d pages=%d\n", s, n);
        fflush(stdout);
    }
    FTI_Finalize();
    free(a);
    free(block);
    MPI_Finalize();
    return rc;
}
