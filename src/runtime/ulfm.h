/*
 * ulfm.h - online recovery ([basic] online_recovery = 1): with an MPI that
 * has the fault-tolerance extensions (ULFM: MPIX_Comm_revoke, _shrink,
 * _agree), a failed rank of FTI_COMM_WORLD is replaced by a spare rank
 * while the job runs. This module owns the MPI side: whether the MPI can,
 * the spares, and the repair of the communicator; core/online.c drives the
 * rollback. Built without ULFM (FTI_HAVE_ULFM undefined), a config asking
 * for it is refused by fti_ulfm_check.
 */
#ifndef FTI_ULFM_H
#define FTI_ULFM_H

#include <mpi.h>
#include <setjmp.h>
#include <stddef.h>

#include "base/error.h"
#include "format/config.h"

/* 1 when this library was built against an MPI with ULFM. */
int fti_ulfm_built(void);

/* The MPI library's name and version, on one line (MPI_Get_library_version's
 * first line, spaces collapsed), for messages. */
void fti_ulfm_mpi_name(char *out, size_t n);

/* Not collective (every rank reads the same config and the same MPI):
 * FTI_E_CONFIG naming the file and the key when online_recovery = 1 cannot
 * be served here (no ULFM in this MPI, or spare_ranks leaving no rank to
 * run the application on `comm_size` ranks). */
fti_err fti_ulfm_check(const fti_config *cfg, int comm_size);

/* The MPI side of online recovery, one per process. `whole` holds every
 * live rank of the job: the application ranks first, by their rank in
 * FTI_COMM_WORLD, then the spares. */
#define FTI_ULFM_REVOKE_MAX 8
typedef struct fti_ulfm {
    int on;               /* online_recovery = 1 */
    MPI_Comm whole;       /* errors returned, never fatal */
    int nwork;            /* application ranks */
    int role;             /* my rank in FTI_COMM_WORLD, -1 while a spare */
    int armed;            /* the program passed its FTI_RESUME_POINT */
    jmp_buf resume;       /* FTI_RESUME_POINT's setjmp */
    int recoveries;       /* ranks this process saw replaced */
    int replaced;         /* how many ranks the last repair replaced */
    MPI_Errhandler handler;
    MPI_Comm revoke[FTI_ULFM_REVOKE_MAX]; /* revoked on a failure: every rank in a
                                            library call on one of them wakes */
    int nrevoke;
} fti_ulfm;

/* Collective over `comm` (every rank of FTI_Init's communicator). With
 * online_recovery = 1: `whole` becomes a copy of comm, the last
 * spare_ranks ranks are spares (u->role = -1) and *work is the application
 * ranks' communicator (MPI_COMM_NULL on spares). Otherwise *work = comm
 * and nothing else is made. */
fti_err fti_ulfm_setup(fti_ulfm *u, const fti_config *cfg, MPI_Comm comm, MPI_Comm *work);

/* On a spare: waits on `whole` until the application ranks release the
 * spares (returns 0: FTI_Finalize) or a failure revokes it (returns 1: take
 * part in fti_ulfm_repair). */
int fti_ulfm_spare_wait(fti_ulfm *u);

/* On application ranks, collective over them, in FTI_Finalize: the spares
 * waiting in fti_ulfm_spare_wait are released; `whole` is freed. */
void fti_ulfm_release(fti_ulfm *u);

/* Collective over every live rank of `whole` (survivors and spares): the
 * failed ranks are shrunk away, each failed application rank is given to a
 * spare (in rank order), and *work is the new application communicator
 * with the same rank numbers (MPI_COMM_NULL on ranks still spare). A failure
 * during the repair starts it again (MPIX_Comm_agree). FTI_E_MPI when more
 * application ranks failed than spares were left: the job cannot go on. */
fti_err fti_ulfm_repair(fti_ulfm *u, MPI_Comm *work);

/* Sets the failure handler on `comm` and adds it to the communicators
 * revoked on a failure (up to FTI_ULFM_REVOKE_MAX; the list is emptied by
 * fti_ulfm_forget). The handler: a failed or revoked communicator with the
 * program's resume point armed revokes them all and jumps to it; anything
 * else ends the job as MPI's default handler would (MPI_Abort). */
void fti_ulfm_watch(fti_ulfm *u, MPI_Comm comm);

/* After a repair, when the library has rebuilt its state over the new
 * communicators (ok: on this rank): collective over `whole`, spares
 * included. 1: every rank got through; 0: a rank failed otherwise (no
 * process lost); -1: a process failed meanwhile, the repair must start
 * again (`whole` is revoked). */
int fti_ulfm_settled(fti_ulfm *u, int ok);

/* Revokes comm (MPI_COMM_NULL: nothing), so that no rank waits in it on a
 * rank that left its collective early. */
void fti_ulfm_revoke(MPI_Comm comm);
void fti_ulfm_forget(fti_ulfm *u);

#endif /* FTI_ULFM_H */
