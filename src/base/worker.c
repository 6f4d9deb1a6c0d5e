#include "base/worker.h"

void fti_worker_stop(pthread_t th, pthread_mutex_t *mu, pthread_cond_t *cv, int *quit)
{
    pthread_mutex_lock(mu);
    *quit = 1;
    pthread_cond_broadcast(cv);
    pthread_mutex_unlock(mu);
    pthread_join(th, NULL);
    pthread_cond_destroy(cv);
    pthread_mutex_destroy(mu);
}

void fti_worker_await(pthread_mutex_t *mu, pthread_cond_t *cv, const int *job, const int *quit)
{
    while (!*job && !*quit)
        pthread_cond_wait(cv, mu);
}
