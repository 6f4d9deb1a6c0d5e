#include "base/hash_worker.h"

#include "base/worker.h"

#include <sched.h>
#include <string.h>

static void *work(void *arg)
{
    fti_hash_worker *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        fti_worker_await(&w->mu, &w->cv, &w->busy, &w->stop);
        if (!w->busy) /* stop, and nothing left to hash */
            break;
        const void *buf = w->buf;
        size_t len = w->len;
        pthread_mutex_unlock(&w->mu);
        fti_hash_update(w->h, buf, len);
        pthread_mutex_lock(&w->mu);
        w->busy = 0;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* A second thread only pays off when this one may run beside it. */
static int may_use_two_cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 1;
}

int fti_hash_worker_start(fti_hash_worker *w, fti_hash *h)
{
    memset(w, 0, sizeof *w);
    w->h = h;
    if (h == NULL || !may_use_two_cpus())
        return -1;
    if (pthread_mutex_init(&w->mu, NULL) != 0)
        return -1;
    if (pthread_cond_init(&w->cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    if (pthread_create(&w->thread, NULL, work, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        return -1;
    }
    w->running = 1;
    return 0;
}

static void wait_idle_locked(fti_hash_worker *w)
{
    while (w->busy)
        pthread_cond_wait(&w->cv, &w->mu);
}

void fti_hash_worker_post(fti_hash_worker *w, const void *buf, size_t len)
{
    pthread_mutex_lock(&w->mu);
    wait_idle_locked(w);
    w->buf = buf;
    w->len = len;
    w->busy = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void fti_hash_worker_wait(fti_hash_worker *w)
{
    if (!w->running)
        return;
    pthread_mutex_lock(&w->mu);
    wait_idle_locked(w);
    pthread_mutex_unlock(&w->mu);
}

void fti_hash_worker_stop(fti_hash_worker *w)
{
    if (!w->running)
        return;
    fti_hash_worker_wait(w); /* the last chunk is hashed before the thread goes */
    fti_worker_stop(w->thread, &w->mu, &w->cv, &w->stop);
    w->running = 0;
}
