/*
 * fpga_util.c - see fpga_util.h.
 */
#include "fpga_util.h"

#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef FTI_XRT_EMULATED
#include "emu/emu.h"
#endif

int rank, nranks;

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "rank %d: error: ", rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

/* One write per line: mpiexec merges the ranks' output, and the tests parse it. */
void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    int n = snprintf(line, sizeof line, "rank %d: ", rank);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    strncat(line, "\n", sizeof line - strlen(line) - 1);
    fputs(line, stdout);
    fflush(stdout);
}

void common_defaults(common_opts *o)
{
    memset(o, 0, sizeof *o);
    o->xclbin = FTI_FPGA_XCLBIN;
    o->out = "fpga_out";
    o->mode = RUN_BLOCKING;
    o->level = 1;
    o->slots = 2;
    o->every = 1;
    o->crash_at = -1;
    o->crash_task = 0;
}

const char *mode_name(run_mode m)
{
    static const char *names[] = {"host", "blocking", "nonblocking", "off"};
    return names[m];
}

FTI_FpgaMode monitor_mode(run_mode m)
{
    return m == RUN_BLOCKING ? FTI_FPGA_BLOCKING : m == RUN_NONBLOCKING ? FTI_FPGA_NONBLOCKING
                                                                         : FTI_FPGA_OFF;
}

static run_mode parse_mode(const char *s)
{
    for (int m = RUN_HOST; m <= RUN_OFF; m++)
        if (strcmp(s, mode_name((run_mode)m)) == 0)
            return (run_mode)m;
    die("unknown mode '%s' (host, blocking, nonblocking, off)", s);
}

/* "--name value": 1 and *val when argv[*i] is --name. */
static int opt(int argc, char **argv, int *i, const char *name, const char **val)
{
    if (strcmp(argv[*i], name) != 0)
        return 0;
    if (*i + 1 >= argc)
        die("option %s needs a value", name);
    *val = argv[++*i];
    return 1;
}

int answered_help(int argc, char **argv, const char *usage)
{
    int asked = 0;
    for (int i = 1; i < argc; i++)
        asked |= strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0;
    if (!asked)
        return 0;
    fputs(usage, stdout);
    fputs("\noptions of every FPGA example:\n"
          "  --mode host|blocking|nonblocking|off  how the tasks are checkpointed (default blocking)\n"
          "  --level L            level of the partial checkpoints (default 1)\n"
          "  --slots N            checkpoint slots in device memory, in-kernel modes (default 2)\n"
          "  --every B            a partial checkpoint at most every B blocks (default 1)\n"
          "  --out PREFIX         the result of rank r goes to PREFIX.<r> (default fpga_out)\n"
          "  --xclbin FILE        the kernels (default: the emulated xclbin of the build)\n"
          "  --crash-task T --crash-at B [--crash-rank R]\n"
          "                       die (SIGKILL) after the checkpoint holding block B of task T\n"
          "  --pace-us U          emulation: modelled FPGA time per block, microseconds\n"
          "  --copy-latency-us U  emulation: device copy latency, microseconds\n"
          "  --quiet              no progress lines\n"
          "  -h, --help           this text\n"
          "Run under mpiexec; see FPGA.md of libfti's documentation.\n",
          stdout);
    return 1;
}

int common_option(common_opts *o, int argc, char **argv, int *i)
{
    const char *v;
    if (opt(argc, argv, i, "--xclbin", &v)) o->xclbin = v;
    else if (opt(argc, argv, i, "--out", &v)) o->out = v;
    else if (opt(argc, argv, i, "--mode", &v)) o->mode = parse_mode(v);
    else if (opt(argc, argv, i, "--level", &v)) o->level = atoi(v);
    else if (opt(argc, argv, i, "--slots", &v)) o->slots = atoi(v);
    else if (opt(argc, argv, i, "--every", &v)) o->every = atoll(v);
    else if (opt(argc, argv, i, "--pace-us", &v)) o->pace_ns = (int64_t)(atof(v) * 1000);
    else if (opt(argc, argv, i, "--crash-at", &v)) o->crash_at = atoll(v);
    else if (opt(argc, argv, i, "--crash-task", &v)) o->crash_task = atoll(v);
    else if (opt(argc, argv, i, "--crash-rank", &v)) o->crash_rank = atoi(v);
    else if (opt(argc, argv, i, "--copy-latency-us", &v)) o->copy_latency_us = atof(v);
    else if (strcmp(argv[*i], "--quiet") == 0) o->quiet = 1;
    else return 0;
    return 1;
}

