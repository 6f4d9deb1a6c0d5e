/*
 * dirty_pages.c - write tracking by page protection (dirty_pages.h).
 *
 * Why mprotect and a SIGSEGV handler: it works on every Linux kernel and for
 * any anonymous or private memory, without privileges. The alternatives need
 * what this project's machines lack or cannot rely on: soft-dirty bits
 * (/proc/self/clear_refs, CONFIG_MEM_SOFT_DIRTY: absent on the 6.18
 * Firecracker kernel we measured) and userfaultfd write-protect (needs
 * UFFD_USER_MODE_ONLY where vm.unprivileged_userfaultfd = 0, a handler
 * thread, and still refuses kernel-side writes the same way).
 *
 * The handler runs in whichever thread wrote. It only reads the region
 * table (published with release/acquire), calls mprotect and sets a bit
 * with an atomic OR: all async-signal-safe. Regions are added and removed
 * by one thread (the one taking checkpoints).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "data/dirty_pages.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_REGIONS 1024
#define STALE_NS 1000000000LL /* a fault on a released region older than this is not ours */

enum { R_FREE, R_ACTIVE, R_RELEASED };

typedef struct region {
    _Atomic int state;
    uintptr_t base;  /* as registered */
    size_t nbytes;
    int owner;
    uintptr_t first; /* whole pages tracked */
    size_t npages;
    _Atomic uint64_t *bits;
    _Atomic int overflow; /* the kernel refused a page's mprotect: all dirty */
    _Atomic long long released_ns; /* CLOCK_MONOTONIC of the release (R_RELEASED) */
    fti_dirty_before_write before; /* NULL, or called before a faulting page is made writable */
    void *before_arg;
} region;

static region regions[MAX_REGIONS];
static _Atomic int nused;      /* slots [0, nused) may be in use */
static _Atomic int in_handler; /* handlers between their entry and exit */
static struct sigaction prev_action;
static int installed;
static size_t page_size;

static size_t words_of(size_t npages)
{
    return (npages + 63) / 64;
}

/* A fault on a tracked page: writable again, then marked (in this order:
 * dirty_pages.h, fti_dirty_reset). Where the kernel refuses to split the
 * mapping once more (vm.max_map_count), the whole region is made writable
 * and counts as dirty until its next reset. */
static int mark(region *r, uintptr_t a)
{
    size_t p = (a - r->first) / page_size;
    void *pg = (void *)(r->first + p * page_size);
    if (r->before != NULL)
        r->before(r->before_arg, p);
    if (mprotect(pg, page_size, PROT_READ | PROT_WRITE) == 0) {
        atomic_fetch_or(&r->bits[p / 64], (uint64_t)1 << (p % 64));
        return 1;
    }
    /* Every page is about to become writable: a hook must see them all first. */
    for (size_t q = 0; r->before != NULL && q < r->npages; q++)
        r->before(r->before_arg, q);
    if (mprotect((void *)r->first, r->npages * page_size, PROT_READ | PROT_WRITE) != 0)
        return 0;
    atomic_store(&r->overflow, 1);
    return 1;
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t); /* async-signal-safe */
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* 1 when the fault at a was on memory this module protected. A region
 * released while the fault was being delivered is writable again: the
 * write only has to be retried. That holds for a moment only: later, the
 * application may have put its own read-only page there, whose fault is
 * its own (retried meanwhile, never lost). */
static int handle(uintptr_t a)
{
    int n = atomic_load_explicit(&nused, memory_order_acquire), retry = 0;
    for (int i = 0; i < n; i++) {
        region *r = &regions[i];
        int st = atomic_load_explicit(&r->state, memory_order_acquire);
        if (st == R_FREE || a < r->first || a >= r->first + r->npages * page_size)
            continue;
        if (st == R_ACTIVE) /* a live region wins over a released one on the same pages */
            return mark(r, a);
        retry |= now_ns() - atomic_load(&r->released_ns) < STALE_NS;
    }
    return retry;
}

