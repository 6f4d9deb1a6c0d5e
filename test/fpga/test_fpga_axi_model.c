/*
 * test_fpga_axi_model.c - proof by schedules: the in-kernel checkpoint
 * protocol (fti_kernel.h and src/device/fpga_monitor.c, both unchanged in
 * what they do) on the model of AXI memory of axi_model.h, where a flag can
 * overtake its data unless a fence stops it.
 *
 * Each schedule (a seed) picks a kernel we ship and a mode, draws the
 * model's latencies, runs the monitor (FTI_FpgaWait through the "axim"
 * backend, in simulated time) against the kernel, and checks:
 *  - every checkpoint is one iteration of the kernel: the data of each
 *    block before *blocks_var and the slot state of the block before it
 *    equal a reference run's, byte for byte (no torn snapshot);
 *  - the run ends (no handshake deadlock) with no monitor error, and the
 *    device holds the reference's bytes;
 *  - restarted from one of its checkpoints (device bytes scrambled,
 *    FTI_FpgaStart restoring), it ends with the reference's bytes.
 * Then the negative controls: each of fti_kernel.h's ten fences switched
 * off in the model in turn, then each publish without both its fences,
 * then all of them; each prints what it found (seed, kind of failure).
 * The fences that the model proves needed must be caught.
 *
 *   test_fpga_axi_model [--schedules N] [--first SEED] [--controls N]
 *                       [--replay SEED --fences-off MASK]
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fti.h"
#include "fti_device.h"

#include "axi_model.h"
#include "base/log.h"
#include "device/fpga_monitor.h"
#include "kernels.h"
#if defined(AXIM_WITH_XRT)
#include "axi_model_xrt.h"
#include "xrt/fti_xrt.h"
#endif

void axim_test_kernel(fti_k_word *ctrl, uint64_t *data, uint64_t *slots, int nblocks, size_t bw,
                      size_t sw);

#define MAXBUF 6
#define MAXREG 3
#define MAXBLK 8
#define HORIZON_NS 2000000000ULL /* 2 simulated seconds: far past any timeout */

/* ---- the configurations: kernel, mode, buffers, regions ---------------------------- */

typedef struct bufdesc {
    size_t bytes;
    int port;  /* the kernel's m_axi bundle (0: the control block's) */
    int input; /* written by the host before each launch */
} bufdesc;

typedef struct regdesc {
    int buf;
    size_t off, bytes; /* bytes per block */
    int64_t first, n;
} regdesc;

typedef struct config config;
typedef struct inst {
    const config *cfg;
    axim_buf *b[MAXBUF];
} inst;

struct config {
    const char *name;
    int mode, nblocks;
    int nbufs, ctrl;
    bufdesc b[MAXBUF];
    int nregs;
    regdesc r[MAXREG];
    int slotbuf; /* -1: no replicated state */
    size_t slot_stride, slot_bytes;
    int out;     /* a buffer compared whole at the end (mode off), or -1 */
    void (*kernel)(void *inst);
    void (*init)(int buf, unsigned char *p, size_t n);
};

#define VIEW(in, i) ((void *)(in)->b[i]->view)
#define MAXSLOTS 3
#define JR 8 /* jacobi: rows, columns, rows per block */
#define JC 8
#define JB 2
#define YW 8 /* yuv: image */
#define YH 4
#define KN 16 /* k-means: points, dimensions, clusters */
#define KD 2
#define KK 3

static void jacobi_entry(void *arg)
{
    inst *in = arg;
    jacobi_sweep(VIEW(in, 0), VIEW(in, 1), VIEW(in, 2), VIEW(in, 3), JR, JC, JB, 0);
}

static void yuv_entry(void *arg)
{
    inst *in = arg;
    yuv_filter(VIEW(in, 0), VIEW(in, 1), VIEW(in, 2), VIEW(in, 3), VIEW(in, 4), VIEW(in, 5), YW,
               YH, 0);
}

static void kmeans_entry(void *arg)
{
    inst *in = arg;
    unsigned char *la = in->b[2]->view;
    kmeans_assign(VIEW(in, 0), VIEW(in, 1), (int32_t *)la, (double *)(la + KN * 4), VIEW(in, 3),
                  KN, KD, KK);
}

