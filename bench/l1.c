/*
 * l1 - L1 checkpoint bandwidth against the directory's own write ceiling.
 *
 *   mpiexec -n 4 -bind-to none bench_l1 [--dir D] [--mib S] [--reps K] [--warmup W]
 *
 * Every rank protects S MiB (default 256) and the job checkpoints it at level
 * 1 into a scratch directory under D (default /dev/shm). In the same run, and
 * interleaved with the checkpoints so all three see the same machine state,
 * each rank writes the same number of bytes to the same directory with plain
 * POSIX calls: open/write/fsync/close of a fresh file, and the same into an
 * existing file (overwrite). Each is timed between barriers; the aggregate
 * bandwidth is total bytes / slowest rank's time; the median of K timed runs
 * after W untimed ones is reported, as one JSON line and a table.
 *
 * The warm-up matters: a library that keeps two slots per level only
 * overwrites from its third checkpoint on, as an application does in steady
 * state. The target is ckpt / raw >= 0.9.
 */
#define _GNU_SOURCE /* PATH_MAX, unlink under -std=c11 */
#include "bench_util.h"

#include <fti.h>
#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_REPS 100

struct opts {
    const char *dir;
    long mib;
    int reps, warmup;
};

struct bench {
    struct opts o;
    int rank, nranks;
    void *buf;
    size_t bytes;
    char tmp[PATH_MAX - 64]; /* scratch dir under o.dir; room left for file names */
    char new_path[PATH_MAX]; /* this rank's fresh-file target */
    char ovw_path[PATH_MAX]; /* this rank's overwrite target */
    int ckpt_id;
    int ckpt_rc;
};

static void usage(FILE *f)
{
    fprintf(f, "usage: bench_l1 [--dir D] [--mib S] [--reps K] [--warmup W]\n"
               "  --dir D     directory to write into (default /dev/shm)\n"
               "  --mib S     MiB per rank (default 256)\n"
               "  --reps K    timed repetitions, median reported (default 5)\n"
               "  --warmup W  untimed repetitions first (default 2)\n");
}

static int parse_num(const char *s, long lo, long hi, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
    long v = 0;
    *o = (struct opts){ .dir = "/dev/shm", .mib = 256, .reps = 5, .warmup = 2 };
    for (int i = 1; i < argc; i += 2) {
        const char *k = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (!val)
            return -1;
        if (!strcmp(k, "--dir")) o->dir = val;
        else if (!strcmp(k, "--mib") && !parse_num(val, 1, 1L << 20, &v)) o->mib = v;
        else if (!strcmp(k, "--reps") && !parse_num(val, 1, MAX_REPS, &v)) o->reps = (int)v;
        else if (!strcmp(k, "--warmup") && !parse_num(val, 0, MAX_REPS, &v)) o->warmup = (int)v;
        else return -1;
    }
    return 0;
}

/* The largest group size up to 4 that divides the node count: the library
 * insists on whole groups even when only L1 is used. */
static int group_size_for(int nodes)
{
    int g = 4;
    while (nodes % g)
        g--;
    return g;
}

/* Rank 0 writes an L1-only config over the scratch dir: every rank a node,
 * checkpoints removed at finalize, quiet. */
