/*
 * axi_model_kernels.c - the kernels we ship, compiled for the model of AXI
 * memory: the examples' kernels (examples/fpga/ jacobi, yuv, kmeans, unchanged) and
 * the protocol tests' kernel (test_kernel.h), with fti_kernel.h's
 * primitives predefined to the model's (axi_model_kernel.h).
 */
#include "axi_model_kernel.h"

#include <string.h>

#define FTI_TEST_KERNEL_NO_THREADS
#include "test_kernel.h"

#include "jacobi_kernel.c"
#include "kmeans_kernel.c"
#include "yuv_kernel.c"

void axim_test_kernel(fti_k_word *ctrl, uint64_t *data, uint64_t *slots, int nblocks, size_t bw,
                      size_t sw);

void axim_test_kernel(fti_k_word *ctrl, uint64_t *data, uint64_t *slots, int nblocks, size_t bw,
                      size_t sw)
{
    tkernel k;
    memset(&k, 0, sizeof k);
    k.ctrl = ctrl;
    k.data = data;
    k.slots = slots;
    k.nblocks = nblocks;
    k.bw = bw;
    k.sw = sw;
    k.hang_after = -1;
    kernel_body(&k);
}
