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

/* Looks the runtime up (thread-safe) and sets *rt to its table: 1 when
 * found; 0 when none was found and none will be (the answer is final; *rt
 * NULL, *why says what was tried); -1 when the process has not loaded CUDA
 * yet and loading it was not asked for (*rt NULL; the next call looks
 * again, so a program that starts CUDA after its first FTI_Protect is
 * seen). Search order:
 *   1. a runtime the process already has: its symbols (dlsym RTLD_DEFAULT)
 *      or a loaded libcudart.so.N (dlopen RTLD_NOLOAD);
 *   2. the environment variable FTI_CUDA_RUNTIME (a path or soname; when
 *      set, it replaces step 3, so "none" disables the search);
 *   3. only when the process has loaded the CUDA driver (libcuda.so.1, as a
 *      statically linked runtime does) or fti_cudart_allow_loading was
 *      called: libcudart.so.<major of the toolkit libfti was built with>,
 *      then the other majors, then libcudart.so.
 * A CPU-only program thus never maps libcudart or libcuda. */
int fti_cudart_get(const fti_cudart **rt, const char **why);

/* Lets step 3 load a runtime into a process that has not loaded CUDA
 * ([basic] device_backends = cuda). Process-wide, and never taken back. */
void fti_cudart_allow_loading(void);

#endif /* FTI_CUDART_H */
