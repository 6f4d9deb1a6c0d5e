/*
 * jacobi.c - heat distribution by Jacobi iteration, each sweep an FPGA task
 * (jacobi_kernel.c), checkpointed with FTI in one of four ways:
 *
 *   --mode host         the task runs to completion; the grid stays on the
 *                       device and is protected there (FTI_ProtectDevice);
 *                       FTI_Snapshot between tasks, as the config schedules
 *   --mode blocking     in-kernel partial checkpoints: after each block of
 *                       rows the kernel waits while the host checkpoints
 *   --mode nonblocking  the kernel never waits; the host checkpoints block
 *                       b-1 while the kernel computes block b
 *   --mode off          the same tasks without any checkpoint (reference)
 *
 *   mpiexec -n 4 fpga_jacobi CONFIG [--mode M] [--rows R] [--cols C]
 *       [--block-rows B] [--sweeps S] [--slots N] [--level L] [--pace-us U]
 *       [--out PREFIX] [--xclbin FILE] [--crash-task S --crash-at B]
 *
 * Each rank owns a slab of R interior rows (plus a ghost row above and
 * below) of C columns; rank 0's top ghost row is held at 100 degrees. After
 * each sweep the ranks exchange boundary rows. The final slab is written to
 * PREFIX.<rank>, bit-identical whatever the mode and however often the run
 * was killed and restarted.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fti.h"
#include "fti_device.h"

#include "fpga_util.h"
#include "kernels.h"

enum { ID_SWEEP = 1, ID_BLOCKS, ID_ERR, ID_MIRROR0, ID_MIRROR1, ID_GRID = 10 };

_Static_assert(sizeof(long) == sizeof(int64_t), "FTI_LONG protects the int64_t block counter");

typedef struct jacobi {
    common_opts o;
    int rows, cols, block_rows, sweeps;
    fpga f;
    xrtKernelHandle kernel;
    xrtBufferHandle grid[2], ctrl, errs;
    double *mirror[2]; /* host copies of the slabs (partial modes) */
    size_t words;      /* (rows + 2) * cols */
    int sweep;         /* protected: sweeps done */
    int64_t blocks;    /* protected: blocks of the current sweep in the checkpoint */
    double err;        /* protected: error sum of the sweep so far */
    int cur;           /* host mode: the buffer holding the grid */
    int fresh_device;  /* the device grid must be written in full */
    double kernel_s;   /* time in FPGA tasks */
    FTI_FpgaStats st;  /* summed over tasks */
} jacobi;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void parse(jacobi *j, int argc, char **argv)
{
    common_defaults(&j->o);
    j->rows = 32, j->cols = 64, j->block_rows = 4, j->sweeps = 6;
    if (argc < 2)
        die("usage: %s CONFIG [options] (see the header of jacobi.c)", argv[0]);
    j->o.config = argv[1];
    for (int i = 2; i < argc; i++) {
        if (common_option(&j->o, argc, argv, &i))
            continue;
        if (i + 1 >= argc)
            die("unknown option %s", argv[i]);
        if (strcmp(argv[i], "--rows") == 0) j->rows = atoi(argv[++i]);
        else if (strcmp(argv[i], "--cols") == 0) j->cols = atoi(argv[++i]);
        else if (strcmp(argv[i], "--block-rows") == 0) j->block_rows = atoi(argv[++i]);
        else if (strcmp(argv[i], "--sweeps") == 0) j->sweeps = atoi(argv[++i]);
        else die("unknown option %s", argv[i]);
    }
    if (j->rows < 1 || j->cols < 3 || j->block_rows < 1 || j->rows % j->block_rows != 0)
        die("--rows must be a positive multiple of --block-rows, and --cols >= 3");
}

static int nblocks(const jacobi *j)
{
    return j->rows / j->block_rows;
}

static void initial_slab(const jacobi *j, double *g)
{
    memset(g, 0, j->words * sizeof *g);
    if (rank == 0)
        for (int c = 0; c < j->cols; c++)
            g[c] = 100.0;
}

