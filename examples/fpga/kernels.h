/*
 * kernels.h - the FPGA kernels of the examples (HLS C; emulated as threads,
 * see kernels_emu.c), and the layouts the host and the kernels share.
 */
#ifndef FTI_FPGA_KERNELS_H
#define FTI_FPGA_KERNELS_H

#include <stdint.h>

#include "fti_kernel.h"

/* Replicated slots of a kernel's state sit one 64-byte line apart, so the
 * kernel writing slot b never shares a line with the host reading b-1. */
#define ERR_STRIDE 8      /* doubles */
#define SLOT_BYTES 64

void jacobi_sweep(const double *in, double *out, fti_k_word *ctrl, double *errs, int rows,
                  int cols, int block_rows, int64_t pace_ns);

/* YUV filter: three stages (blocks): RGB -> YUV, 3x3 blur of Y, YUV -> RGB.
 * Images are w x h, 3 bytes per pixel. The state carried between stages is
 * a checksum of the stage outputs, replicated per slot (sums[s * 8]). */
#define YUV_STAGES 3
void yuv_filter(const uint8_t *rgb, uint8_t *yuv, uint8_t *blur, uint8_t *out,
                fti_k_word *ctrl, uint64_t *sums, int w, int h, int64_t pace_ns);

/* K-means assignment: labels of n points of d dimensions against k
 * centroids, per-cluster sums and counts, and the inertia, in `acc`:
 * [k*d sums][k counts (as doubles)][inertia]. Runs without checkpoints
 * (FTI_K_MODE_OFF): the host checkpoints between iterations. */
void kmeans_assign(const double *pts, const double *cent, int32_t *labels, double *acc,
                   fti_k_word *ctrl, int n, int d, int k);

#endif
