/*
 * device.c - the one registry of device backends: those built into this
 * library and those registered at run time, and pointer-to-backend lookup
 * (see device.h).
 */
#include "device.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "emu/emu.h"
#ifdef FTI_HAVE_CUDA
#include "cuda/fti_cuda.h"
#endif
#ifdef FTI_HAVE_XRT
/* Defined by backends/xrt when XRT is found. */
extern const fti_device_ops fti_xrt_ops;
#endif

/* emu first: its owns() is a table lookup, while the first CUDA query can
 * initialise the CUDA runtime; the backends claim disjoint pointers, so the
 * order decides only the cost of a lookup. */
static const fti_device_ops *const backends[] = {
    &fti_emu_ops,
#ifdef FTI_HAVE_CUDA
    &fti_cuda_ops,
#endif
#ifdef FTI_HAVE_XRT
    &fti_xrt_ops,
#endif
    NULL,
};

const fti_device_ops *const *fti_device_backends(void)
{
    return backends;
}

/* The backend claiming ptr (*claim 1), or refusing it (*claim -1), or NULL. */
static const fti_device_ops *ask_backends(const void *ptr, fti_devptr_info *info, int *claim)
{
    fti_devptr_info scratch;
    *claim = 0;
    if (info == NULL)
        info = &scratch;
    if (ptr == NULL)
        return NULL;
    for (size_t i = 0; backends[i] != NULL; i++)
        if ((*claim = backends[i]->owns(ptr, info)) != 0)
            return backends[i];
    return NULL;
}

const fti_device_ops *fti_device_lookup(const void *ptr, fti_devptr_info *info)
{
    int claim;
    const fti_device_ops *ops = ask_backends(ptr, info, &claim);
    return claim > 0 ? ops : NULL;
}

/* 1 when the host can read byte p. Asked of the kernel, not by touching
 * it: a pipe write of an unmapped or PROT_NONE address (a CUDA device
 * address) fails with EFAULT instead of crashing. */
static int host_byte_readable(const void *p)
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) != 0)
        return 1; /* cannot tell: keep the old behaviour */
    ssize_t rc;
    do
        rc = write(fd[1], p, 1);
    while (rc < 0 && errno == EINTR);
    int readable = !(rc < 0 && errno == EFAULT);
    close(fd[0]);
    close(fd[1]);
    return readable;
}

/* The first byte only: a device allocation is unreadable from its start,
 * and a host region's extent is the application's business (a count larger
 * than the allocation is accepted, as FTI accepts it). */
int fti_device_host_readable(const void *ptr, size_t n)
{
    if (ptr == NULL || n == 0)
        return 1;
    return host_byte_readable(ptr);
}

/* Each backend's own word on why it did not claim a pointer. */
static void backend_notes(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; backends[i] != NULL && used + 1 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "; %s", backends[i]->last_error());
}

int fti_device_classify(const void *ptr, size_t n, const fti_device_ops **ops,
                        fti_devptr_info *info, char *err, size_t errlen)
{
    int claim;
    *ops = ask_backends(ptr, info, &claim);
    if (claim < 0) {
        snprintf(err, errlen, "%p is %s memory that cannot be checkpointed: %s", ptr,
                 (*ops)->name, (*ops)->last_error());
        *ops = NULL;
        return -1;
    }
    if (claim > 0 || fti_device_host_readable(ptr, n))
        return 0;
    char notes[400];
    backend_notes(notes, sizeof notes);
    snprintf(err, errlen, "%p is not host memory (the host cannot read it) and no device "
             "backend of this library claims it: device memory whose runtime is absent or "
             "unusable?%s", ptr, notes);
    return -1;
}

/* Backends added at run time (fti_device_register), process-wide like the
 * built-in table; looked up by name only, never asked about pointers. */
#define MAX_REGISTERED 8
static const fti_device_ops *registered[MAX_REGISTERED];
static int nregistered;

const fti_device_ops *fti_device_by_name(const char *name)
{
    if (name == NULL)
        return NULL;
    for (size_t i = 0; backends[i] != NULL; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    for (int i = 0; i < nregistered; i++)
        if (strcmp(registered[i]->name, name) == 0)
            return registered[i];
    return NULL;
}

int fti_device_register(const fti_device_ops *ops)
{
    if (ops == NULL || ops->version != FTI_DEVICE_OPS_VERSION || ops->name == NULL)
        return -1;
    const fti_device_ops *same = fti_device_by_name(ops->name);
    if (same != NULL)
        return same == ops ? 0 : -1;
    if (nregistered == MAX_REGISTERED)
        return -1;
    registered[nregistered++] = ops;
    return 0;
}

void fti_device_names(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; backends[i] != NULL && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", backends[i]->name);
    for (int i = 0; i < nregistered && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                 registered[i]->name);
}
