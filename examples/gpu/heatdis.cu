/*
 * heatdis.cu - 2D heat distribution on GPUs, checkpointed by libfti straight
 * from device memory.
 *
 * Each rank of FTI_COMM_WORLD owns a band of `rows` grid rows plus one ghost
 * row above and one below, all in device memory (cudaMalloc). The top ghost
 * row of rank 0 is the heated boundary: a source of HEAT over the middle
 * third of the columns, 0 elsewhere; every other boundary stays at 0. A
 * Jacobi sweep reads one grid and writes the other, so iteration `it` reads
 * grid[it % 2]: the state to resume from is `it` and both grids.
 *
 * Those are protected with plain FTI_Protect on the device pointers; the
 * library recognises them as CUDA memory and moves them through its pinned
 * double-buffered pipeline (docs/GPU.md). FTI_Snapshot at the top of every
 * iteration checkpoints when the config says so, and on a restart its first
 * call restores `it` and both grids, so the loop carries on where it
 * stopped.
 *
 *   mpiexec -n 4 heatdis_gpu [--rows R] [--cols C] [--iters N] [--config FILE]
 *
 * Ranks on one node share its GPUs round-robin.
 */
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX /* the C API only, also when compiled as C++ */
#endif
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX
#endif
#include <fti.h>
#include <mpi.h>

#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAT 100.0
#define BLOCK_X 32
#define BLOCK_Y 8
#define REPORT_EVERY 100

/* An example application may stop the job on a CUDA error; the library
 * never does. */
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)

static void cuda_check(cudaError_t e, const char *what, const char *file, int line)
{
    if (e == cudaSuccess)
        return;
    fprintf(stderr, "heatdis_gpu: %s:%d: %s: %s\n", file, line, what, cudaGetErrorString(e));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

struct options {
    long rows, cols, iters;
    const char *config;
    const char *out; /* prefix of the per-rank result file, or NULL */
};

struct band {
    int rank, nranks;
    long rows, cols;     /* owned rows; columns */
    size_t cells;        /* (rows + 2) * cols, ghosts included */
    double *grid[2];     /* device */
    double *d_delta;     /* device: largest change of the last reported sweep */
    double *h_halo;      /* host staging for ghost rows: 4 rows */
};

static int parse_options(int argc, char **argv, struct options *o)
{
    o->rows = 256;
    o->cols = 1024;
    o->iters = 1000;
    o->config = "heatdis_gpu.fti";
    o->out = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--rows") == 0) o->rows = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--cols") == 0) o->cols = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--iters") == 0) o->iters = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--config") == 0) o->config = argv[i + 1];
        else if (strcmp(argv[i], "--out") == 0) o->out = argv[i + 1];
        else return -1;
    }
    return (argc % 2 == 1 && o->rows > 0 && o->cols > 2 && o->iters > 0) ? 0 : -1;
}

/* ---- kernels --------------------------------------------------------------- */

/* Row 0 of rank 0 is the heated boundary; everything else starts at 0. */
__global__ void init_band(double *g, long rows, long cols, int top_rank)
{
    long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
    long r = blockIdx.y * (long)blockDim.y + threadIdx.y;
    if (r >= rows + 2 || c >= cols)
        return;
    int hot = top_rank && r == 0 && c >= cols / 3 && c < 2 * cols / 3;
    g[r * cols + c] = hot ? HEAT : 0.0;
}

/* Non-negative doubles order like their bit patterns, so an integer
 * atomicMax finds the largest change. */
__device__ void atomic_max_nonneg(double *addr, double v)
{
    atomicMax((unsigned long long *)addr, (unsigned long long)__double_as_longlong(v));
}

