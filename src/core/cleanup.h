/*
 * cleanup.h - removing checkpoints: a run's at FTI_Finalize (with
 * keep_last_ckpt = 0), older lower-level ones after each commit. Collective: nothing is deleted until every rank
 * agreed, and the commit record goes first, so a crash half-way leaves no
 * record pointing at half-deleted files.
 */
#ifndef FTI_CLEANUP_H
#define FTI_CLEANUP_H

#include "core/context.h"

fti_err fti_remove_checkpoints(fti_ctx *ctx);

/* As FTI, after checkpoint c is committed: the local files of every lower
 * level (unless keep_all_levels = 1) and, for L4, the local copy of L4
 * checkpoints (unless l4_local_copy = 1) are removed; the commit record
 * already forgot them. Collective over the application ranks. */
void fti_prune_after_commit(fti_ctx *ctx, const fti_commit *c);

/* A head, once checkpoint c it post-processed is committed: the node's
 * local files of the levels c makes obsolete, before the ranks hear of it,
 * as FTI's heads clean them (a program that ends right after, as FTI's
 * crash simulations do, leaves what FTI leaves). c's own files stay for
 * the ranks to handle. Not collective. */
void fti_prune_node_lower(fti_ctx *ctx, const fti_commit *c);

/* Removes the local files of levels below `below`, and of level 4 when l4
 * is set (no commit names them any more). Collective over the application
 * ranks. */
void fti_prune_local(fti_ctx *ctx, int below, int l4);

/* Whether a committed checkpoint of `level` removes older local files. */
int fti_prunes_after(const fti_config *cfg, int level);

/* Removes our checkpoint files (l*.fti) in dir; keeps anything else. */
void fti_remove_ckpt_files(const char *dir);

#endif /* FTI_CLEANUP_H */