static void test_entry(void *arg)
{
    inst *in = arg;
    axim_test_kernel(VIEW(in, 0), VIEW(in, 1), VIEW(in, 2), 4, 8, 16);
}

/* Inputs: doubles for the numeric kernels, bytes for the image. */
static void init_doubles(int buf, unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n / sizeof(double); i++) {
        double v = (double)((i * 7 + (size_t)buf * 13) % 17) * 0.25;
        memcpy(p + i * sizeof v, &v, sizeof v);
    }
}

static void init_bytes(int buf, unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 37 + (size_t)buf * 11);
}

#define CTRL_BYTES ((size_t)FTI_K_CTRL_WORDS(MAXSLOTS) * 8)
#define JACOBI(mode_, name_)                                                                      \
    {name_, mode_, JR / JB, 4, 2,                                                                 \
     {{(JR + 2) * JC * 8, 1, 1}, {(JR + 2) * JC * 8, 1, 0}, {CTRL_BYTES, 0, 0},                   \
      {MAXSLOTS * 64, 2, 0}},                                                                     \
     1, {{1, JC * 8, JB * JC * 8, 0, JR / JB}}, 3, 64, 8, -1, jacobi_entry, init_doubles}
#define YUV(mode_, name_)                                                                         \
    {name_, mode_, YUV_STAGES, 6, 4,                                                              \
     {{YW * YH * 3, 1, 1}, {YW * YH * 3, 2, 0}, {YW * YH * 3, 3, 0}, {YW * YH * 3, 1, 0},         \
      {CTRL_BYTES, 0, 0}, {MAXSLOTS * 64, 2, 0}},                                                 \
     3, {{1, 0, YW * YH * 3, 0, 1}, {2, 0, YW * YH * 3, 1, 1}, {3, 0, YW * YH * 3, 2, 1}},        \
     5, 64, 8, -1, yuv_entry, init_bytes}
#define TEST(mode_, name_)                                                                        \
    {name_, mode_, 4, 3, 0, {{CTRL_BYTES, 0, 0}, {4 * 64, 1, 0}, {MAXSLOTS * 128, 2, 0}},         \
     1, {{1, 0, 64, 0, 4}}, 2, 128, 128, -1, test_entry, init_bytes}

