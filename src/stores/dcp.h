/*
 * dcp.h - differential checkpoints at level 4 (FTI_L4_DCP, enable_dcp = 1,
 * ckpt_io = 1). Each rank writes straight from its buffers one layer file on
 * the global file system holding only the blocks whose XXH3 hash changed
 * since the committed dCP checkpoint (dcp_file.h). Recovery assembles the
 * rank's ordinary checkpoint file from the chain of layers.
 */
#ifndef FTI_DCP_H
#define FTI_DCP_H

#include <stdint.h>

#include "core/context.h"
#include "fti.h" /* FTI_L4_DCP */

/* dcp_block_size when the config leaves it 0, and dcp_stack_size's default. */
#define FTI_DCP_DEFAULT_BLOCK (64 * 1024)
#define FTI_DCP_DEFAULT_STACK 5

/* The dCP store's hooks (l4_store.h: fti_l4_dcp_store). Not collective:
 * writes this rank's layer of checkpoint c. *bytes: the layer file's size. The layer is under its final
 * name only once complete and synced; the committed chain is never touched. */
fti_err fti_dcp_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes);

/* Collective over the application ranks, once a level-8 checkpoint is
 * committed: rank 0 prints the share of the data its layers stored. */
void fti_dcp_report(fti_ctx *ctx);

/* Not collective: restores this rank's local file of c (level 4 slot file)
 * from the layers, verifying every block and variable checksum. */
fti_err fti_dcp_rebuild(fti_ctx *ctx, const fti_commit *c);

/* Not collective, after a commit: removes this rank's layers that no
 * committed checkpoint needs any more, and unfinished ones. */
void fti_dcp_collect(fti_ctx *ctx);

/* Not collective, at FTI_Finalize: forgets the kept map of the last layer and
 * stops tracking written pages (the memory is writable again). */
void fti_dcp_release(fti_ctx *ctx);

#endif /* FTI_DCP_H */
