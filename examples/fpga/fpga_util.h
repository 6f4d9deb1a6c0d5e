/*
 * fpga_util.h - host-side helpers shared by the FPGA examples: opening the
 * device and its xclbin through XRT's native C API (real, or the emulation
 * library), buffer transfers, options common to every example (mode,
 * checkpoint level, crash injection for the tests), and messages.
 * Examples are applications: on an error they report and stop the job.
 */
#ifndef FTI_FPGA_UTIL_H
#define FTI_FPGA_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include "fti_device.h"

typedef enum { RUN_HOST, RUN_BLOCKING, RUN_NONBLOCKING, RUN_OFF } run_mode;

typedef struct common_opts {
    const char *config;  /* FTI config file */
    const char *xclbin;  /* default: the emulated xclbin of the build */
    const char *out;     /* prefix of the per-rank result file */
    run_mode mode;
    int level;           /* checkpoint level of the partial checkpoints */
    int slots;
    int64_t every;       /* checkpoint at most every `every` blocks */
    int64_t pace_ns;     /* emulation: modelled FPGA time per block */
    int64_t crash_at;    /* crash after the checkpoint holding this block (-1: never) */
    int64_t crash_task;  /* ... in this task (sweep, image, iteration) */
    int crash_rank;
    double copy_latency_us; /* emulation: device copy latency */
    int quiet;
} common_opts;

typedef struct fpga {
    xrtDeviceHandle dev;
    xuid_t uuid;
} fpga;

extern int rank, nranks;

/* Prints "rank R: ..." and stops the whole job. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Prints "rank R: ..." on stdout, flushed (the tests parse these lines). */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* -h or --help anywhere in argv: prints usage (the example's synopsis and
 * its own options) and the options every example shares to stdout and
 * returns 1 (the example then exits 0, before MPI_Init); else 0. */
int answered_help(int argc, char **argv, const char *usage);

/* Parses the options every example shares; returns 1 when argv[*i] was one. */
int common_option(common_opts *o, int argc, char **argv, int *i);
void common_defaults(common_opts *o);
const char *mode_name(run_mode m);
FTI_FpgaMode monitor_mode(run_mode m);

void fpga_open(fpga *f, const char *xclbin);
void fpga_close(fpga *f);
xrtKernelHandle fpga_kernel(fpga *f, const char *name);
/* A buffer for argument `arg` of kernel k, in the memory bank that argument
 * is connected to (xrtKernelArgGroupId). */
xrtBufferHandle fpga_alloc(fpga *f, xrtKernelHandle k, int arg, size_t bytes);
/* Host <-> device through the buffer's host store; stop the job on error. */
void bo_put(xrtBufferHandle bo, const void *src, size_t n, size_t off);
void bo_get(xrtBufferHandle bo, void *dst, size_t n, size_t off);

/* A monitor config for the example's options (the caller sets nblocks etc.). */
FTI_FpgaConfig monitor_config(const common_opts *o, xrtBufferHandle ctrl, int64_t *blocks);

/* Waits for a run and closes it; stops the job when it did not complete. */
void run_finish(xrtRunHandle run, const char *what);

/* The crash injection of the tests: after the checkpoint holding block
 * `blocks - 1` of task `task`, rank crash_rank exits as if killed. */
void maybe_crash(const common_opts *o, int64_t task, int64_t blocks);

/* Emulation only: device copy latency (slows the host side of the protocol). */
void apply_copy_latency(const common_opts *o);

/* Writes n bytes to "<prefix>.<rank>". */
void write_result(const char *prefix, const void *buf, size_t n);

#endif
