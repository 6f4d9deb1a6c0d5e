/*
 * axi_model_kernel.h - include first in a kernel's translation unit to
 * compile fti_kernel.h (and the kernel) for the model of AXI memory
 * (axi_model.h): the header's primitives become the model's calls, so the
 * shipped header is compiled unchanged, only its primitives predefined as
 * its "other HLS tools" section allows.
 */
#ifndef FTI_AXI_MODEL_KERNEL_H
#define FTI_AXI_MODEL_KERNEL_H

#include <stdint.h>

uint64_t axim_k_load(const uint64_t *p);
void axim_k_store(uint64_t *p, uint64_t v);
void axim_k_fence(void);
void axim_k_sleep_ns(uint64_t ns);
uint64_t axim_k_now_us(void);

#define FTI_K_LOAD(p) axim_k_load(p)
#define FTI_K_STORE(p, v) axim_k_store((p), (uint64_t)(v))
#define FTI_K_FENCE() axim_k_fence()
#define FTI_K_SLEEP_NS(ns) axim_k_sleep_ns(ns)
#define FTI_K_NOW_US() axim_k_now_us()

#include "fti_kernel.h"

#endif
