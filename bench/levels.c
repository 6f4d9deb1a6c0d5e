/*
 * bench_levels - checkpoint and restart time of each level, each against a
 * ceiling measured in the same run, with the targets of issue 14.
 *
 *   mpiexec -n 4 -bind-to none bench_levels [DIR] [MIB[,MIB...]] [REPS]
 *   defaults: /dev/shm  64  3      (the full run: /dev/shm 512 3)
 *
 * Ceilings, per rank, slowest rank, median of REPS: raw write (write+fsync
 * of the same bytes, a new file and an overwrite), MPI ring bandwidth (each
 * rank sends its bytes to the next while receiving from the previous: the
 * L2 pattern), and read+hash (read the bytes back from a file into a
 * buffer, XXH3 over them, 1 MiB at a time: what a restart must at least do).
 * Checkpoints: FTI_Checkpoint at L1..L4 (L2 and L3 with block_size 1024 and
 * 8192 KiB), and L4 with inline_l4 = 0 (the application's wait). Restarts
 * (FTI_Init + FTI_Protect + FTI_Recover, bytes checked): nothing lost after
 * L1, one node lost after L2 and after L3 (node 1's folder deleted, nodes
 * simulated with local_test = 1), every node's local storage lost after L4.
 * The restarts compared with read+hash (nothing lost, L4) are each paired
 * with a read+hash of the same bytes into the same buffer just before them:
 * their ratios are to that paired ceiling. "Nothing lost" is judged against
 * two passes, a read+hash and a plain read (both paired): FTI_Init verifies
 * every file before it chooses a checkpoint, then FTI_Recover reads it.
 * L2 and L3 are judged against paired ceilings: right before each timed
 * checkpoint, one ring pass and one overwrite of the same bytes; the post
 * is the library's post_s (metrics_file), not L2 - L1 of two runs minutes
 * apart (both drift by 2x and more on a shared machine). The ratios to the
 * up-front ceilings are printed beside them.
 * Fresh: the first L1, L2 and L3 checkpoint of a new run (each in a run of
 * its own, nothing of it on disk yet: every file is made of new pages), the
 * target of issue 31 being L2 within 2x L1. Right before each fresh run, the
 * same steps without the library, on new files too: a new-file write (raw
 * fresh L1), a ring pass, and for L2 the whole raw sequence (own file, then
 * a ring pass of 8 MiB messages each written to a new partner file: raw
 * fresh L2). Raw fresh L2 over raw fresh L1 is this machine's own floor for
 * the 2x target; the fresh posts are judged against the paired bounds.
 * Phases: where the L2 and L3 posts spend their time (the library's metrics
 * file, post_<phase>_s of the slowest rank, median of the timed
 * checkpoints); the phases may overlap, so they do not sum to the post.
 * The load average is printed at the start and the end: under load the
 * times mean little. Prints one JSON line per size, then a table.
 *
 *   mpiexec -n 4 -bind-to none bench_levels DIR MIB REPS post
 *
 * Only the ceilings, L1, L2, L3 and the fresh runs (no L4, no restarts): a
 * quick look at the posts.
 *
 *   mpiexec -n 4 -bind-to none bench_levels DIR MIB rss:L   (bench/levels-rss.sh)
 *
 * Peak memory of level L alone (ru_maxrss only grows, so one level per
 * process): the protected data written, then two checkpoints at L (both
 * slots, as in a run), and one JSON line with the largest peak RSS over the
 * ranks before the first checkpoint and after the last, and its growth.
 */
#include <fti.h>
#include <mpi.h>

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "base/integrity.h"

#define MAX_REPS 16
#define NPHASE 9
#define NFIELD (NPHASE + 1) /* the phases, then post_s */
#define CHUNK ((size_t)1 << 20)

static const int block_kib[2] = {1024, 8192};

typedef struct ceilings {
    double write_new, write_over, mpi_ring, read_hash; /* bytes/s per rank */
} ceilings;

/* The library's post phases (base/phase_clock.h), as named in its metrics. */
static const char *const phase_name[NPHASE] = {"read",   "send",   "recv",   "write", "sync",
                                               "verify", "gather", "encode", "agree"};

/* Raw steps on new files, each measured right before a fresh run (medians,
 * seconds): a new-file write of the bytes, a ring pass, and (L2 only) the
 * raw fresh L2 sequence. */
typedef struct fresh_pair {
    double write_new, ring, raw_l2;
} fresh_pair;

typedef struct times {
    double l1, l2[2], l3[2], l4, l4_async;       /* checkpoints, [i]: block_kib[i] */
    double ph2[2][NFIELD], ph3[2][NFIELD];       /* their post phases, [NPHASE]: post */
    double f1, f2, f3;                           /* fresh runs' first checkpoints */
    double fph2[NFIELD], fph3[NFIELD];
    fresh_pair fp1, fp2, fp3;                    /* the raw steps paired with them */
    double ring2[2], write2[2], ring3[2];        /* paired ceilings (s), [i]: block_kib[i] */
    double pipe2[2];                             /* the hand-made L2 post, paired */
    double r_none, r_l2_node, r_l3_node[2], r_l4_all; /* restarts */
    double rh_none, rh_l4_all; /* read+hash right before each of those restarts (paired) */
    double rd_none;            /* and a plain read (the second pass), before "nothing lost" */
} times;

