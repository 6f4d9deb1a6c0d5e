/*
 * stream_queue.c - a FIFO of operations drained by one worker thread (see
 * stream_queue.h). All fields below `run` are guarded by `lock`.
 */
#include "stream_queue.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fti_sq {
    pthread_t thread;
    fti_sq_run_fn run;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* worker: work queued or stopping */
    pthread_cond_t idle; /* syncers: queue drained */
    fti_sq_op *head, *tail;
    int busy, stop;
    int failed; /* an operation failed since the last sync: later ones are dropped */
    char err[FTI_SQ_ERRLEN];
};

/* Takes the next op, or NULL when stopping with nothing queued. Caller holds
 * q->lock. */
static fti_sq_op *next_op(fti_sq *q)
{
    while (q->head == NULL && !q->stop)
        pthread_cond_wait(&q->wake, &q->lock);
    fti_sq_op *op = q->head;
    if (op != NULL && (q->head = op->next) == NULL)
        q->tail = NULL;
    return op;
}

/* Runs op outside the lock (it may block for long), unless an earlier one
 * failed, and frees it. Caller holds q->lock; it is held again on return. */
static void run_one(fti_sq *q, fti_sq_op *op)
{
    char err[FTI_SQ_ERRLEN] = "";
    int skip = q->failed;
    q->busy = 1;
    pthread_mutex_unlock(&q->lock);
    int rc = skip ? 0 : q->run(op, err, sizeof err);
    free(op);
    pthread_mutex_lock(&q->lock);
    /* Only the first failure is kept: it is the cause, later ones follow. */
    if (rc != 0 && !q->failed) {
        q->failed = 1;
        snprintf(q->err, sizeof q->err, "%s", err);
    }
    q->busy = 0;
    if (q->head == NULL)
        pthread_cond_broadcast(&q->idle);
}

static void *worker(void *arg)
{
    fti_sq *q = arg;
    pthread_mutex_lock(&q->lock);
    for (fti_sq_op *op; (op = next_op(q)) != NULL;)
        run_one(q, op);
    pthread_mutex_unlock(&q->lock);
    return NULL;
}

static void release(fti_sq *q)
{
    pthread_cond_destroy(&q->idle);
    pthread_cond_destroy(&q->wake);
    pthread_mutex_destroy(&q->lock);
    free(q);
}

int fti_sq_create(fti_sq **out, fti_sq_run_fn run)
{
    fti_sq *q = calloc(1, sizeof *q);
    if (q == NULL)
        return -1;
    q->run = run;
    pthread_mutex_init(&q->lock, NULL);
    pthread_cond_init(&q->wake, NULL);
    pthread_cond_init(&q->idle, NULL);
    int rc = pthread_create(&q->thread, NULL, worker, q);
    if (rc != 0) {
        release(q);
        return rc;
    }
    *out = q;
    return 0;
}

void fti_sq_push(fti_sq *q, fti_sq_op *op)
{
    op->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->tail != NULL)
        q->tail->next = op;
    else
        q->head = op;
    q->tail = op;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
}

int fti_sq_sync(fti_sq *q, char *err, size_t errlen)
{
    pthread_mutex_lock(&q->lock);
    while (q->head != NULL || q->busy)
        pthread_cond_wait(&q->idle, &q->lock);
    int failed = q->failed;
    if (failed) {
        snprintf(err, errlen, "%s", q->err);
        q->failed = 0;
    }
    pthread_mutex_unlock(&q->lock);
    return failed ? -1 : 0;
}

void fti_sq_destroy(fti_sq *q)
{
    if (q == NULL)
        return;
    pthread_mutex_lock(&q->lock);
    q->stop = 1;
    pthread_cond_signal(&q->wake);
    pthread_mutex_unlock(&q->lock);
    pthread_join(q->thread, NULL);
    release(q);
}

int fti_sq_stream_create(void **stream, fti_sq_run_fn run, const char *who, char *err,
                         size_t errlen)
{
    fti_sq *q;
    int rc = fti_sq_create(&q, run);
    if (rc < 0)
        snprintf(err, errlen, "%s: stream_create: out of memory", who);
    else if (rc > 0)
        snprintf(err, errlen, "%s: stream_create: cannot start the stream's worker thread: %s",
                 who, strerror(rc));
    if (rc != 0)
        return -1;
    *stream = q;
    return 0;
}

int fti_sq_stream_sync(void *stream, const char *who, char *err, size_t errlen)
{
    if (stream != NULL)
        return fti_sq_sync(stream, err, errlen);
    snprintf(err, errlen, "%s: stream_sync: NULL stream", who);
    return -1;
}

void fti_sq_stream_destroy(void *stream)
{
    fti_sq_destroy(stream);
}
