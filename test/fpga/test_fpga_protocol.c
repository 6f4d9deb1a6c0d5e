/*
 * test_fpga_protocol.c - the in-kernel partial checkpoint protocol between
 * the host monitor (src/device/fpga_monitor.c) and a kernel using fti_kernel.h,
 * on the emulated device ("emu" backend), the kernel being a thread. The
 * monitor's agreement and checkpoint are replaced by hooks (one rank, no
 * files) that check every checkpointed state byte for byte: the block data
 * of every block before *blocks_var, and the slot state of the block just
 * before it. Covers both modes, torn slots (host slower than the kernel),
 * lost and never-coming acknowledgements, a silent kernel, a corrupt
 * control block, resume from a block, configuration errors, rounds of
 * agreement far fewer than polls, and several ranks (threads with a
 * MAX-combining barrier as their agreement) sharing one compute unit in
 * both modes without deadlock.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "fti_device.h"
#include "fti_kernel.h"

#include "emu/emu.h"
#include "device/fpga_monitor.h"
#include "base/log.h"

#define MAXB 256

#include "test_kernel.h"

/* ---- fixture: device buffers, monitor, checking hooks ---------------------- */

typedef struct fixture {
    tkernel k;
    FTI_FpgaConfig cfg;
    FTI_FpgaMonitor *m;
    int64_t blocks;
    uint64_t host_data[MAXB * 64];
    uint64_t host_slot[8192];
    int64_t ckpts[4 * MAXB]; /* *blocks_var of each checkpoint */
    int nckpt;
    int bad;                 /* checkpoints whose state was not consistent */
    int corrupt_at;          /* corrupt the magic at this checkpoint (0: never) */
} fixture;

static int agree_one(void *arg, const int64_t *in, int64_t *out)
{
    (void)arg;
    memcpy(out, in, FTI_FPGA_NVOTES * sizeof *in);
    return 0;
}

static int state_ok(const fixture *f, int64_t k)
{
    for (int64_t b = 0; b < k; b++)
        for (size_t i = 0; i < f->k.bw; i++)
            if (f->host_data[(size_t)b * f->k.bw + i] != value((uint64_t)b, i))
                return 0;
    for (size_t i = 0; k > 0 && i < f->k.sw; i++)
        if (f->host_slot[i] != value((uint64_t)k - 1, i))
            return 0;
    return 1;
}

static void corrupt_magic(fixture *f)
{
    fti_k_word junk = 0xdeadbeef;
    assert_int_equal(fti_emu_write(f->k.ctrl, &junk, sizeof junk), 0);
}

static int check_ckpt(void *arg, int id, int level)
{
    fixture *f = arg;
    (void)id, (void)level;
    f->bad += !state_ok(f, f->blocks);
    if (f->nckpt < 4 * MAXB)
        f->ckpts[f->nckpt++] = f->blocks;
    if (f->corrupt_at && f->nckpt == f->corrupt_at)
        corrupt_magic(f);
    return FTI_DONE;
}

static fixture *make(FTI_FpgaMode mode, int nblocks, size_t bw, size_t sw, uint32_t slots)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->k.nblocks = nblocks, f->k.bw = bw, f->k.sw = sw, f->k.hang_after = -1;
    f->k.ctrl = fti_emu_malloc(FTI_FpgaCtrlBytes(slots));
    f->k.data = fti_emu_malloc((size_t)nblocks * bw * 8);
    f->k.slots = fti_emu_malloc(slots * sw * 8);
    assert_true(f->k.ctrl && f->k.data && f->k.slots);
    f->cfg = FTI_FpgaConfigDefaults();
    f->cfg.mode = mode, f->cfg.backend = "emu", f->cfg.ctrl = f->k.ctrl;
    f->cfg.slots = slots, f->cfg.nblocks = nblocks, f->cfg.blocks_var = &f->blocks;
    f->cfg.timeout_s = 10, f->cfg.ack_timeout_us = 200000, f->cfg.max_raises = 50;
    return f;
}

/* Creates the monitor with the checking hooks and its two regions. */
static void open_monitor(fixture *f)
{
    assert_int_equal(FTI_FpgaCreate(&f->m, &f->cfg), FTI_SCES);
    fti_fpga_hooks h = {agree_one, check_ckpt, f};
    fti_fpga_set_hooks(f->m, &h);
    assert_int_equal(FTI_FpgaAddBlockRegion(f->m, f->k.data, 0, f->k.bw * 8, 0, f->k.nblocks,
                                            f->host_data), FTI_SCES);
    assert_int_equal(FTI_FpgaAddSlotRegion(f->m, f->k.slots, 0, f->k.sw * 8, f->k.sw * 8,
                                           f->host_slot), FTI_SCES);
}

