/*
 * test_schedule.c - when FTI_Snapshot checkpoints. Iteration intervals fire
 * at exact iterations (the highest due level wins); time intervals come
 * from minutes or seconds, fire about when their time is up (iterations of
 * a few ms simulated with sleeps) and are re-planned after a checkpoint.
 * MPI runs on MPI_COMM_SELF only.
 */
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "format/config.h"
#include "core/schedule.h"

#define ITER_SEC 0.004  /* simulated iteration length */
#define PERIOD 0.2      /* shortened time interval, seconds */
#define LATE 0.15       /* how late a checkpoint may come (a loaded machine) */
#define MAX_LATE 20     /* ... in iterations (the plan uses the iteration length of
                           the last sync, which contention on 2 cores can skew) */

static void sleep_sec(double s)
{
    struct timespec ts = {0, (long)(s * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static fti_config base_config(void)
{
    fti_config c;
    fti_config_defaults(&c);
    return c;
}

/* ---- iteration intervals ------------------------------------------------------ */

static void test_iteration_levels(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.ckpt_iter[1] = 2;
    c.ckpt_iter[2] = 3;
    c.ckpt_iter[4] = 6;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    assert_int_equal(s.has_time, 0);
    /* iteration:        1  2  3  4  5  6  7  8  9 10 11 12 */
    static const int due[] = {0, 1, 2, 1, 0, 4, 0, 1, 2, 1, 0, 4};
    for (int i = 0; i < 12; i++) {
        int level = fti_schedule_tick(&s, MPI_COMM_SELF);
        if (level != due[i])
            fail_msg("iteration %d: level %d, expected %d", i + 1, level, due[i]);
        if (level)
            fti_schedule_taken(&s, level);
    }
    assert_int_equal(s.iter, 12);
}

/* Taking (or not taking) checkpoints does not move iteration-based levels. */
/* dcp_l4_iter yields level 8 (FTI_L4_DCP); as in FTI a full L4 due at the
 * same iteration wins over it, and it wins over L1-L3. */
static void test_dcp_interval(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.ckpt_iter[1] = 2;
    c.dcp_l4_iter = 3;
    c.ckpt_iter[4] = 12;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    /* iteration:        1  2  3  4  5  6  7  8  9 10 11 12 */
    static const int due[] = {0, 1, 8, 1, 0, 8, 0, 1, 8, 1, 0, 4};
    for (int i = 0; i < 12; i++) {
        int level = fti_schedule_tick(&s, MPI_COMM_SELF);
        if (level != due[i])
            fail_msg("iteration %d: level %d, expected %d", i + 1, level, due[i]);
        if (level)
            fti_schedule_taken(&s, level > 4 ? 4 : level);
    }
}

/* A dCP time interval fires as level 8 and is re-planned after an L4. */
static void test_dcp_seconds(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.dcp_l4_sec = 1;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    s.period[FTI_SCHED_DCP] = s.due[FTI_SCHED_DCP] = PERIOD; /* shortened */
    assert_int_equal(s.has_time, 1);
    int fired = 0;
    for (int i = 0; i < (int)(3 * PERIOD / ITER_SEC) && !fired; i++) {
        sleep_sec(ITER_SEC);
        int level = fti_schedule_tick(&s, MPI_COMM_SELF);
        if (level != 0 && level != 8)
            fail_msg("iteration %d: level %d, expected 8 or none", i + 1, level);
        fired = level == 8;
        if (fired)
            fti_schedule_taken(&s, 4);
    }
    assert_true(fired);
    assert_int_equal(s.planned[FTI_SCHED_DCP], 0);
}

static void test_iteration_levels_ignore_taken(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.ckpt_iter[3] = 5;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    for (int i = 1; i <= 20; i++) {
        int level = fti_schedule_tick(&s, MPI_COMM_SELF);
        assert_int_equal(level, i % 5 == 0 ? 3 : 0);
        if (i == 2)
            fti_schedule_taken(&s, 4); /* a manual FTI_Checkpoint in between */
    }
}

static void test_nothing_configured(void **state)
{
    (void)state;
    fti_config c = base_config();
    fti_schedule s;
    fti_schedule_init(&s, &c);
    for (int i = 0; i < 100; i++)
        assert_int_equal(fti_schedule_tick(&s, MPI_COMM_SELF), 0);
}

/* ---- time intervals ------------------------------------------------------------- */

static void test_time_periods(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.ckpt_min[1] = 1;   /* 60 s */
    c.ckpt_sec[1] = 30;  /* shorter: wins */
    c.ckpt_min[2] = 1;
    c.ckpt_sec[2] = 90;  /* longer: the minutes win */
    c.ckpt_sec[3] = 5;
    c.ckpt_min[4] = 2;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    assert_int_equal(s.has_time, 1);
    assert_true(s.period[1] == 30.0);
    assert_true(s.period[2] == 60.0);
    assert_true(s.period[3] == 5.0);
    assert_true(s.period[4] == 120.0);
}

/* Ticks with ITER_SEC sleeps until a level is due; returns the level and
 * sets *at to the elapsed time since `t0`. Gives up after `limit` seconds.
 * Fails unless the level came within MAX_LATE iterations of the first one
 * that began at least PERIOD after t0. */
static int run_until_due(fti_schedule *s, double t0, double limit, double *at)
{
    uint64_t crossed = 0;
    for (;;) {
        double before = MPI_Wtime() - t0;
        sleep_sec(ITER_SEC);
        int level = fti_schedule_tick(s, MPI_COMM_SELF);
        *at = MPI_Wtime() - t0;
        if (crossed == 0 && before >= PERIOD)
            crossed = s->iter;
        if (crossed != 0 && s->iter > crossed + MAX_LATE)
            fail_msg("not due %d iterations after the time was up (%.3f s)", MAX_LATE, *at);
        if (level != 0 || *at > limit)
            return level;
    }
}

static fti_schedule time_schedule(void)
{
    fti_config c = base_config();
    c.ckpt_sec[2] = 1;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    /* The config's unit is a whole second; shorten it to keep the test fast. */
    s.period[2] = PERIOD;
    s.due[2] = PERIOD;
    return s;
}

static void test_seconds_interval_fires_and_replans(void **state)
{
    (void)state;
    double t0 = MPI_Wtime(), at;
    fti_schedule s = time_schedule();
    assert_int_equal(run_until_due(&s, t0, 1.0, &at), 2);
    if (at < 0.9 * PERIOD || at > PERIOD + LATE)
        fail_msg("first checkpoint after %.3f s, expected about %.3f s", at, PERIOD);
    fti_schedule_taken(&s, 2);
    double t1 = MPI_Wtime();
    assert_int_equal(run_until_due(&s, t1, 1.0, &at), 2);
    if (at < 0.9 * PERIOD || at > PERIOD + LATE)
        fail_msg("second checkpoint %.3f s after the first, expected about %.3f s", at, PERIOD);
}

/* A due level stays due until a checkpoint is recorded, and taking a higher
 * level resets the lower time-based ones too. */
static void test_due_until_taken(void **state)
{
    (void)state;
    double t0 = MPI_Wtime(), at;
    fti_config c = base_config();
    c.ckpt_sec[1] = 1;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    s.period[1] = PERIOD;
    s.due[1] = PERIOD;
    assert_int_equal(run_until_due(&s, t0, 1.0, &at), 1);
    for (int i = 0; i < 3; i++) {
        sleep_sec(ITER_SEC);
        assert_int_equal(fti_schedule_tick(&s, MPI_COMM_SELF), 1);
    }
    fti_schedule_taken(&s, 4);
    double taken = MPI_Wtime();
    for (int i = 0; i < 5; i++) {
        sleep_sec(ITER_SEC);
        int due = fti_schedule_tick(&s, MPI_COMM_SELF);
        /* a loaded machine may stretch the sleeps past the next period */
        if (MPI_Wtime() - taken < PERIOD)
            assert_int_equal(due, 0);
    }
}

/* Iteration and time levels together: the highest due level wins. */
/* Iterations far shorter than the interval (and as jittery as a loaded
 * machine makes them) need few sync points: the step doubles up to
 * max_sync_intv. Each sync is a reduction on every rank, so a step that
 * shrank on jitter made FTI_Snapshot cost a collective per call. */
/* Iterations that ran faster than the last sync assumed reach the planned
 * iteration before the level's time: it is due there, and the next sync
 * point must not plan it again (it did: on a loaded machine
 * test_due_until_taken saw a due level vanish). The state is the one a
 * sync at iteration 100 leaves with the level planned two iterations on. */
static void test_due_early_stays_due(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.ckpt_sec[1] = 1;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    double elapsed = MPI_Wtime() - s.t0;
    s.iter = s.last_sync_iter = 100;
    s.last_sync_time = elapsed;
    s.iter_len = 0.05;
    s.step = 8;
    s.next_sync = 104;
    s.period[1] = 10;
    s.due[1] = elapsed + 10; /* far off: only the plan makes it due */
    s.planned[1] = s.next_ckpt = 102;
    assert_int_equal(fti_schedule_tick(&s, MPI_COMM_SELF), 0); /* 101 */
    for (int i = 0; i < 6; i++) /* 102 .. 107: through the sync at 104 */
        assert_int_equal(fti_schedule_tick(&s, MPI_COMM_SELF), 1);
    fti_schedule_taken(&s, 1);
    assert_int_equal(fti_schedule_tick(&s, MPI_COMM_SELF), 0);
}

static void test_short_iterations_sync_rarely(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.ckpt_min[1] = 1;
    c.max_sync_intv = 512;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    int syncs = 0;
    uint64_t last = s.last_sync_iter;
    volatile double sink = 0;
    for (int i = 0; i < 20000; i++) {
        for (int k = 0; k < (i * 7919) % 300; k++) /* 0 to ~1 us of work, irregular */
            sink += k;
        assert_int_equal(fti_schedule_tick(&s, MPI_COMM_SELF), 0);
        if (s.last_sync_iter != last) {
            syncs++;
            last = s.last_sync_iter;
        }
    }
    /* 1, 2, 4, ..., 512: 10 syncs, then one per 512 iterations: about 48 */
    if (syncs > 60)
        fail_msg("%d sync points in 20000 short iterations, expected about 48", syncs);
    assert_int_equal(s.step, 512);
}

static void test_highest_wins_mixed(void **state)
{
    (void)state;
    double t0 = MPI_Wtime(), at;
    fti_config c = base_config();
    c.ckpt_iter[1] = 1; /* L1 every iteration */
    c.ckpt_sec[3] = 1;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    s.period[3] = PERIOD;
    s.due[3] = PERIOD;
    int level = 1;
    while (level == 1) {
        sleep_sec(ITER_SEC);
        level = fti_schedule_tick(&s, MPI_COMM_SELF);
        at = MPI_Wtime() - t0;
        assert_true(at < 1.0);
    }
    assert_int_equal(level, 3);
    assert_true(at >= 0.9 * PERIOD);
    fti_schedule_taken(&s, 3);
    sleep_sec(ITER_SEC);
    assert_int_equal(fti_schedule_tick(&s, MPI_COMM_SELF), 1);
}

/* fast_forward divides every time interval, as FTI's. */
static void test_fast_forward(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.ckpt_min[1] = 1;
    c.ckpt_sec[3] = 30;
    c.fast_forward = 5;
    fti_schedule s;
    fti_schedule_init(&s, &c);
    assert_true(s.period[1] == 12.0);
    assert_true(s.period[3] == 6.0);
    assert_true(s.min_period == 6.0);
}

/* What FTI's syncIntv suite reads from the debug lines: every sync point
 * falls on a multiple of the step that led to it, and a time-based
 * checkpoint runs exactly at the iteration the last sync planned. */
static void test_sync_aligned_and_plan_kept(void **state)
{
    (void)state;
    fti_config c = base_config();
    c.ckpt_sec[1] = 1;
    c.ckpt_sec[2] = 1;
    c.max_sync_intv = 6; /* not a power of two */
    fti_schedule s;
    fti_schedule_init(&s, &c);
    s.period[1] = s.due[1] = PERIOD / 2;
    s.period[2] = s.due[2] = PERIOD;
    s.min_period = PERIOD / 2;
    uint64_t step = s.step, planned = 0, last = s.last_sync_iter;
    int fired = 0;
    double t0 = MPI_Wtime();
    while (fired < 4 && MPI_Wtime() - t0 < 5.0) {
        sleep_sec(ITER_SEC / 4);
        int level = fti_schedule_tick(&s, MPI_COMM_SELF);
        if (s.last_sync_iter != last) { /* a sync point at this iteration */
            if (s.iter % step != 0)
                fail_msg("sync at iteration %llu, not a multiple of the step %llu",
                         (unsigned long long)s.iter, (unsigned long long)step);
            assert_true(s.step <= 6);
            last = s.last_sync_iter;
            step = s.step;
            planned = s.next_ckpt;
        }
        if (level != 0) {
            if (s.iter != planned)
                fail_msg("level %d at iteration %llu, the last sync planned %llu", level,
                         (unsigned long long)s.iter, (unsigned long long)planned);
            fti_schedule_taken(&s, level);
            planned = 0;
            fired++;
        }
    }
    assert_int_equal(fired, 4);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iteration_levels),
        cmocka_unit_test(test_iteration_levels_ignore_taken),
        cmocka_unit_test(test_dcp_interval),
        cmocka_unit_test(test_dcp_seconds),
        cmocka_unit_test(test_nothing_configured),
        cmocka_unit_test(test_time_periods),
        cmocka_unit_test(test_seconds_interval_fires_and_replans),
        cmocka_unit_test(test_due_until_taken),
        cmocka_unit_test(test_due_early_stays_due),
        cmocka_unit_test(test_short_iterations_sync_rarely),
        cmocka_unit_test(test_highest_wins_mixed),
        cmocka_unit_test(test_fast_forward),
        cmocka_unit_test(test_sync_aligned_and_plan_kept),
    };
    int rc = cmocka_run_group_tests_name("schedule", tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
