/*
 * staging.h - FTI's staging calls (enable_staging = 1): a node-local stage
 * directory, and sending a file from it to the global file system.
 */
#ifndef FTI_STAGING_H
#define FTI_STAGING_H

#include "core/context.h"

/* The stage directory's path (node-local), whether or not it exists yet. */
void fti_staging_path(const fti_ctx *ctx, char *out, size_t len);
fti_err fti_staging_dir(fti_ctx *ctx, char *out, int maxlen);
/* Returns a request id >= 0, or FTI_NSCS. */
int fti_staging_send(fti_ctx *ctx, const char *lpath, const char *rpath);
/* FTI_SI_SCES, FTI_SI_FAIL or FTI_SI_NINI (unknown id). */
int fti_staging_status(fti_ctx *ctx, int id);
void fti_staging_free(fti_ctx *ctx);

#endif /* FTI_STAGING_H */