static void launch(fixture *f)
{
    assert_int_equal(pthread_create(&f->k.thread, NULL, kernel_main, &f->k), 0);
}

static fti_k_word ctrl_word(fixture *f, int line, int w)
{
    fti_k_word v = 0;
    assert_int_equal(fti_emu_read(&v, f->k.ctrl + FTI_K_AT(line, w), sizeof v), 0);
    return v;
}

static void join(fixture *f)
{
    __atomic_store_n(&f->k.release, 1, __ATOMIC_RELEASE);
    if (!f->k.joined)
        pthread_join(f->k.thread, NULL);
    f->k.joined = 1;
}

static void destroy(fixture *f)
{
    join(f);
    FTI_FpgaFree(f->m);
    fti_emu_free(f->k.ctrl);
    fti_emu_free(f->k.data);
    fti_emu_free(f->k.slots);
    free(f);
}

static FTI_FpgaStats stats(fixture *f)
{
    FTI_FpgaStats st;
    assert_int_equal(FTI_FpgaGetStats(f->m, &st), FTI_SCES);
    return st;
}

/* Runs a whole kernel under the monitor; returns FTI_FpgaWait's code. */
static int run(fixture *f)
{
    if (f->m == NULL)
        open_monitor(f);
    assert_int_equal(FTI_FpgaStart(f->m), FTI_SCES);
    launch(f);
    return FTI_FpgaWait(f->m);
}

/* ---- tests -------------------------------------------------------------------- */

static void blocking_checkpoints_every_block(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_BLOCKING, 6, 16, 16, 2);
    assert_int_equal(run(f), FTI_SCES);
    assert_int_equal(f->nckpt, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(f->ckpts[i], i + 1); /* block 0 first, the last block last */
    assert_int_equal(f->bad, 0);
    assert_int_equal(stats(f).torn, 0);
    assert_int_equal(f->k.first, 0);
    destroy(f);
}

static void nonblocking_states_are_consistent(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_NONBLOCKING, 30, 16, 16, 3);
    f->k.block_pause_us = 300;
    assert_int_equal(run(f), FTI_SCES);
    assert_true(f->nckpt >= 2);
    assert_int_equal(f->ckpts[f->nckpt - 1], 30);
    for (int i = 1; i < f->nckpt; i++)
        assert_true(f->ckpts[i] >= f->ckpts[i - 1]);
    assert_int_equal(f->bad, 0);
    destroy(f);
}

/* The host is slower than the kernel (every device copy takes 400 us, the
 * kernel spends most of its time inside slot writes): copies are torn,
 * detected and discarded; what is checkpointed is always consistent. */
static fixture *slow_host(int trust)
{
    fixture *f = make(FTI_FPGA_NONBLOCKING, 120, 8, 512, 2);
    f->k.slot_pause_us = 200;
    fti_emu_set_speed(0, 400e-6);
    open_monitor(f);
    fti_fpga_trust_slots(f->m, trust);
    assert_int_equal(run(f), FTI_SCES);
    fti_emu_set_speed(0, 0);
    return f;
}

static void torn_slots_are_detected(void **state)
{
    (void)state;
    fixture *f = slow_host(0);
    assert_true(stats(f).torn > 0);
    assert_int_equal(f->bad, 0);
    assert_int_equal(f->ckpts[f->nckpt - 1], 120);
    destroy(f);
}

/* Control: without the sequence check the same run checkpoints torn state,
 * so the check above is what keeps it out (and this test can see it). */
static void torn_slots_without_check_are_caught_by_the_test(void **state)
{
    (void)state;
    fixture *f = slow_host(1);
    assert_true(f->bad > 0);
    destroy(f);
}

static void lost_ack_is_resent(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_BLOCKING, 5, 8, 8, 2);
    f->cfg.ack_timeout_us = 20000;
    open_monitor(f);
    fti_fpga_drop_acks(f->m, 2, 1);
    assert_int_equal(run(f), FTI_SCES);
    FTI_FpgaStats st = stats(f);
    assert_int_equal(st.resends, 1);
    assert_true(st.raises >= 1);
    assert_int_equal(f->nckpt, 5);
    assert_int_equal(f->bad, 0);
    assert_int_equal(ctrl_word(f, FTI_K_LINE_DONE, 1), FTI_K_OK);
    destroy(f);
}

