/*
 * cleanup.h - removing a run's checkpoints (FTI_Finalize with
 * keep_last_ckpt = 0). Collective: nothing is deleted until every rank
 * agreed, and the commit record goes first, so a crash half-way leaves no
 * record pointing at half-deleted files.
 */
#ifndef FTI_CLEANUP_H
#define FTI_CLEANUP_H

#include "context.h"

fti_err fti_remove_checkpoints(fti_ctx *ctx);

/* Removes our checkpoint files (l*.fti) in dir; keeps anything else. */
void fti_remove_ckpt_files(const char *dir);

#endif /* FTI_CLEANUP_H */
