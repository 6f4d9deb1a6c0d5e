/*
 * heatdis - 2D heat distribution (Jacobi relaxation) protected by libfti.
 *
 * The global grid is split into blocks of rows, one block per rank of
 * FTI_COMM_WORLD; each block carries one halo row above and below. Rank 0's
 * upper halo is the fixed top boundary and holds a heat source over the middle
 * third of the columns; every other boundary is held at 0.
 *
 * Two grids alternate: iteration i reads grid[i % 2] and writes the other.
 * The state needed to resume is therefore the iteration counter plus both
 * grids, and that is exactly what is protected. FTI_Snapshot is called at the
 * top of every iteration: on a fresh start it checkpoints when the config's
 * interval is due; on a restart its first call restores the counter and the
 * grids, and the loop simply continues from the restored iteration.
 *
 * The final grid is reduced to a deterministic digest (per-rank 64-bit hashes
 * of the raw bytes, combined in rank order, plus sample values) so that a
 * fault-free run and a crashed-then-recovered run can be compared bit for bit.
 *
 *   mpiexec -n 4 heatdis [--mib M | --rows R] [--cols C] [--iters N]
 *                        [--config FILE] [--output FILE]
 *                        [--crash-at ITER --crash-rank R]
 */
#include <fti.h>
#include <mpi.h>

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAT_SOURCE 100.0
#define DEFAULT_COLS 1024
#define DEFAULT_MIB 4
#define DEFAULT_ITERS 500

/* FTI_Protect ids. */
enum { ID_ITER = 0, ID_GRID_A = 1, ID_GRID_B = 2 };

struct options {
    int64_t rows; /* interior rows per rank */
    int64_t cols; /* columns, boundary columns included */
    int iters;
    int crash_at; /* -1: no injected crash */
    int crash_rank;
    const char *crash_lose; /* a folder renamed away at the crash: the node's disk lost */
    const char *config;
    const char *output; /* NULL: digest on stdout only */
};

struct grid {
    int64_t rows, cols; /* interior rows; storage is (rows + 2) x cols */
    double *buf[2];
    int rank, nprocs;
};

struct stats {
    int restarted;
    int resumed_from; /* first iteration computed by this run */
    int checkpoints;  /* FTI_Snapshot calls that returned FTI_DONE */
    double init_s;    /* FTI_Init, including any rebuild of lost files */
    double recover_s; /* the first FTI_Snapshot of a restart */
    double ckpt_s;    /* FTI_Snapshot calls that checkpointed */
    double loop_s;    /* the whole main loop */
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: heatdis [--mib M | --rows R] [--cols C] [--iters N]\n"
            "               [--config FILE] [--output FILE]\n"
            "               [--crash-at ITER --crash-rank R [--crash-lose DIR]]\n"
            "  --mib M        size of one grid per rank in MiB (default %d)\n"
            "  --rows R       interior rows per rank (overrides --mib)\n"
            "  --cols C       columns (default %d)\n"
            "  --iters N      iterations (default %d)\n"
            "  --config FILE  FTI config (default heatdis.fti)\n"
            "  --output FILE  where rank 0 writes the final grid digest\n"
            "  --crash-at I   rank --crash-rank kills itself (SIGKILL) at iteration I,\n"
            "                 on a fresh start only\n"
            "  --crash-lose D the crashing rank first renames folder D to D.lost (its\n"
            "                 node's storage lost with it, for online recovery tests)\n",
            DEFAULT_MIB, DEFAULT_COLS, DEFAULT_ITERS);
}

/* Parses a positive integer option value; -1 when it is not one. */
static int64_t parse_count(const char *s)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end != '\0' || v < 0)
        return -1;
    return v;
}

static int parse_one(struct options *o, const char *key, const char *val, int64_t *mib)
{
    int64_t n = parse_count(val);
    if (!strcmp(key, "--config")) o->config = val;
    else if (!strcmp(key, "--output")) o->output = val;
    else if (!strcmp(key, "--crash-lose")) o->crash_lose = val;
    else if (n < 0) return -1;
    else if (!strcmp(key, "--mib")) *mib = n;
    else if (!strcmp(key, "--rows")) o->rows = n;
    else if (!strcmp(key, "--cols")) o->cols = n;
    else if (!strcmp(key, "--iters") && n <= INT32_MAX) o->iters = (int)n;
    else if (!strcmp(key, "--crash-at") && n <= INT32_MAX) o->crash_at = (int)n;
    else if (!strcmp(key, "--crash-rank") && n <= INT32_MAX) o->crash_rank = (int)n;
    else return -1;
    return 0;
}

/* Fills *o from argv; returns 0, 1 after --help, or -1 after printing what
 * was wrong. */