static void ack_never_coming_stops_the_kernel(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_BLOCKING, 5, 8, 8, 2);
    f->cfg.ack_timeout_us = 5000;
    f->cfg.max_raises = 3;
    open_monitor(f);
    fti_fpga_drop_acks(f->m, 1, 1000);
    assert_int_equal(run(f), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "no checkpoint acknowledgement (flagB)"));
    assert_int_equal(ctrl_word(f, FTI_K_LINE_DONE, 1), FTI_K_EACK);
    assert_int_equal(ctrl_word(f, FTI_K_LINE_DONE, 2), 2); /* blocks 0 and 1 were done */
    destroy(f);
}

static void silent_kernel_times_out(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_NONBLOCKING, 8, 8, 8, 2);
    f->cfg.timeout_s = 0.2;
    f->k.hang_after = 2;
    assert_int_equal(run(f), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "silent for"));
    assert_non_null(strstr(fti_last_error(), "at block 2 of 8"));
    assert_non_null(strstr(fti_last_error(), "it stopped answering"));
    destroy(f);
}

static void kernel_never_started_times_out(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_BLOCKING, 4, 8, 8, 2);
    f->cfg.timeout_s = 0.1;
    open_monitor(f);
    assert_int_equal(FTI_FpgaStart(f->m), FTI_SCES);
    assert_int_equal(FTI_FpgaWait(f->m), FTI_NSCS); /* no kernel launched */
    assert_non_null(strstr(fti_last_error(), "it never started"));
    f->k.joined = 1;
    destroy(f);
}

static void corrupt_magic_is_a_clear_error(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_BLOCKING, 4, 8, 8, 2);
    open_monitor(f);
    assert_int_equal(FTI_FpgaStart(f->m), FTI_SCES);
    corrupt_magic(f);
    launch(f);
    assert_int_equal(FTI_FpgaWait(f->m), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "magic is 0xdeadbeef"));
    assert_non_null(strstr(fti_last_error(), "not an FTI control block"));
    join(f);
    assert_int_equal(f->k.began, FTI_K_EBADCTRL);
    assert_int_equal(ctrl_word(f, FTI_K_LINE_DONE, 0), 0); /* the kernel wrote nothing */
    assert_int_equal(ctrl_word(f, FTI_K_LINE_PROGRESS, 0), 0);
    destroy(f);
}

static void corrupt_magic_during_a_run(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_BLOCKING, 6, 8, 8, 2);
    f->cfg.ack_timeout_us = 2000;
    f->cfg.max_raises = 2;
    f->corrupt_at = 2;
    assert_int_equal(run(f), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "magic is 0xdeadbeef"));
    assert_int_equal(f->nckpt, 2);
    destroy(f); /* the kernel gives up waiting (FTI_K_EACK) and ends */
}

static void resume_restores_the_device(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_NONBLOCKING, 6, 8, 8, 2);
    for (int b = 0; b < 3; b++)
        for (size_t i = 0; i < 8; i++)
            f->host_data[b * 8 + i] = value((uint64_t)b, i);
    for (size_t i = 0; i < 8; i++)
        f->host_slot[i] = value(2, i);
    f->blocks = 3;
    open_monitor(f);
    assert_int_equal(FTI_FpgaStart(f->m), FTI_SCES);
    uint64_t dev[3 * 8], slot[8];
    assert_int_equal(fti_emu_read(dev, f->k.data, sizeof dev), 0);
    assert_memory_equal(dev, f->host_data, sizeof dev);
    assert_int_equal(fti_emu_read(slot, f->k.slots + (2 % 2) * 8, sizeof slot), 0);
    assert_memory_equal(slot, f->host_slot, sizeof slot);
    assert_int_equal(ctrl_word(f, FTI_K_LINE_HDR, FTI_K_H_RESUME), 3);
    assert_int_equal(ctrl_word(f, FTI_K_LINE_SEQ0 + 0, 0), 6); /* block 2 in slot 0, complete */
    launch(f);
    assert_int_equal(FTI_FpgaWait(f->m), FTI_SCES);
    assert_int_equal(f->k.first, 3);
    assert_int_equal(stats(f).resumed_at, 3);
    assert_int_equal(f->ckpts[f->nckpt - 1], 6);
    assert_int_equal(f->bad, 0);
    destroy(f);
}