static int rank, nranks;
static int post_only; /* "post": no L4, no restarts */

/* ---- setup ----------------------------------------------------------------- */

/* keep = 1: files stay at FTI_Finalize (keep_last_ckpt with keep_all_levels),
 * for the restart cases; 0: FTI's default removal, for the checkpoint times.
 * ckpt_l4_iter: the bench never calls FTI_Snapshot, so this interval never
 * fires; it only spares the library's warning that no level is scheduled. */
static void write_config(const char *path, const char *dir, int inline_l4, int bs_kib, int keep)
{
    /* metrics: where the posts spend their time (one reduction per checkpoint) */
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        if (f == NULL) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        fprintf(f, "[basic]\nnode_size = 1\ngroup_size = %d\nckpt_dir = %s/local\nglbl_dir = %s/global\n"
                   "meta_dir = %s/meta\nmetrics_file = %s/metrics.jsonl\ninline_l4 = %d\n"
                   "keep_last_ckpt = %d\nkeep_all_levels = %d\n"
                   "verbosity = 3\nckpt_l4_iter = 2147483647\n[restart]\nexec_id = bench\n[advanced]\nlocal_test = 1\n"
                   "block_size = %d\n",
                nranks < 4 ? nranks : 4, dir, dir, dir, dir, inline_l4, keep, keep, bs_kib);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Rank 0 removes dir/<sub>; everyone waits. */
static void remove_sub(const char *dir, const char *sub)
{
    if (rank == 0) {
        char path[4300];
        snprintf(path, sizeof path, "%s/%s", dir, sub);
        bench_rmtree(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- ceilings ------------------------------------------------------------ */

/* Bytes of the message at off of a pass over len bytes in chunk-byte
 * messages: chunk, or what is left. */
static size_t piece_at(size_t len, size_t chunk, size_t off)
{
    return len - off < chunk ? len - off : chunk;
}

/* One pass of the ring pattern over len bytes into `in`: the slowest
 * rank's seconds. */
static double ring_once(const char *buf, char *in, size_t len)
{
    size_t chunk = 16u << 20;
    int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (size_t off = 0; off < len; off += chunk) {
        int n = (int)piece_at(len, chunk, off);
        MPI_Sendrecv(buf + off, n, MPI_BYTE, right, 7, in + off, n, MPI_BYTE, left, 7,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
}

/* The receive buffers of the ring ceilings are page-aligned and touched,
 * as the library's are (fti_io_alloc): a malloc'ed buffer 16 bytes off a
 * page made every pass 2.5x slower with MPICH over UCX (its single-copy
 * transfer), a ceiling the library beat without being fast. */
static double ring_bandwidth(const char *buf, size_t len, int reps)
{
    char *in = bench_alloc(len, 7);
    double t[MAX_REPS];
    for (int r = 0; r < reps; r++)
        t[r] = ring_once(buf, in, len);
    free(in);
    return (double)len / bench_median(t, reps);
}

static double write_bandwidth(const char *dir, const char *buf, size_t len, int reps, int fresh)
{
    char path[4200];
    double t[MAX_REPS];
    snprintf(path, sizeof path, "%s/raw-%d", dir, rank);
    bench_write_file(path, O_CREAT | O_WRONLY | O_TRUNC, buf, len); /* exists for overwrites */
    for (int r = 0; r < reps; r++) {
        if (fresh)
            remove(path);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        bench_write_file(path, fresh ? O_CREAT | O_EXCL | O_WRONLY : O_WRONLY, buf, len);
        t[r] = bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
    }
    remove(path);
    return (double)len / bench_median(t, reps);
}

/* Reads path into dst, hashing each 1 MiB piece while it is in cache
 * (hash = 0: reads only). */
static void read_and_hash(const char *path, char *dst, size_t len, int hash)
{
    int fd = open(path, O_RDONLY);
    fti_hash h;
    if (fd < 0 || fti_hash_init(&h) != 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t off = 0; off < len;) {
        ssize_t n = pread(fd, dst + off, len - off < CHUNK ? len - off : CHUNK, (off_t)off);
        if (n <= 0) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        if (hash)
            fti_hash_update(&h, dst + off, (size_t)n);
        off += (size_t)n;
    }
    volatile uint64_t sum = fti_hash_final(&h);
    (void)sum;
    fti_hash_free(&h);
    close(fd);
}

/* read_and_hash on every rank at once: the slowest rank's seconds. */
static double read_and_hash_time(const char *path, char *dst, size_t len, int hash)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    read_and_hash(path, dst, len, hash);
    return bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
}

static double read_hash_bandwidth(const char *dir, const char *buf, size_t len, int reps)
{
    char path[4200];
    double t[MAX_REPS];
    char *dst = bench_alloc(len, 99); /* touched, as the application's buffers are */
    snprintf(path, sizeof path, "%s/raw-%d", dir, rank);
    bench_write_file(path, O_CREAT | O_WRONLY | O_TRUNC, buf, len);
    for (int r = 0; r < reps; r++)
        t[r] = read_and_hash_time(path, dst, len, 1);
    remove(path);
    free(dst);
    return (double)len / bench_median(t, reps);
}

/* ---- post phases (the library's metrics file) ------------------------------------ */

/* The value of "key": in a metrics line, 0 when absent. */
static double field(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p != NULL ? atof(p + strlen(pat)) : 0.0;
}

/* Rank 0: the median of each post phase over the last `n` checkpoint lines
 * of `level` in dir/metrics.jsonl, into ph (zeros when there are none). */
static void read_phases(const char *dir, int level, int n, double ph[NFIELD])
{
    char path[4200], line[4096], want[32];
    double v[NFIELD][MAX_REPS];
    int have = 0;
    memset(ph, 0, NFIELD * sizeof *ph);
    snprintf(path, sizeof path, "%s/metrics.jsonl", dir);
    snprintf(want, sizeof want, "\"level\":%d,", level);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strstr(line, "\"event\":\"checkpoint\"") == NULL || strstr(line, want) == NULL)
            continue;
        int slot = have++ % n; /* keeps the last n */
        for (int p = 0; p < NPHASE; p++) {
            char key[40];
            snprintf(key, sizeof key, "post_%s_s", phase_name[p]);
            v[p][slot] = field(line, key);
        }
        v[NPHASE][slot] = field(line, "post_s");
    }
    fclose(f);
    if (have > n)
        have = n;
    for (int p = 0; have > 0 && p < NFIELD; p++)
        ph[p] = bench_median(v[p], have);
}

/* ---- checkpoints ------------------------------------------------------------ */

static double checkpoint_time(int level, int id)
{
    MPI_Barrier(FTI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = FTI_Checkpoint(id, level);
    double t = MPI_Wtime() - t0;
    if (rc != FTI_DONE) {
        fprintf(stderr, "bench_levels: FTI_Checkpoint(level %d) failed\n", level);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return bench_max(t, FTI_COMM_WORLD);
}

/* Ceilings measured right before each timed checkpoint of a level, so
 * that ceiling and case share the machine's state of the moment (on a
 * shared machine the up-front ceilings drift from the cases by 2x and
 * more): the median seconds of a ring pass and of an overwrite of the
 * checkpoint's bytes. */
typedef struct paired {
    const char *dir;
    const char *data;
    size_t len;
    double ring, write, pipeline; /* seconds, medians */
} paired;

/* n bytes of buf at offset off of the open file path, or the job ends. */
static void pwrite_all(int fd, const char *path, const char *buf, size_t n, size_t off)
{
    for (size_t done = 0; done < n;) {
        ssize_t w = pwrite(fd, buf + done, n - done, (off_t)(off + done));
        if (w <= 0) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        done += (size_t)w;
    }
}

static void sync_close(int fd, const char *path)
{
    if (fsync(fd) != 0 || close(fd) != 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* MPI_Wait that leaves the CPU to others between its polls: with more ranks
 * than CPUs a spinning wait holds the CPU the peer needs to make progress. */
static void wait_yielding(MPI_Request *req)
{
    int done = 0;
    for (MPI_Test(req, &done, MPI_STATUS_IGNORE); !done; MPI_Test(req, &done, MPI_STATUS_IGNORE))
        sched_yield();
}

/* An L2 post done by hand, the best of the variants tried on the 2-core
 * machine of issue 31: 8 MiB messages (the library's) sent from memory, two
 * in flight, yielding waits, each received message written over the file
 * at path between the transfers. What the machine allows an L2 post, beside
 * the bound min(write, ring). Seconds, slowest rank. */
static double raw_post_once(const char *data, size_t len, char *in[2], const char *path)
{
    size_t chunk = 8u << 20, nk = (len + chunk - 1) / chunk;
    int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
    MPI_Request rq[2], sq[2];
    int fd = open(path, O_WRONLY);
    if (fd < 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int n0 = (int)piece_at(len, chunk, 0);
    MPI_Irecv(in[0], n0, MPI_BYTE, left, 9, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(data, n0, MPI_BYTE, right, 9, MPI_COMM_WORLD, &sq[0]);
    /* message k+1 travels while message k is written */
    for (size_t k = 0; k < nk; k++) {
        size_t n = piece_at(len, chunk, k * chunk);
        wait_yielding(&rq[k & 1]);
        wait_yielding(&sq[k & 1]);
        if (k + 1 < nk) {
            int n1 = (int)piece_at(len, chunk, (k + 1) * chunk);
            MPI_Isend(data + (k + 1) * chunk, n1, MPI_BYTE, right, 9, MPI_COMM_WORLD,
                      &sq[(k + 1) & 1]);
            MPI_Irecv(in[(k + 1) & 1], n1, MPI_BYTE, left, 9, MPI_COMM_WORLD, &rq[(k + 1) & 1]);
        }
        pwrite_all(fd, path, in[k & 1], n, k * chunk);
    }
    sync_close(fd, path);
    return bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
}

/* One pass of each ceiling into ring, write and (pipe != NULL) the hand-made
 * L2 post, whose receive buffers are pipe. */
static void pair_once(const paired *p, char *in, char *pipe[2], double *ring, double *write,
                      double *pipeline)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/raw-%d", p->dir, rank);
    *ring = ring_once(p->data, in, p->len);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    bench_write_file(path, O_WRONLY, p->data, p->len);
    *write = bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
    *pipeline = pipe != NULL ? raw_post_once(p->data, p->len, pipe, path) : 0;
}

/* Median time of `reps` checkpoints at `level`, after two warm-ups (both
 * slots exist afterwards). With inline_l4 = 0 the background flush gets
 * time to finish between checkpoints, as computation would give it.
 * pair (or NULL): the ceilings, each pass right before a timed checkpoint. */
static double level_time(int level, int reps, int inline_l4, int *id, paired *pair)
{
    double t[MAX_REPS], ring[MAX_REPS], write[MAX_REPS], pipeline[MAX_REPS];
    char *in = NULL, *pipe[2] = {NULL, NULL};
    if (pair != NULL) {
        char path[4200];
        snprintf(path, sizeof path, "%s/raw-%d", pair->dir, rank);
        bench_write_file(path, O_CREAT | O_WRONLY | O_TRUNC, pair->data, pair->len);
        in = bench_alloc(pair->len, 7);
        if (level == 2) {
            pipe[0] = bench_alloc(8u << 20, 8);
            pipe[1] = bench_alloc(8u << 20, 9);
        }
    }
    checkpoint_time(level, (*id)++);
    checkpoint_time(level, (*id)++);
    for (int r = 0; r < reps; r++) {
        if (pair != NULL)
            pair_once(pair, in, level == 2 ? pipe : NULL, &ring[r], &write[r], &pipeline[r]);
        t[r] = checkpoint_time(level, (*id)++);
        if (!inline_l4) {
            double wait = 4 * t[r] + 0.2;
            struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
            nanosleep(&ts, NULL);
        }
    }
    if (pair != NULL) {
        char path[4200];
        snprintf(path, sizeof path, "%s/raw-%d", pair->dir, rank);
        remove(path);
        free(in);
        free(pipe[0]);
        free(pipe[1]);
        pair->ring = bench_median(ring, reps);
        pair->write = bench_median(write, reps);
        pair->pipeline = level == 2 ? bench_median(pipeline, reps) : 0;
    }
    return bench_median(t, reps);
}

static void remove_run(const char *dir)
{
    remove_sub(dir, "local");
    remove_sub(dir, "global");
    remove_sub(dir, "meta");
    remove_sub(dir, "metrics.jsonl");
}

/* levels: bit L set = time level L into out[L], its post phases into
 * ph[L] (rank 0; ph may be NULL) and, for levels 2 and 3, the paired
 * ceilings into pair[L] (pair may be NULL: not measured). */
static void run_levels(const char *dir, void *data, size_t len, int reps, int inline_l4, int bs,
                       unsigned levels, double *out, double (*ph)[NFIELD], paired *pair)
{
    char cfg[4200];
    snprintf(cfg, sizeof cfg, "%s/bench.fti", dir);
    write_config(cfg, dir, inline_l4, bs, 0);
    FTI_Init(cfg, MPI_COMM_WORLD);
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    int id = 1;
    for (int level = 1; level <= 4; level++)
        if (levels & (1u << level))
            out[level] = level_time(level, reps, inline_l4, &id,
                                    pair != NULL && (level == 2 || level == 3) ? &pair[level] : NULL);
    FTI_Finalize();
    for (int level = 1; rank == 0 && ph != NULL && level <= 4; level++)
        if (levels & (1u << level))
            read_phases(dir, level, reps, ph[level]);
    remove_run(dir);
}

/* Writes message after message of a ring pass (8 MiB, the fresh runs'
 * block_size) from buf into a new file at path, as an L2 post stores a
 * partner copy, without the library. */
static void ring_into_new_file(const char *path, const char *buf, size_t len)
{
    size_t chunk = 8u << 20;
    int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
    char *in = bench_alloc(chunk, 7);
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
    if (in == NULL || fd < 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (size_t off = 0; off < len; off += chunk) {
        int n = (int)piece_at(len, chunk, off);
        MPI_Sendrecv(buf + off, n, MPI_BYTE, right, 7, in, n, MPI_BYTE, left, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        pwrite_all(fd, path, in, (size_t)n, off);
    }
    sync_close(fd, path);
    free(in);
}

/* One pass of the raw steps paired with a fresh run at `level`, into
 * write_new, ring and (level 2) raw_l2 of out; every file is new and
 * removed afterwards. in: len bytes already touched, the ring's receive
 * buffer (new pages there would time page faults the library's reused
 * buffers do not take). */
static void fresh_pair_once(const char *dir, const char *data, char *in, size_t len, int level,
                            fresh_pair *out)
{
    char own[4200], partner[4200];
    snprintf(own, sizeof own, "%s/raw-%d", dir, rank);
    snprintf(partner, sizeof partner, "%s/raw-partner-%d", dir, rank);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    bench_write_file(own, O_CREAT | O_EXCL | O_WRONLY, data, len);
    out->write_new = bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
    remove(own);
    out->ring = ring_once(data, in, len);
    out->raw_l2 = 0;
    if (level == 2) {
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        bench_write_file(own, O_CREAT | O_EXCL | O_WRONLY, data, len);
        ring_into_new_file(partner, data, len);
        out->raw_l2 = bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
        remove(own);
        remove(partner);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* The first checkpoint at `level` of a new run: nothing on disk yet (no
 * file, no page of one), as at the start of a job. Median of reps runs;
 * the post phases of those into ph (rank 0; NULL: not kept), the raw steps
 * measured right before each run into *pair (medians). */
static double fresh_time(const char *dir, void *data, size_t len, int reps, int level,
                         double ph[NFIELD], fresh_pair *pair)
{
    char cfg[4200];
    double t[MAX_REPS], p[MAX_REPS][NFIELD], w[MAX_REPS], g[MAX_REPS], l2[MAX_REPS];
    char *in = bench_alloc(len, 7);
    snprintf(cfg, sizeof cfg, "%s/bench.fti", dir);
    for (int r = 0; r < reps; r++) {
        fresh_pair one;
        fresh_pair_once(dir, data, in, len, level, &one);
        w[r] = one.write_new, g[r] = one.ring, l2[r] = one.raw_l2;
        write_config(cfg, dir, 1, 8192, 0);
        FTI_Init(cfg, MPI_COMM_WORLD);
        FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
        t[r] = checkpoint_time(level, 1);
        FTI_Finalize();
        if (rank == 0)
            read_phases(dir, level, 1, p[r]);
        remove_run(dir);
    }
    for (int i = 0; rank == 0 && ph != NULL && i < NFIELD; i++) {
        double v[MAX_REPS];
        for (int r = 0; r < reps; r++)
            v[r] = p[r][i];
        ph[i] = bench_median(v, reps);
    }
    free(in);
    *pair = (fresh_pair){bench_median(w, reps), bench_median(g, reps), bench_median(l2, reps)};
    return bench_median(t, reps);
}

/* ---- restarts ---------------------------------------------------------------- */

enum loss { LOSE_NOTHING, LOSE_NODE1, LOSE_ALL_LOCAL };

static void check(int ok, const char *what, int level)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            fprintf(stderr, "bench_levels: restart after L%d: %s\n", level, what);
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
}

/* One restart: checkpoint at `level`, finalize, lose, then the timed
 * FTI_Init + FTI_Protect + FTI_Recover; the restored bytes are checked. */
static double restart_once(const char *dir, char *data, size_t len, int level, int bs, int loss)
{
    char cfg[4200];
    snprintf(cfg, sizeof cfg, "%s/bench.fti", dir);
    write_config(cfg, dir, 1, bs, 1);
    uint64_t sum = fti_hash_buffer(data, len);
    FTI_Init(cfg, MPI_COMM_WORLD);
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    check(FTI_Checkpoint(1, level) == FTI_DONE, "checkpoint failed", level);
    FTI_Finalize();
    if (loss == LOSE_NODE1)
        remove_sub(dir, "local/node1");
    else if (loss == LOSE_ALL_LOCAL)
        remove_sub(dir, "local");
    memset(data, 0, len); /* what FTI_Recover must undo (untimed) */
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    FTI_Init(cfg, MPI_COMM_WORLD);
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    int rc = FTI_Status() != 0 ? FTI_Recover() : FTI_NSCS;
    double t = bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
    check(rc == FTI_SCES, "FTI_Recover failed", level);
    check(fti_hash_buffer(data, len) == sum, "restored bytes differ", level);
    FTI_Finalize();
    remove_run(dir);
    return t;
}

/* Median restart time. paired (or NULL: not measured): the median
 * read+hash time of the same bytes (raw_path) into the same buffer, each
 * measured right before a restart, so that ceiling and case share the
 * machine's state of the moment (the up-front ceiling is minutes older; on
 * a shared 2-core machine the two drift apart by 20-30%); read_only (or
 * NULL): the median of a plain read measured with it. */
static double restart_time(const char *dir, char *data, size_t len, int level, int bs, int loss,
                           int reps, const char *raw_path, double *paired, double *read_only)
{
    double t[MAX_REPS], c[MAX_REPS], d[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        if (paired != NULL) /* the file holds data's bytes: data unchanged */
            c[r] = read_and_hash_time(raw_path, data, len, 1);
        if (read_only != NULL)
            d[r] = read_and_hash_time(raw_path, data, len, 0);
        t[r] = restart_once(dir, data, len, level, bs, loss);
    }
    if (paired != NULL)
        *paired = bench_median(c, reps);
    if (read_only != NULL)
        *read_only = bench_median(d, reps);
    return bench_median(t, reps);
}

/* ---- report -------------------------------------------------------------------- */

/* ,"name":{"read":x,...} into the JSON line. */
static void json_phases(const char *name, const double ph[NFIELD])
{
    printf(",\"%s\":{", name);
    for (int p = 0; p < NPHASE; p++)
        printf("%s\"%s\":%.4f", p ? "," : "", phase_name[p], ph[p]);
    printf(",\"post\":%.4f}", ph[NPHASE]);
}

/* The table's line of a post's phases: the nonzero ones, in seconds. */
static void table_phases(const char *name, const double ph[NPHASE])
{
    printf("    %-38s", name);
    for (int p = 0; p < NPHASE; p++)
        if (ph[p] >= 0.0005)
            printf(" %s %.3f", phase_name[p], ph[p]);
    printf("\n");
}

/* "name t s (ratio r, target >= x)" with a mark when the target is missed. */
static void line(const char *name, double t, double ratio, const char *op, double target)
{
    int met = op[0] == '>' ? ratio >= target : ratio <= target;
    printf("  %-40s %8.3f s   ratio %6.2f  (target %s %.2f)%s\n", name, t, ratio, op, target,
           met ? "" : "  MISSED");
}

/* A case without a target in issue 14: its time and a reference ratio. */
static void info(const char *name, double t, double ratio, const char *of)
{
    printf("  %-40s %8.3f s   ratio %6.2f  (%s; no target)\n", name, t, ratio, of);
}

/* The L4 and restart lines (not measured with "post"). */
static void report_rest(const times *m, double raw, double rh)
{
    line("L4 (vs raw new-file write)", m->l4, raw / m->l4, ">=", 0.85);
    info("L4 inline_l4=0, application wait", m->l4_async, m->l4_async / m->l1, "x L1");
    /* FTI_Init verifies every file before it chooses (decided: FTI's suites
     * corrupt files between runs), then FTI_Recover reads them: two passes */
    line("restart, nothing lost (vs read+hash, then read)", m->r_none,
         (m->rh_none + m->rd_none) / m->r_none, ">=", 0.8);
    printf("    paired read+hash %.3f s, read %.3f s\n", m->rh_none, m->rd_none);
    info("  the same against one read+hash", m->r_none, m->rh_none / m->r_none, "one pass");
    info("  and against the up-front read+hash", m->r_none, rh / m->r_none, "drifted ceiling");
    info("restart, L2 one node lost", m->r_l2_node, m->r_l2_node / m->l2[1], "x L2 bs 8192");
    for (int b = 0; b < 2; b++) {
        char name[64];
        snprintf(name, sizeof name, "restart, L3 bs %d one node (x L3)", block_kib[b]);
        line(name, m->r_l3_node[b], m->r_l3_node[b] / m->l3[b], "<=", 2.0);
    }
    info("restart, L4 all local lost", m->r_l4_all, m->rh_l4_all / m->r_l4_all, "of read+hash");
}

/* The fresh runs' lines: against their paired raw steps, and the 2x target
 * beside what the raw steps alone take. With at least as many ranks as
 * CPUs, each raw step by itself keeps every CPU busy (4 ranks copying at
 * once), so no overlap can beat their sum: own new-file write + ring pass +
 * partner new-file write. */
static void report_fresh(const times *m)
{
    const fresh_pair *p1 = &m->fp1, *p2 = &m->fp2, *p3 = &m->fp3;
    double post2 = m->fph2[NPHASE], post3 = m->fph3[NPHASE];
    double b2 = p2->ring > p2->write_new ? p2->ring : p2->write_new;
    double sum2 = 2 * p2->write_new + p2->ring;
    double b3 = (double)((nranks < 4 ? nranks : 4) - 1) * p3->ring;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    info("fresh run: first L1 (vs raw new-file write)", m->f1, p1->write_new / m->f1,
         "of the paired write");
    printf("    %.2fx the steady L1\n", m->f1 / m->l1);
    line("fresh run: first L2 (x first L1)", m->f2, m->f2 / m->f1, "<=", 2.0);
    printf("    raw steps: new-file write %.3f s, ring %.3f s; own + ring + partner %.3f s = %.2fx "
           "the first L1\n", p2->write_new, p2->ring, sum2, sum2 / m->f1);
    if (nranks >= cpus)
        printf("    (%d ranks on %ld CPUs: each raw step keeps every CPU busy, so that sum bounds "
               "the first L2)\n", nranks, cpus);
    printf("    raw fresh L2, one step after the other: %.3f s = %.2fx the first L1\n", p2->raw_l2,
           p2->raw_l2 / m->f1);
    line("fresh run: L2 post vs paired min(write,ring)", post2, post2 > 0 ? b2 / post2 : 0, ">=", 0.9);
    info("fresh run: L2 post vs paired ring + write", post2,
         post2 > 0 ? (p2->ring + p2->write_new) / post2 : 0, "the steps' sum");
    table_phases("post phases (s):", m->fph2);
    info("fresh run: first L3", m->f3, m->f3 / m->f1, "x first L1");
    line("fresh run: L3 post vs paired comm bound", post3, post3 > 0 ? b3 / post3 : 0, ">=", 0.9);
    printf("    paired ring %.3f s\n", p3->ring);
    table_phases("post phases (s):", m->fph3);
}

static void report(const char *dir, int mib, const ceilings *c, const times *m, const char *load0)
{
    double len = (double)mib * (1 << 20);
    double l2_ceiling = c->write_over < c->mpi_ring ? c->write_over : c->mpi_ring;
    double l3_bound = (double)((nranks < 4 ? nranks : 4) - 1) * len / c->mpi_ring; /* seconds */
    double raw = len / c->write_new, rh = len / c->read_hash;
    printf("{\"bench\":\"levels\",\"dir\":\"%s\",\"ranks\":%d,\"mib_per_rank\":%d,"
           "\"raw_write_new_gbps\":%.3f,\"raw_write_overwrite_gbps\":%.3f,"
           "\"mpi_ring_gbps_per_rank\":%.3f,\"read_hash_gbps\":%.3f,\"t_l1\":%.4f,"
           "\"t_l2_bs1024\":%.4f,\"t_l2_bs8192\":%.4f,\"t_l3_bs1024\":%.4f,\"t_l3_bs8192\":%.4f,"
           "\"t_l4\":%.4f,\"t_l4_async_wait\":%.4f,\"t_restart_none\":%.4f,"
           "\"t_restart_l2_node\":%.4f,\"t_restart_l3_node_bs1024\":%.4f,"
           "\"t_restart_l3_node_bs8192\":%.4f,\"t_restart_l4_all_local\":%.4f,"
           "\"t_read_hash_before_restart_none\":%.4f,\"t_read_before_restart_none\":%.4f,"
           "\"t_read_hash_before_restart_l4\":%.4f,"
           "\"t_fresh_l1\":%.4f,\"t_fresh_l2\":%.4f,\"t_fresh_l3\":%.4f,"
           "\"load_start\":\"%s\"",
           dir, nranks, mib, c->write_new * nranks / 1e9, c->write_over * nranks / 1e9,
           c->mpi_ring / 1e9, c->read_hash * nranks / 1e9, m->l1, m->l2[0], m->l2[1], m->l3[0],
           m->l3[1], m->l4, m->l4_async, m->r_none, m->r_l2_node, m->r_l3_node[0], m->r_l3_node[1],
           m->r_l4_all, m->rh_none, m->rd_none, m->rh_l4_all, m->f1, m->f2, m->f3, load0);
    for (int b = 0; b < 2; b++) {
        char name[40];
        snprintf(name, sizeof name, "phases_l2_bs%d", block_kib[b]);
        json_phases(name, m->ph2[b]);
        snprintf(name, sizeof name, "phases_l3_bs%d", block_kib[b]);
        json_phases(name, m->ph3[b]);
    }
    for (int b = 0; b < 2; b++)
        printf(",\"paired_bs%d\":{\"l2_ring_s\":%.4f,\"l2_overwrite_s\":%.4f,\"l3_ring_s\":%.4f,"
               "\"l2_hand_made_post_s\":%.4f}",
               block_kib[b], m->ring2[b], m->write2[b], m->ring3[b], m->pipe2[b]);
    json_phases("phases_fresh_l2", m->fph2);
    json_phases("phases_fresh_l3", m->fph3);
    printf(",\"fresh_paired\":{\"l1_write_new_s\":%.4f,\"l2_write_new_s\":%.4f,\"l2_ring_s\":%.4f,"
           "\"raw_fresh_l2_s\":%.4f,\"l3_ring_s\":%.4f}}\n",
           m->fp1.write_new, m->fp2.write_new, m->fp2.ring, m->fp2.raw_l2, m->fp3.ring);
    printf("%d ranks x %d MiB in %s\n", nranks, mib, dir);
    printf("  ceilings: write %.2f GB/s new, %.2f GB/s overwrite (all ranks); MPI ring %.2f GB/s "
           "per rank; read+hash %.2f GB/s (all ranks)\n", c->write_new * nranks / 1e9,
           c->write_over * nranks / 1e9, c->mpi_ring / 1e9, c->read_hash * nranks / 1e9);
    line("L1 (vs raw new-file write)", m->l1, raw / m->l1, ">=", 0.9);
    for (int b = 0; b < 2; b++) {
        char name[64];
        double post2 = m->l2[b] - m->l1, post3 = m->l3[b] - m->l1;
        double p2 = m->ph2[b][NPHASE], p3 = m->ph3[b][NPHASE]; /* the library's post_s */
        double b2 = m->ring2[b] > m->write2[b] ? m->ring2[b] : m->write2[b];
        double b3 = (double)((nranks < 4 ? nranks : 4) - 1) * m->ring3[b];
        snprintf(name, sizeof name, "L2 bs %d (post vs paired min(write,ring))", block_kib[b]);
        line(name, m->l2[b], p2 > 0 ? b2 / p2 : 0, ">=", 0.9);
        printf("    post %.3f s; paired ring %.3f s, overwrite %.3f s; vs up-front ceilings %.2f\n",
               p2, m->ring2[b], m->write2[b], post2 > 0 ? len / l2_ceiling / post2 : 0);
        printf("    hand-made post (8 MiB messages, yielding waits) %.3f s: %.2f of the bound; "
               "the post is %.2f of it\n", m->pipe2[b], m->pipe2[b] > 0 ? b2 / m->pipe2[b] : 0,
               p2 > 0 ? m->pipe2[b] / p2 : 0);
        table_phases("post phases (s):", m->ph2[b]);
        snprintf(name, sizeof name, "L3 bs %d (post vs paired comm bound)", block_kib[b]);
        line(name, m->l3[b], p3 > 0 ? b3 / p3 : 0, ">=", 0.9);
        printf("    post %.3f s; paired ring %.3f s; vs up-front ceiling %.2f\n", p3, m->ring3[b],
               post3 > 0 ? l3_bound / post3 : 0);
        table_phases("post phases (s):", m->ph3[b]);
    }
    report_fresh(m);
    if (!post_only)
        report_rest(m, raw, rh);
    char load1[128];
    bench_loadavg_text(load1, sizeof load1);
    printf("  load average: start %s | end %s\n", load0, load1);
}

static void run_size(const char *base, int mib, int reps, const char *load0)
{
    size_t len = (size_t)mib << 20;
    char dir[4096];
    bench_mkdtemp(base, "fti-bench-levels-", dir, sizeof dir, MPI_COMM_WORLD);
    char *data = bench_alloc(len, 1 + (unsigned)rank);
    ceilings c;
    c.write_new = write_bandwidth(dir, data, len, reps, 1);
    c.write_over = write_bandwidth(dir, data, len, reps, 0);
    c.mpi_ring = ring_bandwidth(data, len, reps);
    c.read_hash = read_hash_bandwidth(dir, data, len, reps);
    times m;
    memset(&m, 0, sizeof m);
    double t[5] = {0}, ph[5][NFIELD];
    paired pair[5];
    for (int l = 0; l < 5; l++)
        pair[l] = (paired){dir, data, len, 0, 0, 0};
    m.f1 = fresh_time(dir, data, len, reps, 1, NULL, &m.fp1);
    m.f2 = fresh_time(dir, data, len, reps, 2, m.fph2, &m.fp2);
    m.f3 = fresh_time(dir, data, len, reps, 3, m.fph3, &m.fp3);
    run_levels(dir, data, len, reps, 1, 8192, 1u << 1 | (post_only ? 0 : 1u << 4), t, NULL, NULL);
    m.l1 = t[1], m.l4 = t[4];
    for (int b = 0; b < 2; b++) {
        run_levels(dir, data, len, reps, 1, block_kib[b], 1u << 2 | 1u << 3, t, ph, pair);
        m.l2[b] = t[2], m.l3[b] = t[3];
        m.ring2[b] = pair[2].ring, m.write2[b] = pair[2].write, m.ring3[b] = pair[3].ring;
        m.pipe2[b] = pair[2].pipeline;
        memcpy(m.ph2[b], ph[2], sizeof m.ph2[b]);
        memcpy(m.ph3[b], ph[3], sizeof m.ph3[b]);
    }
    if (post_only) {
        if (rank == 0)
            report(dir, mib, &c, &m, load0);
        free(data);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            bench_rmtree(dir);
        return;
    }
    run_levels(dir, data, len, reps, 0, 8192, 1u << 4, t, NULL, NULL);
    m.l4_async = t[4];
    char raw[4200];
    snprintf(raw, sizeof raw, "%s/raw-%d", dir, rank);
    bench_write_file(raw, O_CREAT | O_WRONLY | O_TRUNC, data, len);
    m.r_none = restart_time(dir, data, len, 1, 8192, LOSE_NOTHING, reps, raw, &m.rh_none,
                            &m.rd_none);
    m.r_l2_node = restart_time(dir, data, len, 2, 8192, LOSE_NODE1, reps, raw, NULL, NULL);
    for (int b = 0; b < 2; b++)
        m.r_l3_node[b] = restart_time(dir, data, len, 3, block_kib[b], LOSE_NODE1, reps, raw,
                                      NULL, NULL);
    m.r_l4_all = restart_time(dir, data, len, 4, 8192, LOSE_ALL_LOCAL, reps, raw, &m.rh_l4_all,
                              NULL);
    remove(raw);
    if (rank == 0)
        report(dir, mib, &c, &m, load0);
    free(data);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        bench_rmtree(dir);
}

/* ---- peak memory of one level ------------------------------------------------ */

/* This process's peak resident set so far, MiB, largest over the ranks. */
static double peak_rss_mib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double mine = (double)ru.ru_maxrss / 1024.0, all = 0; /* ru_maxrss: KiB on Linux */
    MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

static void run_rss(const char *base, int mib, int level)
{
    size_t len = (size_t)mib << 20;
    char dir[4096], cfg[4200];
    bench_mkdtemp(base, "fti-bench-rss-", dir, sizeof dir, MPI_COMM_WORLD);
    char *data = bench_alloc(len, 1 + (unsigned)rank);
    snprintf(cfg, sizeof cfg, "%s/bench.fti", dir);
    write_config(cfg, dir, 1, 8192, 0);
    FTI_Init(cfg, MPI_COMM_WORLD);
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    double before = peak_rss_mib();
    double t1 = checkpoint_time(level, 1), t2 = checkpoint_time(level, 2);
    double after = peak_rss_mib();
    FTI_Finalize();
    if (rank == 0)
        printf("{\"bench\":\"levels_rss\",\"dir\":\"%s\",\"ranks\":%d,\"mib_per_rank\":%d,"
               "\"level\":%d,\"peak_rss_mib_before\":%.1f,\"peak_rss_mib\":%.1f,"
               "\"growth_mib\":%.1f,\"first_s\":%.3f,\"second_s\":%.3f}\n",
               base, nranks, mib, level, before, after, after - before, t1, t2);
    free(data);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        bench_rmtree(dir);
}

static const char usage[] =
    "usage: mpiexec -n 4 -bind-to none bench_levels [DIR] [MIB[,MIB...]] [REPS]\n"
    "       mpiexec -n 4 -bind-to none bench_levels DIR MIB REPS post   (ceilings, L1-L3, fresh runs)\n"
    "       mpiexec -n 4 -bind-to none bench_levels DIR MIB rss:L   (peak RSS of level L)\n"
    "checkpoint and restart time of each level against ceilings measured in the same\n"
    "run; defaults /dev/shm 64 3\n";

int main(int argc, char **argv)
{
    if (bench_answered_help(argc, argv, usage))
        return 0;
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    char load0[128];
    bench_loadavg_text(load0, sizeof load0);
    if (rank == 0)
        printf("load average at start: %s\n", load0);
    const char *base = argc > 1 ? argv[1] : "/dev/shm";
    if (argc > 3 && strncmp(argv[3], "rss:", 4) == 0) {
        run_rss(base, atoi(argv[2]), atoi(argv[3] + 4));
        MPI_Finalize();
        return 0;
    }
    char sizes[256];
    snprintf(sizes, sizeof sizes, "%s", argc > 2 ? argv[2] : "64");
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    post_only = argc > 4 && strcmp(argv[4], "post") == 0;
    if (reps < 1 || reps > MAX_REPS)
        reps = 3;
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ","))
        run_size(base, atoi(tok), reps, load0);
    MPI_Finalize();
    return 0;
}