static int parse_args(int argc, char **argv, struct options *o)
{
    int64_t mib = DEFAULT_MIB;
    *o = (struct options){ .rows = 0, .cols = DEFAULT_COLS, .iters = DEFAULT_ITERS,
                           .crash_at = -1, .crash_rank = 0, .config = "heatdis.fti" };
    for (int i = 1; i < argc; i += 2) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 1;
        }
        if (i + 1 >= argc || parse_one(o, argv[i], argv[i + 1], &mib) != 0) {
            fprintf(stderr, "heatdis: bad option '%s'%s%s\n", argv[i],
                    i + 1 < argc ? " " : " (no value)", i + 1 < argc ? argv[i + 1] : "");
            usage(stderr);
            return -1;
        }
    }
    if (o->cols < 3) {
        fprintf(stderr, "heatdis: --cols must be at least 3\n");
        return -1;
    }
    if (o->rows == 0)
        o->rows = mib * 1024 * 1024 / (o->cols * (int64_t)sizeof(double));
    if (o->rows < 1) {
        fprintf(stderr, "heatdis: the grid has no rows (raise --mib or --rows)\n");
        return -1;
    }
    return 0;
}

static double *row_ptr(const struct grid *g, int which, int64_t row)
{
    return g->buf[which] + row * g->cols;
}

/* Zeroes both grids and writes the fixed boundary: the heat source in rank
 * 0's upper halo. Both grids get it so the boundary never changes. */
static int grid_init(struct grid *g, int64_t rows, int64_t cols, int rank, int nprocs)
{
    size_t n = (size_t)(rows + 2) * (size_t)cols;
    *g = (struct grid){ .rows = rows, .cols = cols, .rank = rank, .nprocs = nprocs };
    for (int k = 0; k < 2; k++) {
        g->buf[k] = calloc(n, sizeof(double));
        if (!g->buf[k])
            return -1;
        if (rank == 0)
            for (int64_t j = cols / 3; j < 2 * cols / 3; j++)
                row_ptr(g, k, 0)[j] = HEAT_SOURCE;
    }
    return 0;
}

static void grid_free(struct grid *g)
{
    free(g->buf[0]);
    free(g->buf[1]);
}

/* Collective. Refreshes the halo rows of grid `which` from the neighbours.
 * Ranks at the edges talk to MPI_PROC_NULL, so their boundary halos keep
 * their fixed values. Nonblocking calls, each waited for alone, not
 * MPI_Sendrecv nor MPI_Waitall: under online recovery Open MPI 5.0 can
 * abort the job ("Send error after request freed") when either of those
 * meets a failed rank (docs/USER_GUIDE.md); MPI_Wait reports the failure. */
static void halo_exchange(struct grid *g, int which, MPI_Comm comm)
{
    int up = g->rank > 0 ? g->rank - 1 : MPI_PROC_NULL;
    int down = g->rank < g->nprocs - 1 ? g->rank + 1 : MPI_PROC_NULL;
    int n = (int)g->cols;
    MPI_Request req[4];
    MPI_Irecv(row_ptr(g, which, g->rows + 1), n, MPI_DOUBLE, down, 0, comm, &req[0]);
    MPI_Irecv(row_ptr(g, which, 0), n, MPI_DOUBLE, up, 1, comm, &req[1]);
    MPI_Isend(row_ptr(g, which, 1), n, MPI_DOUBLE, up, 0, comm, &req[2]);
    MPI_Isend(row_ptr(g, which, g->rows), n, MPI_DOUBLE, down, 1, comm, &req[3]);
    for (int i = 0; i < 4; i++)
        MPI_Wait(&req[i], MPI_STATUS_IGNORE);
}

/* One Jacobi sweep from grid `src` into the other one. Boundary columns are
 * never written, so they stay at 0 in both grids. */
static void jacobi_sweep(struct grid *g, int src)
{
    for (int64_t i = 1; i <= g->rows; i++) {
        const double *above = row_ptr(g, src, i - 1);
        const double *mid = row_ptr(g, src, i);
        const double *below = row_ptr(g, src, i + 1);
        double *out = row_ptr(g, 1 - src, i);
        for (int64_t j = 1; j < g->cols - 1; j++)
            out[j] = 0.25 * (above[j] + below[j] + mid[j - 1] + mid[j + 1]);
    }
}

static int protect_state(struct grid *g, int *iter)
{
    int64_t n = (g->rows + 2) * g->cols;
    if (FTI_Protect(ID_ITER, iter, 1, FTI_INTG) != FTI_SCES ||
        FTI_Protect(ID_GRID_A, g->buf[0], n, FTI_DBLE) != FTI_SCES ||
        FTI_Protect(ID_GRID_B, g->buf[1], n, FTI_DBLE) != FTI_SCES)
        return -1;
    return 0;
}

