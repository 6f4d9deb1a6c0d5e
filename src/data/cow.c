/*
 * cow.c - copy-on-write snapshots (cow.h).
 *
 * Why mprotect (through dirty_pages.c) and not userfaultfd write-protect:
 * on the kernels we run on, vm.unprivileged_userfaultfd = 0, so an
 * unprivileged process gets userfaultfd only with UFFD_USER_MODE_ONLY, and
 * write-protect mode needs Linux >= 5.7 (anonymous memory) and a thread to
 * serve the faults; it refuses kernel-side writes (read(2) into a protected
 * page, an MPI library's CMA) just as mprotect does. dirty_pages.c already
 * owns the process's one SIGSEGV handler, chained to the application's:
 * a second fault mechanism would be a second rule for the same pages.
 *
 * Each whole page has a state, changed only by compare-and-swap:
 *   FRESH  the snapshot's bytes are in the application's page (read-only)
 *   BUSY   the writer is reading it, or a fault handler copying it
 *   POOLED the snapshot's bytes are in pool slot slot[p]
 *   TAKEN  the writer has the page: the application may write it
 * The writer reads a page in pieces (its chunks need not end on pages): a
 * FRESH page goes back to FRESH until its last byte is read. The handler
 * (in the thread that wrote, async-signal-safe code only) moves a FRESH
 * page to POOLED, or, with the pool full, waits until the writer has taken
 * it or freed a slot. The pool is a lock-free stack of slot numbers.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "data/cow.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "data/dirty_pages.h"

enum { FRESH, BUSY, POOLED, TAKEN };

#define NO_SLOT UINT32_MAX
#define HUGE_PAGE ((uintptr_t)2 << 20) /* a transparent huge page (x86-64, arm64 4K) */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux >= 6.1; older kernels answer EINVAL */
#endif

typedef struct cow_var {
    fti_cow *cow;
    const unsigned char *ptr; /* the application's bytes */
    size_t n;
    size_t head_n;            /* bytes before the first whole page (all of them: no whole page) */
    size_t npages;            /* whole pages, write-protected */
    size_t tail_n;            /* bytes after the last whole page */
    unsigned char *edges;     /* copies of the head and tail bytes, taken with the snapshot */
    _Atomic unsigned char *state;
    uint32_t *slot;
    size_t opened;            /* pages [0, opened) made writable by the writer */
    int tracked;
    uintptr_t huge_lo, huge_hi; /* its 2 MiB-aligned interior (empty: not in huge pages) */
    int range;                /* its entry in fti_cow.advised plus one, 0: none */
    _Atomic int split;        /* a fault split a huge page of it (one page made writable) */
} cow_var;

/* A variable's interior advised already (cow_huge_pages); the writer
 * collapses it from `next` on after each drain (hi: all of it is huge). */
typedef struct huge_range {
    uintptr_t lo, hi, next;
} huge_range;

struct fti_cow {
    size_t page;
    unsigned char *pool;
    uint32_t nslots;
    _Atomic uint32_t *next;     /* the free stack's links */
    _Atomic uint64_t free_top;  /* tag << 32 | slot on top (NO_SLOT: empty) */
    _Atomic size_t in_use, peak, pooled, waits;
    cow_var *vars;
    int nvars, var_cap;
    fti_registry reg;
    int active;
    /* cow_huge_pages: the variables' interiors in transparent huge pages */
    int huge, can_collapse;
    huge_range *advised;      /* interiors advised already, and how far they are collapsed */
    int nadvised, advised_cap;
    char huge_note[200];      /* why huge pages were refused, until fti_cow_huge_note */
    fti_cow_take_times times; /* the last snapshot's steps */
    _Atomic long long collapse_ns; /* the last drain's collapse (writer) */
    long long take_ns;        /* when the snapshot was taken: the drain's length */
};

/* ---- the pool ----------------------------------------------------------- */

static uint32_t pool_pop(fti_cow *c)
{
    uint64_t top = atomic_load(&c->free_top);
    for (;;) {
        uint32_t k = (uint32_t)top;
        if (k == NO_SLOT)
            return NO_SLOT;
        uint64_t next = ((top >> 32) + 1) << 32 | atomic_load(&c->next[k]);
        if (atomic_compare_exchange_weak(&c->free_top, &top, next))
            break;
    }
    size_t used = atomic_fetch_add(&c->in_use, 1) + 1;
    size_t peak = atomic_load(&c->peak);
    while (used > peak && !atomic_compare_exchange_weak(&c->peak, &peak, used))
        ;
    return (uint32_t)top;
}

