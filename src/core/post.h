/*
 * post.h - post-processing of L2-L4 checkpoints off the application's path:
 * on the node's head rank (head=1) or in a helper thread (inline_lX=0). The
 * commit happens only once every rank's post-processing succeeded; the
 * application's next checkpoint waits for the previous one. With staging_mib,
 * the helper thread also writes the local file, from a copy of the data.
 */
#ifndef FTI_POST_H
#define FTI_POST_H

#include "core/context.h"

/* Hands checkpoint c (local files written on every rank) to the async worker. */
fti_err fti_post_start(fti_ctx *ctx, const fti_commit *c);

/* [basic] staging_mib > 0 or [advanced] cow_checkpoint = 1, and every
 * rank's helper thread runs (agreed at FTI_Init): checkpoints may be staged. The same on every rank; when 0 the
 * caller writes them synchronously. */
int fti_post_can_stage(const fti_ctx *ctx);

/* Not collective; only where fti_post_can_stage and nothing is in flight:
 * takes a copy-on-write snapshot of the protected data (cow_checkpoint; a
 * line says why not when it cannot) or copies it, and hands checkpoint c
 * (nothing written yet) to the helper thread, which writes the local file from the copy, agrees with
 * the other ranks and post-processes it; tm is kept for the metrics line of
 * the commit. A rank whose data exceeds staging_mib (or whose device copy
 * failed) writes its local file from the live buffers first. */
void fti_post_stage(fti_ctx *ctx, const fti_commit *c, fti_ckpt_timing *tm);

/* With cow_checkpoint: one line (INFO once, then DEBUG) saying why
 * checkpoint c is written synchronously instead (a store that writes
 * straight to the global file system). Not collective. */
void fti_post_not_staged(fti_ctx *ctx, const fti_commit *c, const char *why);

/* Not collective: when the job in flight writes a copy-on-write snapshot
 * (cow_checkpoint), waits until the thread has read all of it and the
 * protected memory is writable everywhere again. Before the library
 * changes what is protected or writes into it (FTI_Protect, FTI_Recover). */
void fti_post_drain(fti_ctx *ctx);

/* FTI_Protect, after the drain: with cow_checkpoint and cow_huge_pages, the
 * variable's n bytes at ptr are put in huge pages now (data/cow.h,
 * fti_cow_prefer_huge), its cost said at DEBUG, a refusal once at INFO. */
void fti_post_protected(fti_ctx *ctx, int id, const void *ptr, size_t n);

/* Collective: waits for the job in flight, if any, and commits it when every
 * rank succeeded. FTI_E_OK when nothing was pending. */
fti_err fti_post_wait(fti_ctx *ctx);

/* Collective, called by FTI_Snapshot: commits a finished job without waiting. */
fti_err fti_post_poll(fti_ctx *ctx);

/* Starts/stops the worker (thread or head protocol). Init decides
 * ctx->post_async (which levels are post-processed asynchronously);
 * shutdown clears it. */
fti_err fti_post_init(fti_ctx *ctx);
void fti_post_shutdown(fti_ctx *ctx);



/* On a head rank, inside FTI_Init: serves its node's application ranks
 * until they all finalized. Returns FTI_HEAD. */
int fti_post_serve_head(fti_ctx *ctx);
#endif /* FTI_POST_H */
