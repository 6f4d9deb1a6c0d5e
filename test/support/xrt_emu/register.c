/*
 * register.c - makes the XRT backend, built against the XRT emulation
 * library (libfti has no "xrt" backend without XRT), known to libfti by
 * name when the program loads, so FTI_ProtectDevice(.., "xrt", ..) and the
 * FPGA monitor find it exactly as they find the built-in one.
 */
#include <stdio.h>

#include "device.h"
#include "xrt/fti_xrt.h"

__attribute__((constructor)) static void register_xrt_backend(void)
{
    if (fti_device_register(&fti_xrt_ops) != 0)
        fprintf(stderr, "xrt-emu: could not register the emulated \"xrt\" backend with libfti\n");
}