static void resume_at_the_end_runs_nothing(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_BLOCKING, 4, 8, 8, 2);
    for (int b = 0; b < 4; b++)
        for (size_t i = 0; i < 8; i++)
            f->host_data[b * 8 + i] = value((uint64_t)b, i);
    for (size_t i = 0; i < 8; i++)
        f->host_slot[i] = value(3, i);
    f->blocks = 4;
    assert_int_equal(run(f), FTI_SCES);
    assert_int_equal(f->k.first, 4);
    assert_int_equal(f->nckpt, 0); /* nothing new to checkpoint */
    destroy(f);
}

static void mode_off_only_waits(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_OFF, 4, 8, 8, 1);
    assert_int_equal(run(f), FTI_SCES);
    assert_int_equal(f->nckpt, 0);
    assert_int_equal(ctrl_word(f, FTI_K_LINE_DONE, 0), 1);
    destroy(f);
}

static void bad_configs_are_explained(void **state)
{
    (void)state;
    FTI_FpgaMonitor *m = NULL;
    int64_t blocks = 0;
    FTI_FpgaConfig c = FTI_FpgaConfigDefaults();
    c.backend = "emu", c.ctrl = &blocks, c.nblocks = 4, c.blocks_var = &blocks;
    c.mode = FTI_FPGA_NONBLOCKING, c.slots = 1;
    assert_int_equal(FTI_FpgaCreate(&m, &c), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), ">= 2 in non-blocking mode"));
    c.slots = 2, c.ctrl_offset = 8;
    assert_int_equal(FTI_FpgaCreate(&m, &c), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "not a multiple of 64"));
    c.ctrl_offset = 0, c.backend = "nope";
    assert_int_equal(FTI_FpgaCreate(&m, &c), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "device backend 'nope' is not available"));
    assert_null(m);
}

/* Rounds with the other ranks happen on news or every agree_interval_s,
 * not at every poll: blocks of 150 ms leave the monitor polling (1 ms
 * backoff) with nothing to agree on most of the time. */
static void no_collective_per_poll(void **state)
{
    (void)state;
    fixture *f = make(FTI_FPGA_NONBLOCKING, 4, 16, 16, 2);
    f->k.block_pause_us = 150000;
    f->cfg.agree_interval_s = 0.05;
    assert_int_equal(run(f), FTI_SCES);
    FTI_FpgaStats st = stats(f);
    assert_int_equal(f->bad, 0);
    assert_int_equal(f->ckpts[f->nckpt - 1], 4);
    /* ~600 ms: ~12 interval rounds plus a few per block, against a few
     * hundred polls (fewer on a loaded machine, whose naps last longer) */
    if (st.rounds * 3 >= st.polls)
        fprintf(stderr, "%lld rounds for %lld polls\n", (long long)st.rounds,
                (long long)st.polls);
    assert_true(st.polls >= 50);
    assert_true(st.rounds * 3 < st.polls);
    destroy(f);
}

/* ---- several ranks sharing one compute unit ----------------------------------- */

#define RANKS 3

/* The ranks' agreement: element-wise MAX of every rank's votes, a
 * reusable barrier between the monitor threads (MPI_Allreduce in a job). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int64_t acc[FTI_FPGA_NVOTES], result[FTI_FPGA_NVOTES];
    int arrived;
    unsigned long generation;
} ranks_agree = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static int agree_ranks(void *arg, const int64_t *in, int64_t *out)
{
    (void)arg;
    pthread_mutex_lock(&ranks_agree.lock);
    unsigned long gen = ranks_agree.generation;
    for (int i = 0; i < FTI_FPGA_NVOTES; i++)
        if (ranks_agree.arrived == 0 || in[i] > ranks_agree.acc[i])
            ranks_agree.acc[i] = in[i];
    if (++ranks_agree.arrived == RANKS) {
        memcpy(ranks_agree.result, ranks_agree.acc, sizeof ranks_agree.acc);
        ranks_agree.arrived = 0;
        ranks_agree.generation++;
        pthread_cond_broadcast(&ranks_agree.cond);
    }
    while (gen == ranks_agree.generation)
        pthread_cond_wait(&ranks_agree.cond, &ranks_agree.lock);
    memcpy(out, ranks_agree.result, sizeof ranks_agree.result);
    pthread_mutex_unlock(&ranks_agree.lock);
    return 0;
}

typedef struct rank_run {
    fixture *f;
    int rc;
    char err[512]; /* the rank's own message (errors are per thread) */
    pthread_t thread;
} rank_run;

