/*
 * cow.h - copy-on-write snapshots of the protected host variables, for
 * asynchronous checkpoints ([advanced] cow_checkpoint): taking one
 * write-protects the variables' whole pages (data/dirty_pages.c) and costs
 * no copy of the data; the checkpoint's writer then reads the snapshot
 * straight from the application's memory, while a page the application
 * writes first is copied into a preallocated pool by the fault handler
 * before the write goes on. When the pool is full, the faulting write
 * waits until the writer has taken that page. The bytes read are always
 * those of the moment the snapshot was taken.
 *
 * The writer sees the snapshot as a registry of pseudo-device variables
 * (fti_cow_registry): the file writer's device path (data/capture.c) copies
 * it chunk by chunk through the cow backend's to_host, which takes each
 * page in order. One snapshot at a time per fti_cow; one writer thread.
 *
 * The tracker's regions (dirty_pages.h: one thread drives it) are added by
 * the application's thread (fti_cow_take) and removed by the writer
 * (fti_cow_end); the library calls nothing else of the tracker in between:
 * a checkpoint waits for the previous one, and FTI_Protect, FTI_Realloc and
 * the recovery calls for the drain (core/post.c, fti_post_drain).
 */
#ifndef FTI_COW_H
#define FTI_COW_H

#include <stddef.h>
#include <stdint.h>

#include "data/registry.h"

typedef struct fti_cow fti_cow;

/* What a drain cost, for logs and the benchmark. */
typedef struct fti_cow_stats {
    size_t pooled;     /* pages the application wrote before the writer took them */
    size_t peak_slots; /* most pool pages in use at once */
    size_t waits;      /* faulting writes that found the pool full and waited */
    double collapse_s; /* the writer collapsing the variables into huge pages (first drain of
                        * a variable, or faults split some) */
} fti_cow_stats;

/* Where the last fti_cow_take spent its time (the application's pause). */
typedef struct fti_cow_take_times {
    double total_s;
    double prepare_s;  /* page-state tables, copies of the partial edge pages */
    double huge_s;     /* MADV_HUGEPAGE: once per variable */
    size_t huge_bytes; /* ... over this many bytes (0: none this time) */
    double protect_s;  /* mprotect: the kernel's entries, one per mapped page */
} fti_cow_take_times;

/* A snapshot keeper with a pool of pool_bytes (rounded down to pages, at
 * least one page). The pool is reserved, not touched: memory is used only
 * for the pages copied. NULL when out of memory. */
fti_cow *fti_cow_new(size_t pool_bytes);

/* cow_huge_pages: on (1), each variable's 2 MiB-aligned interior is put in
 * transparent huge pages (fti_cow_prefer_huge at FTI_Protect; a variable
 * not seen there is advised at its first snapshot and collapsed by the
 * writer over the following drains, fti_cow_end), so that protecting it
 * costs one kernel entry per 2 MiB; after a drain whose faults split huge
 * pages, the writer collapses them again. Off (0) by default after
 * fti_cow_new. */
void fti_cow_huge_pages(fti_cow *c, int on);

/* With cow_huge_pages on, at FTI_Protect: the interior of the n bytes at
 * ptr advised and collapsed into huge pages now, at once (a copy of it,
 * the application's one-time cost, where it sets up its data), instead of
 * over the first drains. Returns the seconds it took, 0 when there was
 * nothing to do (known already, under 2 MiB of interior, or refused: see
 * fti_cow_huge_note). Not while a snapshot is taken. */
double fti_cow_prefer_huge(fti_cow *c, const void *ptr, size_t n);

/* 1 with why the kernel refused huge pages in out, once per refusal (the
 * note is then cleared); 0 when there is nothing new to say. The note is
 * written by fti_cow_take and fti_cow_end: call it from the thread that
 * takes snapshots, after the writer's fti_cow_end is known to be done. */
int fti_cow_huge_note(fti_cow *c, char *out, size_t cap);

/* The steps of the last successful fti_cow_take. */
const fti_cow_take_times *fti_cow_last_take(const fti_cow *c);

/* Ends any snapshot (as fti_cow_end) and frees c. NULL is accepted. */
void fti_cow_free(fti_cow *c);

/* Takes a snapshot of every variable of reg: the bytes of partial pages
 * (a variable's first and last page, shared with other data) are copied,
 * the whole pages write-protected. Returns 0, or -1 with the reason in why,
 * naming the variable, and nothing protected: a device variable, memory
 * that cannot be write-protected (mprotect failed, pages shared with a
 * variable dCP tracks), or a SIGSEGV handler the application installed over
 * the tracker's. Call from the thread that owns the registry. */
int fti_cow_take(fti_cow *c, const fti_registry *reg, char *why, size_t why_cap);

/* The snapshot as variables for the file writer (host bytes read through
 * the cow backend). Valid from fti_cow_take to fti_cow_end. */
const fti_registry *fti_cow_registry(fti_cow *c);

/* Ends the snapshot: pages the writer did not take are given up (a failed
 * write), waiting faults resume, every page is writable again and the pool
 * is empty. Called by the writer once the file is written (or failed).
 * *st (may be NULL): what the drain cost. */
void fti_cow_end(fti_cow *c, fti_cow_stats *st);

/* Whether a snapshot is taken and not ended. */
int fti_cow_active(const fti_cow *c);

#endif /* FTI_COW_H */
