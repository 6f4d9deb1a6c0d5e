#include "core/staging.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fio.h"
#include "fti.h"
#include "base/log.h"
#include "base/safe_fs.h"

static fti_err need_staging(fti_ctx *ctx, const char *fn)
{
    if (!ctx->cfg.enable_staging)
        return fti_fail(FTI_E_CONFIG, "%s: staging is off; set [basic] enable_staging = 1 in %s", fn,
                        ctx->cfg.file);
    return FTI_E_OK;
}

void fti_staging_path(const fti_ctx *ctx, char *out, size_t len)
{
    snprintf(out, len, "%s/stage", ctx->dirs.local);
}

fti_err fti_staging_dir(fti_ctx *ctx, char *out, int maxlen)
{
    fti_err e = need_staging(ctx, "FTI_GetStageDir");
    if (e != FTI_E_OK)
        return e;
    char dir[FTI_PATH_MAX + 16];
    fti_staging_path(ctx, dir, sizeof dir);
    if (out == NULL || maxlen <= 0 || (int)strlen(dir) >= maxlen)
        return fti_fail(FTI_E_ARG, "FTI_GetStageDir: buffer of %d bytes is too small for %s", maxlen, dir);
    char why[FTI_PATH_MAX + 512];
    if (fti_job_mkdirs(ctx->dirs.local, dir, ctx->cfg.group_shared_dirs, why, sizeof why) != 0)
        return fti_fail(FTI_E_IO, "FTI_GetStageDir: %s", why);
    snprintf(out, (size_t)maxlen, "%s", dir);
    return FTI_E_OK;
}

/* The folder of path, for syncing its entry: "." for a bare name. */
static void parent_dir(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s", path);
    char *slash = strrchr(out, '/');
    if (slash == NULL)
        snprintf(out, len, ".");
    else
        slash[slash == out] = '\0'; /* "/x" keeps "/" */
}

/* As FTI (without heads): the file is moved. The source goes only once the
 * copy is durable, its bytes and its directory entry; a failed copy keeps
 * it (the application may send it again). */
static fti_err move_file(const char *src, const char *dst)
{
    if (fti_copy_file(src, dst) != 0)
        return fti_fail(FTI_E_IO, "FTI_SendFile: copying %s to %s: %s; %s is kept", src, dst,
                        fti_fs_strerror(errno), src);
    char dir[FTI_PATH_MAX];
    parent_dir(dst, dir, sizeof dir);
    if (fti_fsync_dir(dir) != 0)
        return fti_fail(FTI_E_IO, "FTI_SendFile: syncing %s (the folder of %s): %s; %s is kept", dir,
                        dst, fti_fs_strerror(errno), src);
    if (unlink(src) != 0)
        return fti_fail(FTI_E_IO, "FTI_SendFile: %s is copied to %s, but removing it failed: %s",
                        src, dst, fti_fs_strerror(errno));
    return FTI_E_OK;
}

/* The file is moved now; the request completes before the call returns. */
int fti_staging_send(fti_ctx *ctx, const char *lpath, const char *rpath)
{
    if (need_staging(ctx, "FTI_SendFile") != FTI_E_OK)
        return FTI_NSCS;
    if (lpath == NULL || rpath == NULL) {
        fti_fail(FTI_E_ARG, "FTI_SendFile: path is NULL");
        return FTI_NSCS;
    }
    /* As FTI: the remote path is opened as given, so a relative one is
     * relative to the working directory, whose parent must exist. */
    const char *dst = rpath;
    fti_stage_requests *q = &ctx->stage;
    int *r = realloc(q->result, (size_t)(q->n + 1) * sizeof *r);
    if (r == NULL) {
        fti_fail(FTI_E_NOMEM, "FTI_SendFile: out of memory");
        return FTI_NSCS;
    }
    q->result = r;
    q->result[q->n] = move_file(lpath, dst) == FTI_E_OK ? FTI_SI_SCES : FTI_SI_FAIL;
    return q->n++;
}

int fti_staging_status(fti_ctx *ctx, int id)
{
    const fti_stage_requests *q = &ctx->stage;
    if (id < 0 || id >= q->n)
        return FTI_SI_NINI;
    return q->result[id];
}

void fti_staging_free(fti_ctx *ctx)
{
    free(ctx->stage.result);
    ctx->stage.result = NULL;
    ctx->stage.n = 0;
}
