#include "core/commit.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

fti_err fti_commit_record_read(fti_ctx *ctx, int *found)
{
    int status[2] = {0, 0}; /* ok, found */
    if (ctx->topo.app_rank == 0) {
        fti_err e = fti_meta_load(ctx->dirs.commit, &ctx->meta, found);
        status[0] = e == FTI_E_OK;
        status[1] = *found;
    }
    MPI_Bcast(status, 2, MPI_INT, 0, ctx->topo.app);
    MPI_Bcast(&ctx->meta, (int)sizeof ctx->meta, MPI_BYTE, 0, ctx->topo.app);
    *found = status[1];
    if (!status[0])
        return fti_fail(FTI_E_CORRUPT, "commit record %s is damaged; nothing was deleted "
                        "(see the message of rank 0)", ctx->dirs.commit);
    return FTI_E_OK;
}

fti_err fti_commit_record_add(fti_ctx *ctx, const fti_commit *c)
{
    int ok = 1;
    if (ctx->topo.app_rank == 0) {
        fti_meta next = ctx->meta;
        fti_meta_record(&next, c, ctx->cfg.keep_all_levels);
        ok = fti_meta_store(ctx->dirs.commit, &next) == FTI_E_OK;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->topo.app);
    if (!ok)
        return fti_fail(FTI_E_IO, "checkpoint #%llu (level %d) not committed: rank 0 could not "
                        "write the commit record %s", (unsigned long long)c->seq, c->level,
                        ctx->dirs.commit);
    fti_meta_record(&ctx->meta, c, ctx->cfg.keep_all_levels);
    return FTI_E_OK;
}

fti_err fti_commit_record_remove(fti_ctx *ctx)
{
    int ok = 1;
    if (ctx->topo.app_rank == 0 && unlink(ctx->dirs.commit) != 0 && errno != ENOENT) {
        fti_fail(FTI_E_IO, "cannot remove the commit record %s: %s", ctx->dirs.commit, strerror(errno));
        ok = 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->topo.app);
    return ok ? FTI_E_OK : FTI_E_IO;
}

fti_err fti_commit_record_add_on_disk(const fti_ctx *ctx, const fti_commit *c)
{
    fti_meta m;
    int found;
    fti_err e = fti_meta_load(ctx->dirs.commit, &m, &found);
    if (e != FTI_E_OK)
        return e;
    fti_meta_record(&m, c, ctx->cfg.keep_all_levels);
    return fti_meta_store(ctx->dirs.commit, &m);
}
