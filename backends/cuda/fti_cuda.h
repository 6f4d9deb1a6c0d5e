/*
 * fti_cuda.h - the CUDA device backend (backends/cuda/cuda.c): device and
 * managed memory reached through the CUDA runtime API. Built only when the
 * CUDA headers are found (FTI_HAVE_CUDA).
 */
#ifndef FTI_CUDA_BACKEND_H
#define FTI_CUDA_BACKEND_H

#include "device.h"

/* The CUDA backend's ops table ("cuda"). owns() claims device memory and
 * managed memory (both copied through the capture pipeline); pinned or
 * registered host memory is host memory and is not claimed. Built against
 * the CUDA headers only: the runtime is loaded at run time (cudart.h). */
extern const fti_device_ops fti_cuda_ops;

/* [basic] device_backends = cuda: the backend may load the CUDA runtime into
 * a process that has not loaded CUDA itself. Without it (auto), the backend
 * looks only for a runtime or driver already loaded, so a CPU-only program
 * maps nothing of CUDA. Process-wide; never taken back. */
void fti_cuda_allow_loading(void);

#endif /* FTI_CUDA_BACKEND_H */
