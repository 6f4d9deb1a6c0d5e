/*
 * watchdog.h - collectives that notice when they wait far too long. The
 * library's agreement collectives run as non-blocking MPI calls completed by
 * a timed wait; past a threshold (20 x the last checkpoint's duration, at
 * least 60 s; FTI_WATCHDOG_S in the environment overrides it) the rank logs
 * one warning naming the wait and its likely causes, then keeps waiting: the
 * watchdog never aborts and never changes a result.
 */
#ifndef FTI_WATCHDOG_H
#define FTI_WATCHDOG_H

#include <mpi.h>

/* Local. FTI_Init: whether head ranks serve checkpoints (the hint about
 * FTI_COMM_WORLD), and FTI_WATCHDOG_S. */
void fti_watchdog_setup(int head);

/* Local. on (online_recovery): the watched collectives are MPI's blocking
 * ones, unwatched. Open MPI 5.0's nonblocking collectives that meet a
 * failed rank print "Error in NBC_Start_round" and have aborted jobs that
 * ULFM would have repaired; with a failed rank a wait ends anyway (an
 * error), so there is no hang to warn about. */
void fti_watchdog_blocking(int on);

/* Local. The last checkpoint call took secs: the yardstick of the threshold. */
void fti_watchdog_reference(double secs);

/* Collective over comm: MPI_Allreduce, watched. what names the step in the
 * warning ("checkpoint agreement"). Returns MPI_Allreduce's code. */
int fti_watched_allreduce(const void *send, void *recv, int count, MPI_Datatype type, MPI_Op op,
                          MPI_Comm comm, const char *what);

/* Local to this rank's part of the collective that started req on comm:
 * waits for it, yielding the core now and then (on an oversubscribed node a
 * blocking MPI wait spins through the other ranks' time slices). Returns
 * MPI_Test's code. */
int fti_watched_wait(MPI_Request *req, MPI_Comm comm, const char *what);

/* Collective over comm: MPI_Comm_dup, watched (a non-blocking MPI_Comm_idup
 * completed by fti_watched_wait). Returns MPI's code. */
int fti_watched_dup(MPI_Comm comm, MPI_Comm *copy, const char *what);

/* Collective over comm: MPI_Allgather, watched. Returns MPI's code. */
int fti_watched_allgather(const void *send, int count, MPI_Datatype type, void *recv,
                          MPI_Comm comm, const char *what);

/* Collective over comm: MPI_Bcast, watched. Returns MPI's code. */
int fti_watched_bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm,
                      const char *what);

/* Collective over comm: MPI_Barrier, watched. Returns MPI's code. */
int fti_watched_barrier(MPI_Comm comm, const char *what);

#endif /* FTI_WATCHDOG_H */