void fpga_open(fpga *f, const char *xclbin)
{
    f->dev = xrtDeviceOpen(0);
    if (f->dev == NULL)
        die("xrtDeviceOpen(0) failed: %s", strerror(errno));
    if (xrtDeviceLoadXclbinFile(f->dev, xclbin) != 0)
        die("cannot load xclbin %s", xclbin);
    if (xrtDeviceGetXclbinUUID(f->dev, f->uuid) != 0)
        die("cannot read the uuid of xclbin %s", xclbin);
}

void fpga_close(fpga *f)
{
    xrtDeviceClose(f->dev);
}

xrtKernelHandle fpga_kernel(fpga *f, const char *name)
{
    xrtKernelHandle k = xrtPLKernelOpen(f->dev, f->uuid, name);
    if (k == NULL)
        die("kernel %s not found in the xclbin", name);
    return k;
}

xrtBufferHandle fpga_alloc(fpga *f, xrtKernelHandle k, int arg, size_t bytes)
{
    /* The bank the xclbin connects the argument to: a buffer in another
     * bank cannot be passed to the kernel (or is reached slowly across the
     * memory interconnect, depending on the platform). */
    int group = xrtKernelArgGroupId(k, arg);
    if (group < 0)
        die("xrtKernelArgGroupId(argument %d) failed: %d", arg, group);
    xrtBufferHandle bo = xrtBOAlloc(f->dev, bytes, XRT_BO_FLAGS_NONE, (xrtMemoryGroup)group);
    if (bo == NULL)
        die("xrtBOAlloc(%zu bytes in memory group %d) failed", bytes, group);
    return bo;
}

void bo_put(xrtBufferHandle bo, const void *src, size_t n, size_t off)
{
    if (xrtBOWrite(bo, src, n, off) != 0 || xrtBOSync(bo, XCL_BO_SYNC_BO_TO_DEVICE, n, off) != 0)
        die("writing %zu bytes at %zu to the device failed", n, off);
}

void bo_get(xrtBufferHandle bo, void *dst, size_t n, size_t off)
{
    if (xrtBOSync(bo, XCL_BO_SYNC_BO_FROM_DEVICE, n, off) != 0 || xrtBORead(bo, dst, n, off) != 0)
        die("reading %zu bytes at %zu from the device failed", n, off);
}

FTI_FpgaConfig monitor_config(const common_opts *o, xrtBufferHandle ctrl, int64_t *blocks)
{
    FTI_FpgaConfig c = FTI_FpgaConfigDefaults();
    c.mode = monitor_mode(o->mode);
    c.backend = "xrt";
    c.ctrl = ctrl;
    c.slots = (uint32_t)o->slots;
    c.blocks_var = blocks;
    c.level = o->level;
    c.every = o->every;
    return c;
}

void run_finish(xrtRunHandle run, const char *what)
{
    enum ert_cmd_state s = xrtRunWait(run);
    xrtRunClose(run);
    if (s != ERT_CMD_STATE_COMPLETED)
        die("%s: the kernel run ended in state %d", what, (int)s);
}

void maybe_crash(const common_opts *o, int64_t task, int64_t blocks)
{
    if (o->crash_at < 0 || rank != o->crash_rank || task != o->crash_task || blocks - 1 < o->crash_at)
        return;
    say("CRASH task %lld after the checkpoint of block %lld", (long long)task,
        (long long)(blocks - 1));
    _exit(42);
}

void apply_copy_latency(const common_opts *o)
{
    if (o->copy_latency_us <= 0)
        return;
#ifdef FTI_XRT_EMULATED
    fti_emu_set_speed(0, o->copy_latency_us * 1e-6);
#else
    say("--copy-latency-us applies to the emulated device only: ignored");
#endif
}

void write_result(const char *prefix, const void *buf, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.%d", prefix, rank);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(buf, 1, n, f) != n || fclose(f) != 0)
        die("cannot write %s: %s", path, strerror(errno));
}
