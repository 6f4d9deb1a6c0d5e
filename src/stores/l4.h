/*
 * l4.h - what the recovery path asks of level 4 beyond the level ops
 * (levels.h) and the store hooks (l4_store.h): whether a rank's file is read
 * where it is, whether a local copy serves a restart, and the restore of a
 * rank's own file.
 */
#ifndef FTI_L4_H
#define FTI_L4_H

#include <stdint.h>

#include "core/context.h"

/* 1 when this rank's file of checkpoint c is read straight from its global
 * copy, never copied back to local storage (the store's reads_in_place:
 * POSIX, uncompressed, no local copy kept). `path` gets the global file.
 * 0 below level 4. */
int fti_l4_reads_global(const fti_ctx *ctx, const fti_commit *c, char *path);

/* 1 when a restart may restore L4 checkpoint c from its local copy. Not
 * when the copy is the one FTI's heads keep (l4_local_copy not given,
 * head = 1, inline_l4 = 0): FTI's recovery never reads it, so a restart
 * needs the global files, as in FTI. l4_local_copy = 1 allows it. */
int fti_l4_local_serves_restart(const fti_ctx *ctx, const fti_commit *c);

/* Local: restores this rank's local file of L4 checkpoint c from its global
 * copy (FTI_Recover within the run that wrote c, which kept no local copy). */
fti_err fti_l4_restore_own(fti_ctx *ctx, const fti_commit *c);

#endif /* FTI_L4_H */