/* One Jacobi sweep over the owned rows; the outermost columns are fixed. */
__global__ void sweep(const double *in, double *out, long rows, long cols, double *delta)
{
    long c = blockIdx.x * (long)blockDim.x + threadIdx.x;
    long r = 1 + blockIdx.y * (long)blockDim.y + threadIdx.y;
    if (r > rows || c >= cols)
        return;
    long i = r * cols + c;
    if (c == 0 || c == cols - 1) {
        out[i] = 0.0;
        return;
    }
    double v = 0.25 * (in[i - cols] + in[i + cols] + in[i - 1] + in[i + 1]);
    out[i] = v;
    if (delta != NULL)
        atomic_max_nonneg(delta, fabs(v - in[i]));
}

/* ---- host side ------------------------------------------------------------- */

static dim3 grid_for(long rows, long cols)
{
    return dim3((unsigned)((cols + BLOCK_X - 1) / BLOCK_X),
                (unsigned)((rows + BLOCK_Y - 1) / BLOCK_Y));
}

/* Ranks of one node take its devices in turn. */
static void select_device(void)
{
    MPI_Comm node;
    int local = 0, ndev = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    CUDA_CHECK(cudaSetDevice(local % ndev));
}

static void band_alloc(struct band *b, const struct options *o)
{
    MPI_Comm_rank(FTI_COMM_WORLD, &b->rank);
    MPI_Comm_size(FTI_COMM_WORLD, &b->nranks);
    b->rows = o->rows;
    b->cols = o->cols;
    b->cells = (size_t)(b->rows + 2) * (size_t)b->cols;
    for (int k = 0; k < 2; k++) {
        CUDA_CHECK(cudaMalloc((void **)&b->grid[k], b->cells * sizeof(double)));
        init_band<<<grid_for(b->rows + 2, b->cols), dim3(BLOCK_X, BLOCK_Y)>>>(
            b->grid[k], b->rows, b->cols, b->rank == 0);
        CUDA_CHECK(cudaGetLastError());
    }
    CUDA_CHECK(cudaMalloc((void **)&b->d_delta, sizeof(double)));
    CUDA_CHECK(cudaMallocHost((void **)&b->h_halo, 4 * (size_t)b->cols * sizeof(double)));
    CUDA_CHECK(cudaDeviceSynchronize());
}

static void band_free(struct band *b)
{
    cudaFreeHost(b->h_halo);
    cudaFree(b->d_delta);
    cudaFree(b->grid[1]);
    cudaFree(b->grid[0]);
}

/* Sends the first and last owned rows of g to the neighbours and receives
 * their rows into g's ghost rows. The outer ghost rows are boundaries and
 * are never overwritten. */
