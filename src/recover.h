/*
 * recover.h - restart. In FTI_Init, ranks agree on the newest committed
 * checkpoint that every rank can restore: each rank verifies its own local
 * file, and the level of the checkpoint (partner copy, parity, global copy)
 * rebuilds what is lost, cheapest first. Nothing is ever deleted here.
 * FTI_Recover then restores the protected variables, verifying checksums.
 */
#ifndef FTI_RECOVER_H
#define FTI_RECOVER_H

#include "context.h"

/* Collective (application ranks). Sets ctx->rec. FTI_E_NOREC when a
 * checkpoint exists but none can be restored; FTI_E_OK on a fresh start. */
fti_err fti_recover_prepare(fti_ctx *ctx);

/* Collective. Restores every protected variable. */
fti_err fti_recover_all(fti_ctx *ctx);

/* Local. One variable at a time, between open and close. */
fti_err fti_recover_var_open(fti_ctx *ctx);
fti_err fti_recover_var(fti_ctx *ctx, int id);
void fti_recover_var_close(fti_ctx *ctx);

void fti_recover_release(fti_ctx *ctx);

#endif /* FTI_RECOVER_H */
