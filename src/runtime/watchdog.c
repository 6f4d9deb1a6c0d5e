#include "runtime/watchdog.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/walltime.h"
#include "base/log.h"

#define MIN_THRESHOLD_S 60.0
#define FACTOR 20.0
/* Poll without sleeping for this long, as MPI's own blocking wait does (a
 * collective progresses only while its ranks poll); then nap between polls.
 * A 1 ms nap costs at most 2% of a wait this long; a rank that spins longer
 * takes the core from ranks that work (L2 restart with a node lost, 4 ranks
 * on 2 cores: 3.7-4.3 s spinning 1 s, 2.2 s spinning 0.05 s; a restart
 * where every rank works alike: the same either way). Shorter spins do
 * cost: 1 ms made that restart 20% slower. */
#define SPIN_S 0.05
#define NAP_NS 1000000L /* 1 ms */

/* Process-wide by nature (one library per process): set in FTI_Init. */
static struct {
    int head;
    double override_s; /* FTI_WATCHDOG_S, 0: none */
    double last_ckpt_s;
    int warned;        /* one warning per process */
    int blocking;      /* fti_watchdog_blocking: set before fti_watchdog_setup */
} wd;

void fti_watchdog_setup(int head)
{
    const char *env = getenv("FTI_WATCHDOG_S");
    wd.head = head;
    wd.override_s = env ? atof(env) : 0.0;
    wd.last_ckpt_s = 0.0;
    wd.warned = 0;
}

void fti_watchdog_blocking(int on)
{
    wd.blocking = on;
}

void fti_watchdog_reference(double secs)
{
    wd.last_ckpt_s = secs;
}

static double threshold(void)
{
    if (wd.override_s > 0)
        return wd.override_s;
    double t = FACTOR * wd.last_ckpt_s;
    return t > MIN_THRESHOLD_S ? t : MIN_THRESHOLD_S;
}

static void warn(const char *what, double waited, MPI_Comm comm)
{
    int size;
    MPI_Comm_size(comm, &size);
    char last[64] = "no checkpoint call yet in this run";
    if (wd.last_ckpt_s > 0)
        snprintf(last, sizeof last, "the last checkpoint call took %.3f s", wd.last_ckpt_s);
    fti_log(FTI_LOG_WARN, "watchdog: the %s inside the library has waited %.0f s for the other "
            "ranks (%d in all; %s); still waiting. Likely cause: a rank is not in the same FTI "
            "call (ranks call FTI_Checkpoint/FTI_Snapshot a different number of times, or one "
            "is blocked in the application or dead)%s",
            what, waited, size, last,
            wd.head ? ". With head = 1 the application must communicate on FTI_COMM_WORLD: a "
                      "call on MPI_COMM_WORLD waits for the head ranks, which never join "
                      "(docs/TROUBLESHOOTING.md)" : "");
}


int fti_watched_wait(MPI_Request *req, MPI_Comm comm, const char *what)
{
    double start = fti_now();
    int napping = 0;
    for (unsigned long polls = 1;; polls++) {
        int done = 0;
        int rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS || done)
            return rc;
        if (!napping && polls % 256 != 0) /* while spinning, read the clock now and then */
            continue;
        sched_yield(); /* as MPICH's blocking wait does: an oversubscribed core gets free */
        double waited = fti_now() - start;
        if (!wd.warned && waited > threshold()) {
            wd.warned = 1;
            warn(what, waited, comm);
        }
        napping = waited > SPIN_S;
        if (napping) {
            struct timespec nap = {0, NAP_NS};
            nanosleep(&nap, NULL);
        }
    }
}

int fti_watched_allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, const char *what)
{
    MPI_Request req;
    if (wd.blocking)
        return MPI_Allreduce(send, recv, count, type, op, comm);
    int rc = MPI_Iallreduce(send, recv, count, type, op, comm, &req);
    return rc != MPI_SUCCESS ? rc : fti_watched_wait(&req, comm, what);
}

int fti_watched_dup(MPI_Comm comm, MPI_Comm *copy, const char *what)
{
    MPI_Request req;
    if (wd.blocking)
        return MPI_Comm_dup(comm, copy);
    int rc = MPI_Comm_idup(comm, copy, &req);
    return rc != MPI_SUCCESS ? rc : fti_watched_wait(&req, comm, what);
}

int fti_watched_allgather(const void *send, int count, MPI_Datatype type, void *recv,
                          MPI_Comm comm, const char *what)
{
    MPI_Request req;
    if (wd.blocking)
        return MPI_Allgather(send, count, type, recv, count, type, comm);
    int rc = MPI_Iallgather(send, count, type, recv, count, type, comm, &req);
    return rc != MPI_SUCCESS ? rc : fti_watched_wait(&req, comm, what);
}

int fti_watched_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      const char *what)
{
    MPI_Request req;
    if (wd.blocking)
        return MPI_Bcast(buf, count, type, root, comm);
    int rc = MPI_Ibcast(buf, count, type, root, comm, &req);
    return rc != MPI_SUCCESS ? rc : fti_watched_wait(&req, comm, what);
}

int fti_watched_barrier(MPI_Comm comm, const char *what)
{
    MPI_Request req;
    if (wd.blocking)
        return MPI_Barrier(comm);
    int rc = MPI_Ibarrier(comm, &req);
    return rc != MPI_SUCCESS ? rc : fti_watched_wait(&req, comm, what);
}
