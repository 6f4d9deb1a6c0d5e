/*
 * recover.h - restart. In FTI_Init, ranks agree on the newest committed
 * checkpoint that every rank can restore: each rank verifies its own local
 * file, and the level of the checkpoint (partner copy, parity, global copy)
 * rebuilds what is lost, cheapest first. Nothing is ever deleted here.
 * FTI_Recover then restores the protected variables, verifying checksums.
 */
#ifndef FTI_RECOVER_H
#define FTI_RECOVER_H

#include "core/context.h"

/* Collective (application ranks). Sets ctx->rec. FTI_E_NOREC when a
 * checkpoint exists but none can be restored; FTI_E_OK on a fresh start. */
fti_err fti_recover_prepare(fti_ctx *ctx);

/* Local, but for the first recovery call of a restart (this, or
 * fti_recover_var_open), which is collective: a chosen checkpoint whose
 * table does not match the protected variables on every rank gives way to
 * the newest older one that matches. Restores every protected variable. */
fti_err fti_recover_all(fti_ctx *ctx);

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

/* Collective (application ranks of each group), at the next checkpoint
 * or FTI_Finalize: re-creates what the restored checkpoint's level left
 * for later (its lost parity). Nothing when nothing is left. */
void fti_recover_reprotect_due(fti_ctx *ctx);

/* Local. One variable at a time, between open and close. */
fti_err fti_recover_var_open(fti_ctx *ctx);
fti_err fti_recover_var(fti_ctx *ctx, int id);
void fti_recover_var_close(fti_ctx *ctx);

void fti_recover_release(fti_ctx *ctx);

/* Local. The id that FTI_setIDFromString gave `name` in the run that wrote
 * the checkpoint to restore, or -1; the name keeps that id in this run. */
int fti_recover_name_id(fti_ctx *ctx, const char *name);

#endif /* FTI_RECOVER_H */
