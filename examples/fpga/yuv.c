/*
 * yuv.c - a YUV filter applied to a stream of images, one FPGA task per
 * image (yuv_kernel.c): RGB -> YUV, blur, YUV -> RGB. Checkpointed with FTI:
 *
 *   --mode blocking | nonblocking   a partial checkpoint after each stage
 *                                   (three per task), in-kernel protocol
 *   --mode host                     FTI_Snapshot between tasks; the last
 *                                   output image stays on the device and is
 *                                   protected there (FTI_ProtectDevice)
 *   --mode off                      no checkpoints (reference)
 *
 *   mpiexec -n 4 fpga_yuv CONFIG [--mode M] [--width W] [--height H]
 *       [--tasks T] [common options of fpga_util.h]
 *
 * Image t of rank r is generated from (r, t), so inputs need no checkpoint.
 * The result, PREFIX.<rank>, is the digest of every task's output followed
 * by the last output image: the same bytes whatever the mode and however
 * the run was interrupted.
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

enum { ID_TASK = 1, ID_BLOCKS, ID_SUM, ID_DIGEST, ID_YUV, ID_BLUR, ID_OUT, ID_DEV_OUT = 10 };

_Static_assert(sizeof(long) == sizeof(int64_t), "FTI_LONG protects the int64_t block counter");

typedef struct yuv {
    common_opts o;
    int w, h, tasks;
    size_t bytes; /* 3 * w * h */
    fpga f;
    xrtKernelHandle kernel;
    xrtBufferHandle rgb, stage[YUV_STAGES], ctrl, sums;
    uint8_t *in, *host[YUV_STAGES]; /* host copies of the stage outputs */
    int task;        /* protected: tasks done */
    int64_t blocks;  /* protected: stages of the current task checkpointed */
    uint64_t sum;    /* protected: chained checksum of the task's stages */
    uint64_t digest; /* protected: digest of the finished tasks */
    double secs;
    FTI_FpgaStats st;
} yuv;

static void parse(yuv *y, int argc, char **argv)
{
    common_defaults(&y->o);
    y->w = 64, y->h = 48, y->tasks = 8;
    if (argc < 2)
        die("usage: %s CONFIG [options] (see the header of yuv.c)", argv[0]);
    y->o.config = argv[1];
    for (int i = 2; i < argc; i++) {
        if (common_option(&y->o, argc, argv, &i))
            continue;
        if (i + 1 >= argc)
            die("unknown option %s", argv[i]);
        if (strcmp(argv[i], "--width") == 0) y->w = atoi(argv[++i]);
        else if (strcmp(argv[i], "--height") == 0) y->h = atoi(argv[++i]);
        else if (strcmp(argv[i], "--tasks") == 0) y->tasks = atoi(argv[++i]);
        else die("unknown option %s", argv[i]);
    }
    if (y->w < 1 || y->h < 1 || y->tasks < 1)
        die("--width, --height and --tasks must be positive");
}

static uint8_t *xalloc(size_t n)
{
    uint8_t *p = calloc(n ? n : 1, 1);
    if (p == NULL)
        die("out of memory for %zu bytes", n);
    return p;
}

static void setup(yuv *y)
{
    y->bytes = (size_t)y->w * (size_t)y->h * 3;
    fpga_open(&y->f, y->o.xclbin);
    y->kernel = fpga_kernel(&y->f, "yuv_filter");
    y->rgb = fpga_alloc(&y->f, y->kernel, 0, y->bytes);
    for (int s = 0; s < YUV_STAGES; s++) {
        y->stage[s] = fpga_alloc(&y->f, y->kernel, 1 + s, y->bytes);
        y->host[s] = xalloc(y->bytes);
    }
    y->ctrl = fpga_alloc(&y->f, y->kernel, 4, FTI_FpgaCtrlBytes((uint32_t)y->o.slots));
    y->sums = fpga_alloc(&y->f, y->kernel, 5, (size_t)y->o.slots * SLOT_BYTES);
    y->in = xalloc(y->bytes);
}

