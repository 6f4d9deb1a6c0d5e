/*
 * axi_model_xrt.h - buffer objects of XRT's C API over the model of AXI
 * memory (axi_model_xrt.c), for the "xrt" backend built into
 * test_fpga_axi_model.
 */
#ifndef FTI_AXI_MODEL_XRT_H
#define FTI_AXI_MODEL_XRT_H

#include <xrt/xrt_bo.h>

#include "axi_model.h"

typedef struct axim_bo axim_bo;

/* A buffer object over model buffer b (its host store zeroed); freed by
 * axim_bo_free (NULL accepted). */
axim_bo *axim_bo_wrap(axim_buf *b);
void axim_bo_free(axim_bo *bo);

#endif
