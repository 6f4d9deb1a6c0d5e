/*
 * emu.c - the emulated device (see emu.h).
 *
 * "Device memory" is host memory handed out by fti_emu_malloc and recorded in
 * a range table, so owns() can tell it from plain host memory. Each stream is
 * a worker thread draining a FIFO of copies (backends/stream_queue.c), so
 * copies really run behind the caller's back and complete in order per
 * stream. A speed model (one copy engine per direction, shared by all
 * streams, as on a PCIe device) makes a copy take latency + bytes /
 * bandwidth; the worker sleeps for it, and the bytes land at the end, so
 * reading a destination before its stream_sync sees stale data, as it can on
 * a real device. fti_emu_fail_after counts bytes in submission order and the
 * doomed copy's error surfaces at the next stream_sync, as an asynchronous
 * device error does.
 *
 * Emulated kernels (fti_emu_launch) run in launch order on one more queue,
 * the device's default stream, and write device memory behind the caller's
 * back like a CUDA kernel. order_after_app queues on a capture stream a
 * wait for the kernels launched so far, as the CUDA backend queues a wait
 * for an event recorded on the legacy default stream: without it, a
 * checkpoint copies what a kernel is still writing.
 *
 * The emulated device is process-wide, like a real device driver: its state
 * is the one static `emu` struct below, guarded by its mutex.
 */
#include "emu.h"
#include "dev_error.h"
#include "stream_queue.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EMU_ERRLEN 256
#define EMU_HOST_ALIGN 4096

typedef struct emu_range {
    uintptr_t base;
    size_t size;
} emu_range;

enum { EMU_D2H = 0, EMU_H2D = 1 };

static struct {
    pthread_mutex_t lock;
    emu_range *ranges; /* live allocations, unordered */
    size_t nranges, cap;
    double bandwidth;            /* bytes/s, 0 = unlimited */
    double latency;              /* seconds per copy */
    double engine_free_at[2];    /* per direction: when the copy engine is idle */
    double memcpy_rate;          /* bytes/s of the last large memcpy, 0 = unknown */
    size_t fail_budget;          /* bytes left before the injected failure */
    int fail_armed;
    size_t host_allocs, host_live; /* host_alloc calls that succeeded; buffers not freed */
    /* The default stream of emulated kernels (fti_emu_launch). */
    fti_sq *app;
    unsigned long long launched, finished; /* kernels, in launch order */
    pthread_cond_t kernel_done;
} emu = {.lock = PTHREAD_MUTEX_INITIALIZER, .kernel_done = PTHREAD_COND_INITIALIZER};

static _Thread_local char emu_errbuf[EMU_ERRLEN];

/* Records a failure for emu_last_error; returns -1. */
#define emu_fail(...) fti_dev_fail(emu_errbuf, sizeof emu_errbuf, __VA_ARGS__)

static const char *emu_last_error(void)
{
    return fti_dev_last_error(emu_errbuf, "emu: no error");
}

/* ---- range table ---------------------------------------------------------- */

/* Index of the allocation containing p, or -1. Caller holds emu.lock. */
static long range_find(uintptr_t p)
{
    for (size_t i = 0; i < emu.nranges; i++)
        if (p >= emu.ranges[i].base && p - emu.ranges[i].base < emu.ranges[i].size)
            return (long)i;
    return -1;
}

static int range_add(uintptr_t base, size_t size)
{
    if (emu.nranges == emu.cap) {
        size_t cap = emu.cap ? emu.cap * 2 : 16;
        emu_range *r = realloc(emu.ranges, cap * sizeof *r);
        if (r == NULL)
            return -1;
        emu.ranges = r;
        emu.cap = cap;
    }
    emu.ranges[emu.nranges].base = base;
    emu.ranges[emu.nranges].size = size;
    emu.nranges++;
    return 0;
}

/* 0 when [p, p+n) lies inside one allocation, else -1 with a message. */
static int range_check(const void *p, size_t n, const char *what)
{
    uintptr_t a = (uintptr_t)p;
    pthread_mutex_lock(&emu.lock);
    long i = range_find(a);
    size_t room = i < 0 ? 0 : emu.ranges[i].size - (a - emu.ranges[i].base);
    pthread_mutex_unlock(&emu.lock);
    if (i < 0)
        return emu_fail("emu: %s: %p is not emulated device memory (not from fti_emu_malloc)",
                        what, p);
    if (n > room)
        return emu_fail("emu: %s: %zu bytes at %p run past the end of its allocation "
                        "(%zu bytes left)", what, n, p, room);
    return 0;
}