static void setup(jacobi *j)
{
    j->words = (size_t)(j->rows + 2) * (size_t)j->cols;
    fpga_open(&j->f, j->o.xclbin);
    j->kernel = fpga_kernel(&j->f, "jacobi_sweep");
    j->ctrl = fpga_alloc(&j->f, j->kernel, 2, FTI_FpgaCtrlBytes((uint32_t)j->o.slots));
    j->errs = fpga_alloc(&j->f, j->kernel, 3, (size_t)j->o.slots * SLOT_BYTES);
    for (int b = 0; b < 2; b++) {
        j->grid[b] = fpga_alloc(&j->f, j->kernel, 0, j->words * sizeof(double));
        j->mirror[b] = malloc(j->words * sizeof(double));
        if (j->mirror[b] == NULL)
            die("out of memory for a %zu-byte slab", j->words * sizeof(double));
        initial_slab(j, j->mirror[b]);
        bo_put(j->grid[b], j->mirror[b], j->words * sizeof(double), 0);
    }
}

static void protect(jacobi *j)
{
    int ok = FTI_Protect(ID_SWEEP, &j->sweep, 1, FTI_INTG) == FTI_SCES;
    if (j->o.mode == RUN_HOST) {
        ok &= FTI_ProtectDevice(ID_GRID, "xrt", j->grid[j->cur], 0, (int64_t)j->words,
                                FTI_DBLE) == FTI_SCES;
    } else {
        ok &= FTI_Protect(ID_BLOCKS, &j->blocks, 1, FTI_LONG) == FTI_SCES;
        ok &= FTI_Protect(ID_ERR, &j->err, 1, FTI_DBLE) == FTI_SCES;
        ok &= FTI_Protect(ID_MIRROR0, j->mirror[0], (int64_t)j->words, FTI_DBLE) == FTI_SCES;
        ok &= FTI_Protect(ID_MIRROR1, j->mirror[1], (int64_t)j->words, FTI_DBLE) == FTI_SCES;
    }
    if (!ok)
        die("FTI_Protect failed");
}

/* ---- boundary exchange --------------------------------------------------------- */

