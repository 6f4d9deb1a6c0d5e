/*
 * heap_probe.h - whether a pointer is certainly not memory from malloc:
 * FTI_Realloc hands the user's pointer to realloc(3), which aborts the
 * process on anything else. Only what can be told for sure is refused.
 */
#ifndef FTI_HEAP_PROBE_H
#define FTI_HEAP_PROBE_H

#include <stddef.h>

/* 1 when p lies on the calling thread's stack or in the static data (or
 * code) of the program or a loaded library; `why` then says which. 0 when
 * it may be heap memory (anything else: malloc's arenas and mappings). */
int fti_not_heap(const void *p, char *why, size_t cap);

#endif /* FTI_HEAP_PROBE_H */