void *fti_emu_malloc(size_t n)
{
    /* Zero-byte allocations still get a distinct, owned address. */
    size_t size = n ? n : 1;
    void *p = malloc(size);
    if (p == NULL) {
        emu_fail("emu: fti_emu_malloc(%zu): out of host memory", n);
        return NULL;
    }
    pthread_mutex_lock(&emu.lock);
    int rc = range_add((uintptr_t)p, size);
    pthread_mutex_unlock(&emu.lock);
    if (rc != 0) {
        free(p);
        emu_fail("emu: fti_emu_malloc(%zu): out of memory for the range table", n);
        return NULL;
    }
    return p;
}

void fti_emu_free(void *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&emu.lock);
    long i = range_find((uintptr_t)p);
    int is_base = i >= 0 && emu.ranges[i].base == (uintptr_t)p;
    if (is_base)
        emu.ranges[i] = emu.ranges[--emu.nranges];
    pthread_mutex_unlock(&emu.lock);
    /* Freeing a foreign or interior pointer would corrupt the heap: refuse. */
    if (is_base)
        free(p);
    else
        emu_fail("emu: fti_emu_free(%p): not the start of an emulated allocation", p);
}

static int emu_owns(const void *ptr, fti_devptr_info *info)
{
    pthread_mutex_lock(&emu.lock);
    long i = range_find((uintptr_t)ptr);
    pthread_mutex_unlock(&emu.lock);
    if (i < 0)
        return 0;
    if (info != NULL) {
        info->device = 0;
        info->host_readable = 0;
    }
    return 1;
}

/* ---- speed model and failure injection ------------------------------------ */

void fti_emu_set_speed(double bytes_per_second, double latency_seconds)
{
    pthread_mutex_lock(&emu.lock);
    emu.bandwidth = bytes_per_second > 0 ? bytes_per_second : 0;
    emu.latency = latency_seconds > 0 ? latency_seconds : 0;
    pthread_mutex_unlock(&emu.lock);
}