static void pool_push(fti_cow *c, uint32_t k)
{
    uint64_t top = atomic_load(&c->free_top);
    do
        atomic_store(&c->next[k], (uint32_t)top);
    while (!atomic_compare_exchange_weak(&c->free_top, &top, ((top >> 32) + 1) << 32 | k));
    atomic_fetch_sub(&c->in_use, 1);
}

static void pool_reset(fti_cow *c)
{
    for (uint32_t k = 0; k < c->nslots; k++)
        atomic_store(&c->next[k], k + 1 < c->nslots ? k + 1 : NO_SLOT);
    atomic_store(&c->free_top, 0);
    atomic_store(&c->in_use, 0);
}

static unsigned char *slot_bytes(const fti_cow *c, uint32_t k)
{
    return c->pool + (size_t)k * c->page;
}

/* A short wait in a fault handler or the writer: nanosleep is
 * async-signal-safe; the other side needs a page copy's time. */
static void nap(void)
{
    struct timespec t = {0, 20000};
    nanosleep(&t, NULL);
}

/* ---- the fault handler's side -------------------------------------------- */

static const unsigned char *page_at(const cow_var *v, size_t p)
{
    return v->ptr + v->head_n + p * v->cow->page;
}

/* dirty_pages.c calls this before page p of v becomes writable: the
 * snapshot's bytes are made safe first. */
static void before_write(void *arg, size_t p)
{
    cow_var *v = arg;
    fti_cow *c = v->cow;
    int waited = 0;
    uintptr_t at = (uintptr_t)page_at(v, p);
    if (at >= v->huge_lo && at < v->huge_hi) /* mprotect of one page splits its huge page */
        atomic_store(&v->split, 1);
    for (;;) {
        unsigned char s = atomic_load(&v->state[p]);
        if (s == POOLED || s == TAKEN)
            return;
        uint32_t k;
        if (s == FRESH && (k = pool_pop(c)) != NO_SLOT) {
            if (atomic_compare_exchange_strong(&v->state[p], &s, BUSY)) {
                memcpy(slot_bytes(c, k), page_at(v, p), c->page);
                v->slot[p] = k;
                atomic_store(&v->state[p], POOLED);
                atomic_fetch_add(&c->pooled, 1);
                return;
            }
            pool_push(c, k); /* the writer or another thread got there first */
            continue;
        }
        if (s == FRESH && !waited++) /* pool full: the writer will take it */
            atomic_fetch_add(&c->waits, 1);
        nap();
    }
}

/* ---- the writer's side ---------------------------------------------------- */

/* Copies bytes [off, off + len) of page p (within the page) into dst; the
 * page is taken once its last byte is read. */
static void take_piece(cow_var *v, size_t p, size_t off, size_t len, unsigned char *dst)
{
    fti_cow *c = v->cow;
    int last = off + len == c->page;
    for (;;) {
        unsigned char s = FRESH;
        if (atomic_compare_exchange_strong(&v->state[p], &s, BUSY)) {
            memcpy(dst, page_at(v, p) + off, len);
            atomic_store(&v->state[p], last ? TAKEN : FRESH);
            return;
        }
        if (s == POOLED) {
            uint32_t k = v->slot[p];
            memcpy(dst, slot_bytes(c, k) + off, len);
            if (last) {
                atomic_store(&v->state[p], TAKEN);
                pool_push(c, k);
            }
            return;
        }
        if (s == TAKEN) /* only after a failed drain gave the page up */
            return;
        nap(); /* BUSY: a handler is copying it into the pool */
    }
}

/* The pages the writer has read to their end are writable again, in one
 * call per chunk: the application's writes behind the writer then cost no
 * fault, and the mapping stays one piece (the open prefix grows). Inside
 * the huge-page interior the prefix ends on a 2 MiB boundary: opening part
 * of a huge page would split it into 512 entries, and the next snapshot's
 * protection would cost 512 times more there. A fault racing with this
 * finds the page TAKEN and only makes it writable too. */
