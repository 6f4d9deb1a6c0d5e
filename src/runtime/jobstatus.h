/*
 * jobstatus.h - the job status file a launcher reads (tools/fti-run). When
 * the environment names a file in FTI_STATUS_FILE, one rank appends one line
 * per event: the job became ready (fresh or restarting from which checkpoint),
 * a checkpoint was committed, FTI_Init refused the config or the restart, the
 * job finalized. The format is documented in docs/USER_GUIDE.md ("fti-run").
 */
#ifndef FTI_JOBSTATUS_H
#define FTI_JOBSTATUS_H

#include "base/error.h"
#include "format/meta.h"

/* Every call is a no-op without FTI_STATUS_FILE, and when rank != 0 except
 * for the two error events; a write error is ignored (the status file never
 * fails the job). Not thread-safe. */

/* FTI_Init failed before a restart was considered: relaunching cannot help.
 * Written by every rank (rank is ignored): after a failed FTI_Init the job
 * may die on any rank first, and the launcher needs one of the lines. */
void fti_jobstatus_init_error(int rank, fti_err code, const char *message);

/* FTI_Init found committed checkpoints but refused to restart from them.
 * Written by every rank, as above. */
void fti_jobstatus_restart_refused(int rank, fti_err code, const char *message);

/* FTI_Init succeeded; chosen is the checkpoint being restored, NULL when fresh. */
void fti_jobstatus_ready(int rank, const char *exec_id, const fti_commit *chosen);

/* Checkpoint c is committed: a relaunch can resume from it. */
void fti_jobstatus_committed(int rank, const fti_commit *c);

/* FTI_Finalize ended (code: its internal result). */
void fti_jobstatus_finalized(int rank, fti_err code);

/* An online recovery (online_recovery = 1) repaired the job: `replaced`
 * ranks were replaced by spares in repair_s seconds, and the checkpoint
 * every rank restores (chosen) was chosen in choose_s seconds. */
void fti_jobstatus_online(int rank, int replaced, double repair_s, double choose_s,
                          const fti_commit *chosen);

#endif /* FTI_JOBSTATUS_H */
