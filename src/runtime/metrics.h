/*
 * metrics.h - structured metrics (config key metrics_file) and the one-line
 * checkpoint summary of the log. Every checkpoint, restart decision and
 * restore appends one JSON line to metrics_file, written by application rank
 * 0 after a reduction of every rank's timings (max and sum); the fields are
 * documented in docs/USER_GUIDE.md ("Metrics").
 */
#ifndef FTI_METRICS_H
#define FTI_METRICS_H

#include <stdint.h>

#include "base/phase_clock.h"
#include "format/meta.h"

struct fti_ctx;

/* One rank's timings of one checkpoint, in seconds (fti_now()). */
typedef struct fti_ckpt_timing {
    double start;     /* the checkpoint call began */
    double wait_prev; /* waiting for the previous asynchronous checkpoint */
    double write;     /* capture and write of the local file */
    double post;      /* level post-processing (async: hand-over to completion seen) */
    double commit;    /* agreement and commit record */
    double app_wait;  /* the application was blocked in the checkpoint call */
    double handover;  /* async: when post-processing was handed over */
    uint64_t bytes;   /* this rank's local file */
    int async;
    double phase[FTI_PP_N]; /* the post's phases (phase_clock.h), synchronous posts */
} fti_ckpt_timing;

/* One rank's timings of the restart decision in FTI_Init. */
typedef struct fti_recovery_timing {
    double start;
    double verify;  /* verifying its own local files */
    double rebuild; /* the levels' rebuild of lost files */
    int candidates; /* committed checkpoints tried */
} fti_recovery_timing;

/* One rank's totals over the job, for the summary line of FTI_Finalize. */
typedef struct fti_job_totals {
    double start;     /* FTI_Init began */
    double blocked;   /* the application was blocked in checkpoint calls */
    double recovery;  /* restart decision in FTI_Init plus the restore */
    uint64_t bytes;   /* committed checkpoints, all ranks */
    int count[5];     /* committed checkpoints per level 1-4 */
    int restarted;    /* this run restarted from checkpoint `from` (not a fresh start) */
    fti_commit from;
} fti_job_totals;

/* Lives in the context: the checkpoint in asynchronous post-processing, the
 * restart in progress, and the job's totals. */
typedef struct fti_metrics_state {
    fti_ckpt_timing pending;
    fti_recovery_timing rec;
    /* FTI_Recover is local (ranks may recover with different calls): its
     * time waits here for the next collective call to write the line. */
    double restore_secs;
    int restore_state; /* 0 none, 1 ok, 2 failed */
    fti_job_totals job;
} fti_metrics_state;

/* Collective over the application ranks when metrics_file is set, no-op
 * otherwise: appends the line of checkpoint c. status: "committed" or
 * "failed". Never fails the checkpoint: a write error is a warning. */
void fti_metrics_checkpoint(struct fti_ctx *ctx, const fti_commit *c, const fti_ckpt_timing *t,
                            const char *status);

/* Collective, as above: the restart decision of FTI_Init. chosen is NULL
 * when no checkpoint could be restored (status "failed"). */
void fti_metrics_recovery(struct fti_ctx *ctx, const fti_commit *chosen, const char *status);

/* Local: this rank's FTI_Recover restored every variable (ok = 1) or failed,
 * in secs; kept until fti_metrics_flush_restore. */
void fti_metrics_restore(struct fti_ctx *ctx, double secs, int ok);

/* Collective over the application ranks after an online repair: an
 * "online_recovery" line (ranks replaced, the repair of the communicators
 * and the library's state, the choice of the checkpoint; the restore that
 * follows is its own "restore" line). */
void fti_metrics_online(struct fti_ctx *ctx, int replaced, double repair, double choose);

/* Collective, as above (called at the next checkpoint and at FTI_Finalize):
 * the line of the restores kept since the last call, if any rank has one. */
void fti_metrics_flush_restore(struct fti_ctx *ctx);

/* Rank 0 only (others return): the one summary line of a checkpoint at
 * verbosity info: level, size, time, bandwidth; where log_style has ours. */
void fti_metrics_log_summary(const struct fti_ctx *ctx, const fti_commit *c, double secs,
                             const char *how);

/* Local: checkpoint c was committed (counts and bytes of the job summary). */
void fti_metrics_job_committed(struct fti_ctx *ctx, const fti_commit *c);

/* Collective over the application ranks (FTI_Finalize): the job's summary
 * line at verbosity info from rank 0 (the slowest rank's times). */
void fti_metrics_job_summary(struct fti_ctx *ctx);

#endif /* FTI_METRICS_H */
