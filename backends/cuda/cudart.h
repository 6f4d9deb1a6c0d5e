/*
 * cudart.h - the CUDA runtime, loaded at run time (backends/cuda/cudart.c).
 *
 * libfti is built against the CUDA headers only and never links
 * libcudart.so: a CPU-only job, a login node or fti-ckpt must load without
 * it. The first device query looks the runtime up, preferring the one the
 * application already loaded (so an application built with another CUDA
 * version keeps its own), and fills this table of entry points.
 */
#ifndef FTI_CUDART_H
#define FTI_CUDART_H

#include <cuda_runtime_api.h>

/* The entry points the CUDA backend uses, from one runtime library. */
typedef struct fti_cudart {
    cudaError_t (*GetDeviceCount)(int *);
    cudaError_t (*GetDevice)(int *);
    cudaError_t (*SetDevice)(int);
    cudaError_t (*DriverGetVersion)(int *);
    cudaError_t (*RuntimeGetVersion)(int *);
    cudaError_t (*GetLastError)(void);
    const char *(*GetErrorString)(cudaError_t);
    const char *(*GetErrorName)(cudaError_t);
    cudaError_t (*PointerGetAttributes)(struct cudaPointerAttributes *, const void *);
    cudaError_t (*StreamCreateWithFlags)(cudaStream_t *, unsigned int);
    cudaError_t (*StreamDestroy)(cudaStream_t);
    cudaError_t (*StreamSynchronize)(cudaStream_t);
    cudaError_t (*StreamWaitEvent)(cudaStream_t, cudaEvent_t, unsigned int);
    cudaError_t (*EventCreateWithFlags)(cudaEvent_t *, unsigned int);
    cudaError_t (*EventRecord)(cudaEvent_t, cudaStream_t);
    cudaError_t (*EventDestroy)(cudaEvent_t);
    cudaError_t (*HostAlloc)(void **, size_t, unsigned int);
    cudaError_t (*FreeHost)(void *);
    cudaError_t (*MemcpyAsync)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
    char origin[160]; /* where the runtime came from, for messages */
} fti_cudart;

/* The runtime's table, loaded on the first call (thread-safe, once), or
 * NULL when no usable runtime was found; *why then says what was tried.
 * Search order:
 *   1. a runtime the process already has: its symbols (dlsym RTLD_DEFAULT)
 *      or a loaded libcudart.so.N (dlopen RTLD_NOLOAD);
 *   2. the environment variable FTI_CUDA_RUNTIME (a path or soname; when
 *      set, it replaces step 3, so "none" disables the search);
 *   3. libcudart.so.<major of the toolkit libfti was built with>, then the
 *      other majors, then libcudart.so. */
const fti_cudart *fti_cudart_get(const char **why);

#endif /* FTI_CUDART_H */