/* One "rank": its monitor in its own thread, as in its own process. */
static void *rank_main(void *arg)
{
    rank_run *r = arg;
    fixture *f = r->f;
    r->rc = FTI_FpgaStart(f->m);
    if (r->rc == FTI_SCES) {
        launch(f);
        r->rc = FTI_FpgaWait(f->m);
    }
    snprintf(r->err, sizeof r->err, "%s", r->rc == FTI_SCES ? "" : fti_last_error());
    return NULL;
}

/* RANKS ranks, one compute unit: the kernels run one after the other, so
 * while one waits for its checkpoint the others have not started. Neither
 * mode may deadlock (a kernel that gets no ack stops with FTI_K_EACK after
 * 5 x 100 ms, a monitor gives up after 2 s of silence), and every rank's
 * checkpoints hold consistent state. */
static void shared_compute_unit(FTI_FpgaMode mode)
{
    pthread_mutex_t cu = PTHREAD_MUTEX_INITIALIZER;
    rank_run r[RANKS];
    for (int i = 0; i < RANKS; i++) {
        fixture *f = make(mode, 5, 16, 16, 2);
        f->k.cu = &cu;
        f->k.block_pause_us = 20000;
        f->cfg.ack_timeout_us = 100000, f->cfg.max_raises = 5, f->cfg.timeout_s = 2;
        assert_int_equal(FTI_FpgaCreate(&f->m, &f->cfg), FTI_SCES);
        fti_fpga_hooks h = {agree_ranks, check_ckpt, f};
        fti_fpga_set_hooks(f->m, &h);
        assert_int_equal(FTI_FpgaAddBlockRegion(f->m, f->k.data, 0, f->k.bw * 8, 0,
                                                f->k.nblocks, f->host_data), FTI_SCES);
        assert_int_equal(FTI_FpgaAddSlotRegion(f->m, f->k.slots, 0, f->k.sw * 8, f->k.sw * 8,
                                               f->host_slot), FTI_SCES);
        r[i] = (rank_run){.f = f, .rc = -1};
    }
    for (int i = 0; i < RANKS; i++)
        assert_int_equal(pthread_create(&r[i].thread, NULL, rank_main, &r[i]), 0);
    for (int i = 0; i < RANKS; i++)
        pthread_join(r[i].thread, NULL);
    for (int i = 0; i < RANKS; i++) {
        fixture *f = r[i].f;
        if (r[i].rc != FTI_SCES)
            fprintf(stderr, "rank %d: %s\n", i, r[i].err);
        assert_int_equal(r[i].rc, FTI_SCES);
        assert_int_equal(f->bad, 0);
        assert_true(f->nckpt >= 1);
        assert_int_equal(f->ckpts[f->nckpt - 1], 5);
        if (mode == FTI_FPGA_BLOCKING)
            assert_true(f->nckpt >= 5); /* every block of every rank was checkpointed */
        destroy(f);
    }
}

static void shared_compute_unit_blocking(void **state)
{
    (void)state;
    shared_compute_unit(FTI_FPGA_BLOCKING);
}

static void shared_compute_unit_nonblocking(void **state)
{
    (void)state;
    shared_compute_unit(FTI_FPGA_NONBLOCKING);
}

int main(void)
{
    fti_log_quiet(1); /* errors are asserted, not printed */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocking_checkpoints_every_block),
        cmocka_unit_test(nonblocking_states_are_consistent),
        cmocka_unit_test(torn_slots_are_detected),
        cmocka_unit_test(torn_slots_without_check_are_caught_by_the_test),
        cmocka_unit_test(lost_ack_is_resent),
        cmocka_unit_test(ack_never_coming_stops_the_kernel),
        cmocka_unit_test(silent_kernel_times_out),
        cmocka_unit_test(kernel_never_started_times_out),
        cmocka_unit_test(corrupt_magic_is_a_clear_error),
        cmocka_unit_test(corrupt_magic_during_a_run),
        cmocka_unit_test(resume_restores_the_device),
        cmocka_unit_test(resume_at_the_end_runs_nothing),
        cmocka_unit_test(mode_off_only_waits),
        cmocka_unit_test(bad_configs_are_explained),
        cmocka_unit_test(no_collective_per_poll),
        cmocka_unit_test(shared_compute_unit_blocking),
        cmocka_unit_test(shared_compute_unit_nonblocking),
    };
    return cmocka_run_group_tests_name("fpga_protocol (emulated device)", tests, NULL, NULL);
}