static void exchange_halos(struct band *b, double *g)
{
    size_t row = (size_t)b->cols * sizeof(double);
    double *send_up = b->h_halo, *send_down = b->h_halo + b->cols;
    double *recv_up = b->h_halo + 2 * b->cols, *recv_down = b->h_halo + 3 * b->cols;
    int up = b->rank > 0 ? b->rank - 1 : MPI_PROC_NULL;
    int down = b->rank + 1 < b->nranks ? b->rank + 1 : MPI_PROC_NULL;
    CUDA_CHECK(cudaMemcpy(send_up, g + b->cols, row, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(send_down, g + (size_t)b->rows * b->cols, row, cudaMemcpyDeviceToHost));
    MPI_Sendrecv(send_up, (int)b->cols, MPI_DOUBLE, up, 0, recv_down, (int)b->cols, MPI_DOUBLE,
                 down, 0, FTI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(send_down, (int)b->cols, MPI_DOUBLE, down, 1, recv_up, (int)b->cols,
                 MPI_DOUBLE, up, 1, FTI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (up != MPI_PROC_NULL)
        CUDA_CHECK(cudaMemcpy(g, recv_up, row, cudaMemcpyHostToDevice));
    if (down != MPI_PROC_NULL)
        CUDA_CHECK(cudaMemcpy(g + (size_t)(b->rows + 1) * b->cols, recv_down, row,
                              cudaMemcpyHostToDevice));
}

/* One iteration; returns the global largest change when `report`, else -1. */
static double step(struct band *b, long it, int report)
{
    double *in = b->grid[it % 2], *out = b->grid[(it + 1) % 2];
    exchange_halos(b, in);
    if (report)
        CUDA_CHECK(cudaMemset(b->d_delta, 0, sizeof(double)));
    sweep<<<grid_for(b->rows, b->cols), dim3(BLOCK_X, BLOCK_Y)>>>(in, out, b->rows, b->cols,
                                                                   report ? b->d_delta : NULL);
    CUDA_CHECK(cudaGetLastError());
    if (!report)
        return -1;
    double local = 0, global = 0;
    CUDA_CHECK(cudaMemcpy(&local, b->d_delta, sizeof local, cudaMemcpyDeviceToHost));
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, FTI_COMM_WORLD);
    return global;
}

/* The rank's final grid, byte for byte, in "<prefix>.<rank>": a run
 * killed and restarted must write the same bytes as one that was not. */
static void write_grid(const double *h, size_t cells, const char *prefix, int rank)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, rank);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(h, sizeof *h, cells, f) != cells || fclose(f) != 0) {
        fprintf(stderr, "heatdis_gpu: cannot write %s\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Order-independent summary of the final grid, to compare runs; the grid
 * itself with --out. */
static void report_result(struct band *b, long it, const char *out)
{
    double *h = (double *)malloc(b->cells * sizeof(double));
    double sum = 0, total = 0;
    if (h == NULL) {
        fprintf(stderr, "heatdis_gpu: out of host memory for the result\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CUDA_CHECK(cudaMemcpy(h, b->grid[it % 2], b->cells * sizeof(double), cudaMemcpyDeviceToHost));
    for (long r = 1; r <= b->rows; r++)
        for (long c = 0; c < b->cols; c++)
            sum += h[r * b->cols + c];
    if (out != NULL)
        write_grid(h, b->cells, out, b->rank);
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, FTI_COMM_WORLD);
    if (b->rank == 0)
        printf("heatdis_gpu: %ld iterations, total heat %.12e\n", it, total);
    free(h);
}

static int run(const struct options *o)
{
    struct band b;
    int it = 0;
    band_alloc(&b, o);
    /* Device pointers go to FTI_Protect as they are. */
    if (FTI_Protect(0, &it, 1, FTI_INTG) != FTI_SCES ||
        FTI_Protect(1, b.grid[0], (int64_t)b.cells, FTI_DBLE) != FTI_SCES ||
        FTI_Protect(2, b.grid[1], (int64_t)b.cells, FTI_DBLE) != FTI_SCES) {
        fprintf(stderr, "heatdis_gpu: FTI_Protect failed\n");
        band_free(&b);
        return 1;
    }
    for (; it < o->iters; it++) {
        /* No cudaDeviceSynchronize needed: the last sweep may still run on
         * the legacy default stream, and a checkpoint waits for it as FTI's
         * cudaMemcpy does (docs/GPU.md, "Ordering"). */
        int rc = FTI_Snapshot(); /* on a restart: restores `it` and both grids */
        if (rc != FTI_SCES && rc != FTI_DONE) {
            fprintf(stderr, "heatdis_gpu: rank %d: FTI_Snapshot failed at iteration %d\n",
                    b.rank, it);
            band_free(&b);
            return 1;
        }
        double delta = step(&b, it, (it + 1) % REPORT_EVERY == 0);
        if (delta >= 0 && b.rank == 0)
            printf("heatdis_gpu: iteration %d, largest change %.3e\n", it + 1, delta);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    report_result(&b, it, o->out);
    band_free(&b);
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    static const char usage[] =
        "usage: heatdis_gpu [--rows R] [--cols C] [--iters N] [--config FILE] [--out PREFIX]\n";
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    MPI_Init(&argc, &argv);
    if (parse_options(argc, argv, &o) != 0) {
        fputs(usage, stderr);
        MPI_Finalize();
        return 2;
    }
    select_device();
    if (FTI_Init(o.config, MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "heatdis_gpu: FTI_Init(%s) failed\n", o.config);
        MPI_Finalize();
        return 1;
    }
    int rc = run(&o);
    FTI_Finalize();
    MPI_Finalize();
    return rc;
}