/* Sends rows 1 and R, receives the neighbours' into ghost rows 0 and R+1. */
static void exchange(const jacobi *j, double *first, double *last, double *ghost_top,
                     double *ghost_bottom)
{
    int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < nranks - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(first, j->cols, MPI_DOUBLE, up, 1, ghost_bottom, j->cols, MPI_DOUBLE, down, 1,
                 FTI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(last, j->cols, MPI_DOUBLE, down, 2, ghost_top, j->cols, MPI_DOUBLE, up, 2,
                 FTI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static double *row(const jacobi *j, double *g, int r)
{
    return g + (size_t)r * (size_t)j->cols;
}

/* Host mode: the grid lives on the device; only boundary rows move. */
static void exchange_device(jacobi *j, xrtBufferHandle bo)
{
    size_t rb = (size_t)j->cols * sizeof(double);
    double *t = j->mirror[0]; /* scratch in host mode */
    bo_get(bo, row(j, t, 1), rb, rb);
    bo_get(bo, row(j, t, j->rows), rb, (size_t)j->rows * rb);
    exchange(j, row(j, t, 1), row(j, t, j->rows), row(j, t, 0), row(j, t, j->rows + 1));
    if (rank > 0)
        bo_put(bo, row(j, t, 0), rb, 0);
    if (rank < nranks - 1)
        bo_put(bo, row(j, t, j->rows + 1), rb, (size_t)(j->rows + 1) * rb);
}

/* Partial modes: the host copy of the new slab is complete; fill its ghosts. */
static void exchange_host(jacobi *j, double *g)
{
    double top[j->cols], bottom[j->cols];
    memcpy(top, row(j, g, 0), sizeof top);
    memcpy(bottom, row(j, g, j->rows + 1), sizeof bottom);
    exchange(j, row(j, g, 1), row(j, g, j->rows), top, bottom);
    if (rank > 0)
        memcpy(row(j, g, 0), top, sizeof top);
    if (rank < nranks - 1)
        memcpy(row(j, g, j->rows + 1), bottom, sizeof bottom);
}

/* ---- one FPGA task -------------------------------------------------------------- */

static void on_checkpoint(void *arg, int64_t blocks)
{
    jacobi *j = arg;
    if (!j->o.quiet)
        say("CKPT sweep %d blocks %lld", j->sweep, (long long)blocks);
    maybe_crash(&j->o, j->sweep, blocks);
}

static FTI_FpgaMonitor *monitor(jacobi *j, int out)
{
    FTI_FpgaMonitor *m;
    FTI_FpgaConfig c = monitor_config(&j->o, j->ctrl, &j->blocks);
    size_t rb = (size_t)j->cols * sizeof(double);
    if (c.mode == FTI_FPGA_OFF)
        c.blocks_var = NULL; /* whole tasks: always from block 0 */
    c.nblocks = nblocks(j);
    c.ckpt_id = j->sweep * nblocks(j) + 1;
    c.on_checkpoint = on_checkpoint;
    c.arg = j;
    if (FTI_FpgaCreate(&m, &c) != FTI_SCES)
        die("FTI_FpgaCreate failed");
    if (c.mode != FTI_FPGA_OFF &&
        (FTI_FpgaAddBlockRegion(m, j->grid[out], rb, rb * (size_t)j->block_rows, 0, c.nblocks,
                                row(j, j->mirror[out], 1)) != FTI_SCES ||
         FTI_FpgaAddSlotRegion(m, j->errs, 0, SLOT_BYTES, sizeof(double), &j->err) != FTI_SCES))
        die("FTI_FpgaAdd*Region failed");
    if (FTI_FpgaStart(m) != FTI_SCES)
        die("FTI_FpgaStart failed");
    return m;
}

static void add_stats(jacobi *j, const FTI_FpgaMonitor *m)
{
    FTI_FpgaStats s;
    FTI_FpgaGetStats(m, &s);
    j->st.checkpoints += s.checkpoints;
    j->st.torn += s.torn;
    j->st.resends += s.resends;
    j->st.raises += s.raises;
    j->st.ckpt_seconds += s.ckpt_seconds;
}

/* Runs the kernel from grid[in] to grid[out] under a monitor. */
static void task(jacobi *j, int in, int out)
{
    FTI_FpgaMonitor *m = monitor(j, out);
    double t0 = now();
    xrtRunHandle run = xrtKernelRun(j->kernel, j->grid[in], j->grid[out], j->ctrl, j->errs,
                                    j->rows, j->cols, j->block_rows, j->o.pace_ns);
    if (run == NULL)
        die("xrtKernelRun(jacobi_sweep) failed");
    if (FTI_FpgaWait(m) != FTI_SCES)
        die("sweep %d: FTI_FpgaWait failed (see the message above)", j->sweep);
    run_finish(run, "jacobi_sweep");
    j->kernel_s += now() - t0;
    add_stats(j, m);
    FTI_FpgaFree(m);
}

static double sweep_error(jacobi *j)
{
    size_t last = (size_t)(nblocks(j) - 1) % (size_t)j->o.slots * SLOT_BYTES;
    if (j->o.mode == RUN_HOST || j->o.mode == RUN_OFF)
        bo_get(j->errs, &j->err, sizeof j->err, last);
    double sum = 0.0;
    MPI_Allreduce(&j->err, &sum, 1, MPI_DOUBLE, MPI_SUM, FTI_COMM_WORLD);
    return sum;
}

static void host_sweep(jacobi *j)
{
    int in = j->cur, out = 1 - in;
    task(j, in, out);
    double e = sweep_error(j);
    exchange_device(j, j->grid[out]);
    j->cur = out;
    j->sweep++;
    if (FTI_ProtectDevice(ID_GRID, "xrt", j->grid[j->cur], 0, (int64_t)j->words, FTI_DBLE) != FTI_SCES)
        die("FTI_ProtectDevice failed");
    int rc = FTI_Snapshot();
    if (rc == FTI_NSCS)
        die("FTI_Snapshot failed");
    if (rank == 0 && !j->o.quiet)
        say("sweep %d error %.17g", j->sweep, e);
    if (rc == FTI_DONE) {
        if (!j->o.quiet)
            say("CKPT sweep %d blocks 0", j->sweep); /* between tasks */
        maybe_crash(&j->o, j->sweep, 1);
    }
}

static void partial_sweep(jacobi *j)
{
    int in = j->sweep % 2, out = 1 - in;
    size_t rb = (size_t)j->cols * sizeof(double);
    if (j->fresh_device) /* after a restart: the whole input slab */
        bo_put(j->grid[in], j->mirror[in], j->words * sizeof(double), 0);
    else { /* the kernel wrote the interior; the ghosts came from the neighbours */
        bo_put(j->grid[in], row(j, j->mirror[in], 0), rb, 0);
        bo_put(j->grid[in], row(j, j->mirror[in], j->rows + 1), rb, (size_t)(j->rows + 1) * rb);
    }
    j->fresh_device = 0;
    task(j, in, out);
    if (j->o.mode == RUN_OFF) /* no monitor copies: fetch the slab */
        bo_get(j->grid[out], j->mirror[out], j->words * sizeof(double), 0);
    double e = sweep_error(j);
    exchange_host(j, j->mirror[out]);
    j->blocks = 0;
    j->sweep++;
    if (rank == 0 && !j->o.quiet)
        say("sweep %d error %.17g", j->sweep, e);
}

static void restart(jacobi *j)
{
    if (!FTI_Status())
        return;
    if (FTI_Recover() != FTI_SCES)
        die("FTI_Recover failed");
    j->fresh_device = 1;
    say("RESUME sweep %d blocks %lld", j->sweep, (long long)j->blocks);
}

static void finish(jacobi *j, double secs)
{
    if (j->o.mode == RUN_HOST)
        bo_get(j->grid[j->cur], j->mirror[0], j->words * sizeof(double), 0);
    write_result(j->o.out, j->o.mode == RUN_HOST ? j->mirror[0] : j->mirror[j->sweep % 2],
                 j->words * sizeof(double));
    say("DONE mode %s sweeps %d time %.6f kernel %.6f checkpoints %lld torn %lld resends %lld "
        "raises %lld ckpt_time %.6f", mode_name(j->o.mode), j->sweep, secs, j->kernel_s,
        (long long)j->st.checkpoints, (long long)j->st.torn, (long long)j->st.resends,
        (long long)j->st.raises, j->st.ckpt_seconds);
}

static void teardown(jacobi *j)
{
    for (int b = 0; b < 2; b++) {
        xrtBOFree(j->grid[b]);
        free(j->mirror[b]);
    }
    xrtBOFree(j->errs);
    xrtBOFree(j->ctrl);
    xrtKernelClose(j->kernel);
    fpga_close(&j->f);
}

static const char usage[] =
    "usage: mpiexec -n 4 fpga_jacobi CONFIG [options]\n"
    "heat distribution by Jacobi iteration, each sweep an FPGA task, checkpointed with FTI\n"
    "  --rows R        interior rows per rank (default 32)\n"
    "  --cols C        columns (default 64)\n"
    "  --block-rows B  rows per kernel block, a partial checkpoint point (default 4)\n"
    "  --sweeps S      sweeps, one task each (default 6)\n";

int main(int argc, char **argv)
{
    jacobi j;
    memset(&j, 0, sizeof j);
    if (answered_help(argc, argv, usage))
        return 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    parse(&j, argc, argv);
    if (FTI_Init(j.o.config, MPI_COMM_WORLD) != FTI_SCES)
        die("FTI_Init(%s) failed", j.o.config);
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &nranks);
    apply_copy_latency(&j.o);
    setup(&j);
    protect(&j);
    restart(&j);
    double t0 = now();
    while (j.sweep < j.sweeps) {
        if (j.o.mode == RUN_HOST)
            host_sweep(&j);
        else
            partial_sweep(&j);
    }
    finish(&j, now() - t0);
    teardown(&j);
    FTI_Finalize();
    MPI_Finalize();
    return 0;
}