static void write_config(const struct bench *b, char *cfg, size_t cap)
{
    snprintf(cfg, cap, "%s/bench.fti", b->tmp);
    if (b->rank != 0)
        return;
    FILE *f = fopen(cfg, "w");
    if (!f) {
        fprintf(stderr, "bench_l1: cannot write '%s': %s\n", cfg, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fprintf(f, "[basic]\nhead = 0\nnode_size = 1\nckpt_dir = %s/local\nglbl_dir = %s/global\n"
               "meta_dir = %s/meta\nckpt_l1 = 0\nckpt_l2 = 0\nckpt_l3 = 0\nckpt_l4 = 0\n"
               "inline_l2 = 1\ninline_l3 = 1\ninline_l4 = 1\nkeep_last_ckpt = 0\n"
               "group_size = %d\nverbosity = 3\n[restart]\nfailure = 0\nexec_id = bench-l1\n"
               "[advanced]\nlocal_test = 1\n",
            b->tmp, b->tmp, b->tmp, group_size_for(b->nranks));
    if (fclose(f) != 0) {
        fprintf(stderr, "bench_l1: cannot write '%s': %s\n", cfg, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static void do_raw_new(void *arg)
{
    struct bench *b = arg;
    bench_write_file(b->new_path, O_CREAT | O_EXCL, b->buf, b->bytes);
}

static void do_raw_overwrite(void *arg)
{
    struct bench *b = arg;
    bench_write_file(b->ovw_path, 0, b->buf, b->bytes);
}

static void do_ckpt(void *arg)
{
    struct bench *b = arg;
    b->ckpt_rc = FTI_Checkpoint(++b->ckpt_id, 1);
}

/* One round of the three measurements, in seconds of the slowest rank. The
 * fresh file is removed afterwards, outside the timing, so the next round
 * writes a fresh one again. */
static void one_round(struct bench *b, double t[3])
{
    t[0] = bench_timed(do_raw_new, b, MPI_COMM_WORLD);
    if (unlink(b->new_path) != 0) {
        fprintf(stderr, "bench_l1: unlink '%s': %s\n", b->new_path, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    t[1] = bench_timed(do_raw_overwrite, b, MPI_COMM_WORLD);
    t[2] = bench_timed(do_ckpt, b, MPI_COMM_WORLD);
    /* FTI_Checkpoint is collective and returns the same code on every rank. */
    if (b->ckpt_rc != FTI_DONE) {
        if (b->rank == 0)
            fprintf(stderr, "bench_l1: FTI_Checkpoint(%d, 1) returned %d\n", b->ckpt_id,
                    b->ckpt_rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Runs warm-up and timed rounds; med[k] is the median of measurement k. */
static void measure(struct bench *b, double med[3])
{
    double t[3], all[3][MAX_REPS];
    for (int i = 0; i < b->o.warmup; i++)
        one_round(b, t);
    for (int i = 0; i < b->o.reps; i++) {
        one_round(b, t);
        for (int k = 0; k < 3; k++)
            all[k][i] = t[k];
    }
    for (int k = 0; k < 3; k++)
        med[k] = bench_median(all[k], b->o.reps);
}

static void print_json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void report(const struct bench *b, const double med[3])
{
    double total = (double)b->bytes * b->nranks, gbps[3];
    for (int k = 0; k < 3; k++)
        gbps[k] = total / med[k] / 1e9;
    printf("{\"bench\":\"l1\",\"dir\":");
    print_json_string(b->o.dir);
    printf(",\"ranks\":%d,\"mib_per_rank\":%ld,\"reps\":%d,\"warmup\":%d,"
           "\"ckpt_gbps\":%.3f,\"raw_new_gbps\":%.3f,\"raw_overwrite_gbps\":%.3f,"
           "\"ratio_vs_new\":%.3f,\"ratio_vs_overwrite\":%.3f,"
           "\"ckpt_s\":%.4f,\"raw_new_s\":%.4f,\"raw_overwrite_s\":%.4f}\n",
           b->nranks, b->o.mib, b->o.reps, b->o.warmup, gbps[2], gbps[0], gbps[1],
           gbps[2] / gbps[0], gbps[2] / gbps[1], med[2], med[0], med[1]);
    printf("\nL1 checkpoint, %d ranks x %ld MiB into %s (median of %d, %d warm-up)\n",
           b->nranks, b->o.mib, b->o.dir, b->o.reps, b->o.warmup);
    printf("  %-34s %10s %10s\n", "", "seconds", "GB/s");
    printf("  %-34s %10.4f %10.3f\n", "raw write, new file (+fsync)", med[0], gbps[0]);
    printf("  %-34s %10.4f %10.3f\n", "raw write, overwrite (+fsync)", med[1], gbps[1]);
    printf("  %-34s %10.4f %10.3f\n", "FTI_Checkpoint level 1", med[2], gbps[2]);
    printf("  ratio ckpt/raw: %.2f vs new file, %.2f vs overwrite (target >= 0.90)\n",
           gbps[2] / gbps[0], gbps[2] / gbps[1]);
}

/* Scratch dir, config, per-rank file names and the pre-existing overwrite
 * target (written once, untimed). Returns the config path in cfg. */
static void setup(struct bench *b, char *cfg, size_t cap)
{
    bench_mkdtemp(b->o.dir, "fti-bench-l1-", b->tmp, sizeof(b->tmp), MPI_COMM_WORLD);
    write_config(b, cfg, cap);
    snprintf(b->new_path, sizeof(b->new_path), "%s/raw-new-%d", b->tmp, b->rank);
    snprintf(b->ovw_path, sizeof(b->ovw_path), "%s/raw-ovw-%d", b->tmp, b->rank);
    bench_write_file(b->ovw_path, O_CREAT | O_EXCL, b->buf, b->bytes);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    struct bench b = { 0 };
    char cfg[PATH_MAX + 16];
    double med[3];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &b.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &b.nranks);
    int help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (help || parse_opts(argc, argv, &b.o) != 0) {
        if (b.rank == 0)
            usage(help ? stdout : stderr);
        MPI_Finalize();
        return help ? 0 : 2;
    }
    b.bytes = (size_t)b.o.mib << 20;
    b.buf = bench_alloc(b.bytes, (unsigned)b.rank + 1);
    setup(&b, cfg, sizeof(cfg));
    /* FTI_Init is collective and fails on every rank alike: clean up, no abort. */
    int rc = FTI_Init(cfg, MPI_COMM_WORLD) == FTI_SCES ? 0 : 1;
    if (rc == 0) {
        if (FTI_Protect(0, b.buf, (int64_t)(b.bytes / sizeof(double)), FTI_DBLE) != FTI_SCES) {
            fprintf(stderr, "bench_l1: rank %d: FTI_Protect failed\n", b.rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        measure(&b, med);
        if (b.rank == 0)
            report(&b, med);
        rc = FTI_Finalize() == FTI_SCES ? 0 : 1;
    } else if (b.rank == 0) {
        fprintf(stderr, "bench_l1: FTI_Init('%s') failed\n", cfg);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (b.rank == 0 && bench_rmtree(b.tmp) != 0)
        fprintf(stderr, "bench_l1: could not remove '%s': %s\n", b.tmp, strerror(errno));
    free(b.buf);
    MPI_Finalize();
    return rc;
}