/* The process's previous disposition. SIG_DFL (or SIG_IGN, which the
 * kernel does not honour for a fault): restored, so that the fault repeats
 * and ends the process as it would have without us. */
static void chain(int sig, siginfo_t *si, void *uc)
{
    if (prev_action.sa_flags & SA_SIGINFO) {
        prev_action.sa_sigaction(sig, si, uc);
    } else if (prev_action.sa_handler == SIG_DFL || prev_action.sa_handler == SIG_IGN) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(sig, &dfl, NULL);
    } else {
        prev_action.sa_handler(sig);
    }
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    atomic_fetch_add(&in_handler, 1);
    int ours = si->si_code == SEGV_ACCERR && handle((uintptr_t)si->si_addr);
    atomic_fetch_sub(&in_handler, 1);
    errno = saved;
    if (!ours)
        chain(sig, si, uc);
}

static int install(char *why, size_t cap)
{
    if (installed)
        return 0;
    struct sigaction act;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = on_segv;
    act.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    sigemptyset(&act.sa_mask);
    if (sigaction(SIGSEGV, &act, &prev_action) != 0) {
        snprintf(why, cap, "sigaction(SIGSEGV): %s", strerror(errno));
        return -1;
    }
    installed = 1;
    return 0;
}

int fti_dirty_handler_intact(void)
{
    struct sigaction cur;
    if (!installed || sigaction(SIGSEGV, NULL, &cur) != 0)
        return 1;
    return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_segv;
}

static region *find(const void *ptr, size_t nbytes, int owner)
{
    for (int i = 0; i < atomic_load(&nused); i++) {
        region *r = &regions[i];
        if (atomic_load(&r->state) == R_ACTIVE && r->base == (uintptr_t)ptr &&
            r->nbytes == nbytes && r->owner == owner)
            return r;
    }
    return NULL;
}

int fti_dirty_tracked(const void *ptr, size_t nbytes, int owner)
{
    return find(ptr, nbytes, owner) != NULL;
}

/* A slot for a new region: a free one, else a released one (emptied, and
 * filled only once no handler can be reading its old range), else a new one. */
static region *slot(void)
{
    int n = atomic_load(&nused);
    for (int want = R_FREE; want <= R_RELEASED; want++)
        for (int i = 0; i < n; i++)
            if (want != R_ACTIVE && atomic_load(&regions[i].state) == want) {
                atomic_store_explicit(&regions[i].state, R_FREE, memory_order_release);
                while (atomic_load(&in_handler) != 0)
                    sched_yield();
                return &regions[i];
            }
    if (n == MAX_REGIONS)
        return NULL;
    atomic_store_explicit(&nused, n + 1, memory_order_release);
    return &regions[n];
}

static int overlaps(uintptr_t first, size_t len)
{
    for (int i = 0; i < atomic_load(&nused); i++) {
        region *r = &regions[i];
        if (atomic_load(&r->state) == R_ACTIVE && first < r->first + r->npages * page_size &&
            r->first < first + len)
            return 1;
    }
    return 0;
}

/* Fills r for [ptr, ptr + nbytes) with no page written yet. */
static int prepare(region *r, void *ptr, size_t nbytes, int owner, uintptr_t first,
                   size_t npages)
{
    size_t words = words_of(npages);
    _Atomic uint64_t *bits = malloc(words * sizeof *bits);
    if (bits == NULL)
        return -1;
    for (size_t w = 0; w < words; w++)
        atomic_init(&bits[w], 0);
    r->base = (uintptr_t)ptr;
    r->nbytes = nbytes;
    r->owner = owner;
    r->first = first;
    r->npages = npages;
    r->bits = bits;
    r->before = NULL;
    r->before_arg = NULL;
    atomic_store(&r->overflow, 0);
    return 0;
}

int fti_dirty_track(void *ptr, size_t nbytes, int owner, char *why, size_t cap)
{
    return fti_dirty_track_hook(ptr, nbytes, owner, NULL, NULL, why, cap);
}

