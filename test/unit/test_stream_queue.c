/*
 * test_stream_queue.c - the worker-thread FIFO behind the emu and xrt
 * streams: operations run in push order on another thread, the first
 * failure is reported (and cleared) by the next sync while later operations
 * are dropped, and destroy lets queued operations finish.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stream_queue.h"

#define NOPS 8

typedef struct test_op {
    fti_sq_op link;
    int id;
    int fail;       /* run reports a failure naming id */
    int wait_gate;  /* run blocks until the test opens the gate */
} test_op;

/* What the worker did, read by the test after a sync or destroy (both
 * order the worker's writes before their return). */
static struct {
    int ran[NOPS * 2];
    int nran;
    pthread_t runner;
} seen;

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static int gate_open;

static void wait_gate(void)
{
    pthread_mutex_lock(&gate_lock);
    while (!gate_open)
        pthread_cond_wait(&gate_cond, &gate_lock);
    pthread_mutex_unlock(&gate_lock);
}

static void open_gate(void)
{
    pthread_mutex_lock(&gate_lock);
    gate_open = 1;
    pthread_cond_broadcast(&gate_cond);
    pthread_mutex_unlock(&gate_lock);
}

static int run(fti_sq_op *link, char *err, size_t errlen)
{
    const test_op *op = (const test_op *)link;
    if (op->wait_gate)
        wait_gate();
    seen.runner = pthread_self();
    seen.ran[seen.nran++] = op->id;
    if (op->fail) {
        snprintf(err, errlen, "op %d failed", op->id);
        return -1;
    }
    return 0;
}

static void push(fti_sq *q, int id, int fail, int gate)
{
    test_op *op = malloc(sizeof *op);
    assert_non_null(op);
    *op = (test_op){.id = id, .fail = fail, .wait_gate = gate};
    fti_sq_push(q, &op->link);
}

static int setup(void **state)
{
    (void)state;
    memset(&seen, 0, sizeof seen);
    gate_open = 0;
    return 0;
}

static fti_sq *create(void)
{
    fti_sq *q = NULL;
    assert_int_equal(fti_sq_create(&q, run), 0);
    assert_non_null(q);
    return q;
}

static void test_runs_in_order_on_worker(void **state)
{
    (void)state;
    fti_sq *q = create();
    for (int i = 0; i < NOPS; i++)
        push(q, i, 0, 0);
    char err[FTI_SQ_ERRLEN] = "untouched";
    assert_int_equal(fti_sq_sync(q, err, sizeof err), 0);
    assert_string_equal(err, "untouched");
    assert_int_equal(seen.nran, NOPS);
    for (int i = 0; i < NOPS; i++)
        assert_int_equal(seen.ran[i], i);
    assert_false(pthread_equal(seen.runner, pthread_self()));
    fti_sq_destroy(q);
}

/* push returns while the operation is still blocked on the worker (a push
 * that ran it inline would never return: the gate opens only after it). */
static void test_push_does_not_wait(void **state)
{
    (void)state;
    fti_sq *q = create();
    push(q, 1, 0, 1);
    push(q, 2, 0, 0);
    open_gate();
    char err[FTI_SQ_ERRLEN];
    assert_int_equal(fti_sq_sync(q, err, sizeof err), 0);
    assert_int_equal(seen.nran, 2);
    fti_sq_destroy(q);
}

static void test_first_failure_reported_then_cleared(void **state)
{
    (void)state;
    fti_sq *q = create();
    push(q, 0, 0, 0);
    push(q, 1, 1, 0);
    push(q, 2, 1, 0); /* dropped: would fail too, but op 1 is the cause */
    push(q, 3, 0, 0); /* dropped */
    char err[FTI_SQ_ERRLEN] = "";
    assert_int_equal(fti_sq_sync(q, err, sizeof err), -1);
    assert_string_equal(err, "op 1 failed");
    assert_int_equal(seen.nran, 2);
    assert_int_equal(seen.ran[1], 1);

    /* Cleared: the next sync succeeds and new operations run again. */
    strcpy(err, "untouched");
    assert_int_equal(fti_sq_sync(q, err, sizeof err), 0);
    assert_string_equal(err, "untouched");
    push(q, 4, 0, 0);
    assert_int_equal(fti_sq_sync(q, err, sizeof err), 0);
    assert_int_equal(seen.nran, 3);
    assert_int_equal(seen.ran[2], 4);
    fti_sq_destroy(q);
}

/* The message is cut to the caller's buffer, NUL-terminated. */
static void test_failure_message_truncated(void **state)
{
    (void)state;
    fti_sq *q = create();
    push(q, 7, 1, 0);
    char err[4];
    assert_int_equal(fti_sq_sync(q, err, sizeof err), -1);
    assert_string_equal(err, "op ");
    fti_sq_destroy(q);
}

static void test_destroy_finishes_queued(void **state)
{
    (void)state;
    fti_sq *q = create();
    push(q, 0, 0, 1);
    for (int i = 1; i < NOPS; i++)
        push(q, i, 0, 0);
    open_gate();
    fti_sq_destroy(q);
    assert_int_equal(seen.nran, NOPS);
    assert_int_equal(seen.ran[NOPS - 1], NOPS - 1);
}

static void test_destroy_null(void **state)
{
    (void)state;
    fti_sq_destroy(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_runs_in_order_on_worker, setup),
        cmocka_unit_test_setup(test_push_does_not_wait, setup),
        cmocka_unit_test_setup(test_first_failure_reported_then_cleared, setup),
        cmocka_unit_test_setup(test_failure_message_truncated, setup),
        cmocka_unit_test_setup(test_destroy_finishes_queued, setup),
        cmocka_unit_test_setup(test_destroy_null, setup),
    };
    return cmocka_run_group_tests_name("stream_queue", tests, NULL, NULL);
}