static void open_taken(cow_var *v, size_t end)
{
    size_t page = v->cow->page;
    size_t done = end <= v->head_n ? 0 : (end - v->head_n) / page;
    if (done > v->npages)
        done = v->npages;
    uintptr_t body = (uintptr_t)(v->ptr + v->head_n), at = body + done * page;
    if (done < v->npages && at > v->huge_lo && at < v->huge_hi)
        done = ((at & ~(HUGE_PAGE - 1)) - body) / page;
    if (!v->tracked || done <= v->opened)
        return;
    mprotect((void *)(v->ptr + v->head_n + v->opened * page), (done - v->opened) * page,
             PROT_READ | PROT_WRITE); /* a refusal leaves them to the fault handler */
    v->opened = done;
}

/* The snapshot's bytes [off, off + n) of v into dst. */
static void read_snapshot(cow_var *v, size_t off, size_t n, unsigned char *dst)
{
    size_t end = off + n;
    size_t page = v->cow->page, body = v->npages * page;
    while (n > 0) {
        size_t len;
        if (off < v->head_n) {
            len = v->head_n - off < n ? v->head_n - off : n;
            memcpy(dst, v->edges + off, len);
        } else if (off < v->head_n + body) {
            size_t in = off - v->head_n, p = in / page, at = in % page;
            len = page - at < n ? page - at : n;
            take_piece(v, p, at, len, dst);
        } else {
            size_t at = off - v->head_n - body;
            len = n;
            memcpy(dst, v->edges + v->head_n + at, len);
        }
        dst += len;
        off += len;
        n -= len;
    }
    open_taken(v, end);
}

/* ---- the cow backend: the file writer's device path reads the snapshot ---- */

static char cow_stream; /* one dummy stream: copies are synchronous */

static int cow_owns(const void *ptr, fti_devptr_info *info)
{
    (void)ptr;
    (void)info;
    return 0; /* never claims a pointer: variables are given this backend explicitly */
}
static int cow_stream_create(void **s)
{
    *s = &cow_stream;
    return 0;
}
static void cow_stream_destroy(void *s)
{
    (void)s;
}
static int cow_stream_sync(void *s)
{
    (void)s;
    return 0;
}
static int cow_host_alloc(void **p, size_t n)
{
    *p = malloc(n);
    return *p == NULL ? -1 : 0;
}
static void cow_host_free(void *p)
{
    free(p);
}
static int cow_to_host(void *s, void *dst, const void *handle, size_t off, size_t n)
{
    (void)s;
    read_snapshot((cow_var *)handle, off, n, dst);
    return 0;
}
static int cow_to_device(void *s, void *handle, size_t off, const void *src, size_t n)
{
    (void)s, (void)handle, (void)off, (void)src, (void)n;
    return -1; /* a snapshot is only read */
}
static const char *cow_last_error(void)
{
    return "a copy-on-write snapshot cannot be written to";
}

static const fti_device_ops cow_ops =
    FTI_DEVICE_OPS_TABLE("copy-on-write snapshot of host memory", cow, cow_stream_destroy, NULL);

/* ---- huge pages (cow_huge_pages) ------------------------------------------ */

static long long mono_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Why: the protection costs the kernel one entry per mapped page, so 2 GiB
 * in 4 KiB pages is 524,288 entries to change in the application's pause,
 * in 2 MiB pages 1,024. The variable's 2 MiB-aligned interior is asked for
 * huge pages (MADV_HUGEPAGE: pages it touches later come huge) and the
 * pages it has are collapsed into huge ones (MADV_COLLAPSE, Linux >= 6.1: a
 * copy of the interior, once): at FTI_Protect (fti_cow_prefer_huge), else
 * by the writer over the drains after its first snapshot (var_collapse).
 * Its first and last partial huge page stay small: they hold other data. */
