/*
 * kmeans.c - K-means clustering with the assignment step offloaded to an
 * FPGA task (kmeans_kernel.c) and a manual, host-side FTI_Checkpoint every
 * --ckpt-every iterations of: the centroids, the labels (on the device,
 * protected at their offset inside the kernel's work buffer with
 * FTI_ProtectDevice), the iteration and the history of errors (inertia).
 *
 *   mpiexec -n 4 fpga_kmeans CONFIG [--points N] [--dims D] [--clusters K]
 *       [--iters I] [--ckpt-every E] [--level L] [common options]
 *
 * Each rank owns N points, generated from its rank; the centroids are
 * global (sums and counts are reduced over the ranks every iteration).
 * The result, PREFIX.<rank>: centroids, errors, then the labels.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fti.h"
#include "fti_device.h"

#include "fpga_util.h"
#include "kernels.h"

enum { ID_ITER = 1, ID_CENTROIDS, ID_ERRORS, ID_LABELS };

#define LABELS_ALIGN 4096

typedef struct kmeans {
    common_opts o;
    int n, d, k, iters, every;
    fpga f;
    xrtKernelHandle kernel;
    xrtBufferHandle pts, cent, work, acc_bo, labels_bo, ctrl;
    size_t acc_words, labels_off;
    double *centroids, *errors, *acc, *points;
    int32_t *labels;
    int iter; /* protected: iterations done */
} kmeans;

static void parse(kmeans *km, int argc, char **argv)
{
    common_defaults(&km->o);
    km->n = 2000, km->d = 4, km->k = 5, km->iters = 12, km->every = 3;
    if (argc < 2)
        die("usage: %s CONFIG [options] (see the header of kmeans.c)", argv[0]);
    km->o.config = argv[1];
    for (int i = 2; i < argc; i++) {
        if (common_option(&km->o, argc, argv, &i))
            continue;
        if (i + 1 >= argc)
            die("unknown option %s", argv[i]);
        if (strcmp(argv[i], "--points") == 0) km->n = atoi(argv[++i]);
        else if (strcmp(argv[i], "--dims") == 0) km->d = atoi(argv[++i]);
        else if (strcmp(argv[i], "--clusters") == 0) km->k = atoi(argv[++i]);
        else if (strcmp(argv[i], "--iters") == 0) km->iters = atoi(argv[++i]);
        else if (strcmp(argv[i], "--ckpt-every") == 0) km->every = atoi(argv[++i]);
        else die("unknown option %s", argv[i]);
    }
    if (km->n < km->k || km->d < 1 || km->k < 1 || km->iters < 1 || km->every < 1)
        die("need points >= clusters >= 1, dims >= 1, iters >= 1, ckpt-every >= 1");
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (p == NULL)
        die("out of memory");
    return p;
}

/* Points around k centres, from this rank's seed; the first k points of
 * rank 0 seed the centroids (every rank computes the same). */
static void make_points(kmeans *km)
{
    uint64_t x = 0x2545f4914f6cdd1dULL * (uint64_t)(rank + 1);
    for (size_t i = 0; i < (size_t)km->n * (size_t)km->d; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int centre = (int)((i / (size_t)km->d) % (size_t)km->k);
        km->points[i] = 10.0 * centre + (double)(x % 1000) / 250.0;
    }
    memcpy(km->centroids, km->points, (size_t)km->k * (size_t)km->d * sizeof(double));
    MPI_Bcast(km->centroids, km->k * km->d, MPI_DOUBLE, 0, FTI_COMM_WORLD);
}

/* The kernel's work buffer: accumulators, then the labels at an aligned
 * offset; the kernel gets each part as a sub-buffer. */
static void setup(kmeans *km)
{
    size_t kd = (size_t)km->k * (size_t)km->d;
    km->acc_words = kd + (size_t)km->k + 1;
    km->labels_off = (km->acc_words * sizeof(double) + LABELS_ALIGN - 1) / LABELS_ALIGN * LABELS_ALIGN;
    km->points = xcalloc((size_t)km->n * (size_t)km->d, sizeof(double));
    km->centroids = xcalloc(kd, sizeof(double));
    km->errors = xcalloc((size_t)km->iters, sizeof(double));
    km->acc = xcalloc(km->acc_words, sizeof(double));
    km->labels = xcalloc((size_t)km->n, sizeof(int32_t));
    fpga_open(&km->f, km->o.xclbin);
    km->kernel = fpga_kernel(&km->f, "kmeans_assign");
    km->pts = fpga_alloc(&km->f, km->kernel, 0, (size_t)km->n * (size_t)km->d * sizeof(double));
    km->cent = fpga_alloc(&km->f, km->kernel, 1, kd * sizeof(double));
    km->work = fpga_alloc(&km->f, km->kernel, 2, km->labels_off + (size_t)km->n * sizeof(int32_t));
    km->acc_bo = xrtBOSubAlloc(km->work, km->acc_words * sizeof(double), 0);
    km->labels_bo = xrtBOSubAlloc(km->work, (size_t)km->n * sizeof(int32_t), km->labels_off);
    km->ctrl = fpga_alloc(&km->f, km->kernel, 4, FTI_FpgaCtrlBytes(1));
    if (km->acc_bo == NULL || km->labels_bo == NULL)
        die("xrtBOSubAlloc of the work buffer failed");
    make_points(km);
    bo_put(km->pts, km->points, (size_t)km->n * (size_t)km->d * sizeof(double), 0);
}

