#include "base/heap_probe.h"

#include <errno.h> /* program_invocation_name */
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* The calling thread's stack, from the thread library (the main thread's
 * included). 0 when it cannot say. */
static int on_own_stack(uintptr_t p)
{
    pthread_attr_t attr;
    void *lo;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return 0;
    int known = pthread_attr_getstack(&attr, &lo, &size) == 0;
    pthread_attr_destroy(&attr);
    return known && p >= (uintptr_t)lo && p - (uintptr_t)lo < size;
}

typedef struct image_probe {
    uintptr_t p;
    const char *name; /* the object whose loaded segment holds p */
} image_probe;

/* dl_iterate_phdr callback: does one of this object's PT_LOAD segments
 * (code, data, bss) hold the pointer? */
static int in_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    image_probe *q = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && q->p >= start && q->p - start < ph->p_memsz) {
            q->name = info->dlpi_name[0] ? info->dlpi_name : program_invocation_name;
            return 1;
        }
    }
    return 0;
}

int fti_not_heap(const void *p, char *why, size_t cap)
{
    if (p == NULL) /* realloc(NULL, n) is malloc(n) */
        return 0;
    if (on_own_stack((uintptr_t)p)) {
        snprintf(why, cap, "%p is on this thread's stack", p);
        return 1;
    }
    image_probe q = {(uintptr_t)p, NULL};
    if (dl_iterate_phdr(in_segment, &q) != 0) {
        snprintf(why, cap, "%p is in the static data of %s", p, q.name);
        return 1;
    }
    return 0;
}
