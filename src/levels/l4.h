/*
 * l4.h - what the checkpoint and recovery paths ask of level 4 beyond the
 * level ops (levels.h): the single write straight to the global directory
 * when no local copy is kept, and the restore of a rank's own file.
 */
#ifndef FTI_L4_H
#define FTI_L4_H

#include <stdint.h>

#include "context.h"

/* 1 when checkpoint c (level 4) is written straight to the global
 * directory, with no local file: l4_local_copy = 0, ckpt_io 1 or 2, the
 * flush inline (no head or helper thread post-processes it), and for
 * MPI-IO or compression every variable in host memory. */
int fti_l4_writes_direct(fti_ctx *ctx, const fti_commit *c);

/* Writes this rank's part of checkpoint c to the global directory
 * (collective over the application ranks for ckpt_io = 2). *bytes: the
 * size of the rank's checkpoint file. On success ctx->rec.l4_written holds
 * its header until the commit hands it to fti_recover_track. */
fti_err fti_l4_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes);

/* 1 when this rank's file of L4 checkpoint c is read straight from its
 * global copy, never copied back to local storage: POSIX, uncompressed, no
 * local copy kept (l4_local_copy = 0). `path` gets the global file. */
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
