/*
 * kernels_emu.c - registers the examples' kernels with the XRT emulation
 * library, under the names an xclbin would give them. Compiled only when
 * the platform is emulated; with XRT the kernels come from the xclbin.
 */
#include "kernels.h"
#include "xrt_emu.h"

static void jacobi_emu(const xrt_emu_arg *a)
{
    jacobi_sweep(a[0].ptr, a[1].ptr, a[2].ptr, a[3].ptr, (int)a[4].i, (int)a[5].i, (int)a[6].i,
                 a[7].i);
}
XRT_EMU_KERNEL(jacobi_sweep, "bbbbiiil", jacobi_emu)

static void yuv_emu(const xrt_emu_arg *a)
{
    yuv_filter(a[0].ptr, a[1].ptr, a[2].ptr, a[3].ptr, a[4].ptr, a[5].ptr, (int)a[6].i,
               (int)a[7].i, a[8].i);
}
XRT_EMU_KERNEL(yuv_filter, "bbbbbbiil", yuv_emu)

static void kmeans_emu(const xrt_emu_arg *a)
{
    kmeans_assign(a[0].ptr, a[1].ptr, a[2].ptr, a[3].ptr, a[4].ptr, (int)a[5].i, (int)a[6].i,
                  (int)a[7].i);
}
XRT_EMU_KERNEL(kmeans_assign, "bbbbbiii", kmeans_emu)