/* The simulated node crash: on a fresh start only, so the restarted run gets
 * past the same iteration. */
static void maybe_crash(const struct options *o, const struct stats *st, int rank, int iter)
{
    if (st->restarted || iter != o->crash_at || rank != o->crash_rank)
        return;
    fprintf(stderr, "heatdis: rank %d: injected crash (SIGKILL) at iteration %d\n", rank, iter);
    fflush(stderr);
    if (o->crash_lose) { /* one rename: the node and its disk go at the same moment */
        char lost[4096];
        snprintf(lost, sizeof lost, "%s.lost", o->crash_lose);
        if (rename(o->crash_lose, lost) != 0)
            fprintf(stderr, "heatdis: rank %d: cannot rename %s: %s\n", rank, o->crash_lose,
                    strerror(errno));
    }
    raise(SIGKILL);
}

/* The main loop. Returns 0, or -1 when FTI_Snapshot failed (on every rank:
 * FTI_Snapshot is collective and agrees on its result). */
static int run_loop(const struct options *o, struct grid *g, int *iter, struct stats *st)
{
    int first = 1;
    for (*iter = 0; *iter < o->iters; (*iter)++) {
        double t0 = MPI_Wtime();
        int rc = FTI_Snapshot();
        double dt = MPI_Wtime() - t0;
        if (rc != FTI_SCES && rc != FTI_DONE) {
            fprintf(stderr, "heatdis: rank %d: FTI_Snapshot failed (%d) at iteration %d%s\n",
                    g->rank, rc, *iter, first && st->restarted ? "" : "; continuing, the last "
                    "committed checkpoint is kept");
            /* A failed restore leaves the state half-restored: stop. A failed
             * checkpoint costs only protection: compute on. */
            if (first && st->restarted)
                return -1;
        }
        if (first) {
            /* On restart the first call restored *iter and both grids. */
            st->resumed_from = *iter;
            if (st->restarted)
                st->recover_s = dt;
            first = 0;
        }
        if (rc == FTI_DONE) {
            st->checkpoints++;
            st->ckpt_s += dt;
            /* One line per checkpoint, flushed: a run that is killed later
             * still shows which checkpoints it completed. */
            if (g->rank == 0) {
                printf("heatdis-ckpt iter=%d seconds=%.3f\n", *iter, dt);
                fflush(stdout);
            }
        }
        maybe_crash(o, st, g->rank, *iter);
        int src = *iter % 2;
        halo_exchange(g, src, FTI_COMM_WORLD);
        jacobi_sweep(g, src);
    }
    return 0;
}

/* 64-bit hash of a byte range: FNV-1a over 8-byte words with a final
 * avalanche. Each step is a bijection of the running state, so a change
 * confined to one word always changes the digest. */
static uint64_t hash_bytes(const void *data, size_t len, uint64_t h)
{
    const unsigned char *p = data;
    const uint64_t prime = 0x100000001b3ULL;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * prime;
    }
    for (; i < len; i++)
        h = (h ^ p[i]) * prime;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* What each rank contributes to the digest: its interior rows only (halos
 * are copies of the neighbours' rows). */
struct rank_digest {
    uint64_t hash;
    double sum;    /* sum of interior values, in a fixed order */
    double centre; /* value in the middle of the block */
};

static struct rank_digest digest_local(const struct grid *g, int which)
{
    struct rank_digest d = { 0 };
    const double *first = row_ptr(g, which, 1);
    size_t n = (size_t)g->rows * (size_t)g->cols;
    d.hash = hash_bytes(first, n * sizeof(double), 0xcbf29ce484222325ULL);
    for (size_t k = 0; k < n; k++)
        d.sum += first[k];
    d.centre = row_ptr(g, which, 1 + g->rows / 2)[g->cols / 2];
    return d;
}

static void write_digest(FILE *f, const struct options *o, int nprocs,
                         const struct rank_digest *all)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    double total = 0.0;
    for (int r = 0; r < nprocs; r++) {
        h = hash_bytes(&all[r].hash, sizeof(all[r].hash), h);
        total += all[r].sum;
    }
    fprintf(f, "heatdis digest\nranks %d\nrows_per_rank %" PRId64 "\ncols %" PRId64
               "\niterations %d\nchecksum %016" PRIx64 "\ntotal_heat %.17g\n",
            nprocs, o->rows, o->cols, o->iters, h, total);
    for (int r = 0; r < nprocs; r++)
        fprintf(f, "rank %d hash %016" PRIx64 " sum %.17g centre %.17g\n", r, all[r].hash,
                all[r].sum, all[r].centre);
}

/* Collective. Gathers every rank's digest to rank 0, which writes it to
 * o->output (or stdout). Returns 0, or -1 on rank 0 when the file failed. */
