/*
 * fpga_monitor.c - the host side of in-kernel partial checkpointing: the
 * FTI_Fpga* calls of fti_device.h (protocol: fti_kernel.h, DESIGN.md).
 *
 * The monitor is driven by the application's main thread (FTI_FpgaWait): it
 * polls the control block through the backend's copies, copies the data of
 * complete blocks into the application's protected host variables, stages
 * the kernel's replicated slot state and keeps it only when the slot's
 * sequence number was the same, even value before and after the copy
 * (seqlock: a copy that raced with the kernel writing that slot is torn and
 * discarded, never checkpointed). Each round every rank votes, one
 * reduction decides, and all ranks take the checkpoint together (rounds
 * happen when a rank has news or at least every agree_interval_s, not at
 * every poll):
 * FTI_Checkpoint is collective, so the ranks must agree on when to call it.
 * Blocking mode checkpoints once every rank's kernel waits at flagA (a
 * coordinated cut at the same block); non-blocking mode as soon as any rank
 * has new state (the others checkpoint their last validated state again).
 */
#include "device/fpga_monitor.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fti_kernel.h"

#include "device.h"
#include "base/log.h"

#define LINE_BYTES (FTI_K_LINE_WORDS * sizeof(fti_k_word))
#define HOT_LINES 5 /* header, progress, flagA, flagB, done: read by one poll */
#define MAX_REGIONS 16
#define BACKOFF_MIN_NS 1000L
#define BACKOFF_MAX_NS 1000000L

typedef struct region {
    void *handle;
    size_t offset;
    size_t bytes;   /* per block, or per slot copy */
    size_t stride;  /* slot regions: bytes from one slot copy to the next */
    int64_t first;  /* block regions: blocks [first, first + nblocks) */
    int64_t nblocks;
    int slot;       /* 1: replicated per slot */
    unsigned char *host;
    unsigned char *stage; /* slot regions: the copy being validated */
} region;

struct FTI_FpgaMonitor {
    FTI_FpgaConfig cfg;
    const fti_device_ops *ops;
    void *stream;
    fti_k_word *io;   /* pinned: control block image, then scratch words */
    size_t ctrl_words;
    fti_k_word hdr[FTI_K_LINE_WORDS]; /* the header as written by Start */
    region regions[MAX_REGIONS];
    int nregions;
    fti_fpga_hooks hooks;
    fti_fpga_clock clock;
    int started;
    /* protocol state, in blocks: copied <= progress, valid = state staged,
     * ckpt = state checkpointed, acked = last flagB sent */
    int64_t copied, valid, ckpt, acked;
    fti_k_word raises_seen;
    fti_k_word seen[4]; /* progress, flagA, raises, done: liveness */
    double last_change;
    int moved;          /* the kernel showed a sign of life since Start */
    int next_id;
    int64_t sent[FTI_FPGA_NVOTES]; /* my votes in the last round */
    double last_round;
    int pending;        /* the last round wanted a cut that was not ready */
    int moved_since_round;
    int64_t drop_from;
    int drop_count, trust_slots;
    FTI_FpgaStats st;
};

/* Scratch words after the control block image in m->io. */
enum { SCR_SEQ_BEFORE, SCR_SEQ_AFTER, SCR_ACK, SCR_WORDS };

