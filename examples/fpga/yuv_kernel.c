/*
 * yuv_kernel.c - the FPGA task of the YUV filter: three stages, each one
 * block of the in-kernel checkpoint protocol (fti_kernel.h): RGB -> YUV
 * (BT.601, integer), a 3x3 box blur of the luma, YUV -> RGB. Each stage
 * writes its own buffer, which the host copies once the stage is complete;
 * the checksum chained through the stages is the kernel's replicated state.
 * Integer arithmetic only, so a resumed task produces the same bytes.
 */
#include <stdint.h>

#include "fti_kernel.h"
#include "kernels.h"

static uint8_t clamp8(int v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static uint64_t chain(uint64_t sum, const uint8_t *p, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        sum = sum * 31 + p[i];
    return sum;
}

static void to_yuv(const uint8_t *rgb, uint8_t *yuv, int64_t np)
{
    for (int64_t i = 0; i < np; i++) {
        int r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
        yuv[i] = clamp8(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
        yuv[np + i] = clamp8(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
        yuv[2 * np + i] = clamp8(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
    }
}

static int luma_at(const uint8_t *y, int w, int h, int i, int j)
{
    i = i < 0 ? 0 : i >= h ? h - 1 : i;
    j = j < 0 ? 0 : j >= w ? w - 1 : j;
    return y[(int64_t)i * w + j];
}

static void blur(const uint8_t *yuv, uint8_t *out, int w, int h)
{
    int64_t np = (int64_t)w * h;
    for (int i = 0; i < h; i++)
        for (int j = 0; j < w; j++) {
            int s = 0;
            for (int di = -1; di <= 1; di++)
                for (int dj = -1; dj <= 1; dj++)
                    s += luma_at(yuv, w, h, i + di, j + dj);
            out[(int64_t)i * w + j] = (uint8_t)(s / 9);
        }
    for (int64_t i = np; i < 3 * np; i++)
        out[i] = yuv[i];
}

static void to_rgb(const uint8_t *yuv, uint8_t *rgb, int64_t np)
{
    for (int64_t i = 0; i < np; i++) {
        int c = yuv[i] - 16, d = yuv[np + i] - 128, e = yuv[2 * np + i] - 128;
        rgb[3 * i] = clamp8((298 * c + 409 * e + 128) >> 8);
        rgb[3 * i + 1] = clamp8((298 * c - 100 * d - 208 * e + 128) >> 8);
        rgb[3 * i + 2] = clamp8((298 * c + 516 * d + 128) >> 8);
    }
}

void yuv_filter(const uint8_t *rgb, uint8_t *yuv, uint8_t *blurred, uint8_t *out,
                fti_k_word *ctrl, uint64_t *sums, int w, int h, int64_t pace_ns)
{
#if defined(__SYNTHESIS__)
#pragma HLS INTERFACE m_axi port = rgb bundle = gmem0
#pragma HLS INTERFACE m_axi port = yuv bundle = gmem1
#pragma HLS INTERFACE m_axi port = blurred bundle = gmem2
#pragma HLS INTERFACE m_axi port = out bundle = gmem0
#pragma HLS INTERFACE m_axi port = ctrl bundle = gmem_ctrl
#pragma HLS INTERFACE m_axi port = sums bundle = gmem1
#endif
    uint64_t resume = 0, s;
    int status = FTI_K_OK;
    int64_t np = (int64_t)w * h;
    if (fti_k_begin(ctrl, &resume) != FTI_K_OK)
        return;
    uint64_t sum = resume > 0 ? sums[fti_k_slot(ctrl, resume - 1) * 8] : 0;
    for (s = resume; s < YUV_STAGES; s++) {
        if (s == 0) {
            to_yuv(rgb, yuv, np);
            sum = chain(sum, yuv, 3 * np);
        } else if (s == 1) {
            blur(yuv, blurred, w, h);
            sum = chain(sum, blurred, 3 * np);
        } else {
            to_rgb(blurred, out, np);
            sum = chain(sum, out, 3 * np);
        }
        if (pace_ns > 0)
            FTI_K_SLEEP_NS((uint64_t)pace_ns);
        fti_k_slot_begin(ctrl, s);
        sums[fti_k_slot(ctrl, s) * 8] = sum;
        fti_k_slot_end(ctrl, s);
        if (fti_k_block_done(ctrl, s) != FTI_K_OK) {
            status = FTI_K_EACK;
            s++;
            break;
        }
    }
    fti_k_end(ctrl, status, s);
}
