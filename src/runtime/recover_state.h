/*
 * recover_state.h - what this run may restore (ctx->rec): the checkpoint
 * FTI_Recover restores now (the one the restart chose, then each one this
 * run commits), the commits the restart passed over, and the open file of
 * the restore. Below recover.c (the restart's search and the restore
 * itself), the commit (checkpoint_commit.c) and the dCP store, which ask it
 * without reaching the restart.
 */
#ifndef FTI_RECOVER_STATE_H
#define FTI_RECOVER_STATE_H

#include "core/context.h"

/* Local, after checkpoint c was committed: FTI_Recover (and RecoverVar,
 * GetStoredSize, Realloc) now restore c, as FTI does within one run.
 * Reads the header of this rank's local file of c. */
fti_err fti_recover_track(fti_ctx *ctx, const fti_commit *c);

/* Whether this run's restart passed over commit c as unrestorable: newer
 * than the checkpoint it restored, and taken before this run. Nothing may
 * build on such a commit or flush it. */
int fti_recover_passed_over(const fti_ctx *ctx, const fti_commit *c);

/* After fti_recover_prepare found no checkpoint every rank can restore: the
 * run goes on as a fresh start, as FTI's does (FTI_Init returns FTI_NREC,
 * FTI_Status() is 0), and every commit taken before it is passed over. */
void fti_recover_start_fresh(fti_ctx *ctx);

/* Whether this run started fresh that way and has committed nothing since:
 * the checkpoints it could not restore are all there is, and they stay. */
int fti_recover_refused_untouched(const fti_ctx *ctx);

/* Whether this restart = never run found a commit record and has committed
 * nothing since: those checkpoints are not this run's, and they stay. */
int fti_recover_replaced_untouched(const fti_ctx *ctx);

/* Local: the chosen checkpoint's file was read; an L4 one restored from the
 * global copy goes again (as in FTI, no local file is kept). */
void fti_recover_drop_l4_copy(fti_ctx *ctx);

/* Local: closes FTI_RecoverVarInit's file (nothing when none is open). */
void fti_recover_var_close(fti_ctx *ctx);

/* Local: closes, unmaps and frees what the restore holds. */
void fti_recover_release(fti_ctx *ctx);

#endif /* FTI_RECOVER_STATE_H */
