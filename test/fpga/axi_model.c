/*
 * axi_model.c - the model of AXI device memory of axi_model.h: buffers,
 * writes in flight, the kernel's fences, the host's DMA, and the scheduler
 * interleaving the two coroutines (ucontext) in simulated nanoseconds.
 * Deterministic: everything random comes from the schedule's seed.
 */
#include "axi_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

/* AddressSanitizer is told of each switch of stacks (else it reports
 * false positives on the coroutines' stacks). */
#if defined(__SANITIZE_ADDRESS__)
#define AXIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AXIM_ASAN 1
#endif
#endif
#if defined(AXIM_ASAN)
#include <sanitizer/common_interface_defs.h>
#define START_SWITCH(save, bottom, size) __sanitizer_start_switch_fiber(save, bottom, size)
#define FINISH_SWITCH(save, bottom, size) __sanitizer_finish_switch_fiber(save, bottom, size)
#else
#define START_SWITCH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#define FINISH_SWITCH(save, bottom, size) ((void)(save), (void)(bottom), (void)(size))
#endif

#define BEAT 64
#define MAXBUFS 32
#define HOST_PORT (AXIM_PORTS - 1)
#define STACK_BYTES (256 * 1024)
#define MAX_STEPS 2000000ULL

/* ---- the schedule: generator and drawn parameters ------------------------------ */

typedef struct params {
    uint64_t base[AXIM_PORTS], spread[AXIM_PORTS]; /* write latency: base + U[0, spread] */
    int in_order[AXIM_PORTS];                      /* the port's writes land in issue order */
    uint64_t kcost;                                /* kernel: up to this per call */
    uint64_t read_lat, beat_gap;                   /* host reads */
    uint64_t launch;                               /* kernel launch delay */
} params;

static uint64_t rng;
static params P;
static unsigned fences_off;
static int straight;
static axim_stats stats;
void (*axim_on_progress)(fti_k_word value);

