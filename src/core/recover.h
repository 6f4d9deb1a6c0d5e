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
#include "runtime/recover_state.h" /* what FTI_Recover restores now */

/* Collective (application ranks). Sets ctx->rec. FTI_E_NOREC when a
 * checkpoint exists but none can be restored; FTI_E_OK on a fresh start. */
fti_err fti_recover_prepare(fti_ctx *ctx);

/* Local, but for the first recovery call of a restart (this, or
 * fti_recover_var_open), which is collective: a chosen checkpoint whose
 * table does not match the protected variables on every rank gives way to
 * the newest older one that matches. Restores every protected variable. */
fti_err fti_recover_all(fti_ctx *ctx);

/* Collective (application ranks of each group), at the next checkpoint
 * or FTI_Finalize: re-creates what the restored checkpoint's level left
 * for later (its lost parity). Nothing when nothing is left. */
void fti_recover_reprotect_due(fti_ctx *ctx);

/* Local. One variable at a time, between open and fti_recover_var_close. */
fti_err fti_recover_var_open(fti_ctx *ctx);
fti_err fti_recover_var(fti_ctx *ctx, int id);

/* Local. The id that FTI_setIDFromString gave `name` in the run that wrote
 * the checkpoint to restore, or -1; the name keeps that id in this run. */
int fti_recover_name_id(fti_ctx *ctx, const char *name);

#endif /* FTI_RECOVER_H */