static void huge_interior(const cow_var *v, uintptr_t *lo, uintptr_t *hi)
{
    uintptr_t a = (uintptr_t)v->ptr;
    *lo = (a + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    *hi = (a + v->n) & ~(HUGE_PAGE - 1);
    if (v->n < HUGE_PAGE || *hi <= *lo)
        *lo = *hi = 0;
}

static int advised_index(const fti_cow *c, uintptr_t lo, uintptr_t hi)
{
    for (int i = 0; i < c->nadvised; i++)
        if (c->advised[i].lo == lo && c->advised[i].hi == hi)
            return i;
    return -1;
}

static int remember_advised(fti_cow *c, uintptr_t lo, uintptr_t hi)
{
    if (c->nadvised == c->advised_cap) {
        int cap = c->advised_cap ? 2 * c->advised_cap : 8;
        huge_range *r = realloc(c->advised, (size_t)cap * sizeof *r);
        if (r == NULL)
            return -1; /* advised again next time: harmless, a no-op for the kernel */
        c->advised = r;
        c->advised_cap = cap;
    }
    c->advised[c->nadvised] = (huge_range){lo, hi, lo};
    return c->nadvised++;
}

/* The interior in huge pages; a refusal turns huge pages off for c, with
 * the reason in huge_note (said once by the caller). */
static void var_huge(fti_cow *c, cow_var *v)
{
    uintptr_t lo, hi;
    huge_interior(v, &lo, &hi);
    if (!c->huge || hi == 0)
        return;
    v->huge_lo = lo;
    v->huge_hi = hi;
    if ((v->range = advised_index(c, lo, hi) + 1) > 0)
        return;
    if (madvise((void *)lo, hi - lo, MADV_HUGEPAGE) != 0) {
        snprintf(c->huge_note, sizeof c->huge_note, "madvise(MADV_HUGEPAGE) refused: %s "
                 "(a kernel without transparent huge pages)", strerror(errno));
        c->huge = 0;
        v->huge_lo = v->huge_hi = 0;
        return;
    }
    v->range = remember_advised(c, lo, hi) + 1;
    c->times.huge_bytes += hi - lo;
}

/* Collapsed per call: the time check between calls bounds the writer's
 * extra work (32 MiB: 10-20 ms on an idle machine, more under load). */
#define COLLAPSE_STEP ((uintptr_t)32 << 20)

/* In the writer, once v is writable again: its interior collapsed into
 * huge pages from where the last drain stopped (from the start if a fault
 * split a huge page), so that the next snapshot's protection is cheap.
 * Until `deadline`, past one step: a first collapse costs a copy of the
 * variable (2 GiB: 10 s under load 19, the memory compacted to find huge
 * pages), which would hold the checkpoint's commit; it is spread over
 * the next drains instead. Huge pages still whole cost the kernel a look
 * each. EINVAL (Linux < 6.1, THP disabled for the process) stops trying,
 * said once; other errors (EAGAIN, ENOMEM) leave some pages small. */
static void var_collapse(fti_cow *c, cow_var *v, long long deadline)
{
    if (v->range == 0 || !c->can_collapse)
        return;
    huge_range *r = &c->advised[v->range - 1];
    if (atomic_load(&v->split))
        r->next = r->lo;
    long long t0 = mono_ns();
    for (int first = 1; r->next < r->hi && (first || mono_ns() < deadline); first = 0) {
        uintptr_t len = r->hi - r->next < COLLAPSE_STEP ? r->hi - r->next : COLLAPSE_STEP;
        if (madvise((void *)r->next, len, MADV_COLLAPSE) != 0 && errno == EINVAL) {
            snprintf(c->huge_note, sizeof c->huge_note, "madvise(MADV_COLLAPSE) refused: %s "
                     "(Linux < 6.1, or THP disabled): pages already touched stay small",
                     strerror(errno));
            c->can_collapse = 0;
            break;
        }
        r->next += len;
    }
    atomic_fetch_add(&c->collapse_ns, mono_ns() - t0);
}

double fti_cow_prefer_huge(fti_cow *c, const void *ptr, size_t n)
{
    cow_var v = {.cow = c, .ptr = ptr, .n = n};
    size_t before = c->times.huge_bytes;
    long long t0 = mono_ns();
    var_huge(c, &v);
    if (c->times.huge_bytes == before)
        return 0; /* known already, too small, or refused */
    c->times.huge_bytes = before;
    var_collapse(c, &v, LLONG_MAX);
    return (double)(mono_ns() - t0) * 1e-9;
}

void fti_cow_huge_pages(fti_cow *c, int on)
{
    c->huge = on;
    c->can_collapse = on;
}

int fti_cow_huge_note(fti_cow *c, char *out, size_t cap)
{
    if (c->huge_note[0] == '\0')
        return 0;
    snprintf(out, cap, "%s", c->huge_note);
    c->huge_note[0] = '\0';
    return 1;
}

const fti_cow_take_times *fti_cow_last_take(const fti_cow *c)
{
    return &c->times;
}

/* ---- snapshots ------------------------------------------------------------ */

fti_cow *fti_cow_new(size_t pool_bytes)
{
    fti_cow *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->page = (size_t)sysconf(_SC_PAGESIZE);
    size_t n = pool_bytes / c->page;
    c->nslots = n == 0 ? 1 : n > NO_SLOT - 1 ? NO_SLOT - 1 : (uint32_t)n;
    /* mmap, not malloc: reserved address space, pages appear when copied into */
    void *pool = mmap(NULL, (size_t)c->nslots * c->page, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    c->next = malloc((size_t)c->nslots * sizeof *c->next);
    if (pool == MAP_FAILED || c->next == NULL) {
        if (pool != MAP_FAILED)
            munmap(pool, (size_t)c->nslots * c->page);
        free(c->next);
        free(c);
        return NULL;
    }
    c->pool = pool;
    pool_reset(c);
    return c;
}

/* n zero bytes, fresh from the kernel: no memset in the application's
 * pause (calloc from the heap cleared 512 KiB at 2 GiB: most of the
 * tables' 0.05 ms); pages appear as the writer and the faults touch them.
 * NULL when out of memory. */
static _Atomic unsigned char *zeroed(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void var_clear(cow_var *v)
{
    free(v->edges);
    if (v->state != NULL)
        munmap((void *)v->state, v->npages + 1);
    free(v->slot);
    memset(v, 0, sizeof *v);
}

void fti_cow_free(fti_cow *c)
{
    if (c == NULL)
        return;
    fti_cow_end(c, NULL);
    munmap(c->pool, (size_t)c->nslots * c->page);
    free(c->advised);
    free(c->next);
    free(c->vars);
    free(c->reg.vars);
    free(c);
}

/* Fills v for the n bytes at ptr: partial pages copied, page states FRESH. */
static int var_prepare(fti_cow *c, cow_var *v, const void *ptr, size_t n)
{
    uintptr_t a = (uintptr_t)ptr, pg = c->page;
    uintptr_t first = (a + pg - 1) & ~(pg - 1), end = (a + n) & ~(pg - 1);
    memset(v, 0, sizeof *v);
    v->cow = c;
    v->ptr = ptr;
    v->n = n;
    if (end > first && first - a <= n) {
        v->head_n = first - a;
        v->npages = (end - first) / pg;
        v->tail_n = a + n - end;
    } else {
        v->head_n = n; /* no whole page: all of it is copied now */
    }
    v->edges = malloc(v->head_n + v->tail_n + 1);
    v->state = zeroed(v->npages + 1); /* 0 is FRESH */
    v->slot = malloc((v->npages + 1) * sizeof *v->slot);
    if (v->edges == NULL || v->state == NULL || v->slot == NULL)
        return -1;
    if (n == 0)
        return 0; /* ptr may be NULL: nothing to copy */
    memcpy(v->edges, ptr, v->head_n);
    memcpy(v->edges + v->head_n, v->ptr + v->head_n + v->npages * pg, v->tail_n);
    return 0;
}

static int reserve(fti_cow *c, int nvars)
{
    if (nvars <= c->var_cap)
        return 0;
    cow_var *vars = realloc(c->vars, (size_t)nvars * sizeof *vars);
    if (vars != NULL)
        c->vars = vars;
    fti_var *rv = realloc(c->reg.vars, (size_t)nvars * sizeof *rv);
    if (rv != NULL)
        c->reg.vars = rv;
    if (vars == NULL || rv == NULL)
        return -1;
    c->var_cap = nvars;
    return 0;
}

/* Protects v's whole pages, with the fault hook. */
static int var_protect(cow_var *v, int id, char *why, size_t cap)
{
    if (v->npages == 0)
        return 0;
    char reason[256] = "";
    /* exactly the whole pages: the tracker's region is the same pages, index for index */
    void *body = (void *)(v->ptr + v->head_n);
    if (fti_dirty_track_hook(body, v->npages * v->cow->page, id, before_write, v, reason,
                             sizeof reason) != 0) {
        snprintf(why, cap, "variable %d (%zu bytes at %p) cannot be write-protected: %s", id, v->n,
                 (const void *)v->ptr, reason);
        return -1;
    }
    v->tracked = 1;
    return 0;
}

static int var_take(fti_cow *c, int i, const fti_var *src, char *why, size_t cap)
{
    cow_var *v = &c->vars[i];
    memset(v, 0, sizeof *v); /* what fti_cow_end frees, whatever fails below */
    if (src->dev != NULL) {
        snprintf(why, cap, "variable %d is %s device memory", src->id, src->dev->name);
        return -1;
    }
    long long t0 = mono_ns();
    if (var_prepare(c, v, src->ptr, (size_t)fti_var_bytes(src)) != 0) {
        snprintf(why, cap, "out of memory for the page table of variable %d", src->id);
        return -1;
    }
    long long t1 = mono_ns();
    var_huge(c, v);
    long long t2 = mono_ns();
    int rc = var_protect(v, src->id, why, cap);
    long long t3 = mono_ns();
    c->times.prepare_s += (double)(t1 - t0) * 1e-9;
    c->times.huge_s += (double)(t2 - t1) * 1e-9;
    c->times.protect_s += (double)(t3 - t2) * 1e-9;
    if (rc != 0)
        return -1;
    fti_var *dst = &c->reg.vars[i];
    *dst = *src;
    dst->ptr = v; /* the cow backend's handle */
    dst->dev = &cow_ops;
    dst->dev_owned = NULL;
    return 0;
}

int fti_cow_take(fti_cow *c, const fti_registry *reg, char *why, size_t cap)
{
    long long t0 = mono_ns();
    fti_cow_end(c, NULL);
    c->times = (fti_cow_take_times){0};
    c->take_ns = t0;
    if (!fti_dirty_handler_intact()) {
        snprintf(why, cap, "the application replaced the SIGSEGV handler of page tracking");
        return -1;
    }
    if (reserve(c, reg->nvars) != 0) {
        snprintf(why, cap, "out of memory for a table of %d variables", reg->nvars);
        return -1;
    }
    c->active = 1;
    c->nvars = 0;
    atomic_store(&c->pooled, 0);
    atomic_store(&c->waits, 0);
    atomic_store(&c->peak, 0);
    for (int i = 0; i < reg->nvars; i++) {
        c->nvars = i + 1; /* what fti_cow_end undoes */
        if (var_take(c, i, &reg->vars[i], why, cap) != 0) {
            fti_cow_end(c, NULL);
            return -1;
        }
    }
    c->reg.nvars = reg->nvars;
    c->reg.bytes = reg->bytes;
    c->reg.index = NULL; /* searched in order, as ckpt_copy.c's table */
    c->times.total_s = (double)(mono_ns() - t0) * 1e-9;
    return 0;
}

const fti_registry *fti_cow_registry(fti_cow *c)
{
    return &c->reg;
}

int fti_cow_active(const fti_cow *c)
{
    return c != NULL && c->active;
}

/* Every page given up to the application: waiting handlers return, and
 * the pages become writable. */
static void var_end(fti_cow *c, cow_var *v, long long deadline)
{
    for (size_t p = 0; p < v->npages; p++)
        atomic_store(&v->state[p], TAKEN);
    if (v->tracked)
        fti_dirty_release(v->ptr + v->head_n, v->npages * c->page);
    var_collapse(c, v, deadline);
    var_clear(v);
}

void fti_cow_end(fti_cow *c, fti_cow_stats *st)
{
    if (!c->active) {
        if (st != NULL)
            *st = (fti_cow_stats){atomic_load(&c->pooled), atomic_load(&c->peak),
                                  atomic_load(&c->waits), 0};
        return;
    }
    atomic_store(&c->collapse_ns, 0);
    long long now = mono_ns(), deadline = now + (now - c->take_ns); /* at most the drain again */
    for (int i = 0; i < c->nvars; i++)
        var_end(c, &c->vars[i], deadline);
    c->nvars = 0;
    c->reg.nvars = 0;
    pool_reset(c);
    c->active = 0;
    if (st != NULL)
        *st = (fti_cow_stats){atomic_load(&c->pooled), atomic_load(&c->peak),
                              atomic_load(&c->waits),
                              (double)atomic_load(&c->collapse_ns) * 1e-9};
}
