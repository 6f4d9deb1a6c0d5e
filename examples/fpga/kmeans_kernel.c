/*
 * kmeans_kernel.c - the FPGA task of K-means: the assignment step. Each of
 * the n points gets the label of its nearest centroid (the lowest index on
 * ties); the kernel also accumulates per-cluster sums and counts and the
 * inertia, from which the host computes the next centroids. It runs without
 * in-kernel checkpoints (mode off): the host checkpoints between iterations.
 */
#include <stdint.h>

#include "fti_kernel.h"
#include "kernels.h"

static int nearest(const double *p, const double *cent, int d, int k, double *dist)
{
    int best = 0;
    for (int c = 0; c < k; c++) {
        double s = 0.0;
        for (int j = 0; j < d; j++) {
            double t = p[j] - cent[(int64_t)c * d + j];
            s += t * t;
        }
        if (c == 0 || s < *dist) {
            *dist = s;
            best = c;
        }
    }
    return best;
}

void kmeans_assign(const double *pts, const double *cent, int32_t *labels, double *acc,
                   fti_k_word *ctrl, int n, int d, int k)
{
#if defined(__SYNTHESIS__)
    /* labels and acc are two ranges of one buffer: one bundle, one bank. */
#pragma HLS INTERFACE m_axi port = pts bundle = gmem0
#pragma HLS INTERFACE m_axi port = cent bundle = gmem1
#pragma HLS INTERFACE m_axi port = labels bundle = gmem2
#pragma HLS INTERFACE m_axi port = acc bundle = gmem2
#pragma HLS INTERFACE m_axi port = ctrl bundle = gmem_ctrl
#endif
    uint64_t resume = 0;
    if (fti_k_begin(ctrl, &resume) != FTI_K_OK)
        return;
    double *sums = acc, *counts = acc + (int64_t)k * d, *inertia = counts + k;
    for (int64_t i = 0; i < (int64_t)k * d + k + 1; i++)
        acc[i] = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double dist = 0.0;
        const double *p = pts + i * d;
        int c = nearest(p, cent, d, k, &dist);
        labels[i] = c;
        for (int j = 0; j < d; j++)
            sums[(int64_t)c * d + j] += p[j];
        counts[c] += 1.0;
        *inertia += dist;
    }
    fti_k_block_done(ctrl, 0);
    fti_k_end(ctrl, FTI_K_OK, 1);
}
