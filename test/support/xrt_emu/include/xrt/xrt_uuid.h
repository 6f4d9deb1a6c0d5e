/*
 * xrt/xrt_uuid.h - XRT emulation (FTI project): the xclbin identifier type,
 * as XRT's native C API names it. See ../xrt_emu.h.
 */
#ifndef FTI_XRT_EMU_UUID_H
#define FTI_XRT_EMU_UUID_H

typedef unsigned char xuid_t[16];

#endif