static double real_now(void *arg)
{
    struct timespec ts;
    (void)arg;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void real_sleep(void *arg, long ns)
{
    struct timespec ts = {0, ns};
    (void)arg;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The monitor's clock: real time, or the simulated time of a model of the
 * device's memory (fti_fpga_set_clock). */
static double now_s(const FTI_FpgaMonitor *m)
{
    return m->clock.now(m->clock.arg);
}

static void nap(const FTI_FpgaMonitor *m, long *ns)
{
    m->clock.sleep_ns(m->clock.arg, *ns);
    *ns = *ns * 2 > BACKOFF_MAX_NS ? BACKOFF_MAX_NS : *ns * 2;
}

static fti_k_word word(const FTI_FpgaMonitor *m, int line, int w)
{
    return m->io[FTI_K_AT(line, w)];
}

static fti_k_word *scratch(FTI_FpgaMonitor *m, int i)
{
    return &m->io[m->ctrl_words + (size_t)i];
}

static const char *mode_name(FTI_FpgaMode mode)
{
    return mode == FTI_FPGA_BLOCKING ? "blocking" : mode == FTI_FPGA_NONBLOCKING ? "non-blocking"
                                                                                  : "off";
}

/* ---- device access through the backend ------------------------------------- */

static fti_err dev_fail(FTI_FpgaMonitor *m, const char *what)
{
    return fti_fail(FTI_E_DEVICE, "FPGA monitor: %s backend: %s failed: %s", m->ops->name, what,
                    m->ops->last_error());
}

/* Waits for the queued copies; reports the first failure as `what`. */
static fti_err dev_sync(FTI_FpgaMonitor *m, const char *what)
{
    return m->ops->stream_sync(m->stream) == 0 ? FTI_E_OK : dev_fail(m, what);
}

static fti_err dev_get(FTI_FpgaMonitor *m, void *dst, void *h, size_t off, size_t n,
                       const char *what)
{
    if (m->ops->to_host(m->stream, dst, h, off, n) == 0)
        return FTI_E_OK;
    fti_err e = dev_fail(m, what);
    m->ops->stream_sync(m->stream); /* drain what was queued before */
    return e;
}

static fti_err dev_put(FTI_FpgaMonitor *m, void *h, size_t off, const void *src, size_t n,
                       const char *what)
{
    if (m->ops->to_device(m->stream, h, off, src, n) == 0)
        return FTI_E_OK;
    fti_err e = dev_fail(m, what);
    m->ops->stream_sync(m->stream);
    return e;
}

static size_t line_off(const FTI_FpgaMonitor *m, uint64_t line)
{
    return m->cfg.ctrl_offset + line * LINE_BYTES;
}

/* ---- configuration ----------------------------------------------------------- */

size_t FTI_FpgaCtrlBytes(uint32_t slots)
{
    return (size_t)FTI_K_CTRL_WORDS(slots) * sizeof(fti_k_word);
}

FTI_FpgaConfig FTI_FpgaConfigDefaults(void)
{
    FTI_FpgaConfig c;
    memset(&c, 0, sizeof c);
    c.mode = FTI_FPGA_BLOCKING;
    c.backend = "xrt";
    c.slots = 2;
    c.level = 1;
    c.ckpt_id = 1;
    c.every = 1;
    c.timeout_s = 30.0;
    c.ack_timeout_us = 100000;
    c.max_raises = 100;
    c.agree_interval_s = 0.01;
    return c;
}

static fti_err check_config(const FTI_FpgaConfig *c)
{
    const char *why = NULL;
    if (c->mode != FTI_FPGA_OFF && c->mode != FTI_FPGA_BLOCKING && c->mode != FTI_FPGA_NONBLOCKING)
        why = "mode is not FTI_FPGA_OFF, FTI_FPGA_BLOCKING or FTI_FPGA_NONBLOCKING";
    else if (c->ctrl == NULL)
        why = "ctrl (the control block's device buffer) is NULL";
    else if (c->ctrl_offset % LINE_BYTES != 0)
        why = "ctrl_offset is not a multiple of 64 (each flag needs its own 64-byte line)";
    else if (c->slots < 1 || (c->mode == FTI_FPGA_NONBLOCKING && c->slots < 2))
        why = "slots must be >= 1, and >= 2 in non-blocking mode (the host reads slot b-1 "
              "while the kernel writes slot b)";
    else if (c->nblocks < 1)
        why = "nblocks must be >= 1";
    else if (c->mode != FTI_FPGA_OFF && c->blocks_var == NULL)
        why = "blocks_var is NULL (the protected host variable holding the checkpointed block)";
    else if (c->mode != FTI_FPGA_OFF && (c->level < 1 || c->level > 4) && c->level != 8)
        why = "level must be 1-4 (or 8)";
    else if (c->every < 1)
        why = "every must be >= 1";
    else if (!(c->timeout_s > 0) || c->ack_timeout_us == 0)
        why = "timeout_s and ack_timeout_us must be positive";
    else if (!(c->agree_interval_s >= 0) || c->agree_interval_s > c->timeout_s)
        why = "agree_interval_s must be within 0 .. timeout_s";
    if (why != NULL)
        return fti_fail(FTI_E_ARG, "FTI_FpgaCreate: %s", why);
    return FTI_E_OK;
}

static fti_err find_ops(const char *name, const fti_device_ops **ops)
{
    char names[128];
    *ops = fti_device_by_name(name);
    if (*ops != NULL)
        return FTI_E_OK;
    fti_device_names(names, sizeof names);
    return fti_fail(FTI_E_UNSUPPORTED, "FTI_FpgaCreate: device backend '%s' is not available "
                    "(available: %s)", name ? name : "(null)", names[0] ? names : "none");
}

static int default_agree(void *arg, const int64_t *in, int64_t *out);
static int default_checkpoint(void *arg, int id, int level);

static fti_err monitor_open(FTI_FpgaMonitor *m)
{
    m->ctrl_words = (size_t)FTI_K_CTRL_WORDS(m->cfg.slots);
    if (m->ops->host_alloc((void **)&m->io, (m->ctrl_words + SCR_WORDS) * sizeof(fti_k_word)) != 0) {
        m->io = NULL;
        return dev_fail(m, "host_alloc of the control block image");
    }
    if (m->ops->stream_create(&m->stream) != 0) {
        m->stream = NULL;
        return dev_fail(m, "stream_create");
    }
    return FTI_E_OK;
}

int FTI_FpgaCreate(FTI_FpgaMonitor **out, const FTI_FpgaConfig *cfg)
{
    if (out == NULL || cfg == NULL) {
        fti_fail(FTI_E_ARG, "FTI_FpgaCreate: monitor or config pointer is NULL");
        return FTI_NSCS;
    }
    *out = NULL;
    const fti_device_ops *ops;
    if (check_config(cfg) != FTI_E_OK || find_ops(cfg->backend, &ops) != FTI_E_OK)
        return FTI_NSCS;
    FTI_FpgaMonitor *m = calloc(1, sizeof *m);
    if (m == NULL) {
        fti_fail(FTI_E_NOMEM, "FTI_FpgaCreate: out of memory");
        return FTI_NSCS;
    }
    m->cfg = *cfg;
    m->ops = ops;
    m->next_id = cfg->ckpt_id;
    m->hooks = (fti_fpga_hooks){default_agree, default_checkpoint, m};
    m->clock = (fti_fpga_clock){real_now, real_sleep, NULL};
    if (monitor_open(m) != FTI_E_OK) {
        FTI_FpgaFree(m);
        return FTI_NSCS;
    }
    *out = m;
    return FTI_SCES;
}

void FTI_FpgaFree(FTI_FpgaMonitor *m)
{
    if (m == NULL)
        return;
    if (m->stream != NULL) {
        m->ops->stream_sync(m->stream);
        m->ops->stream_destroy(m->stream);
    }
    for (int i = 0; i < m->nregions; i++)
        free(m->regions[i].stage);
    if (m->io != NULL)
        m->ops->host_free(m->io);
    free(m);
}

static fti_err add_region(FTI_FpgaMonitor *m, const region *r, const char *fn)
{
    if (m == NULL)
        return fti_fail(FTI_E_ARG, "%s: monitor is NULL", fn);
    if (r->handle == NULL || r->host == NULL || r->bytes == 0)
        return fti_fail(FTI_E_ARG, "%s: device handle and host copy must be non-NULL and the "
                        "size positive", fn);
    if (m->nregions == MAX_REGIONS)
        return fti_fail(FTI_E_ARG, "%s: at most %d regions per monitor", fn, MAX_REGIONS);
    if (m->started)
        return fti_fail(FTI_E_STATE, "%s: regions must be added before FTI_FpgaStart", fn);
    region *dst = &m->regions[m->nregions];
    *dst = *r;
    if (r->slot && (dst->stage = malloc(r->bytes)) == NULL)
        return fti_fail(FTI_E_NOMEM, "%s: out of memory for a %zu-byte staging copy", fn, r->bytes);
    m->nregions++;
    return FTI_E_OK;
}

int FTI_FpgaAddBlockRegion(FTI_FpgaMonitor *m, void *handle, size_t offset, size_t bytes_per_block,
                           int64_t first, int64_t nblocks, void *host)
{
    if (m != NULL && (first < 0 || nblocks < 1 || first + nblocks > m->cfg.nblocks)) {
        fti_fail(FTI_E_ARG, "FTI_FpgaAddBlockRegion: blocks [%lld, %lld) are not within the %lld "
                 "blocks of the run", (long long)first, (long long)(first + nblocks),
                 (long long)m->cfg.nblocks);
        return FTI_NSCS;
    }
    region r = {handle, offset, bytes_per_block, 0, first, nblocks, 0, host, NULL};
    return add_region(m, &r, "FTI_FpgaAddBlockRegion") == FTI_E_OK ? FTI_SCES : FTI_NSCS;
}

int FTI_FpgaAddSlotRegion(FTI_FpgaMonitor *m, void *handle, size_t offset, size_t stride,
                          size_t bytes, void *host)
{
    if (stride < bytes) {
        fti_fail(FTI_E_ARG, "FTI_FpgaAddSlotRegion: stride %zu is smaller than a copy (%zu bytes): "
                 "slot copies would overlap", stride, bytes);
        return FTI_NSCS;
    }
    region r = {handle, offset, bytes, stride, 0, 0, 1, host, NULL};
    return add_region(m, &r, "FTI_FpgaAddSlotRegion") == FTI_E_OK ? FTI_SCES : FTI_NSCS;
}

int FTI_FpgaGetStats(const FTI_FpgaMonitor *m, FTI_FpgaStats *st)
{
    if (m == NULL || st == NULL) {
        fti_fail(FTI_E_ARG, "FTI_FpgaGetStats: NULL argument");
        return FTI_NSCS;
    }
    *st = m->st;
    return FTI_SCES;
}

void fti_fpga_set_hooks(FTI_FpgaMonitor *m, const fti_fpga_hooks *h)
{
    m->hooks = *h;
}

void fti_fpga_set_clock(FTI_FpgaMonitor *m, const fti_fpga_clock *c)
{
    m->clock = *c;
}

void fti_fpga_drop_acks(FTI_FpgaMonitor *m, int64_t from_block, int count)
{
    m->drop_from = from_block;
    m->drop_count = count;
}

void fti_fpga_trust_slots(FTI_FpgaMonitor *m, int on)
{
    m->trust_slots = on;
}

/* ---- copies of block data and slot state --------------------------------------- */

/* Queues the copy of block range [lo, hi) of r (clipped to r's blocks),
 * device -> host when `in` is 0, host -> device when 1. */
static fti_err move_blocks(FTI_FpgaMonitor *m, const region *r, int64_t lo, int64_t hi, int in)
{
    lo = lo > r->first ? lo : r->first;
    hi = hi < r->first + r->nblocks ? hi : r->first + r->nblocks;
    if (lo >= hi)
        return FTI_E_OK;
    size_t rel = (size_t)(lo - r->first) * r->bytes, n = (size_t)(hi - lo) * r->bytes;
    if (in)
        return dev_put(m, r->handle, r->offset + rel, r->host + rel, n, "restoring block data");
    return dev_get(m, r->host + rel, r->handle, r->offset + rel, n, "copying block data");
}

/* Copies the data of blocks [m->copied, upto): final once the kernel
 * published progress past them, so no slot protocol is needed. */
static fti_err copy_blocks(FTI_FpgaMonitor *m, int64_t upto)
{
    fti_err e = FTI_E_OK;
    for (int i = 0; e == FTI_E_OK && i < m->nregions; i++)
        if (!m->regions[i].slot)
            e = move_blocks(m, &m->regions[i], m->copied, upto, 0);
    if (e == FTI_E_OK)
        e = dev_sync(m, "copying block data");
    if (e == FTI_E_OK)
        m->copied = upto;
    return e;
}

/* Queues: slot sequence, every slot region of slot s, sequence again. The
 * backend runs one stream's copies in order, so the data copy lies between
 * the two sequence reads. */
static fti_err queue_slot_copy(FTI_FpgaMonitor *m, uint64_t s)
{
    size_t seq = line_off(m, FTI_K_LINE_SEQ0 + s);
    fti_err e = dev_get(m, scratch(m, SCR_SEQ_BEFORE), m->cfg.ctrl, seq, sizeof(fti_k_word),
                        "reading a slot sequence");
    for (int i = 0; e == FTI_E_OK && i < m->nregions; i++) {
        region *r = &m->regions[i];
        if (r->slot)
            e = dev_get(m, r->stage, r->handle, r->offset + s * r->stride, r->bytes,
                        "copying slot state");
    }
    if (e == FTI_E_OK)
        e = dev_get(m, scratch(m, SCR_SEQ_AFTER), m->cfg.ctrl, seq, sizeof(fti_k_word),
                    "reading a slot sequence");
    return e;
}

/* Stages the replicated state of block b. *ok = 0 when the copy is torn
 * (the kernel began rewriting the slot) and was discarded. */
static fti_err stage_state(FTI_FpgaMonitor *m, int64_t b, int *ok)
{
    fti_err e = queue_slot_copy(m, (uint64_t)b % m->cfg.slots);
    if (e == FTI_E_OK)
        e = dev_sync(m, "copying slot state");
    if (e != FTI_E_OK)
        return e;
    fti_k_word want = 2 * (fti_k_word)b + 2;
    *ok = m->trust_slots ||
          (*scratch(m, SCR_SEQ_BEFORE) == want && *scratch(m, SCR_SEQ_AFTER) == want);
    if (!*ok) {
        m->st.torn++;
        fti_log(FTI_LOG_DEBUG, "FPGA monitor: slot copy of block %lld torn (sequence %llu..%llu, "
                "want %llu): discarded", (long long)b,
                (unsigned long long)*scratch(m, SCR_SEQ_BEFORE),
                (unsigned long long)*scratch(m, SCR_SEQ_AFTER), (unsigned long long)want);
        return FTI_E_OK;
    }
    for (int i = 0; i < m->nregions; i++)
        if (m->regions[i].slot)
            memcpy(m->regions[i].host, m->regions[i].stage, m->regions[i].bytes);
    return FTI_E_OK;
}

/* ---- start: control block and restored regions ------------------------------- */

static void build_ctrl(FTI_FpgaMonitor *m, int64_t k)
{
    fti_k_word *c = m->io;
    memset(c, 0, m->ctrl_words * sizeof *c);
    fti_k_word h[FTI_K_LINE_WORDS] = {FTI_K_MAGIC, FTI_K_VERSION, m->cfg.slots,
                                      (fti_k_word)m->cfg.nblocks, (fti_k_word)k,
                                      (fti_k_word)m->cfg.mode, m->cfg.ack_timeout_us,
                                      m->cfg.max_raises};
    memcpy(m->hdr, h, sizeof h);
    memcpy(c, h, sizeof h);
    c[FTI_K_AT(FTI_K_LINE_PROGRESS, 0)] = (fti_k_word)k;
    c[FTI_K_AT(FTI_K_LINE_FLAGA, 0)] = (fti_k_word)k; /* nothing pending */
    c[FTI_K_AT(FTI_K_LINE_FLAGB, 0)] = (fti_k_word)k;
    if (k > 0) /* the restored slot holds block k-1, complete */
        c[FTI_K_AT(FTI_K_LINE_SEQ0 + (uint64_t)(k - 1) % m->cfg.slots, 0)] = 2 * (fti_k_word)k;
}

/* Writes the host copies of blocks [0, k) and of block k-1's state back. */
static fti_err restore_regions(FTI_FpgaMonitor *m, int64_t k)
{
    fti_err e = FTI_E_OK;
    for (int i = 0; e == FTI_E_OK && i < m->nregions; i++) {
        region *r = &m->regions[i];
        if (!r->slot)
            e = move_blocks(m, r, 0, k, 1);
        else if (k > 0)
            e = dev_put(m, r->handle, r->offset + (uint64_t)(k - 1) % m->cfg.slots * r->stride,
                        r->host, r->bytes, "restoring slot state");
    }
    return e;
}

static void reset_state(FTI_FpgaMonitor *m, int64_t k)
{
    m->copied = m->valid = m->ckpt = m->acked = k;
    m->raises_seen = 0;
    memset(m->seen, 0, sizeof m->seen);
    m->seen[0] = m->seen[1] = (fti_k_word)k;
    m->last_change = now_s(m);
    m->moved = 0;
    memset(m->sent, 0, sizeof m->sent);
    m->last_round = 0; /* the first poll agrees */
    m->pending = m->moved_since_round = 0;
    m->st.resumed_at = k;
    m->started = 1;
}

int FTI_FpgaStart(FTI_FpgaMonitor *m)
{
    if (m == NULL) {
        fti_fail(FTI_E_ARG, "FTI_FpgaStart: monitor is NULL");
        return FTI_NSCS;
    }
    int64_t k = m->cfg.blocks_var ? *m->cfg.blocks_var : 0;
    if (k < 0 || k > m->cfg.nblocks) {
        fti_fail(FTI_E_ARG, "FTI_FpgaStart: *blocks_var is %lld, not within 0..%lld (a recovered "
                 "value from another run shape?)", (long long)k, (long long)m->cfg.nblocks);
        return FTI_NSCS;
    }
    build_ctrl(m, k);
    fti_err e = restore_regions(m, k);
    if (e == FTI_E_OK)
        e = dev_put(m, m->cfg.ctrl, m->cfg.ctrl_offset, m->io, m->ctrl_words * sizeof(fti_k_word),
                    "writing the control block");
    if (e == FTI_E_OK)
        e = dev_sync(m, "writing the control block and restored regions");
    if (e != FTI_E_OK)
        return FTI_NSCS;
    reset_state(m, k);
    if (k > 0)
        fti_log(FTI_LOG_DEBUG, "FPGA monitor: kernel resumes at block %lld of %lld", (long long)k,
                (long long)m->cfg.nblocks);
    return FTI_SCES;
}

/* ---- one poll of the control block ----------------------------------------------- */

static fti_err bad_header(FTI_FpgaMonitor *m)
{
    const char *who = "FPGA monitor: control block";
    fti_k_word magic = word(m, FTI_K_LINE_HDR, FTI_K_H_MAGIC);
    if (magic != FTI_K_MAGIC)
        return fti_fail(FTI_E_CORRUPT, "%s (%s buffer %p, offset %zu): magic is 0x%llx, expected "
                        "0x%llx (\"FTIFPGA\"): not an FTI control block, or overwritten on the "
                        "device", who, m->ops->name, m->cfg.ctrl, m->cfg.ctrl_offset,
                        (unsigned long long)magic, (unsigned long long)FTI_K_MAGIC);
    for (int w = 1; w < FTI_K_LINE_WORDS; w++)
        if (word(m, FTI_K_LINE_HDR, w) != m->hdr[w])
            return fti_fail(FTI_E_CORRUPT, "%s (%s buffer %p, offset %zu): header word %d is %llu, "
                            "FTI_FpgaStart wrote %llu: overwritten on the device", who,
                            m->ops->name, m->cfg.ctrl, m->cfg.ctrl_offset, w,
                            (unsigned long long)word(m, FTI_K_LINE_HDR, w),
                            (unsigned long long)m->hdr[w]);
    return FTI_E_OK;
}

static fti_err read_ctrl(FTI_FpgaMonitor *m)
{
    fti_err e = dev_get(m, m->io, m->cfg.ctrl, m->cfg.ctrl_offset, HOT_LINES * LINE_BYTES,
                        "reading the control block");
    if (e == FTI_E_OK)
        e = dev_sync(m, "reading the control block");
    m->st.polls++;
    if (e == FTI_E_OK && memcmp(m->io, m->hdr, sizeof m->hdr) != 0)
        e = bad_header(m);
    return e;
}

/* 1 when the kernel showed a sign of life since the last poll. */
static int observe(FTI_FpgaMonitor *m)
{
    fti_k_word now[4] = {word(m, FTI_K_LINE_PROGRESS, 0), word(m, FTI_K_LINE_FLAGA, 0),
                         word(m, FTI_K_LINE_FLAGA, 1), word(m, FTI_K_LINE_DONE, 0)};
    if (memcmp(now, m->seen, sizeof now) == 0)
        return 0;
    memcpy(m->seen, now, sizeof now);
    m->last_change = now_s(m);
    m->moved = 1;
    return 1;
}

static fti_err kernel_failed(FTI_FpgaMonitor *m)
{
    fti_k_word status = word(m, FTI_K_LINE_DONE, 1), at = word(m, FTI_K_LINE_DONE, 2);
    if (status == FTI_K_EACK)
        return fti_fail(FTI_E_DEVICE, "FPGA kernel stopped after block %llu: no checkpoint "
                        "acknowledgement (flagB) came after %u re-raises of flagA, %u us apart",
                        (unsigned long long)at, m->cfg.max_raises, m->cfg.ack_timeout_us);
    if (status == FTI_K_EBADCTRL)
        return fti_fail(FTI_E_CORRUPT, "FPGA kernel rejected its control block (bad magic or "
                        "version) and did not run");
    return fti_fail(FTI_E_DEVICE, "FPGA kernel finished with status %llu after %llu of %lld blocks",
                    (unsigned long long)status, (unsigned long long)at,
                    (long long)m->cfg.nblocks);
}

static fti_err silent(FTI_FpgaMonitor *m)
{
    const char *why = m->moved ? "it stopped answering"
                               : "it never started: not launched, or it rejected the control block "
                                 "(a kernel built with another fti_kernel.h version?)";
    return fti_fail(FTI_E_DEVICE, "FPGA kernel silent for %.1f s (timeout_s) at block %llu of %lld "
                    "(%s mode, flagA %llu, flagB %llu): %s", now_s(m) - m->last_change,
                    (unsigned long long)word(m, FTI_K_LINE_PROGRESS, 0), (long long)m->cfg.nblocks,
                    mode_name(m->cfg.mode), (unsigned long long)word(m, FTI_K_LINE_FLAGA, 0),
                    (unsigned long long)word(m, FTI_K_LINE_FLAGB, 0), why);
}

/* Checks the kernel's state after a poll: failures and silence. */
static fti_err check_kernel(FTI_FpgaMonitor *m)
{
    fti_k_word done = word(m, FTI_K_LINE_DONE, 0), progress = word(m, FTI_K_LINE_PROGRESS, 0);
    if (done && word(m, FTI_K_LINE_DONE, 1) != FTI_K_OK)
        return kernel_failed(m);
    if (done && word(m, FTI_K_LINE_DONE, 2) != (fti_k_word)m->cfg.nblocks)
        return kernel_failed(m);
    if ((int64_t)progress < m->copied)
        return fti_fail(FTI_E_DEVICE, "FPGA kernel progress went back from %lld to %llu blocks: "
                        "it did not resume at block %lld written in the control block",
                        (long long)m->copied, (unsigned long long)progress,
                        (long long)m->st.resumed_at);
    if (progress > (fti_k_word)m->cfg.nblocks)
        return fti_fail(FTI_E_CORRUPT, "FPGA control block: progress %llu exceeds the %lld blocks "
                        "of the run", (unsigned long long)progress, (long long)m->cfg.nblocks);
    /* A blocking kernel waiting at flagA waits for us, not the other way. */
    int waits_on_us = m->cfg.mode == FTI_FPGA_BLOCKING &&
                      (int64_t)word(m, FTI_K_LINE_FLAGA, 0) > m->acked;
    if (!done && !waits_on_us && now_s(m) - m->last_change > m->cfg.timeout_s)
        return silent(m);
    return FTI_E_OK;
}

/* ---- acknowledgements (blocking mode) ---------------------------------------- */

static fti_err send_ack(FTI_FpgaMonitor *m, int64_t value)
{
    m->acked = value;
    if (m->drop_count > 0 && value - 1 >= m->drop_from) {
        m->drop_count--;
        fti_log(FTI_LOG_WARN, "fault injection: acknowledgement of block %lld lost",
                (long long)(value - 1));
        return FTI_E_OK;
    }
    *scratch(m, SCR_ACK) = (fti_k_word)value;
    fti_err e = dev_put(m, m->cfg.ctrl, line_off(m, FTI_K_LINE_FLAGB), scratch(m, SCR_ACK),
                        sizeof(fti_k_word), "writing flagB");
    return e == FTI_E_OK ? dev_sync(m, "writing flagB") : e;
}

/* The kernel waits at flagA with its state staged. */
static int kernel_waiting(const FTI_FpgaMonitor *m)
{
    int64_t a = (int64_t)word(m, FTI_K_LINE_FLAGA, 0);
    return a > m->acked && m->valid >= a;
}

static int due(const FTI_FpgaMonitor *m)
{
    int done = word(m, FTI_K_LINE_DONE, 0) != 0;
    return m->valid > m->ckpt &&
           (m->valid - m->ckpt >= m->cfg.every || m->valid >= m->cfg.nblocks || done);
}

/* Re-sends flagB when the kernel re-raised an acknowledged flagA (the ack
 * was lost or late); acknowledges at once blocks that need no checkpoint. */
static fti_err handle_acks(FTI_FpgaMonitor *m)
{
    fti_k_word raises = word(m, FTI_K_LINE_FLAGA, 1);
    int64_t a = (int64_t)word(m, FTI_K_LINE_FLAGA, 0);
    int reraised = raises != m->raises_seen;
    m->st.raises += (int64_t)(raises - m->raises_seen);
    m->raises_seen = raises;
    if (reraised && a == m->acked && (int64_t)word(m, FTI_K_LINE_FLAGB, 0) < a) {
        m->st.resends++;
        fti_log(FTI_LOG_INFO, "FPGA monitor: kernel re-raised flagA for block %lld: re-sending "
                "flagB", (long long)(a - 1));
        return send_ack(m, a);
    }
    if (kernel_waiting(m) && !due(m))
        return send_ack(m, a);
    return FTI_E_OK;
}

/* ---- a round: local poll, votes ---------------------------------------------------- */

/* Copies what became final and stages the newest state. */
static fti_err follow_kernel(FTI_FpgaMonitor *m)
{
    int done = word(m, FTI_K_LINE_DONE, 0) != 0;
    int64_t progress = (int64_t)word(m, FTI_K_LINE_PROGRESS, 0);
    /* Blocking: take the state of the block the kernel waits at, never of
     * one it may still be writing. */
    int64_t target = m->cfg.mode == FTI_FPGA_BLOCKING && !done
                         ? (int64_t)word(m, FTI_K_LINE_FLAGA, 0) : progress;
    fti_err e = FTI_E_OK;
    if (progress > m->copied)
        e = copy_blocks(m, progress);
    if (e == FTI_E_OK && target > m->valid && target <= m->copied) {
        int ok = 0;
        e = stage_state(m, target - 1, &ok);
        if (e == FTI_E_OK && ok)
            m->valid = target;
    }
    if (e == FTI_E_OK && m->cfg.mode == FTI_FPGA_BLOCKING)
        e = handle_acks(m);
    return e;
}

static void vote(const FTI_FpgaMonitor *m, int64_t *v)
{
    int done = word(m, FTI_K_LINE_DONE, 0) != 0;
    int64_t progress = (int64_t)word(m, FTI_K_LINE_PROGRESS, 0);
    v[FTI_FPGA_VOTE_WANT] = due(m);
    /* Blocking: checkpoint only once every kernel waits with its state
     * staged, is done, or has not started yet: a kernel queued behind
     * another rank's on a shared compute unit starts only when that one
     * ends, so waiting for it would deadlock; its resume state is a
     * consistent part of the cut. */
    v[FTI_FPGA_VOTE_NOT_READY] = m->cfg.mode == FTI_FPGA_BLOCKING && !done && m->moved &&
                                 !(due(m) && kernel_waiting(m));
    v[FTI_FPGA_VOTE_BUSY] = !done || m->valid > m->ckpt || m->valid < progress;
}

/* Polls once; *changed = 1 when the kernel moved. Fills the votes. */
static fti_err local_step(FTI_FpgaMonitor *m, int64_t *votes, int *changed)
{
    fti_err e = read_ctrl(m);
    *changed = e == FTI_E_OK && observe(m);
    if (e == FTI_E_OK)
        e = check_kernel(m);
    if (e == FTI_E_OK && m->cfg.mode != FTI_FPGA_OFF)
        e = follow_kernel(m);
    if (e == FTI_E_OK)
        vote(m, votes);
    return e;
}

/* ---- agreement and checkpoint ---------------------------------------------------- */

/* MPI_Iallreduce polled with backoff: a rank waiting for the others sleeps
 * instead of spinning in MPI, leaving the core to kernels and other ranks. */
static int default_agree(void *arg, const int64_t *in, int64_t *out)
{
    FTI_FpgaMonitor *m = arg;
    MPI_Request rq;
    if (FTI_COMM_WORLD == MPI_COMM_NULL) {
        fti_fail(FTI_E_STATE, "FTI_FpgaWait: FTI is not initialised (FTI_COMM_WORLD is null)");
        return -1;
    }
    if (MPI_Iallreduce(in, out, FTI_FPGA_NVOTES, MPI_INT64_T, MPI_MAX, FTI_COMM_WORLD, &rq) != MPI_SUCCESS) {
        fti_fail(FTI_E_MPI, "FTI_FpgaWait: MPI_Iallreduce of the round's votes failed");
        return -1;
    }
    long pause = BACKOFF_MIN_NS;
    double start = now_s(m), warned = start;
    for (int flag = 0;;) {
        MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
        if (flag)
            return 0;
        if (now_s(m) - warned > m->cfg.timeout_s) {
            warned = now_s(m);
            fti_log(FTI_LOG_WARN, "FPGA monitor: waiting %.0f s for the other ranks' monitors "
                    "(every rank must call FTI_FpgaWait)", warned - start);
        }
        nap(m, &pause);
    }
}

static int default_checkpoint(void *arg, int id, int level)
{
    (void)arg;
    return FTI_Checkpoint(id, level);
}

static int my_rank(void)
{
    int rank = 0, up = 0;
    MPI_Initialized(&up);
    if (up && FTI_COMM_WORLD != MPI_COMM_NULL)
        MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    return rank;
}

static fti_err take_checkpoint(FTI_FpgaMonitor *m)
{
    *m->cfg.blocks_var = m->valid;
    double t0 = now_s(m);
    int rc = m->hooks.checkpoint(m->hooks.arg, m->next_id++, m->cfg.level);
    m->st.ckpt_seconds += now_s(m) - t0;
    if (rc != FTI_DONE)
        return fti_fail(FTI_E_IO, "FPGA monitor: checkpoint of block %lld failed: %s",
                        (long long)(m->valid - 1), fti_last_error());
    m->ckpt = m->valid;
    m->st.checkpoints++;
    m->last_change = now_s(m); /* the kernel may have waited on us meanwhile */
    if (m->cfg.on_checkpoint != NULL)
        m->cfg.on_checkpoint(m->cfg.arg, m->valid);
    if (m->cfg.mode == FTI_FPGA_BLOCKING && kernel_waiting(m))
        return send_ack(m, (int64_t)word(m, FTI_K_LINE_FLAGA, 0));
    return FTI_E_OK;
}

static fti_err remote_failure(int64_t rank_plus_one)
{
    return fti_fail(FTI_E_DEVICE, "FTI_FpgaWait: stopped because the FPGA monitor of rank %lld "
                    "failed (see its message)", (long long)(rank_plus_one - 1));
}

/* A collective per poll would tie every rank's polling to the slowest
 * one's: agree when this rank has news (changed votes, an error, state to
 * checkpoint: in blocking mode its kernel waits for that), while a cut is
 * being assembled, or when the interval passed (so that every rank joins
 * every round within it). */
static int should_agree(const FTI_FpgaMonitor *m, const int64_t *mine)
{
    return mine[FTI_FPGA_VOTE_ERROR] != 0 || mine[FTI_FPGA_VOTE_WANT] != 0 || m->pending ||
           memcmp(mine, m->sent, FTI_FPGA_VOTE_MOVED * sizeof *mine) != 0 ||
           now_s(m) - m->last_round >= m->cfg.agree_interval_s;
}

/* Bookkeeping after a round; a kernel that has not started is not silent
 * while another rank's progresses (it may be queued behind it). */
static void round_done(FTI_FpgaMonitor *m, const int64_t *mine, const int64_t *all)
{
    memcpy(m->sent, mine, sizeof m->sent);
    m->last_round = now_s(m);
    m->moved_since_round = 0;
    m->pending = all[FTI_FPGA_VOTE_WANT] && all[FTI_FPGA_VOTE_NOT_READY];
    m->st.rounds++;
    if (all[FTI_FPGA_VOTE_MOVED] && !m->moved)
        m->last_change = m->last_round;
}

/* One poll, and a round when one is due. *finished = 1 when every rank is done. */
static fti_err round_trip(FTI_FpgaMonitor *m, int *finished, int *active)
{
    int64_t mine[FTI_FPGA_NVOTES] = {0}, all[FTI_FPGA_NVOTES] = {0};
    fti_err e = local_step(m, mine, active);
    m->moved_since_round |= *active;
    if (e != FTI_E_OK)
        mine[FTI_FPGA_VOTE_ERROR] = my_rank() + 1;
    if (!should_agree(m, mine))
        return FTI_E_OK;
    mine[FTI_FPGA_VOTE_MOVED] = m->moved_since_round;
    if (m->hooks.agree(m->hooks.arg, mine, all) != 0)
        return e != FTI_E_OK ? e : fti_last_error_code();
    round_done(m, mine, all);
    if (all[FTI_FPGA_VOTE_ERROR])
        return e != FTI_E_OK ? e : remote_failure(all[FTI_FPGA_VOTE_ERROR]);
    if (all[FTI_FPGA_VOTE_WANT] && !all[FTI_FPGA_VOTE_NOT_READY]) {
        *active = 1;
        if ((e = take_checkpoint(m)) != FTI_E_OK)
            return e;
    }
    /* From the combined votes only, so that every rank decides alike. */
    *finished = !all[FTI_FPGA_VOTE_BUSY];
    return FTI_E_OK;
}

/* Mode off: no checkpoints, so no agreement either: wait for done. */
static fti_err wait_off(FTI_FpgaMonitor *m)
{
    long pause = BACKOFF_MIN_NS;
    for (;;) {
        int64_t votes[FTI_FPGA_NVOTES];
        int changed = 0;
        fti_err e = local_step(m, votes, &changed);
        if (e != FTI_E_OK || word(m, FTI_K_LINE_DONE, 0))
            return e;
        if (changed)
            pause = BACKOFF_MIN_NS;
        else
            nap(m, &pause);
    }
}

int FTI_FpgaWait(FTI_FpgaMonitor *m)
{
    if (m == NULL || !m->started) {
        fti_fail(FTI_E_STATE, "FTI_FpgaWait: %s", m ? "call FTI_FpgaStart first" : "monitor is NULL");
        return FTI_NSCS;
    }
    if (m->cfg.mode == FTI_FPGA_OFF)
        return wait_off(m) == FTI_E_OK ? FTI_SCES : FTI_NSCS;
    long pause = BACKOFF_MIN_NS;
    for (;;) {
        int finished = 0, active = 0;
        fti_err e = round_trip(m, &finished, &active);
        if (e != FTI_E_OK)
            return FTI_NSCS;
        if (finished)
            return FTI_SCES;
        if (active)
            pause = BACKOFF_MIN_NS;
        else
            nap(m, &pause);
    }
}
