/*
 * commit.h - the commit record's collective side: rank 0 reads, rewrites or
 * removes the record (meta.h: its format and its rules) and every rank
 * leaves with the same outcome and the same copy in ctx->meta. The only code
 * that does I/O on ctx->dirs.commit; fti-ckpt reads it with fti_meta_load.
 */
#ifndef FTI_COMMIT_H
#define FTI_COMMIT_H

#include "core/context.h"

/* Collective over the application ranks: loads the record into ctx->meta
 * (all ranks alike). *found = 0 when there is none. A damaged record is
 * FTI_E_CORRUPT on every rank; rank 0 said why. */
fti_err fti_commit_record_read(fti_ctx *ctx, int *found);

/* Collective: checkpoint c joins the record (fti_meta_record), written by
 * rank 0 atomically; ctx->meta changes on every rank only once it is on
 * disk. FTI_E_IO on every rank when rank 0 could not write it. */
fti_err fti_commit_record_add(fti_ctx *ctx, const fti_commit *c);

/* Not collective: adds c to the record on disk (read, add, write
 * atomically). A head calls it for the job it post-processed, so the
 * checkpoint counts even when the application ends before its next FTI
 * call, as in FTI. ctx->meta is not touched. */
fti_err fti_commit_record_add_on_disk(const fti_ctx *ctx, const fti_commit *c);

/* Collective: rank 0 removes the record (absent is fine). FTI_E_IO on every
 * rank when it could not: the files it names must then stay. */
fti_err fti_commit_record_remove(fti_ctx *ctx);

#endif /* FTI_COMMIT_H */
