/*
 * fti_xrt.h - the "xrt" device backend (xrt_backend.c): device regions are
 * XRT buffer objects (xrtBufferHandle) plus byte offsets.
 */
#ifndef FTI_XRT_H
#define FTI_XRT_H

#include "device.h"

extern const fti_device_ops fti_xrt_ops;

#endif /* FTI_XRT_H */
