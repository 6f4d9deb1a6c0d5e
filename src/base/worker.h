/*
 * worker.h - ending a worker thread. The library's workers (the L4 encoder's
 * writer, the post-processing thread) wait on a condition variable for work
 * or for their quit flag; this is how both are told to go and reclaimed.
 */
#ifndef FTI_WORKER_H
#define FTI_WORKER_H

#include <pthread.h>

/* Sets *quit under mu and wakes the thread waiting on cv, joins it, then
 * destroys mu and cv. Call once the thread has no work left it must do. */
void fti_worker_stop(pthread_t th, pthread_mutex_t *mu, pthread_cond_t *cv, int *quit);

/* With mu held: sleeps on cv until *job or *quit is set (each worker then
 * decides which of the two wins). */
void fti_worker_await(pthread_mutex_t *mu, pthread_cond_t *cv, const int *job, const int *quit);

#endif /* FTI_WORKER_H */