int fti_dirty_track_hook(void *ptr, size_t nbytes, int owner, fti_dirty_before_write before,
                         void *arg, char *why, size_t cap)
{
    if (find(ptr, nbytes, owner) != NULL)
        return 0;
    if (page_size == 0)
        page_size = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t first = ((uintptr_t)ptr + page_size - 1) & ~(uintptr_t)(page_size - 1);
    uintptr_t end = ((uintptr_t)ptr + nbytes) & ~(uintptr_t)(page_size - 1);
    if (end <= first) {
        snprintf(why, cap, "it holds no whole page of %zu bytes", page_size);
        return -1;
    }
    size_t npages = (end - first) / page_size;
    if (overlaps(first, end - first)) {
        snprintf(why, cap, "its pages overlap another tracked variable's");
        return -1;
    }
    if (install(why, cap) != 0)
        return -1;
    region *r = slot();
    if (r == NULL) {
        snprintf(why, cap, "more than %d variables are tracked", MAX_REGIONS);
        return -1;
    }
    if (prepare(r, ptr, nbytes, owner, first, npages) != 0) {
        snprintf(why, cap, "out of memory for a bitmap of %zu pages", npages);
        return -1;
    }
    r->before = before; /* published with the state below */
    r->before_arg = arg;
    if (mprotect((void *)first, end - first, PROT_READ) != 0) {
        snprintf(why, cap, "mprotect: %s", strerror(errno));
        free((void *)r->bits);
        r->bits = NULL;
        return -1;
    }
    atomic_store_explicit(&r->state, R_ACTIVE, memory_order_release);
    return 0;
}

/* Writable again, out of the table; its bitmap freed once no handler can
 * be reading it. */
static void release_region(region *r)
{
    mprotect((void *)r->first, r->npages * page_size, PROT_READ | PROT_WRITE);
    atomic_store(&r->released_ns, now_ns());
    atomic_store_explicit(&r->state, R_RELEASED, memory_order_release);
    while (atomic_load(&in_handler) != 0)
        sched_yield();
    free((void *)r->bits);
    r->bits = NULL;
}

/* Above this many runs of written pages, one mprotect over the region: the
 * cost of a reset is then the kernel merging the mappings that the faults
 * split (one per scattered page), the same for one call as for many, and
 * thousands of calls add their own entry and TLB flush (1 GiB, 1% of the
 * pages scattered: 2,600 calls 60-110 ms against 20-70 ms for one, load 16). */
#define MAX_RUNS 256

/* Runs of consecutive set bits among the first n. */
static size_t count_runs(const uint64_t *bits, size_t n)
{
    size_t runs = 0;
    uint64_t carry = 0; /* the previous word's last bit */
    for (size_t w = 0; w < (n + 63) / 64; w++) {
        runs += (size_t)__builtin_popcountll(bits[w] & ~(bits[w] << 1 | carry));
        carry = bits[w] >> 63;
    }
    return runs;
}

/* Write-protects again the pages set in bits, one mprotect per run of
 * consecutive ones: the others were not written, so they are still
 * protected, and a few runs cost a few calls where one over the region
 * made the kernel walk all of its page table. */
static int protect_runs(const region *r, const uint64_t *bits)
{
    if (count_runs(bits, r->npages) > MAX_RUNS)
        return mprotect((void *)r->first, r->npages * page_size, PROT_READ);
    size_t p = 0;
    while (p < r->npages) {
        uint64_t w = bits[p / 64] >> (p % 64);
        if (w == 0) { /* no written page in the rest of this word */
            p = (p / 64 + 1) * 64;
            continue;
        }
        p += (size_t)__builtin_ctzll(w); /* first written page of a run */
        size_t q = p + 1;
        while (q < r->npages && (bits[q / 64] >> (q % 64) & 1))
            q++;
        if (mprotect((void *)(r->first + p * page_size), (q - p) * page_size, PROT_READ) != 0)
            return -1;
        p = q;
    }
    return 0;
}