static uint64_t next_random(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

uint64_t axim_rand(uint64_t n)
{
    return n ? next_random() % n : 0;
}

static uint64_t pick(const uint64_t *v, int n)
{
    return v[axim_rand((uint64_t)n)];
}

/* Latencies span four decades, so that any write may overtake any other
 * one issued up to tens of microseconds before it on another port. */
static void draw_params(void)
{
    static const uint64_t spreads[] = {0, 30, 300, 3000, 30000};
    static const uint64_t costs[] = {4, 40, 400, 4000};
    static const uint64_t gaps[] = {0, 20, 200, 2000};
    for (int p = 0; p < AXIM_PORTS; p++) {
        P.base[p] = 1 + axim_rand(300) + (p == HOST_PORT ? 200 : 0);
        P.spread[p] = pick(spreads, 5);
        P.in_order[p] = (int)axim_rand(2);
    }
    P.kcost = pick(costs, 4);
    P.read_lat = 100 + axim_rand(1500);
    P.beat_gap = pick(gaps, 4);
    P.launch = axim_rand(20000);
}

/* ---- buffers and writes in flight ------------------------------------------------ */

typedef struct write {
    uint64_t land;
    axim_buf *b;
    size_t off, len;
    unsigned char data[BEAT];
} write;

static axim_buf bufs[MAXBUFS];
static int nbufs;
static write *flight; /* sorted by landing time */
static size_t nflight, capflight;
static uint64_t now, port_last[AXIM_PORTS];

axim_buf *axim_alloc(size_t bytes, int port)
{
    if (nbufs == MAXBUFS || port < 0 || port >= HOST_PORT)
        abort(); /* a harness bug, not a schedule's */
    axim_buf *b = &bufs[nbufs++];
    size_t n = (bytes + BEAT - 1) / BEAT * BEAT;
    b->landed = calloc(1, n);
    b->view = calloc(1, n);
    b->issued = calloc(1, n);
    if (!b->landed || !b->view || !b->issued)
        abort();
    b->bytes = bytes;
    b->port = port;
    return b;
}

static axim_buf *buf_of(const void *p, size_t *off)
{
    for (int i = 0; i < nbufs; i++) {
        const unsigned char *v = bufs[i].view;
        if ((const unsigned char *)p >= v && (const unsigned char *)p < v + bufs[i].bytes) {
            *off = (size_t)((const unsigned char *)p - v);
            return &bufs[i];
        }
    }
    fprintf(stderr, "axi_model: %p is in no device buffer\n", p);
    abort();
}

/* Issues a write of len bytes at b+off; returns when it will have landed. */
static uint64_t issue(axim_buf *b, size_t off, const void *src, size_t len, int port)
{
    uint64_t land = now + P.base[port] + axim_rand(P.spread[port] + 1);
    if (P.in_order[port] && land <= port_last[port])
        land = port_last[port] + 1;
    for (size_t i = 0; i < nflight; i++) /* coherence: same bytes land in issue order */
        if (flight[i].b == b && flight[i].off < off + len && off < flight[i].off + flight[i].len &&
            land <= flight[i].land)
            land = flight[i].land + 1;
    if (land > port_last[port])
        port_last[port] = land;
    if (nflight == capflight) {
        capflight = capflight ? 2 * capflight : 256;
        if ((flight = realloc(flight, capflight * sizeof *flight)) == NULL)
            abort();
    }
    size_t at = nflight++;
    while (at > 0 && flight[at - 1].land > land) {
        flight[at] = flight[at - 1];
        at--;
    }
    flight[at] = (write){land, b, off, len, {0}};
    memcpy(flight[at].data, src, len);
    stats.writes++;
    return land;
}

static void land_until(uint64_t t)
{
    size_t n = 0;
    while (n < nflight && flight[n].land <= t) {
        memcpy(flight[n].b->landed + flight[n].off, flight[n].data, flight[n].len);
        n++;
    }
    if (n > 0) {
        memmove(flight, flight + n, (nflight - n) * sizeof *flight);
        nflight -= n;
    }
}

/* ---- actors and scheduler ---------------------------------------------------------- */

enum { IDLE, RUNNING, FINISHED };

typedef struct actor {
    ucontext_t ctx;
    char *stack;
    int state;
    uint64_t ready; /* runs next at this time */
    void (*fn)(void *);
    void *arg;
    void *fake; /* AddressSanitizer's fake stack while switched away */
} actor;

static ucontext_t sched;
static actor host, kern;
static actor *cur;
static uint64_t kern_out, host_out; /* when every write each issued has landed */
static uint64_t kern_done_at;

static void *sched_fake;
static const void *sched_bottom;
static size_t sched_size;

/* In an actor: back to the scheduler, to run again at time t. */
static void yield_until(actor *a, uint64_t t)
{
    a->ready = t > now ? t : now;
    START_SWITCH(&a->fake, sched_bottom, sched_size);
    swapcontext(&a->ctx, &sched);
    FINISH_SWITCH(a->fake, &sched_bottom, &sched_size);
}

/* In an actor's entry: first on its stack, and last (it ends). */
static void actor_begins(void)
{
    FINISH_SWITCH(NULL, &sched_bottom, &sched_size);
}

static void actor_ends(void)
{
    START_SWITCH(NULL, sched_bottom, sched_size);
}

/* In the scheduler: runs actor a until it yields or ends. */
static void switch_to(actor *a)
{
    START_SWITCH(&sched_fake, a->stack, STACK_BYTES);
    swapcontext(&sched, &a->ctx);
    FINISH_SWITCH(sched_fake, NULL, NULL);
}

static int in_host(void)
{
    return cur == &host;
}

void axim_reset(uint64_t seed, unsigned off)
{
    for (int i = 0; i < nbufs; i++) {
        free(bufs[i].landed);
        free(bufs[i].view);
        free(bufs[i].issued);
    }
    nbufs = 0;
    nflight = 0;
    now = 0;
    memset(port_last, 0, sizeof port_last);
    kern_out = host_out = kern_done_at = 0;
    host.state = kern.state = IDLE;
    cur = NULL;
    rng = seed * 0x2545F4914F6CDD1DULL + 1;
    fences_off = off;
    draw_params();
}

void axim_straight(int on)
{
    straight = on;
}

int axim_sanitized(void)
{
#if defined(AXIM_ASAN)
    return 1;
#else
    return 0;
#endif
}

const axim_stats *axim_get_stats(void)
{
    return &stats;
}

static void start_actor(actor *a, void (*entry)(void))
{
    if (a->stack == NULL && (a->stack = malloc(STACK_BYTES)) == NULL)
        abort();
    getcontext(&a->ctx);
    a->ctx.uc_stack.ss_sp = a->stack;
    a->ctx.uc_stack.ss_size = STACK_BYTES;
    a->ctx.uc_link = &sched;
    makecontext(&a->ctx, entry, 0);
    a->state = RUNNING;
}

static void host_entry(void)
{
    actor_begins();
    host.fn(host.arg);
    host.state = FINISHED;
    actor_ends();
}

static void kernel_entry(void);

/* The actor to run next: the earlier one, a random one on a tie. */
static actor *next_actor(void)
{
    if (kern.state != RUNNING)
        return &host;
    if (kern.ready != host.ready)
        return kern.ready < host.ready ? &kern : &host;
    return axim_rand(2) ? &kern : &host;
}

int axim_run(void (*fn)(void *), void *arg, uint64_t horizon_ns)
{
    host.fn = fn;
    host.arg = arg;
    host.ready = now;
    start_actor(&host, host_entry);
    for (uint64_t steps = 0; host.state != FINISHED; steps++) {
        actor *a = next_actor();
        if (a->ready > horizon_ns || steps > MAX_STEPS) {
            cur = NULL;
            return 1; /* both coroutines are abandoned where they are */
        }
        now = a->ready > now ? a->ready : now;
        land_until(now);
        cur = a;
        stats.steps++;
        switch_to(a);
    }
    cur = NULL;
    return 0;
}

/* ---- the kernel: protocol calls, data diffs, fences ---------------------------------- */

enum { K_LOAD, K_STORE, K_FENCE, K_END };

static int fence_pending, prev_store_site = -1;
static uint64_t fence_until;

static const char *const site_names[AXIM_NSITES] = {"slot begin (odd sequence)",
                                                    "slot end (even sequence)", "progress",
                                                    "flagA", "done"};

const char *axim_fence_name(int fence)
{
    static char name[AXIM_NFENCES][64];
    int site = fence / 2;
    if (fence < 0 || fence >= AXIM_NFENCES)
        return "unknown fence";
    snprintf(name[fence], sizeof name[fence], "%s %s", fence % 2 ? "after" : "before",
             site_names[site]);
    return name[fence];
}

/* The announcing store (publish site) a control store is, or -1. */
static int site_of(size_t off, fti_k_word v)
{
    size_t line = off / (FTI_K_LINE_WORDS * sizeof(fti_k_word));
    size_t w = off / sizeof(fti_k_word) % FTI_K_LINE_WORDS;
    if (w != 0)
        return -1;
    if (line >= FTI_K_LINE_SEQ0)
        return v % 2 ? AXIM_SITE_SLOT_BEGIN : AXIM_SITE_SLOT_END;
    if (line == FTI_K_LINE_PROGRESS)
        return AXIM_SITE_PROGRESS;
    if (line == FTI_K_LINE_FLAGA)
        return AXIM_SITE_FLAGA;
    if (line == FTI_K_LINE_DONE)
        return AXIM_SITE_DONE;
    return -1;
}

/* The kernel's plain stores since its last call, issued as beats. */
static void issue_data(void)
{
    for (int i = 0; i < nbufs; i++) {
        axim_buf *b = &bufs[i];
        for (size_t off = 0; off < b->bytes; off += BEAT) {
            size_t len = b->bytes - off < BEAT ? b->bytes - off : BEAT;
            if (memcmp(b->view + off, b->issued + off, len) == 0)
                continue;
            memcpy(b->issued + off, b->view + off, len);
            uint64_t land = issue(b, off, b->view + off, len, b->port);
            kern_out = land > kern_out ? land : kern_out;
        }
    }
}

/* A fence is known by what follows it: before the announcing store that
 * comes next, or else after the one that came just before. It waits (when
 * not switched off) for the writes issued before it. */
static void resolve_fence(int kind, int site)
{
    if (!fence_pending)
        return;
    fence_pending = 0;
    int f = -1;
    if (kind == K_STORE && site >= 0)
        f = AXIM_FENCE(site, 0);
    else if (prev_store_site >= 0)
        f = AXIM_FENCE(prev_store_site, 1);
    if (f < 0)
        stats.unknown_fences++;
    else
        stats.fences_met[f]++;
    if ((f < 0 || !(fences_off & (1u << f))) && fence_until > now)
        yield_until(&kern, fence_until);
}

/* Entry of every kernel call: the pending fence, then the data written
 * since the last call. */
static void k_enter(int kind, int site)
{
    resolve_fence(kind, site);
    issue_data();
}

static void k_cost(void)
{
    yield_until(&kern, now + 1 + axim_rand(P.kcost));
}

fti_k_word axim_k_load(const fti_k_word *p)
{
    size_t off;
    axim_buf *b = buf_of(p, &off);
    if (straight)
        return *p;
    k_enter(K_LOAD, -1);
    prev_store_site = -1;
    k_cost(); /* the read travels to memory: it sees what landed by then */
    fti_k_word v;
    memcpy(&v, b->landed + off, sizeof v);
    return v;
}

void axim_k_store(fti_k_word *p, fti_k_word v)
{
    size_t off;
    axim_buf *b = buf_of(p, &off);
    int site = site_of(off, v);
    if (straight) {
        *p = v;
        if (site == AXIM_SITE_PROGRESS && axim_on_progress != NULL)
            axim_on_progress(v);
        return;
    }
    k_enter(K_STORE, site);
    uint64_t land = issue(b, off, &v, sizeof v, b->port);
    kern_out = land > kern_out ? land : kern_out;
    prev_store_site = site;
    k_cost();
}

void axim_k_fence(void)
{
    if (straight)
        return;
    resolve_fence(K_FENCE, -1);
    issue_data();
    fence_pending = 1;
    fence_until = kern_out;
    k_cost();
}

void axim_k_sleep_ns(uint64_t ns)
{
    if (!straight)
        yield_until(&kern, now + ns);
}

uint64_t axim_k_now_us(void)
{
    return straight ? 0 : now / 1000;
}

/* The kernel starts with what has landed; ap_done once its writes did. */
static void kernel_entry(void)
{
    actor_begins();
    for (int i = 0; i < nbufs; i++) {
        memcpy(bufs[i].view, bufs[i].landed, bufs[i].bytes);
        memcpy(bufs[i].issued, bufs[i].landed, bufs[i].bytes);
    }
    fence_pending = 0;
    prev_store_site = -1;
    kern.fn(kern.arg);
    k_enter(K_END, -1);
    kern_done_at = kern_out > now ? kern_out : now;
    kern.state = FINISHED;
    actor_ends();
}

void axim_launch(void (*fn)(void *), void *arg)
{
    kern.fn = fn;
    kern.arg = arg;
    start_actor(&kern, kernel_entry);
    kern.ready = now + P.launch;
}

void axim_wait_kernel(void)
{
    while (kern.state == RUNNING || now < kern_done_at)
        yield_until(&host, now + 1000);
}

/* ---- the host: the "axim" device backend and the clock ------------------------------- */

static int axim_owns(const void *ptr, fti_devptr_info *info)
{
    (void)ptr;
    (void)info;
    return 0; /* found by name only */
}

static int axim_stream_create(void **stream)
{
    static int token;
    *stream = &token;
    return 0;
}

static void axim_stream_destroy(void *stream)
{
    (void)stream;
}

static int axim_stream_sync(void *stream)
{
    (void)stream;
    if (in_host() && host_out > now)
        yield_until(&host, host_out);
    return 0;
}

static int axim_host_alloc(void **p, size_t n)
{
    return (*p = calloc(1, n ? n : 1)) != NULL ? 0 : -1;
}

static void axim_host_free(void *p)
{
    free(p);
}

/* A DMA read: after the read latency, each beat as it is then. */
static int axim_to_host(void *stream, void *dst, const void *handle, size_t off, size_t n)
{
    axim_buf *b = (axim_buf *)handle;
    (void)stream;
    if (in_host())
        yield_until(&host, now + P.read_lat);
    for (size_t done = 0; done < n;) {
        size_t at = off + done, len = BEAT - at % BEAT;
        len = len < n - done ? len : n - done;
        if (in_host() && done > 0)
            yield_until(&host, now + axim_rand(P.beat_gap + 1));
        memcpy((unsigned char *)dst + done, b->landed + at, len);
        done += len;
    }
    return 0;
}

/* A DMA write: beats land on their own; stream_sync waits for them. */
static int axim_to_device(void *stream, void *handle, size_t off, const void *src, size_t n)
{
    axim_buf *b = (axim_buf *)handle;
    (void)stream;
    for (size_t done = 0; done < n;) {
        size_t at = off + done, len = BEAT - at % BEAT;
        len = len < n - done ? len : n - done;
        if (in_host()) {
            uint64_t land = issue(b, at, (const unsigned char *)src + done, len, HOST_PORT);
            host_out = land > host_out ? land : host_out;
        } else {
            memcpy(b->landed + at, (const unsigned char *)src + done, len);
        }
        done += len;
    }
    return 0;
}

void axim_dma_now(axim_buf *b, size_t off, void *host, size_t n, int to_device)
{
    if (to_device)
        memcpy(b->landed + off, host, n);
    else
        memcpy(host, b->landed + off, n);
}

static const char *axim_last_error(void)
{
    return "no error (the model's copies do not fail)";
}

const fti_device_ops axim_ops = FTI_DEVICE_OPS_TABLE("axim", axim, axim_stream_destroy, NULL);

double axim_clock_now(void *arg)
{
    (void)arg;
    return 1e-9 * (double)now;
}

void axim_clock_sleep(void *arg, long ns)
{
    (void)arg;
    if (in_host())
        yield_until(&host, now + (uint64_t)ns);
}
