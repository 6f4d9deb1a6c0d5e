/*
 * jacobi_kernel.c - the FPGA task of the Jacobi heat solver: one sweep over
 * a slab of `rows` interior rows (plus one ghost row above and below) and
 * `cols` columns, in blocks of `block_rows` rows. Plain C for HLS (v++ -c -k
 * jacobi_sweep) and for the emulated device, where it runs as a thread.
 *
 * In-kernel checkpointing (fti_kernel.h): after each block the kernel
 * publishes its progress; the running error sum is its only loop-carried
 * state and is replicated per slot (errs[b % slots]); in blocking mode it
 * then waits for the host's checkpoint. On resume it starts at the block
 * the host wrote into the control block, with the error sum of the block
 * before. The rows of block b depend only on `in`, so recomputing them
 * after a restart gives the same bits.
 */
#include <stdint.h>

#include "fti_kernel.h"
#include "kernels.h"

/* One row: the 4-point stencil in the interior, fixed boundary columns. */
static double sweep_row(const double *in, double *out, int i, int cols)
{
    const double *up = in + (int64_t)(i - 1) * cols, *mid = in + (int64_t)i * cols;
    const double *down = in + (int64_t)(i + 1) * cols;
    double *dst = out + (int64_t)i * cols, err = 0.0;
    dst[0] = mid[0];
    dst[cols - 1] = mid[cols - 1];
    for (int j = 1; j < cols - 1; j++) {
        double v = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
        double d = v - mid[j];
        dst[j] = v;
        err += d * d;
    }
    return err;
}

void jacobi_sweep(const double *in, double *out, fti_k_word *ctrl, double *errs, int rows,
                  int cols, int block_rows, int64_t pace_ns)
{
#if defined(__SYNTHESIS__)
    /* The control block on a bundle of its own (fti_kernel.h, "Memory
     * ordering"); the grids share one, as they swap roles every sweep. */
#pragma HLS INTERFACE m_axi port = in bundle = gmem0
#pragma HLS INTERFACE m_axi port = out bundle = gmem0
#pragma HLS INTERFACE m_axi port = ctrl bundle = gmem_ctrl
#pragma HLS INTERFACE m_axi port = errs bundle = gmem1
#endif
    uint64_t resume = 0, b;
    int status = FTI_K_OK;
    if (fti_k_begin(ctrl, &resume) != FTI_K_OK)
        return; /* not our control block: touch nothing */
    uint64_t nblocks = (uint64_t)(rows / block_rows);
    double acc = resume > 0 ? errs[fti_k_slot(ctrl, resume - 1) * ERR_STRIDE] : 0.0;
    for (b = resume; b < nblocks; b++) {
        for (int r = 0; r < block_rows; r++)
            acc += sweep_row(in, out, 1 + (int)b * block_rows + r, cols);
        if (pace_ns > 0) /* the time an FPGA pipeline would take (emulation) */
            FTI_K_SLEEP_NS((uint64_t)pace_ns);
        fti_k_slot_begin(ctrl, b);
        errs[fti_k_slot(ctrl, b) * ERR_STRIDE] = acc;
        fti_k_slot_end(ctrl, b);
        if (fti_k_block_done(ctrl, b) != FTI_K_OK) {
            status = FTI_K_EACK;
            b++;
            break;
        }
    }
    fti_k_end(ctrl, status, b);
}