void fti_emu_fail_after(size_t bytes)
{
    pthread_mutex_lock(&emu.lock);
    emu.fail_armed = bytes != (size_t)-1;
    emu.fail_budget = bytes;
    pthread_mutex_unlock(&emu.lock);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_until(double t)
{
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* Books the copy engine of direction dir for an n-byte copy and returns when
 * it is done. Copies in one direction queue behind each other across streams,
 * as on a device with one copy engine per direction. */
static double engine_book(int dir, size_t n)
{
    pthread_mutex_lock(&emu.lock);
    double t = now_seconds();
    double start = emu.engine_free_at[dir] > t ? emu.engine_free_at[dir] : t;
    double cost = emu.latency + (emu.bandwidth > 0 ? (double)n / emu.bandwidth : 0);
    double end = start + cost;
    if (cost > 0)
        emu.engine_free_at[dir] = end;
    pthread_mutex_unlock(&emu.lock);
    return cost > 0 ? end : 0;
}

/* 0, or -1 when the armed injection fires for this n-byte copy (once: a
 * test wants one failure, then a usable device for its cleanup). */
static int injection_consume(size_t n, size_t *budget_left)
{
    int fire = 0;
    pthread_mutex_lock(&emu.lock);
    *budget_left = emu.fail_budget;
    if (emu.fail_armed) {
        if (n > emu.fail_budget) {
            fire = 1;
            emu.fail_armed = 0;
        } else {
            emu.fail_budget -= n;
        }
    }
    pthread_mutex_unlock(&emu.lock);
    return fire ? -1 : 0;
}

/* Seconds a memcpy of n bytes is expected to take, from the last large one. */
static double memcpy_estimate(size_t n)
{
    pthread_mutex_lock(&emu.lock);
    double rate = emu.memcpy_rate;
    pthread_mutex_unlock(&emu.lock);
    return rate > 0 ? (double)n / rate : 0;
}

static void timed_memcpy(void *dst, const void *src, size_t n)
{
    double t0 = now_seconds();
    memcpy(dst, src, n);
    double dt = now_seconds() - t0;
    if (n >= (64u << 10) && dt > 0) { /* small copies time mostly the clock */
        pthread_mutex_lock(&emu.lock);
        emu.memcpy_rate = (double)n / dt;
        pthread_mutex_unlock(&emu.lock);
    }
}

/* ---- streams -------------------------------------------------------------- */

enum { EMU_COPY, EMU_WAIT_KERNELS };

typedef struct emu_op {
    fti_sq_op link; /* first: the stream queue chains and frees it */
    int kind;                 /* EMU_COPY, or EMU_WAIT_KERNELS up to `kernels` */
    unsigned long long kernels;
    int dir;
    void *dst;
    const void *src;
    size_t n;
    int doomed;       /* the injected failure hits this copy */
    size_t fail_left; /* injection budget it found, for the message */
} emu_op;

/* Runs one copy on the stream's worker thread (fti_sq_run_fn). */
static void wait_kernels(unsigned long long upto);

static int op_run(fti_sq_op *link, char *err, size_t errlen)
{
    const emu_op *op = (const emu_op *)link;
    if (op->kind == EMU_WAIT_KERNELS) {
        wait_kernels(op->kernels);
        return 0;
    }
    if (op->doomed) {
        snprintf(err, errlen,
                 "emu: injected device failure: %s copy of %zu bytes exceeds the "
                 "%zu bytes left before the fault set by fti_emu_fail_after",
                 op->dir == EMU_D2H ? "device->host" : "host->device", op->n, op->fail_left);
        return -1;
    }
    double end = engine_book(op->dir, op->n);
    /* The bytes land at the end of the modelled transfer, so a caller that
     * reads the destination before stream_sync sees stale data, as it could
     * on a real device. The memcpy is started early by its expected duration
     * so that it does not add to the modelled time. */
    if (end > 0)
        sleep_until(end - memcpy_estimate(op->n));
    if (op->n > 0)
        timed_memcpy(op->dst, op->src, op->n);
    if (end > 0)
        sleep_until(end);
    return 0;
}

/* A stream is a stream queue: copies run in order on its worker thread, and
 * after a failed copy the later ones are dropped until stream_sync. */
static int emu_stream_create(void **stream)
{
    return fti_sq_stream_create(stream, op_run, "emu", emu_errbuf, sizeof emu_errbuf);
}

/* Waits until every queued copy ran; reports (and clears) a failure among them. */
static int emu_stream_sync(void *stream)
{
    return fti_sq_stream_sync(stream, "emu", emu_errbuf, sizeof emu_errbuf);
}

static int enqueue(fti_sq *q, int dir, void *dst, const void *src, size_t n)
{
    if (q == NULL)
        return emu_fail("emu: copy on a NULL stream");
    emu_op *op = malloc(sizeof *op);
    if (op == NULL)
        return emu_fail("emu: out of memory queueing a %zu-byte copy", n);
    *op = (emu_op){.kind = EMU_COPY, .dir = dir, .dst = dst, .src = src, .n = n};
    /* The budget is spent in submission order, so which copy fails does not
     * depend on how the stream threads happen to be scheduled; the failure
     * itself surfaces asynchronously, at the stream's next sync. */
    op->doomed = injection_consume(n, &op->fail_left) != 0;
    fti_sq_push(q, &op->link);
    return 0;
}

static int emu_to_host(void *stream, void *dst, const void *handle, size_t off, size_t n)
{
    const char *src = (const char *)handle + off;
    if (dst == NULL && n > 0)
        return emu_fail("emu: to_host: NULL host destination");
    if (range_check(src, n, "to_host") != 0)
        return -1;
    return enqueue(stream, EMU_D2H, dst, src, n);
}

static int emu_to_device(void *stream, void *handle, size_t off, const void *src, size_t n)
{
    char *dst = (char *)handle + off;
    if (src == NULL && n > 0)
        return emu_fail("emu: to_device: NULL host source");
    if (range_check(dst, n, "to_device") != 0)
        return -1;
    return enqueue(stream, EMU_H2D, dst, src, n);
}

/* ---- emulated kernels and ordering ----------------------------------------- */

typedef struct kernel_op {
    fti_sq_op link; /* first: the stream queue chains and frees it */
    void (*fn)(void *);
    void *arg;
} kernel_op;

/* Blocks until the first `upto` launched kernels finished. */
static void wait_kernels(unsigned long long upto)
{
    pthread_mutex_lock(&emu.lock);
    while (emu.finished < upto)
        pthread_cond_wait(&emu.kernel_done, &emu.lock);
    pthread_mutex_unlock(&emu.lock);
}

static int kernel_run(fti_sq_op *link, char *err, size_t errlen)
{
    kernel_op *k = (kernel_op *)link;
    (void)err, (void)errlen;
    k->fn(k->arg);
    pthread_mutex_lock(&emu.lock);
    emu.finished++;
    pthread_cond_broadcast(&emu.kernel_done);
    pthread_mutex_unlock(&emu.lock);
    return 0;
}

/* The default stream, started by the first launch. Caller holds emu.lock. */
static int app_stream(void)
{
    if (emu.app != NULL)
        return 0;
    int rc = fti_sq_create(&emu.app, kernel_run);
    if (rc != 0)
        emu.app = NULL;
    return rc == 0 ? 0 : emu_fail("emu: fti_emu_launch: cannot start the default stream");
}

int fti_emu_launch(void (*fn)(void *), void *arg)
{
    kernel_op *k = malloc(sizeof *k);
    if (fn == NULL || k == NULL) {
        free(k);
        return emu_fail("emu: fti_emu_launch: %s", fn ? "out of memory" : "NULL kernel");
    }
    *k = (kernel_op){.fn = fn, .arg = arg};
    pthread_mutex_lock(&emu.lock);
    int rc = app_stream();
    if (rc == 0) {
        emu.launched++;
        fti_sq_push(emu.app, &k->link); /* under the lock: tickets in push order */
    }
    pthread_mutex_unlock(&emu.lock);
    if (rc != 0)
        free(k);
    return rc;
}

void fti_emu_synchronize(void)
{
    pthread_mutex_lock(&emu.lock);
    unsigned long long upto = emu.launched;
    pthread_mutex_unlock(&emu.lock);
    wait_kernels(upto);
}

/* The copies queued next on stream wait for the kernels launched so far
 * (on any emulated memory: the model does not track what a kernel touches). */
static int emu_order_after_app(void *stream, const void *handle)
{
    (void)handle;
    if (stream == NULL)
        return emu_fail("emu: order_after_app on a NULL stream");
    emu_op *op = malloc(sizeof *op);
    if (op == NULL)
        return emu_fail("emu: order_after_app: out of memory");
    pthread_mutex_lock(&emu.lock);
    *op = (emu_op){.kind = EMU_WAIT_KERNELS, .kernels = emu.launched};
    pthread_mutex_unlock(&emu.lock);
    fti_sq_push(stream, &op->link);
    return 0;
}

/* ---- host buffers and synchronous copies ---------------------------------- */

static int emu_host_alloc(void **p, size_t n)
{
    /* Page-aligned, like pinned memory, so O_DIRECT writes from it work. */
    size_t size = (n + EMU_HOST_ALIGN - 1) / EMU_HOST_ALIGN * EMU_HOST_ALIGN;
    if (size == 0)
        size = EMU_HOST_ALIGN;
    *p = aligned_alloc(EMU_HOST_ALIGN, size);
    if (*p == NULL)
        return emu_fail("emu: host_alloc(%zu): out of host memory", n);
    pthread_mutex_lock(&emu.lock);
    emu.host_allocs++;
    emu.host_live++;
    pthread_mutex_unlock(&emu.lock);
    return 0;
}

static void emu_host_free(void *p)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&emu.lock);
    emu.host_live--;
    pthread_mutex_unlock(&emu.lock);
    free(p);
}

void fti_emu_host_stats(size_t *allocated, size_t *live)
{
    pthread_mutex_lock(&emu.lock);
    *allocated = emu.host_allocs;
    *live = emu.host_live;
    pthread_mutex_unlock(&emu.lock);
}

/* A checked copy: dev, the device side, must hold the n bytes. */
static int checked_copy(void *dst, const void *src, size_t n, const void *dev, const char *what)
{
    if (range_check(dev, n, what) != 0)
        return -1;
    if (n > 0)
        memcpy(dst, src, n);
    return 0;
}

int fti_emu_read(void *dst, const void *dev, size_t n)
{
    return checked_copy(dst, dev, n, dev, "fti_emu_read");
}

int fti_emu_write(void *dev, const void *src, size_t n)
{
    return checked_copy(dev, src, n, dev, "fti_emu_write");
}

/* destroy as cudaStreamDestroy: pending work completes */
const fti_device_ops fti_emu_ops =
    FTI_DEVICE_OPS_TABLE("emu", emu, fti_sq_stream_destroy, emu_order_after_app);
