/*
 * checkpoint_write.h - the local write of a checkpoint: this rank's first
 * file (the L1 file every level starts from), from the protected variables
 * or a staged copy of them. Called by checkpoint.c and by post.c's helper
 * thread, below both.
 */
#ifndef FTI_CHECKPOINT_WRITE_H
#define FTI_CHECKPOINT_WRITE_H

#include <stdint.h>

#include "core/context.h"

/* This rank's first file of checkpoint c (the local file), written from the
 * variables of `reg`: the context's registry, or an asynchronous
 * checkpoint's copy of it (ckpt_copy.h). Not collective: the helper thread
 * calls it. *bytes: the file's size. */
fti_err fti_checkpoint_write_from(fti_ctx *ctx, const fti_registry *reg, const fti_commit *c,
                                  uint64_t *bytes);

/* The same, with the capture sets and chunk size of reg's device variables
 * given: the helper thread writes a copy-on-write snapshot (data/cow.h)
 * through its own sets, in small chunks (the chunks are its buffers). */
fti_err fti_checkpoint_write_via(fti_ctx *ctx, const fti_registry *reg, const fti_commit *c,
                                 uint64_t *bytes, fti_capture_sets *sets, size_t chunk);

#endif /* FTI_CHECKPOINT_WRITE_H */