static void protect(yuv *y)
{
    int ok = FTI_Protect(ID_TASK, &y->task, 1, FTI_INTG) == FTI_SCES;
    ok &= FTI_Protect(ID_DIGEST, &y->digest, 1, FTI_ULNG) == FTI_SCES;
    if (y->o.mode == RUN_HOST) {
        ok &= FTI_ProtectDevice(ID_DEV_OUT, "xrt", y->stage[YUV_STAGES - 1], 0,
                                (int64_t)y->bytes, FTI_UCHR) == FTI_SCES;
    } else {
        ok &= FTI_Protect(ID_BLOCKS, &y->blocks, 1, FTI_LONG) == FTI_SCES;
        ok &= FTI_Protect(ID_SUM, &y->sum, 1, FTI_ULNG) == FTI_SCES;
        for (int s = 0; s < YUV_STAGES; s++)
            ok &= FTI_Protect(ID_YUV + s, y->host[s], (int64_t)y->bytes, FTI_UCHR) == FTI_SCES;
    }
    if (!ok)
        die("FTI_Protect failed");
}

/* Image t of this rank: a deterministic pattern, different per rank. */
static void make_image(yuv *y, int t)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1) + (uint64_t)t;
    for (size_t i = 0; i < y->bytes; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        y->in[i] = (uint8_t)(x >> 24);
    }
    bo_put(y->rgb, y->in, y->bytes, 0);
}

static void on_checkpoint(void *arg, int64_t blocks)
{
    yuv *y = arg;
    if (!y->o.quiet)
        say("CKPT task %d blocks %lld", y->task, (long long)blocks);
    maybe_crash(&y->o, y->task, blocks);
}

static FTI_FpgaMonitor *monitor(yuv *y)
{
    FTI_FpgaMonitor *m;
    FTI_FpgaConfig c = monitor_config(&y->o, y->ctrl, &y->blocks);
    c.nblocks = YUV_STAGES;
    c.ckpt_id = y->task * YUV_STAGES + 1;
    c.on_checkpoint = on_checkpoint;
    c.arg = y;
    if (c.mode == FTI_FPGA_OFF)
        c.blocks_var = NULL;
    if (FTI_FpgaCreate(&m, &c) != FTI_SCES)
        die("FTI_FpgaCreate failed");
    int ok = 1;
    for (int s = 0; c.mode != FTI_FPGA_OFF && s < YUV_STAGES; s++) /* stage s writes buffer s */
        ok &= FTI_FpgaAddBlockRegion(m, y->stage[s], 0, y->bytes, s, 1, y->host[s]) == FTI_SCES;
    if (c.mode != FTI_FPGA_OFF)
        ok &= FTI_FpgaAddSlotRegion(m, y->sums, 0, SLOT_BYTES, sizeof y->sum, &y->sum) == FTI_SCES;
    if (!ok || FTI_FpgaStart(m) != FTI_SCES)
        die("FTI_FpgaAdd*Region or FTI_FpgaStart failed");
    return m;
}

static void add_stats(yuv *y, const FTI_FpgaMonitor *m)
{
    FTI_FpgaStats s;
    FTI_FpgaGetStats(m, &s);
    y->st.checkpoints += s.checkpoints;
    y->st.torn += s.torn;
    y->st.resends += s.resends;
    y->st.raises += s.raises;
    y->st.ckpt_seconds += s.ckpt_seconds;
}

