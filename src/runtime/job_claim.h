/*
 * job_claim.h - a run's claim on its checkpoint set, taken in FTI_Init: the
 * locks (job_lock.h) where the commit record lives and where the data lives
 * (two jobs that share data folders exclude each other even with another
 * meta_dir), and the run's nonce, the random identity every file of its
 * checkpoints carries (docs/FORMAT.md) so that a restart never takes
 * another job's file for its own.
 */
#ifndef FTI_JOB_CLAIM_H
#define FTI_JOB_CLAIM_H

#include <stdint.h>

#include "core/context.h"

/* Collective over all ranks (heads included), one agreement: application
 * rank 0 locks <meta_dir>/<exec_id> and <glbl_dir>/<exec_id>, the first
 * rank of each node its node-local folder (with local_test = 0 only rank 0,
 * whose folder may be shared by the job's other "nodes" on one host), and
 * rank 0 draws ctx->nonce, which every rank receives. On failure every rank
 * returns the same kind of error naming the lock file, the failing rank and
 * the reason (another job, or strerror). */
fti_err fti_job_claim(fti_ctx *ctx);

/* After an online repair: takes the locks this rank takes at FTI_Init and
 * does not hold yet (the replacement of a node's first rank, or of rank
 * 0, takes the dead rank's). Not collective. */
fti_err fti_job_claim_retake(fti_ctx *ctx);

/* Releases this rank's lock of `dir` (its lock file goes), if it holds one. */
void fti_job_claim_release_dir(fti_ctx *ctx, const char *dir);

/* Releases every lock this rank holds. Not collective. */
void fti_job_claim_release(fti_ctx *ctx);

/* 64 random bits, never 0 (getrandom, else /dev/urandom, else time and pid
 * mixed: a nonce only has to differ between jobs). */
uint64_t fti_nonce_draw(void);

#endif /* FTI_JOB_CLAIM_H */
