/*
 * checkpoint.h - taking a checkpoint: write the local file, run the level's
 * post-processing (inline or asynchronous), and commit only after every rank
 * succeeded. The last committed checkpoint stays intact until then.
 */
#ifndef FTI_CHECKPOINT_H
#define FTI_CHECKPOINT_H

#include "context.h"

/* Collective over the application ranks. Every rank returns the same code. */
fti_err fti_checkpoint_take(fti_ctx *ctx, int64_t id, int level);

/* Collective: every rank says whether it succeeded; 1 when all did. */
int fti_all_ok(MPI_Comm comm, int ok);

/* Collective: the lowest rank that failed, or -1 when every rank succeeded. */
int fti_first_failed(MPI_Comm comm, int ok);

/* Collective: rank 0 commits c to the record and broadcasts the outcome;
 * all ranks update ctx->meta alike. */
fti_err fti_checkpoint_commit(fti_ctx *ctx, const fti_commit *c);

/* Local: adds c to the commit record on disk (read, add, write atomically).
 * A head calls it for the job it post-processed, so the checkpoint counts
 * even when the application ends before its next FTI call, as in FTI. */
fti_err fti_checkpoint_record_on_disk(const fti_ctx *ctx, const fti_commit *c);

/* Seconds, for timing. */
double fti_now(void);

/* keep_last_ckpt = 1 at FTI_Finalize: when the newest committed checkpoint
 * is of level 1-3, it becomes an L4 checkpoint (its local files flushed to
 * the global directory, as FTI does), so the next job can restart on other
 * nodes; its local files then go. Not with keep_all_levels = 1. Collective
 * over the application ranks. */
fti_err fti_checkpoint_flush_last(fti_ctx *ctx);

#endif /* FTI_CHECKPOINT_H */
