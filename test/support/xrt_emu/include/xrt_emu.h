/*
 * xrt_emu.h - what the XRT emulation library adds to XRT's C API: the
 * registry of emulated kernels and the emulated xclbin format. Code built
 * for real XRT never includes this header; only the emulated kernels'
 * registration (a constructor in a file compiled for emulation only) does.
 *
 * Emulated xclbin: a text file whose first line is "fti-xrt-emu xclbin 1"
 * and whose other lines are "kernel NAME"; each NAME must be registered.
 * Its uuid is a hash of its bytes.
 *
 * Argument kinds of a registered kernel, one character each: 'b' buffer
 * (xrtBufferHandle in, device pointer out), 'i' int, 'u' unsigned int,
 * 'l' int64_t, 'L' uint64_t, 'd' double.
 */
#ifndef FTI_XRT_EMU_H
#define FTI_XRT_EMU_H

#include <stdint.h>

#include "xrt/xrt_kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define XRT_EMU_MAX_ARGS 16

typedef union xrt_emu_arg {
    void *ptr;
    int64_t i;
    uint64_t u;
    double d;
} xrt_emu_arg;

typedef void (*xrt_emu_kernel_fn)(const xrt_emu_arg *args);

/* Registers kernel `name` with argument kinds `args`: 0, or -1 (table full,
 * bad kinds, name taken). Call from a constructor, before any thread. */
int xrt_emu_register_kernel(const char *name, const char *args, xrt_emu_kernel_fn fn);

/* Registers at load time: XRT_EMU_KERNEL(jacobi_sweep, "bbbiii", wrapper). */
#define XRT_EMU_KERNEL(name, args, fn)                                                \
    __attribute__((constructor)) static void xrt_emu_register_##name(void)            \
    {                                                                                 \
        xrt_emu_register_kernel(#name, args, fn);                                     \
    }

#ifdef __cplusplus
}
#endif

#endif
