/*
 * job_lock.h - one running job per checkpoint set. Two jobs started with the
 * same exec_id and directories would overwrite each other's checkpoints, so
 * the job's first rank holds an advisory lock (flock) on
 * <meta_dir>/<exec_id>/lock for as long as the job runs; the file names the
 * holder (host, pid) for the error a second job prints. The kernel drops the
 * lock when the holder dies, so a crashed job never blocks its restart.
 */
#ifndef FTI_JOB_LOCK_H
#define FTI_JOB_LOCK_H

#include "format/config.h"
#include "base/error.h"

/* Zero-initialised: not held. */
typedef struct fti_job_lock {
    int held;
    int fd;
    int err; /* after a failed take: the errno of an I/O error, 0 when another job holds it */
    char path[FTI_PATH_MAX];
} fti_job_lock;

/* Takes the lock file `dir`/lock of the checkpoint set (the exec id's meta
 * directory, or a folder its files live in). FTI_E_STATE with a message
 * naming the other job (host, pid) and the lock file when it is running;
 * FTI_E_IO (l->err set) when the file cannot be opened or written. Where the
 * file system has no flock, the holder named in the file counts as alive
 * unless it is a process of this host that is gone. Not collective. */
fti_err fti_job_lock_take(fti_job_lock *l, const char *dir);

/* Releases and removes the lock file; a lock not held is left alone. */
void fti_job_lock_release(fti_job_lock *l);

#endif /* FTI_JOB_LOCK_H */
