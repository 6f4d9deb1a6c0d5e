/*
 * checkpoint.h - taking a checkpoint: write the local file, run the level's
 * post-processing (inline or asynchronous), and commit only after every rank
 * succeeded. The last committed checkpoint stays intact until then.
 */
#ifndef FTI_CHECKPOINT_H
#define FTI_CHECKPOINT_H

#include "core/context.h"

/* Collective over the application ranks. Every rank returns the same code. */
fti_err fti_checkpoint_take(fti_ctx *ctx, int64_t id, int level);

/* keep_last_ckpt = 1 at FTI_Finalize: when the newest committed checkpoint
 * is of level 1-3, it becomes an L4 checkpoint (its local files flushed to
 * the global directory, as FTI does), so the next job can restart on other
 * nodes; its local files then go. Not with keep_all_levels = 1. Collective
 * over the application ranks. */
fti_err fti_checkpoint_flush_last(fti_ctx *ctx);

#endif /* FTI_CHECKPOINT_H */