int fti_dirty_reset_if(void *ptr, size_t nbytes, int owner, fti_dirty_keep keep, void *arg,
                       fti_dirty_set *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    region *r = find(ptr, nbytes, owner);
    if (r == NULL) {
        snprintf(why, cap, "not tracked");
        return -1;
    }
    size_t words = words_of(r->npages);
    uint64_t *bits = malloc(words * sizeof *bits);
    if (bits == NULL) {
        snprintf(why, cap, "out of memory for a bitmap of %zu pages", r->npages);
        release_region(r);
        return -1;
    }
    for (size_t w = 0; w < words; w++)
        bits[w] = atomic_exchange(&r->bits[w], 0);
    int all = atomic_exchange(&r->overflow, 0);
    if (all)
        memset(bits, 0xff, words * sizeof *bits);
    size_t written = 0;
    for (size_t w = 0; w < words; w++)
        written += (size_t)__builtin_popcountll(bits[w]);
    if (all)
        written = r->npages;
    *out = (fti_dirty_set){r->base,  r->nbytes, r->first,
                           r->npages, page_size, written,
                           count_runs(bits, r->npages), bits};
    if (keep != NULL && !keep(out, arg)) {
        release_region(r); /* one call where re-protecting first cost the same again */
        return 1;
    }
    if ((all ? mprotect((void *)r->first, r->npages * page_size, PROT_READ)
             : protect_runs(r, bits)) != 0) {
        snprintf(why, cap, "mprotect: %s", strerror(errno));
        fti_dirty_set_free(out);
        release_region(r);
        return -1;
    }
    return 0;
}

int fti_dirty_reset(void *ptr, size_t nbytes, int owner, fti_dirty_set *out, char *why,
                    size_t cap)
{
    return fti_dirty_reset_if(ptr, nbytes, owner, NULL, NULL, out, why, cap);
}

int fti_dirty_set_any(const fti_dirty_set *s, size_t off, size_t len)
{
    uintptr_t a = s->base + off, e = a + len, tend = s->first + s->npages * s->page;
    if (len == 0)
        return 0;
    if (a < s->first || e > tend)
        return 1; /* a partial page, never tracked */
    for (size_t p = (a - s->first) / s->page; p <= (e - 1 - s->first) / s->page; p++)
        if (s->bits[p / 64] & ((uint64_t)1 << (p % 64)))
            return 1;
    return 0;
}

size_t fti_dirty_set_clean_to(const fti_dirty_set *s, size_t off)
{
    uintptr_t a = s->base + off, tend = s->first + s->npages * s->page;
    if (off >= s->nbytes || a < s->first || a >= tend)
        return off < s->nbytes ? off : s->nbytes; /* a partial page, never tracked */
    size_t p = (a - s->first) / s->page, words = (s->npages + 63) / 64, w = p / 64;
    uint64_t bits = s->bits[w] & (~(uint64_t)0 << (p % 64));
    while (bits == 0 && ++w < words)
        bits = s->bits[w];
    size_t q = bits != 0 ? w * 64 + (size_t)__builtin_ctzll(bits) : s->npages;
    if (q > s->npages)
        q = s->npages; /* a set with every bit set (overflow) has bits past the end */
    size_t end = (size_t)(s->first + q * s->page - s->base);
    return end > off ? end : off;
}

void fti_dirty_set_free(fti_dirty_set *s)
{
    free(s->bits);
    s->bits = NULL;
}

void fti_dirty_release(const void *ptr, size_t nbytes)
{
    uintptr_t a = (uintptr_t)ptr, e = a + nbytes;
    for (int i = 0; i < atomic_load(&nused); i++) {
        region *r = &regions[i];
        if (atomic_load(&r->state) == R_ACTIVE && a < r->first + r->npages * page_size &&
            r->first < e)
            release_region(r);
    }
}

void fti_dirty_release_all(void)
{
    fti_dirty_release((const void *)0, UINTPTR_MAX);
    if (installed && fti_dirty_handler_intact())
        sigaction(SIGSEGV, &prev_action, NULL);
    installed = 0;
}
