/* job_thread.c: jobs run one at a time, in the order posted, each after
 * the previous one finished (a post returns before its job ran on the
 * thread, a wait after it did), and the busy seconds add up; a job thread
 * that did not start runs each job inline, in the caller; a thread is
 * only asked for where the host has CPUs to spare. Where this
 * process may run on one CPU only the thread does not start, and the
 * threaded test says so. */
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/job_thread.h"

#define JOBS 6

typedef struct log_ {
    pthread_t caller;
    int order[JOBS], n;
    int on_thread; /* jobs that ran outside the caller */
    int overlap;   /* a job found the previous one still running */
    int running;
} log_;

typedef struct job {
    log_ *log;
    int id;
} job;

static void nap_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void record(void *arg)
{
    job *j = arg;
    log_ *l = j->log;
    if (__atomic_exchange_n(&l->running, 1, __ATOMIC_SEQ_CST))
        l->overlap++;
    nap_ms(5); /* long enough for the caller to post the next job meanwhile */
    l->order[l->n] = j->id;
    __atomic_store_n(&l->n, l->n + 1, __ATOMIC_SEQ_CST);
    l->on_thread += !pthread_equal(pthread_self(), l->caller);
    __atomic_store_n(&l->running, 0, __ATOMIC_SEQ_CST);
}

static void post_all(fti_job_thread *t, log_ *l, job *jobs)
{
    memset(l, 0, sizeof *l);
    l->caller = pthread_self();
    for (int i = 0; i < JOBS; i++) {
        jobs[i] = (job){l, i};
        fti_job_thread_post(t, record, &jobs[i]);
    }
}

static void test_jobs_in_order_one_at_a_time(void **state)
{
    (void)state;
    fti_job_thread t;
    fti_job_thread_start(&t);
    if (!t.running)
        skip(); /* one CPU: jobs run inline (the next test) */
    log_ l;
    job jobs[JOBS];
    post_all(&t, &l, jobs);
    assert_true(__atomic_load_n(&l.n, __ATOMIC_SEQ_CST) < JOBS); /* the last post returned before its job ran */
    fti_job_thread_wait(&t);
    assert_int_equal(l.n, JOBS);
    for (int i = 0; i < JOBS; i++)
        assert_int_equal(l.order[i], i);
    assert_int_equal(l.on_thread, JOBS);
    assert_int_equal(l.overlap, 0);
    fti_job_thread_stop(&t);
    assert_true(t.busy >= JOBS * 0.004);
    fti_job_thread_stop(&t); /* a second stop is harmless */
}

static void test_not_started_runs_inline(void **state)
{
    (void)state;
    fti_job_thread t = {0};
    log_ l;
    job jobs[JOBS];
    post_all(&t, &l, jobs);
    assert_int_equal(l.n, JOBS); /* every post returned after its job */
    assert_int_equal(l.on_thread, 0);
    fti_job_thread_wait(&t);
    fti_job_thread_stop(&t);
    assert_true(t.busy >= JOBS * 0.004);
}

/* A thread pays off with two CPUs per rank of the host to run on. */
static void test_helps_only_with_spare_cpus(void **state)
{
    (void)state;
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    long mine = CPU_COUNT(&set);
    assert_int_equal(fti_job_thread_helps(1), mine >= 2);
    assert_int_equal(fti_job_thread_helps(0), mine >= 2);
    assert_int_equal(fti_job_thread_helps((int)(mine / 2)), mine >= 2);
    /* a host crowded with ranks */
    assert_int_equal(fti_job_thread_helps((int)(mine / 2) + 1), 0);
    assert_int_equal(fti_job_thread_helps(1 << 20), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jobs_in_order_one_at_a_time),
        cmocka_unit_test(test_not_started_runs_inline),
        cmocka_unit_test(test_helps_only_with_spare_cpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
