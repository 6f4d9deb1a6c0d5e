/*
 * online.h - online recovery's rollback ([basic] online_recovery = 1): once
 * runtime/ulfm.c has repaired the job's communicator (a spare in the failed
 * rank's place, the same rank numbers), every rank rebuilds the library's
 * communicators over it and chooses the checkpoint to restore as FTI_Init
 * does on a relaunch; the program resumes at its FTI_RESUME_POINT() and
 * its first FTI_Snapshot or FTI_Recover restores it.
 */
#ifndef FTI_ONLINE_H
#define FTI_ONLINE_H

#include "core/context.h"

/* At the end of FTI_Init on application ranks: the failure handler on
 * FTI_COMM_WORLD and the library's communicators. Not collective. */
void fti_online_watch(fti_ctx *ctx);

/* Collective over every live rank (survivors from FTI_Resumed, spares from
 * their wait): repair, then rejoin; the caller sets FTI_COMM_WORLD to
 * ctx->topo.app. FTI_E_MPI when no spare is left or the repair failed;
 * FTI_E_NOREC when no checkpoint can be restored; an error of the restart
 * choice (fti_recover_prepare) otherwise. */
fti_err fti_online_repair(fti_ctx *ctx);

/* On a spare, in FTI_Init: waits. Released by FTI_Finalize, it ends the
 * process as a head does (MPI_Finalize, exit 0); called to replace a rank,
 * it returns FTI_E_OK as that rank, its restart pending, or the error of
 * the repair. */
fti_err fti_online_serve_spare(fti_ctx *ctx);

/* In FTI_Finalize on application ranks, collective: spares released. */
void fti_online_release(fti_ctx *ctx);

#endif /* FTI_ONLINE_H */
