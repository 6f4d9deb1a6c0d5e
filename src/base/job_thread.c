#include "base/job_thread.h"

#include <sched.h>
#include <string.h>

#include "base/walltime.h"
#include "base/worker.h"

static void run(fti_job_thread *t, void (*fn)(void *), void *arg)
{
    double t0 = fti_now();
    fn(arg);
    t->busy += fti_now() - t0;
}

static void *loop(void *arg)
{
    fti_job_thread *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        fti_worker_await(&t->mu, &t->cv, &t->job, &t->quit);
        if (!t->job) /* quit, and nothing left to run */
            break;
        pthread_mutex_unlock(&t->mu);
        run(t, t->fn, t->arg);
        pthread_mutex_lock(&t->mu);
        t->job = 0;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* A thread only pays off when the caller may run beside it. */
static int may_use_two_cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1;
}

int fti_job_thread_helps(int sharers)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    long mine = CPU_COUNT(&set);
    return mine >= 2 * (long)(sharers > 1 ? sharers : 1);
}

void fti_job_thread_start(fti_job_thread *t)
{
    memset(t, 0, sizeof *t);
    if (!may_use_two_cpus() || pthread_mutex_init(&t->mu, NULL) != 0)
        return;
    if (pthread_cond_init(&t->cv, NULL) != 0) {
        pthread_mutex_destroy(&t->mu);
        return;
    }
    if (pthread_create(&t->th, NULL, loop, t) != 0) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        return;
    }
    t->running = 1;
}

void fti_job_thread_wait(fti_job_thread *t)
{
    if (!t->running)
        return;
    pthread_mutex_lock(&t->mu);
    while (t->job)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
}

void fti_job_thread_post(fti_job_thread *t, void (*fn)(void *), void *arg)
{
    if (!t->running) {
        run(t, fn, arg);
        return;
    }
    pthread_mutex_lock(&t->mu);
    while (t->job)
        pthread_cond_wait(&t->cv, &t->mu);
    t->fn = fn;
    t->arg = arg;
    t->job = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

void fti_job_thread_stop(fti_job_thread *t)
{
    if (!t->running)
        return;
    fti_job_thread_wait(t);
    fti_worker_stop(t->th, &t->mu, &t->cv, &t->quit);
    t->running = 0;
}
