/*
 * hash_worker.h - a thread that hashes chunks in order while the caller
 * moves them (writes them to a file, copies them to a device), so a chunk
 * costs max(hash, move) instead of their sum. Used by the device capture
 * pipeline, whose chunks sit in pinned buffers while the host thread does
 * the file I/O. One job at a time: posting waits for the previous one, so
 * the caller knows a buffer is no longer read once the next job is posted
 * (or after fti_hash_worker_wait).
 */
#ifndef FTI_HASH_WORKER_H
#define FTI_HASH_WORKER_H

#include <pthread.h>
#include <stddef.h>

#include "base/integrity.h"

typedef struct fti_hash_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    fti_hash *h;
    const void *buf; /* the posted job */
    size_t len;
    int busy;        /* a job is posted and not yet hashed */
    int stop;
    int running;     /* the thread exists */
} fti_hash_worker;

/* Starts a worker that updates h. 0, or -1 when it would not help (this
 * thread may run on one CPU only) or no thread could be made: the caller
 * then hashes inline. */
int fti_hash_worker_start(fti_hash_worker *w, fti_hash *h);

/* Hands len bytes at buf to the worker, after its previous job is done.
 * buf must stay unchanged until the next post or wait returns. */
void fti_hash_worker_post(fti_hash_worker *w, const void *buf, size_t len);

/* Returns once every posted byte is hashed. */
void fti_hash_worker_wait(fti_hash_worker *w);

/* Waits for the last job and ends the thread; safe on a worker that did not
 * start (w zeroed or start failed). */
void fti_hash_worker_stop(fti_hash_worker *w);

#endif /* FTI_HASH_WORKER_H */
