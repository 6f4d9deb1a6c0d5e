/*
 * xrt/xrt_kernel.h - XRT emulation (FTI project): kernels and runs of XRT's
 * native C API. An emulated kernel is a C function registered under its
 * name (../xrt_emu.h); xrtKernelRun starts it in a thread of its own with
 * buffer arguments turned into device memory pointers, as the FPGA would
 * see them.
 */
#ifndef FTI_XRT_EMU_KERNEL_H
#define FTI_XRT_EMU_KERNEL_H

#include "xrt/xrt_bo.h"
#include "xrt/xrt_device.h"
#include "xrt/xrt_uuid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *xrtKernelHandle;
typedef void *xrtRunHandle;

enum ert_cmd_state {
    ERT_CMD_STATE_NEW = 1,
    ERT_CMD_STATE_QUEUED = 2,
    ERT_CMD_STATE_RUNNING = 3,
    ERT_CMD_STATE_COMPLETED = 4,
    ERT_CMD_STATE_ERROR = 5,
    ERT_CMD_STATE_ABORT = 6,
    ERT_CMD_STATE_SUBMITTED = 7,
    ERT_CMD_STATE_TIMEOUT = 8,
};

/* Kernel `name` of the loaded xclbin `xclbin_id`, or NULL (errno set). */
xrtKernelHandle xrtPLKernelOpen(xrtDeviceHandle dhdl, const xuid_t xclbin_id, const char *name);

/* 0, or -1. Runs must be closed first. */
int xrtKernelClose(xrtKernelHandle khdl);

/* The memory group (bank) buffer argument argno is connected to, for
 * xrtBOAlloc; negative on error. */
int xrtKernelArgGroupId(xrtKernelHandle khdl, int argno);

/* Starts the kernel with its arguments (buffers as xrtBufferHandle, scalars
 * by value in the kernel's declared types); a run handle, or NULL. */
xrtRunHandle xrtKernelRun(xrtKernelHandle khdl, ...);

/* Waits for the run: ERT_CMD_STATE_COMPLETED, or ERT_CMD_STATE_ABORT. */
enum ert_cmd_state xrtRunWait(xrtRunHandle rhdl);

/* As xrtRunWait, at most timeout_ms: the state at that time. */
enum ert_cmd_state xrtRunWaitFor(xrtRunHandle rhdl, unsigned int timeout_ms);

enum ert_cmd_state xrtRunState(xrtRunHandle rhdl);

/* Waits for the run to end, then releases it: 0, or -1. */
int xrtRunClose(xrtRunHandle rhdl);

#ifdef __cplusplus
}
#endif

#endif
