#include "runtime/conf_update.h"

#include <stdio.h>

#include "core/context.h"
#include "base/ini_edit.h"
#include "base/log.h"

int fti_conf_failure_at_init(const fti_ctx *ctx)
{
    if (!ctx->rec.pending || ctx->cfg.failure == 3)
        return 0;
    return ctx->cfg.failure > 0 ? ctx->cfg.failure : 1;
}

void fti_conf_update_finalize(fti_ctx *ctx)
{
    fti_commit cand[8];
    if (ctx->cfg.keep_last_ckpt && fti_meta_candidates(&ctx->meta, cand) > 0)
        fti_conf_update(ctx, 2);
    else if (!ctx->cfg.keep_l4_ckpt)
        fti_conf_update(ctx, 0);
}

void fti_conf_update(fti_ctx *ctx, int failure)
{
    fti_conf_record *r = &ctx->conf_record;
    if (!ctx->cfg.update_config || ctx->topo.app_rank != 0 || r->disabled)
        return;
    if (r->written && r->failure == failure)
        return;
    char value[16], why[FTI_PATH_MAX + 128];
    snprintf(value, sizeof value, "%d", failure);
    fti_ini_kv kv[] = {{"failure", value}, {"exec_id", ctx->dirs.exec_id}};
    if (fti_ini_set(ctx->cfg.file, "restart", kv, 2, why, sizeof why) != 0) {
        r->disabled = 1; /* one warning per run; the job does not depend on it */
        fti_log(FTI_LOG_WARN, "config %s: [restart] failure and exec_id are not updated as FTI "
                "does (%s); the restart does not need them (set [restart] update_config = 0 "
                "to silence this)", ctx->cfg.file, why);
        return;
    }
    r->written = 1;
    r->failure = failure;
}
