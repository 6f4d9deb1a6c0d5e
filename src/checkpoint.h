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

/* Seconds, for timing. */
double fti_now(void);

#endif /* FTI_CHECKPOINT_H */