static void task(yuv *y)
{
    make_image(y, y->task);
    FTI_FpgaMonitor *m = monitor(y);
    xrtRunHandle run = xrtKernelRun(y->kernel, y->rgb, y->stage[0], y->stage[1], y->stage[2],
                                    y->ctrl, y->sums, y->w, y->h, y->o.pace_ns);
    if (run == NULL)
        die("xrtKernelRun(yuv_filter) failed");
    if (FTI_FpgaWait(m) != FTI_SCES)
        die("task %d: FTI_FpgaWait failed (see the message above)", y->task);
    run_finish(run, "yuv_filter");
    add_stats(y, m);
    FTI_FpgaFree(m);
    if (y->o.mode == RUN_HOST || y->o.mode == RUN_OFF) {
        size_t last = (size_t)(YUV_STAGES - 1) % (size_t)y->o.slots * SLOT_BYTES;
        bo_get(y->sums, &y->sum, sizeof y->sum, last);
        bo_get(y->stage[YUV_STAGES - 1], y->host[YUV_STAGES - 1], y->bytes, 0);
    }
    y->digest = y->digest * 1000003ULL + y->sum;
    y->blocks = 0;
    y->task++;
}

static void snapshot(yuv *y)
{
    int rc = FTI_Snapshot();
    if (rc == FTI_NSCS)
        die("FTI_Snapshot failed");
    if (rc == FTI_DONE) {
        if (!y->o.quiet)
            say("CKPT task %d blocks 0", y->task); /* between tasks */
        maybe_crash(&y->o, y->task, 1);
    }
}

static void restart(yuv *y)
{
    if (!FTI_Status())
        return;
    if (FTI_Recover() != FTI_SCES)
        die("FTI_Recover failed");
    say("RESUME task %d blocks %lld", y->task, (long long)y->blocks);
    if (y->o.mode == RUN_HOST) /* the protected output came back to the device */
        bo_get(y->stage[YUV_STAGES - 1], y->host[YUV_STAGES - 1], y->bytes, 0);
}

static void finish(yuv *y)
{
    uint8_t *res = xalloc(sizeof y->digest + y->bytes);
    memcpy(res, &y->digest, sizeof y->digest);
    memcpy(res + sizeof y->digest, y->host[YUV_STAGES - 1], y->bytes);
    write_result(y->o.out, res, sizeof y->digest + y->bytes);
    free(res);
    say("DONE mode %s tasks %d time %.6f checkpoints %lld torn %lld resends %lld ckpt_time %.6f "
        "digest %016llx", mode_name(y->o.mode), y->task, y->secs, (long long)y->st.checkpoints,
        (long long)y->st.torn, (long long)y->st.resends, y->st.ckpt_seconds,
        (unsigned long long)y->digest);
}

static void teardown(yuv *y)
{
    for (int s = 0; s < YUV_STAGES; s++) {
        xrtBOFree(y->stage[s]);
        free(y->host[s]);
    }
    xrtBOFree(y->rgb);
    xrtBOFree(y->ctrl);
    xrtBOFree(y->sums);
    free(y->in);
    xrtKernelClose(y->kernel);
    fpga_close(&y->f);
}

static const char usage[] =
    "usage: mpiexec -n 4 fpga_yuv CONFIG [options]\n"
    "a YUV filter over a stream of images, one FPGA task per image, checkpointed with FTI\n"
    "  --width W   image width (default 64)\n"
    "  --height H  image height (default 48)\n"
    "  --tasks T   images (tasks) per rank (default 8)\n";

int main(int argc, char **argv)
{
    yuv y;
    memset(&y, 0, sizeof y);
    if (answered_help(argc, argv, usage))
        return 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    parse(&y, argc, argv);
    if (FTI_Init(y.o.config, MPI_COMM_WORLD) != FTI_SCES)
        die("FTI_Init(%s) failed", y.o.config);
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &nranks);
    apply_copy_latency(&y.o);
    setup(&y);
    protect(&y);
    restart(&y);
    double t0 = MPI_Wtime();
    while (y.task < y.tasks) {
        task(&y);
        if (y.o.mode == RUN_HOST)
            snapshot(&y);
    }
    y.secs = MPI_Wtime() - t0;
    finish(&y);
    teardown(&y);
    FTI_Finalize();
    MPI_Finalize();
    return 0;
}
