/*
 * cudart.c - finds and loads the CUDA runtime at run time (see cudart.h).
 */
#include "cudart.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runtime majors to look for, newest first; the one libfti was built
 * against (CUDART_VERSION) is tried before them. CUDA 11 named its runtime
 * libcudart.so.11.0, CUDA 10 libcudart.so.10.<minor>. */
static const char *const sonames[] = {
    "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so.10.2",
    "libcudart.so.10.1", "libcudart.so.10.0", "libcudart.so", NULL,
};

/* The driver an application using CUDA has loaded (the shared runtime and
 * nvcc's static one both open it at their first call). */
static const char driver_soname[] = "libcuda.so.1";

static const char not_yet[] =
    "the process has loaded neither the CUDA driver (libcuda.so.1) nor a CUDA runtime, and "
    "device_backends = auto loads none for it (device_backends = cuda does)";

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fti_cudart rt;
static const fti_cudart *loaded;
static int settled;            /* a search that may load ran: its answer is final */
static _Atomic int may_load;   /* fti_cudart_allow_loading was called */
static char why_buf[512];

/* Fills rt from lib (RTLD_DEFAULT for the process's own symbols); 0 when
 * every entry point was found, else the name of the first missing one. */
static const char *fill(void *lib)
{
#define FTI_CUDART_SYM(field, sym)                                          \
    do {                                                                    \
        void *f_ = dlsym(lib, sym);                                      \
        if (f_ == NULL)                                                     \
            return sym;                                                     \
        memcpy(&rt.field, &f_, sizeof f_);                                  \
    } while (0)
    FTI_CUDART_SYM(GetDeviceCount, "cudaGetDeviceCount");
    FTI_CUDART_SYM(GetDevice, "cudaGetDevice");
    FTI_CUDART_SYM(SetDevice, "cudaSetDevice");
    FTI_CUDART_SYM(DriverGetVersion, "cudaDriverGetVersion");
    FTI_CUDART_SYM(RuntimeGetVersion, "cudaRuntimeGetVersion");
    FTI_CUDART_SYM(GetLastError, "cudaGetLastError");
    FTI_CUDART_SYM(GetErrorString, "cudaGetErrorString");
    FTI_CUDART_SYM(GetErrorName, "cudaGetErrorName");
    FTI_CUDART_SYM(PointerGetAttributes, "cudaPointerGetAttributes");
    FTI_CUDART_SYM(StreamCreateWithFlags, "cudaStreamCreateWithFlags");
    FTI_CUDART_SYM(StreamDestroy, "cudaStreamDestroy");
    FTI_CUDART_SYM(StreamSynchronize, "cudaStreamSynchronize");
    FTI_CUDART_SYM(StreamWaitEvent, "cudaStreamWaitEvent");
    FTI_CUDART_SYM(EventCreateWithFlags, "cudaEventCreateWithFlags");
    FTI_CUDART_SYM(EventRecord, "cudaEventRecord");
    FTI_CUDART_SYM(EventDestroy, "cudaEventDestroy");
    FTI_CUDART_SYM(HostAlloc, "cudaHostAlloc");
    FTI_CUDART_SYM(FreeHost, "cudaFreeHost");
    FTI_CUDART_SYM(MemcpyAsync, "cudaMemcpyAsync");
#undef FTI_CUDART_SYM
    return NULL;
}

static void note(const char *fmt, const char *arg)
{
    size_t used = strlen(why_buf);
    if (used + 1 < sizeof why_buf)
        snprintf(why_buf + used, sizeof why_buf - used, fmt, arg);
}

/* 1 when lib provides the whole table (rt filled, origin set). */
static int adopt(void *lib, const char *origin)
{
    const char *missing = fill(lib);
    if (missing != NULL) {
        note("%s lacks ", origin);
        note("%s; ", missing);
        return 0;
    }
    snprintf(rt.origin, sizeof rt.origin, "%s", origin);
    loaded = &rt;
    return 1;
}

/* A runtime already in the process: the application's. */
static int find_loaded(void)
{
    if (dlsym(RTLD_DEFAULT, "cudaGetDeviceCount") != NULL &&
        adopt(RTLD_DEFAULT, "the application's CUDA runtime (global symbols)"))
        return 1;
    for (int i = 0; sonames[i] != NULL; i++) {
        void *lib = dlopen(sonames[i], RTLD_NOW | RTLD_NOLOAD);
        if (lib != NULL && adopt(lib, sonames[i]))
            return 1;
    }
    return 0;
}

static int open_one(const char *name)
{
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        note("%s; ", e ? e : name);
        return 0;
    }
    if (adopt(lib, name))
        return 1;
    dlclose(lib);
    return 0;
}

static int open_toolkit(void)
{
    char own[32];
    snprintf(own, sizeof own, "libcudart.so.%d", CUDART_VERSION / 1000);
    if (strcmp(own, "libcudart.so.11") != 0 && open_one(own))
        return 1;
    for (int i = 0; sonames[i] != NULL; i++)
        if (strcmp(sonames[i], own) != 0 && open_one(sonames[i]))
            return 1;
    return 0;
}

void fti_cudart_allow_loading(void)
{
    may_load = 1;
}

/* 1 when the process has already loaded the CUDA driver. RTLD_NOLOAD loads
 * nothing; the reference it takes on a loaded library is given back. */
static int driver_loaded(void)
{
    void *drv = dlopen(driver_soname, RTLD_NOW | RTLD_NOLOAD);
    if (drv == NULL)
        return 0;
    dlclose(drv);
    return 1;
}

/* One search; 1 when its answer is final, 0 when CUDA is absent for now (a
 * process may load it later: the next call looks again). */
static int load(void)
{
    const char *env = getenv("FTI_CUDA_RUNTIME");
    why_buf[0] = '\0';
    if (find_loaded())
        return 1;
    if (env != NULL && env[0] != '\0') {
        if (strcmp(env, "none") == 0)
            note("%s", "disabled by FTI_CUDA_RUNTIME=none; ");
        else
            (void)open_one(env);
        return 1;
    }
    if (!may_load && !driver_loaded()) {
        note("%s", not_yet);
        return 0;
    }
    (void)open_toolkit();
    return 1;
}

int fti_cudart_get(const fti_cudart **out, const char **why)
{
    pthread_mutex_lock(&lock);
    if (loaded == NULL && !settled)
        settled = load();
    int state = loaded != NULL ? 1 : settled ? 0 : -1;
    pthread_mutex_unlock(&lock);
    *out = loaded;
    if (why != NULL)
        *why = state == 1 ? rt.origin : state == 0 ? why_buf : not_yet;
    return state;
}
