/*
 * job_thread.h - one helper thread that runs one job at a time beside its
 * caller, so that local work (writing a received message, encoding parity)
 * overlaps the caller's MPI waits: MPI moves bytes only inside MPI calls,
 * so work done by the caller between them stalls every transfer in flight.
 * The thread makes no MPI call. Without a second CPU (or a thread) jobs run
 * inline, in the caller.
 */
#ifndef FTI_JOB_THREAD_H
#define FTI_JOB_THREAD_H

#include <pthread.h>

typedef struct fti_job_thread {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    void (*fn)(void *); /* the posted job, when job is set */
    void *arg;
    int job, quit;
    int running;        /* a thread exists; else jobs run inline */
    double busy;        /* seconds the jobs took (the thread's or inline) */
} fti_job_thread;

/* 1 when a job thread should pay off for a process that shares its CPUs
 * with `sharers` processes of its host (itself included): the CPUs it may
 * run on are two per sharer. Else the thread would compete for a CPU with
 * the caller (MPI waits spin) and with the other ranks, and cost more than
 * the overlap gives: jobs then run inline. A process bound to CPUs of its
 * own counts as sharing them all the same: from its affinity alone, a
 * binding cannot be told from a container's CPU set that every rank
 * shares. */
int fti_job_thread_helps(int sharers);

/* Starts the thread, or leaves t to run jobs inline (one CPU, no thread). */
void fti_job_thread_start(fti_job_thread *t);

/* Runs fn(arg) after the previous job is done: on the thread (returning
 * at once), or inline. */
void fti_job_thread_post(fti_job_thread *t, void (*fn)(void *), void *arg);

/* Returns once the posted job, if any, is done. */
void fti_job_thread_wait(fti_job_thread *t);

/* Waits for the last job and ends the thread; t->busy stays readable. */
void fti_job_thread_stop(fti_job_thread *t);

#endif /* FTI_JOB_THREAD_H */