static void protect(kmeans *km)
{
    int ok = FTI_Protect(ID_ITER, &km->iter, 1, FTI_INTG) == FTI_SCES;
    ok &= FTI_Protect(ID_CENTROIDS, km->centroids, (int64_t)km->k * km->d, FTI_DBLE) == FTI_SCES;
    ok &= FTI_Protect(ID_ERRORS, km->errors, km->iters, FTI_DBLE) == FTI_SCES;
    ok &= FTI_ProtectDevice(ID_LABELS, "xrt", km->work, km->labels_off, km->n, FTI_INTG) == FTI_SCES;
    if (!ok)
        die("FTI_Protect / FTI_ProtectDevice failed");
}

static void assign(kmeans *km)
{
    FTI_FpgaMonitor *m;
    FTI_FpgaConfig c = monitor_config(&km->o, km->ctrl, NULL);
    c.mode = FTI_FPGA_OFF;
    c.slots = 1;
    c.nblocks = 1;
    bo_put(km->cent, km->centroids, (size_t)km->k * (size_t)km->d * sizeof(double), 0);
    if (FTI_FpgaCreate(&m, &c) != FTI_SCES || FTI_FpgaStart(m) != FTI_SCES)
        die("FTI_FpgaCreate / FTI_FpgaStart failed");
    xrtRunHandle run = xrtKernelRun(km->kernel, km->pts, km->cent, km->labels_bo, km->acc_bo,
                                    km->ctrl, km->n, km->d, km->k);
    if (run == NULL)
        die("xrtKernelRun(kmeans_assign) failed");
    if (FTI_FpgaWait(m) != FTI_SCES)
        die("iteration %d: the kernel did not finish (see the message above)", km->iter);
    run_finish(run, "kmeans_assign");
    FTI_FpgaFree(m);
}

/* New centroids from the global sums and counts; an empty cluster stays. */
static void update(kmeans *km)
{
    size_t kd = (size_t)km->k * (size_t)km->d;
    double *all = xcalloc(km->acc_words, sizeof(double));
    bo_get(km->acc_bo, km->acc, km->acc_words * sizeof(double), 0);
    MPI_Allreduce(km->acc, all, (int)km->acc_words, MPI_DOUBLE, MPI_SUM, FTI_COMM_WORLD);
    for (int c = 0; c < km->k; c++) {
        double count = all[kd + (size_t)c];
        for (int j = 0; count > 0 && j < km->d; j++)
            km->centroids[(size_t)c * km->d + j] = all[(size_t)c * km->d + j] / count;
    }
    km->errors[km->iter] = all[km->acc_words - 1];
    free(all);
}

static void checkpoint(kmeans *km)
{
    if (km->iter % km->every != 0)
        return;
    if (FTI_Checkpoint(km->iter, km->o.level) != FTI_DONE)
        die("FTI_Checkpoint at iteration %d failed", km->iter);
    if (!km->o.quiet)
        say("CKPT iter %d blocks 1", km->iter);
    maybe_crash(&km->o, km->iter, 1);
}

static void finish(kmeans *km)
{
    size_t kd = (size_t)km->k * (size_t)km->d;
    size_t n = (kd + (size_t)km->iters) * sizeof(double) + (size_t)km->n * sizeof(int32_t);
    unsigned char *res = xcalloc(n, 1);
    bo_get(km->labels_bo, km->labels, (size_t)km->n * sizeof(int32_t), 0);
    memcpy(res, km->centroids, kd * sizeof(double));
    memcpy(res + kd * sizeof(double), km->errors, (size_t)km->iters * sizeof(double));
    memcpy(res + (kd + (size_t)km->iters) * sizeof(double), km->labels,
           (size_t)km->n * sizeof(int32_t));
    write_result(km->o.out, res, n);
    free(res);
    say("DONE iters %d error %.17g", km->iter, km->iter ? km->errors[km->iter - 1] : 0.0);
}

static void teardown(kmeans *km)
{
    xrtBOFree(km->acc_bo); /* sub-buffers before their parent */
    xrtBOFree(km->labels_bo);
    xrtBOFree(km->work);
    xrtBOFree(km->pts);
    xrtBOFree(km->cent);
    xrtBOFree(km->ctrl);
    xrtKernelClose(km->kernel);
    fpga_close(&km->f);
    free(km->points), free(km->centroids), free(km->errors), free(km->acc), free(km->labels);
}

static const char usage[] =
    "usage: mpiexec -n 4 fpga_kmeans CONFIG [options]\n"
    "K-means with the assignment step on the FPGA, FTI_Checkpoint every --ckpt-every iterations\n"
    "  --points N      points per rank (default 2000)\n"
    "  --dims D        dimensions (default 4)\n"
    "  --clusters K    clusters (default 5)\n"
    "  --iters I       iterations (default 12)\n"
    "  --ckpt-every E  iterations between checkpoints (default 3)\n";

int main(int argc, char **argv)
{
    kmeans km;
    memset(&km, 0, sizeof km);
    if (answered_help(argc, argv, usage))
        return 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    parse(&km, argc, argv);
    if (FTI_Init(km.o.config, MPI_COMM_WORLD) != FTI_SCES)
        die("FTI_Init(%s) failed", km.o.config);
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &nranks);
    setup(&km);
    protect(&km);
    if (FTI_Status()) {
        if (FTI_Recover() != FTI_SCES)
            die("FTI_Recover failed");
        say("RESUME iter %d blocks 1", km.iter);
    }
    while (km.iter < km.iters) {
        assign(&km);
        update(&km);
        km.iter++;
        checkpoint(&km);
    }
    finish(&km);
    teardown(&km);
    FTI_Finalize();
    MPI_Finalize();
    return 0;
}
