/*
 * stream_queue.h - the stream of a device backend whose copies are blocking
 * calls (the emulated device, XRT's C API): a FIFO of operations run in
 * order by one worker thread per queue, so they overlap the caller's work.
 * A failed operation is remembered and reported by the next fti_sq_sync;
 * until then the queue drops later operations (their results would be stale).
 */
#ifndef FTI_STREAM_QUEUE_H
#define FTI_STREAM_QUEUE_H

#include <stddef.h>

/* Room for a failure message, terminating NUL included. */
#define FTI_SQ_ERRLEN 256

/* The link of a queued operation: the first member of the backend's own
 * malloc'd operation struct, so the queue can chain and free it. */
typedef struct fti_sq_op {
    struct fti_sq_op *next;
} fti_sq_op;

/* Runs one operation on the worker thread: 0, or non-zero after writing a
 * message into err (errlen bytes, FTI_SQ_ERRLEN). */
typedef int (*fti_sq_run_fn)(fti_sq_op *op, char *err, size_t errlen);

typedef struct fti_sq fti_sq;

/* Creates a queue in *out whose worker runs each operation with run.
 * Returns 0; -1 when out of memory; otherwise the error number from
 * pthread_create, the worker could not start. */
int fti_sq_create(fti_sq **out, fti_sq_run_fn run);

/* Appends op (see fti_sq_op); the queue owns it from now on and frees it
 * after running it, or unrun when an earlier operation failed since the
 * last sync. Thread-safe; never fails. */
void fti_sq_push(fti_sq *q, fti_sq_op *op);

/* Waits until every queued operation ran. Returns 0, or -1 with the first
 * failure since the last sync copied into err (errlen bytes); the failure is
 * then cleared and the queue runs operations again. Thread-safe. */
int fti_sq_sync(fti_sq *q, char *err, size_t errlen);

/* The stream ops of a backend whose streams are queues (fti_device_ops):
 * a failure is written into err, the backend's last-error buffer (errlen
 * bytes), with the backend's name who first. 0 or -1. */
int fti_sq_stream_create(void **stream, fti_sq_run_fn run, const char *who, char *err,
                         size_t errlen);
int fti_sq_stream_sync(void *stream, const char *who, char *err, size_t errlen);
/* fti_sq_destroy: queued operations complete first. */
void fti_sq_stream_destroy(void *stream);

/* Lets queued operations finish (or be dropped after a failure, as above),
 * stops the worker and frees q. NULL is a no-op. No push may race with it. */
void fti_sq_destroy(fti_sq *q);

#endif /* FTI_STREAM_QUEUE_H */