static const config configs[] = {
    JACOBI(FTI_FPGA_BLOCKING, "jacobi_sweep, blocking"),
    JACOBI(FTI_FPGA_NONBLOCKING, "jacobi_sweep, non-blocking"),
    YUV(FTI_FPGA_BLOCKING, "yuv_filter, blocking"),
    YUV(FTI_FPGA_NONBLOCKING, "yuv_filter, non-blocking"),
    TEST(FTI_FPGA_BLOCKING, "test kernel, blocking"),
    TEST(FTI_FPGA_NONBLOCKING, "test kernel, non-blocking"),
    {"kmeans_assign, off", FTI_FPGA_OFF, 1, 4, 3,
     {{KN * KD * 8, 1, 1}, {KK * KD * 8, 2, 1}, {KN * 4 + (KK * KD + KK + 1) * 8, 3, 0},
      {CTRL_BYTES, 0, 0}},
     0, {{0, 0, 0, 0, 0}}, -1, 0, 0, 2, kmeans_entry, init_doubles},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

/* ---- the reference run: each block's data and state, in straight mode -------------- */

typedef struct golden {
    unsigned char *buf[MAXBUF]; /* every buffer at the end */
    unsigned char slot[MAXBLK][128]; /* replicated state after block b */
} golden;

static golden gold[NCONFIGS];
static uint64_t checked, restores; /* checkpoints checked, restarts run */
static FTI_FpgaStats mon; /* the monitors' statistics, summed */
static uint64_t via_xrt;  /* schedules through the "xrt" backend */
static int lose_acks;      /* self-check: every flagB lost, re-raises unbounded */
static const config *gold_cfg;
static inst *gold_inst;

static void header(fti_k_word *c, int mode, uint64_t slots, uint64_t nblocks)
{
    fti_k_word h[FTI_K_LINE_WORDS] = {FTI_K_MAGIC, FTI_K_VERSION, slots, nblocks, 0,
                                      (fti_k_word)mode, 1000, 10};
    memcpy(c, h, sizeof h);
}

static void record_slot(fti_k_word v)
{
    const config *c = gold_cfg;
    int64_t b = (int64_t)v - 1;
    memcpy(gold[c - configs].slot[b],
           gold_inst->b[c->slotbuf]->view + (size_t)b % MAXSLOTS * c->slot_stride, c->slot_bytes);
}

static void make_golden(int ci)
{
    const config *c = &configs[ci];
    inst in = {c, {0}};
    axim_reset(0, 0);
    for (int i = 0; i < c->nbufs; i++) {
        in.b[i] = axim_alloc(c->b[i].bytes, c->b[i].port);
        if (c->b[i].input)
            c->init(i, in.b[i]->view, c->b[i].bytes);
    }
    int mode = c->mode == FTI_FPGA_OFF ? FTI_K_MODE_OFF : FTI_K_MODE_NONBLOCKING;
    header((fti_k_word *)in.b[c->ctrl]->view, mode, MAXSLOTS, (uint64_t)c->nblocks);
    gold_cfg = c;
    gold_inst = &in;
    axim_on_progress = c->slotbuf >= 0 ? record_slot : NULL;
    axim_straight(1);
    c->kernel(&in);
    axim_straight(0);
    axim_on_progress = NULL;
    for (int i = 0; i < c->nbufs; i++) {
        gold[ci].buf[i] = malloc(c->b[i].bytes);
        memcpy(gold[ci].buf[i], in.b[i]->view, c->b[i].bytes);
    }
}

/* ---- one schedule ------------------------------------------------------------------ */

enum { OK, TORN, DEADLOCK, MONITOR_ERROR, WRONG_END, WRONG_RESTORE, NKINDS };
static const char *const kind_names[NKINDS] = {
    "ok", "torn snapshot", "handshake deadlock", "monitor error", "wrong bytes at the end",
    "wrong bytes after a restore"};

typedef struct ckpt {
    int64_t k;
    unsigned char reg[MAXREG][1024];
    unsigned char slot[128];
} ckpt;

typedef struct sched {
    const config *cfg;
    const golden *g;
    inst in;
    int xrt;                /* through the "xrt" backend (else "axim") */
    void *handle[MAXBUF];   /* the backend's handles of the buffers */
    int slots, ack_us;
    FTI_FpgaMonitor *m;
    int64_t blocks;
    ckpt host, saved; /* the protected host variables; a checkpoint kept for the restart */
    int nckpt, have_saved, restoring;
    int kind;
    char why[512];
} sched;

static int fail(sched *s, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(sched *s, int kind, const char *fmt, ...)
{
    if (s->kind == OK) {
        va_list ap;
        va_start(ap, fmt);
        s->kind = kind;
        vsnprintf(s->why, sizeof s->why, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int agree_one(void *arg, const int64_t *in, int64_t *out)
{
    (void)arg;
    memcpy(out, in, FTI_FPGA_NVOTES * sizeof *in);
    return 0;
}

/* Is the snapshot (k, host) one iteration of the kernel? */
static int check_snapshot(sched *s, const ckpt *h, const char *what)
{
    const config *c = s->cfg;
    for (int r = 0; r < c->nregs; r++) {
        const regdesc *d = &c->r[r];
        for (int64_t j = d->first; j < d->first + d->n && j < h->k; j++) {
            size_t rel = (size_t)(j - d->first) * d->bytes;
            if (memcmp(h->reg[r] + rel, s->g->buf[d->buf] + d->off + rel, d->bytes) != 0)
                return fail(s, TORN, "%s of block %lld: the data of block %lld differ from the "
                            "kernel's", what, (long long)(h->k - 1), (long long)j);
        }
    }
    if (c->slotbuf >= 0 && h->k > 0 && memcmp(h->slot, s->g->slot[h->k - 1], c->slot_bytes) != 0)
        return fail(s, TORN, "%s of block %lld: the replicated state is not the kernel's after "
                    "that block", what, (long long)(h->k - 1));
    return 0;
}

static int checkpoint_hook(void *arg, int id, int level)
{
    sched *s = arg;
    (void)id;
    (void)level;
    s->host.k = s->blocks;
    checked++;
    check_snapshot(s, &s->host, s->restoring ? "checkpoint after the restart" : "checkpoint");
    if (axim_rand((uint64_t)++s->nckpt) == 0) { /* one checkpoint, uniformly */
        s->saved = s->host;
        s->have_saved = 1;
    }
    return FTI_DONE;
}

static void dev_put(axim_buf *b, size_t off, const void *src, size_t n)
{
    axim_ops.to_device(NULL, b, off, src, n);
}

/* The device as the host leaves it before a launch: inputs written, the
 * rest scrambled (a restart's card holds anything). */
static void prepare_device(sched *s)
{
    const config *c = s->cfg;
    unsigned char tmp[1024];
    for (int i = 0; i < c->nbufs; i++) {
        if (c->b[i].input)
            c->init(i, tmp, c->b[i].bytes);
        else
            memset(tmp, 0xA5, c->b[i].bytes);
        dev_put(s->in.b[i], 0, tmp, c->b[i].bytes);
    }
    axim_ops.stream_sync(NULL);
}

static int add_regions(sched *s)
{
    const config *c = s->cfg;
    for (int r = 0; r < c->nregs; r++) {
        const regdesc *d = &c->r[r];
        if (FTI_FpgaAddBlockRegion(s->m, s->handle[d->buf], d->off, d->bytes, d->first, d->n,
                                   s->host.reg[r]) != FTI_SCES)
            return -1;
    }
    if (c->slotbuf >= 0 && FTI_FpgaAddSlotRegion(s->m, s->handle[c->slotbuf], 0, c->slot_stride,
                                                 c->slot_bytes, s->host.slot) != FTI_SCES)
        return -1;
    return 0;
}

static int open_monitor(sched *s)
{
    FTI_FpgaConfig fc = FTI_FpgaConfigDefaults();
    fc.mode = (FTI_FpgaMode)s->cfg->mode;
    fc.backend = s->xrt ? "xrt" : "axim";
    fc.ctrl = s->handle[s->cfg->ctrl];
    fc.slots = (uint32_t)s->slots;
    fc.nblocks = s->cfg->nblocks;
    fc.blocks_var = s->cfg->mode == FTI_FPGA_OFF ? NULL : &s->blocks;
    fc.timeout_s = 0.5;
    fc.ack_timeout_us = (uint32_t)s->ack_us;
    fc.max_raises = lose_acks ? UINT32_MAX : 1000;
    fc.agree_interval_s = 1e-4;
    if (FTI_FpgaCreate(&s->m, &fc) != FTI_SCES)
        return -1;
    fti_fpga_hooks h = {agree_one, checkpoint_hook, s};
    fti_fpga_clock clk = {axim_clock_now, axim_clock_sleep, NULL};
    fti_fpga_set_hooks(s->m, &h);
    fti_fpga_set_clock(s->m, &clk);
    if (lose_acks)
        fti_fpga_drop_acks(s->m, 0, INT_MAX);
    return add_regions(s);
}

/* After the run: the device holds the reference's bytes. */
static int check_end(sched *s, int kind)
{
    const config *c = s->cfg;
    unsigned char got[1024];
    for (int r = 0; r < c->nregs; r++) {
        const regdesc *d = &c->r[r];
        size_t n = (size_t)d->n * d->bytes;
        axim_ops.to_host(NULL, got, s->in.b[d->buf], d->off, n);
        if (memcmp(got, s->g->buf[d->buf] + d->off, n) != 0)
            return fail(s, kind, "block data of region %d differ from the kernel's", r);
    }
    if (c->slotbuf >= 0) {
        size_t at = (size_t)(c->nblocks - 1) % (size_t)s->slots * c->slot_stride;
        axim_ops.to_host(NULL, got, s->in.b[c->slotbuf], at, c->slot_bytes);
        if (memcmp(got, s->g->slot[c->nblocks - 1], c->slot_bytes) != 0)
            return fail(s, kind, "the final replicated state differs from the kernel's");
    }
    if (c->out >= 0) {
        axim_ops.to_host(NULL, got, s->in.b[c->out], 0, c->b[c->out].bytes);
        if (memcmp(got, s->g->buf[c->out], c->b[c->out].bytes) != 0)
            return fail(s, kind, "the kernel's results read after FTI_FpgaWait and xrtRunWait "
                        "differ from the kernel's");
    }
    return 0;
}

/* One launch under the monitor, from *blocks_var = s->blocks. */
static int run_once(sched *s, int kind)
{
    prepare_device(s);
    if (open_monitor(s) != 0 || FTI_FpgaStart(s->m) != FTI_SCES)
        return fail(s, MONITOR_ERROR, "monitor setup: %s", fti_last_error());
    axim_launch(s->cfg->kernel, &s->in);
    int rc = FTI_FpgaWait(s->m);
    axim_wait_kernel();
    FTI_FpgaStats st;
    FTI_FpgaGetStats(s->m, &st);
    mon.torn += st.torn;
    mon.raises += st.raises;
    mon.resends += st.resends;
    mon.polls += st.polls;
    if (rc != FTI_SCES)
        return fail(s, MONITOR_ERROR, "%sFTI_FpgaWait failed: %s",
                    s->restoring ? "after the restart: " : "", fti_last_error());
    FTI_FpgaFree(s->m);
    s->m = NULL;
    return check_end(s, kind);
}

static void host_main(void *arg)
{
    sched *s = arg;
    s->blocks = 0;
    if (run_once(s, WRONG_END) != 0 || !s->have_saved)
        return;
    s->restoring = 1;
    restores++;
    s->host = s->saved;
    s->blocks = s->saved.k;
    run_once(s, WRONG_RESTORE);
}

/* Runs schedule `seed` with the fences in `off` switched off. */
static int run_schedule(uint64_t seed, unsigned off, sched *s)
{
    memset(s, 0, sizeof *s);
    int ci = (int)(seed % NCONFIGS);
    s->cfg = &configs[ci];
    s->g = &gold[ci];
    axim_reset(seed, off);
    s->in.cfg = s->cfg;
#if defined(AXIM_WITH_XRT)
    /* Every configuration both ways; one schedule in ten through "xrt",
     * whose stream is a worker thread per monitor (3x slower here). */
    s->xrt = seed / NCONFIGS % 10 == 9;
#endif
    for (int i = 0; i < s->cfg->nbufs; i++) {
        s->in.b[i] = axim_alloc(s->cfg->b[i].bytes, s->cfg->b[i].port);
        s->handle[i] = s->in.b[i];
#if defined(AXIM_WITH_XRT)
        if (s->xrt)
            s->handle[i] = axim_bo_wrap(s->in.b[i]);
        via_xrt += s->xrt && i == 0;
#endif
    }
    s->slots = s->cfg->mode == FTI_FPGA_BLOCKING ? 1 + (int)axim_rand(MAXSLOTS)
                                                 : 2 + (int)axim_rand(MAXSLOTS - 1);
    s->ack_us = axim_rand(2) ? 20 : 200;
    if (axim_run(host_main, s, HORIZON_NS) != 0)
        fail(s, DEADLOCK, "no end after %.1f simulated seconds (%s, %s)", HORIZON_NS * 1e-9,
             s->restoring ? "after the restart" : "first run",
             s->m ? "the monitor still waits" : "the host waits for the kernel");
    if (s->m != NULL) {
        FTI_FpgaFree(s->m);
        s->m = NULL;
    }
#if defined(AXIM_WITH_XRT)
    for (int i = 0; s->xrt && i < s->cfg->nbufs; i++)
        axim_bo_free(s->handle[i]);
#endif
    return s->kind;
}

/* ---- sweeps and negative controls ---------------------------------------------------- */

typedef struct tally {
    uint64_t runs, fails[NKINDS], first_seed;
    int first_kind;
    char first_why[640];
} tally;

/* Runs seeds [first, first + n); stops at the first failure when `stop`. */
static void sweep(uint64_t first, uint64_t n, unsigned off, int stop, tally *t)
{
    sched s;
    memset(t, 0, sizeof *t);
    for (uint64_t seed = first; seed < first + n; seed++) {
        int kind = run_schedule(seed, off, &s);
        t->runs++;
        if (kind == OK)
            continue;
        if (t->fails[kind]++ == 0 && t->first_kind == OK) {
            t->first_kind = kind;
            t->first_seed = seed;
            snprintf(t->first_why, sizeof t->first_why, "%s, %s backend: %s", s.cfg->name,
                     s.xrt ? "xrt" : "axim", s.why);
        }
        if (stop)
            break;
    }
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define F(site, after) (1u << AXIM_FENCE(AXIM_SITE_##site, after))

/* The fences the model must prove needed: without one of them some
 * schedule goes wrong. The others each have a neighbour doing their work
 * (docs/FPGA.md says which); the groups below remove the neighbours too. */
static unsigned needed_fences(void)
{
    return F(SLOT_BEGIN, 1) | F(DONE, 0);
}

static int control(const char *label, unsigned off, uint64_t first, uint64_t n, int must_fail)
{
    tally t;
    sweep(first, n, off, 1, &t);
    if (t.first_kind != OK) {
        printf("control: %-44s seed %llu: %s (%s), after %llu schedules\n", label,
               (unsigned long long)t.first_seed, kind_names[t.first_kind], t.first_why,
               (unsigned long long)t.runs);
        return 0;
    }
    printf("control: %-44s nothing found in %llu schedules%s\n", label,
           (unsigned long long)t.runs, must_fail ? ": FAIL, the model must find one" : "");
    return must_fail ? 1 : 0;
}

/* Groups of fences whose members stand in for each other. */
static const struct group {
    const char *label;
    unsigned off;
} groups[] = {
    {"without the three between slot data and progress:",
     F(SLOT_END, 0) | F(SLOT_END, 1) | F(PROGRESS, 0)},
    {"without the five between block data and progress:",
     F(SLOT_BEGIN, 0) | F(SLOT_BEGIN, 1) | F(SLOT_END, 0) | F(SLOT_END, 1) | F(PROGRESS, 0)},
    {"without any fence:", (1u << AXIM_NFENCES) - 1},
};

static int run_controls(uint64_t first, uint64_t n)
{
    int bad = 0;
    char label[96];
    const axim_stats *st = axim_get_stats();
    for (int f = 0; f < AXIM_NFENCES; f++) {
        snprintf(label, sizeof label, "without the fence %s:", axim_fence_name(f));
        if (st->steps > 0 && st->fences_met[f] == 0) /* after a sweep */
            printf("control: %-44s never met by the kernels\n", label);
        bad += control(label, 1u << f, first, n, (needed_fences() >> f) & 1);
    }
    for (int site = 0; site < AXIM_NSITES; site++) {
        unsigned both = 1u << AXIM_FENCE(site, 0) | 1u << AXIM_FENCE(site, 1);
        snprintf(label, sizeof label, "without both fences of %s:", axim_fence_name(2 * site) + 7);
        bad += control(label, both, first, n, (needed_fences() & both) != 0);
    }
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        bad += control(groups[g].label, groups[g].off, first, n, 1);
    return bad;
}

/* The deadlock detector itself: with every acknowledgement lost and no
 * bound on re-raises, a blocking kernel waits forever. */
static int self_check(void)
{
    sched s;
    lose_acks = 1;
    int kind = run_schedule(NCONFIGS, 0, &s); /* seed NCONFIGS: jacobi, blocking */
    lose_acks = 0;
    printf("self-check: every flagB lost, re-raises unbounded (%s): %s%s\n", s.cfg->name,
           kind_names[kind], kind == DEADLOCK ? "" : ": FAIL, a handshake deadlock was expected");
    return kind != DEADLOCK;
}

static int replay(uint64_t seed, unsigned off)
{
    sched s;
    int kind = run_schedule(seed, off, &s);
    printf("seed %llu, fences off 0x%x: %s, %s backend: %s%s%s\n", (unsigned long long)seed, off,
           configs[seed % NCONFIGS].name, s.xrt ? "xrt" : "axim", kind_names[kind],
           kind ? ": " : "", kind ? s.why : "");
    return kind != OK;
}

int main(int argc, char **argv)
{
    uint64_t n = 100000, first = 1, controls = 10000, replay_seed = 0;
    unsigned off = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        uint64_t v = strtoull(argv[i + 1], NULL, 0);
        if (strcmp(argv[i], "--schedules") == 0)
            n = v;
        else if (strcmp(argv[i], "--first") == 0)
            first = v;
        else if (strcmp(argv[i], "--controls") == 0)
            controls = v;
        else if (strcmp(argv[i], "--replay") == 0)
            replay_seed = v;
        else if (strcmp(argv[i], "--fences-off") == 0)
            off = (unsigned)v;
        else {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], argv[i]);
            return 2;
        }
    }
    if (axim_sanitized() && argc == 1) {
        /* The sanitizer run checks memory, not the sweep: a tenth of it. */
        n = 10000;
        controls = 1000;
        printf("built with AddressSanitizer: %llu schedules, controls of %llu\n",
               (unsigned long long)n, (unsigned long long)controls);
    }
    /* Silent library: the controls' monitor errors are reported below. */
    fti_log_setup(-1, FTI_LOG_ERROR + 1);
    fti_log_quiet(1);
    if (fti_device_register(&axim_ops) != 0
#if defined(AXIM_WITH_XRT)
        || fti_device_register(&fti_xrt_ops) != 0
#endif
    ) {
        fprintf(stderr, "FAIL: cannot register the axim device backend\n");
        return 1;
    }
    for (int ci = 0; ci < NCONFIGS; ci++)
        make_golden(ci);
    if (replay_seed)
        return replay(replay_seed, off);
    double t0 = seconds();
    tally t;
    sweep(first, n, 0, 0, &t);
    const axim_stats *st = axim_get_stats();
    printf("axi model: %llu schedules (seeds %llu..%llu, %d kernel/mode configurations) in %.1f s: "
           "%s (%llu schedules); %llu torn snapshots, %llu deadlocks, %llu monitor errors, %llu wrong ends, "
           "%llu wrong restores; %llu checkpoints checked, %llu restarts; %llu steps, %llu writes\n",
           (unsigned long long)t.runs, (unsigned long long)first,
           (unsigned long long)(first + n - 1), NCONFIGS, seconds() - t0,
#if defined(AXIM_WITH_XRT)
           "backend axim, and xrt over the model for a tenth",
#else
           "backend axim",
#endif
           (unsigned long long)via_xrt,
           (unsigned long long)t.fails[TORN], (unsigned long long)t.fails[DEADLOCK],
           (unsigned long long)t.fails[MONITOR_ERROR], (unsigned long long)t.fails[WRONG_END],
           (unsigned long long)t.fails[WRONG_RESTORE], (unsigned long long)checked,
           (unsigned long long)restores, (unsigned long long)st->steps,
           (unsigned long long)st->writes);
    printf("monitor: %lld polls, %lld torn slot copies discarded, %lld re-raises of flagA, "
           "%lld flagB re-sent\n", (long long)mon.polls, (long long)mon.torn,
           (long long)mon.raises, (long long)mon.resends);
    if (st->unknown_fences)
        printf("FAIL: %llu fences not next to an announcing store\n",
               (unsigned long long)st->unknown_fences);
    int bad = t.first_kind != OK || st->unknown_fences != 0;
    if (t.first_kind != OK)
        printf("FAIL: seed %llu: %s: %s\n", (unsigned long long)t.first_seed,
               kind_names[t.first_kind], t.first_why);
    bad += self_check();
    if (controls > 0) {
        t0 = seconds();
        bad += run_controls(first, controls);
        printf("controls: %.1f s\n", seconds() - t0);
    }
    printf("%s\n", bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
