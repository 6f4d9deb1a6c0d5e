/*
 * conf_update.h - FTI's record of the job's state in the user's config
 * file: rank 0 writes [restart] failure and exec_id back, as FTI does, so a
 * job script that relaunches "the same way" restarts, and scripts that read
 * the file see what FTI would write: at FTI_Init 0 (fresh) or the restart's
 * value, 1 once this run committed a checkpoint, at FTI_Finalize 2 when
 * keep_last_ckpt left the last checkpoint on the global file system, else
 * 0 (with keep_l4_ckpt the value stays, as in FTI). Our restart decision
 * itself reads the commit record, not these keys. Off with
 * [restart] update_config = 0. A file that cannot be rewritten gets one
 * warning and the job goes on.
 */
#ifndef FTI_CONF_UPDATE_H
#define FTI_CONF_UPDATE_H

struct fti_ctx;

/* The value FTI_Init writes: 0 for a fresh start, else the config's
 * failure value (1 where the config said 0; FTI's 3 becomes 0, as in FTI). */
int fti_conf_failure_at_init(const struct fti_ctx *ctx);

/* Writes failure = `failure` and the job's exec_id on application rank 0
 * when the value differs from the one this run wrote last. Never fails. */
void fti_conf_update(struct fti_ctx *ctx, int failure);

/* FTI_Finalize succeeded: 2 when keep_last_ckpt kept a checkpoint, else 0;
 * with keep_l4_ckpt (and no checkpoint kept) the value stays, as in FTI. */
void fti_conf_update_finalize(struct fti_ctx *ctx);

#endif /* FTI_CONF_UPDATE_H */
