/*
 * checkpoint_commit.h - the commit of a checkpoint every rank wrote and
 * post-processed: the record, then what follows from it (metrics, FTI's
 * config and status, FTI_Recover's target, pruning). Called by the
 * synchronous path (checkpoint.c) and the asynchronous one (post.c), below
 * both.
 */
#ifndef FTI_CHECKPOINT_COMMIT_H
#define FTI_CHECKPOINT_COMMIT_H

#include "core/context.h"

/* Collective: rank 0 commits c to the record and broadcasts the outcome;
 * all ranks update ctx->meta alike. */
fti_err fti_checkpoint_commit(fti_ctx *ctx, const fti_commit *c);

#endif /* FTI_CHECKPOINT_COMMIT_H */
