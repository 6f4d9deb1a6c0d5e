/*
 * xrt/xrt_device.h - XRT emulation (FTI project): the subset of XRT's
 * native C device API that FTI's backend and examples use, with XRT's names
 * and signatures, implemented on the emulated device (backends/emu).
 * One device (index 0); an "xclbin" is a text file naming emulated kernels
 * (see ../xrt_emu.h).
 */
#ifndef FTI_XRT_EMU_DEVICE_H
#define FTI_XRT_EMU_DEVICE_H

#include "xrt/xrt_uuid.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *xrtDeviceHandle;

/* The device at `index`, or NULL (errno set) when there is none. */
xrtDeviceHandle xrtDeviceOpen(unsigned int index);

/* 0, or a negative errno. Buffers and kernels must be released first. */
int xrtDeviceClose(xrtDeviceHandle dhdl);

/* Loads the xclbin file `xclbin_fnm`: 0, or a negative errno. */
int xrtDeviceLoadXclbinFile(xrtDeviceHandle dhdl, const char *xclbin_fnm);

/* The uuid of the loaded xclbin into out: 0, or a negative errno. */
int xrtDeviceGetXclbinUUID(xrtDeviceHandle dhdl, xuid_t out);

#ifdef __cplusplus
}
#endif

#endif