static int report_result(const struct options *o, const struct grid *g, int final_grid)
{
    struct rank_digest mine = digest_local(g, final_grid);
    struct rank_digest *all = NULL;
    int rc = 0;
    if (g->rank == 0 && !(all = calloc((size_t)g->nprocs, sizeof(*all)))) {
        fprintf(stderr, "heatdis: out of memory for the digest\n");
        MPI_Abort(FTI_COMM_WORLD, 1);
    }
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0,
               FTI_COMM_WORLD);
    if (g->rank == 0 && all) {
        FILE *f = o->output ? fopen(o->output, "w") : stdout;
        if (!f) {
            fprintf(stderr, "heatdis: cannot write '%s': %s\n", o->output, strerror(errno));
            rc = -1;
        } else {
            write_digest(f, o, g->nprocs, all);
            if (f != stdout && fclose(f) != 0)
                rc = -1;
        }
    }
    free(all);
    return rc;
}

/* One line, key=value pairs, for scripts (demo.sh parses it). */
static void print_stats(const struct options *o, const struct grid *g, const struct stats *st)
{
    int done = o->iters - st->resumed_from;
    double compute_s = st->loop_s - st->recover_s - st->ckpt_s;
    printf("heatdis-stats ranks=%d rows_per_rank=%" PRId64 " cols=%" PRId64
           " mib_per_grid=%.2f iters=%d restarted=%d resumed_from=%d iters_run=%d"
           " checkpoints=%d init_s=%.3f recover_s=%.3f ckpt_s=%.3f wall_s=%.3f"
           " iter_s=%.6f\n",
           g->nprocs, g->rows, g->cols,
           (double)((g->rows + 2) * g->cols * 8) / (1024.0 * 1024.0), o->iters,
           st->restarted, st->resumed_from, done, st->checkpoints, st->init_s,
           st->recover_s, st->ckpt_s, st->init_s + st->loop_s, done > 0 ? compute_s / done : 0.0);
    fflush(stdout);
}

/* Everything after FTI_Init: returns the exit status for this rank. */
static int heatdis(const struct options *o, struct stats *st)
{
    struct grid g;
    int rank, nprocs, iter = 0;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &nprocs);
    if (grid_init(&g, o->rows, o->cols, rank, nprocs) != 0 || protect_state(&g, &iter) != 0) {
        fprintf(stderr, "heatdis: rank %d: out of memory or FTI_Protect failed\n", rank);
        grid_free(&g);
        return 1;
    }
    if (rank == 0)
        printf("heatdis: %d ranks x %" PRId64 " x %" PRId64 " cells, %d iterations, %s\n",
               nprocs, o->rows, o->cols, o->iters, st->restarted ? "restart" : "fresh start");
    /* With online_recovery = 1 the ranks go on from here after a rank failed:
     * the loop's first FTI_Snapshot restores the checkpoint (docs/USER_GUIDE.md). */
    FTI_RESUME_POINT();
    st->restarted = FTI_Status() != 0;
    double t0 = MPI_Wtime();
    int rc = run_loop(o, &g, &iter, st);
    st->loop_s = MPI_Wtime() - t0;
    if (rc == 0)
        rc = report_result(o, &g, iter % 2);
    if (rc == 0 && rank == 0)
        print_stats(o, &g, st);
    grid_free(&g);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct options opt;
    struct stats st = { 0 };
    MPI_Init(&argc, &argv);
    int parsed = parse_args(argc, argv, &opt);
    if (parsed != 0) {
        MPI_Finalize();
        return parsed > 0 ? 0 : 2;
    }
    double t0 = MPI_Wtime();
    int rc = FTI_Init(opt.config, MPI_COMM_WORLD);
    if (rc == FTI_HEAD) {
        /* A head rank: it served post-processing until the others finalized. */
        MPI_Finalize();
        return 0;
    }
    if (rc != FTI_SCES) {
        /* FTI_Init is collective and fails on every rank alike: no abort, so
         * the library's explanation reaches the terminal. */
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            fprintf(stderr, "heatdis: FTI_Init('%s') failed (%d: %s)\n", opt.config, rc,
                    rc == FTI_NREC ? "no checkpoint can be recovered" : "see above");
        if (rc == FTI_NREC) /* the library is up, as in FTI: this releases any heads */
            FTI_Finalize();
        MPI_Finalize();
        return 1;
    }
    st.init_s = MPI_Wtime() - t0;
    st.restarted = FTI_Status() != 0;
    int status = heatdis(&opt, &st);
    if (FTI_Finalize() != FTI_SCES) {
        fprintf(stderr, "heatdis: FTI_Finalize failed\n");
        status = 1;
    }
    MPI_Finalize();
    return status;
}
