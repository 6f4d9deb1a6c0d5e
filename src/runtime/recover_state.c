#include "runtime/recover_state.h"

#include <string.h>
#include <unistd.h>

#include "base/log.h"

fti_err fti_recover_track(fti_ctx *ctx, const fti_commit *c)
{
    fti_recovery *r = &ctx->rec;
    fti_file_header written = r->l4_written; /* an L4 file written with no local copy */
    memset(&r->l4_written, 0, sizeof r->l4_written);
    fti_recover_release(ctx);
    r->available = 0;
    r->verified.known = 0; /* its header is checked below, not its bytes */
    r->chosen = *c;
    fti_path_local(&ctx->dirs, r->path, c->level, c->slot, ctx->topo.app_rank);
    if (c->level == 4 && written.vars != NULL && written.seq == c->seq && access(r->path, F_OK) != 0) {
        r->hdr = written; /* FTI_Recover fetches the file from the global copy */
        r->available = 1;
        return FTI_E_OK;
    }
    fti_file_header_free(&written);
    fti_log_quiet(1);
    fti_err e = fti_file_verify(r->path, c->seq, 0, &r->hdr);
    fti_log_quiet(0);
    r->available = e == FTI_E_OK;
    return e;
}

int fti_recover_passed_over(const fti_ctx *ctx, const fti_commit *c)
{
    const fti_recovery *r = &ctx->rec;
    return (r->refused || (r->available && c->seq > r->chosen.seq)) && c->seq <= r->start_seq;
}

void fti_recover_start_fresh(fti_ctx *ctx)
{
    uint64_t start = ctx->rec.start_seq;
    fti_recover_release(ctx);
    memset(&ctx->rec, 0, sizeof ctx->rec);
    ctx->rec.var_fd = -1;
    ctx->rec.start_seq = start;
    ctx->rec.refused = 1;
}

int fti_recover_refused_untouched(const fti_ctx *ctx)
{
    return ctx->rec.refused && ctx->meta.last_seq == ctx->rec.start_seq;
}

int fti_recover_replaced_untouched(const fti_ctx *ctx)
{
    return ctx->replaced.last_seq != 0 && ctx->meta.last_seq == ctx->replaced.last_seq;
}

/* As FTI, an L4 checkpoint keeps no local file (unless l4_local_copy = 1):
 * the one restored from the global copy goes once it was read; a later
 * recovery fetches it again. A global copy read where it is stays. */
void fti_recover_drop_l4_copy(fti_ctx *ctx)
{
    char local[FTI_PATH_MAX];
    const fti_commit *c = &ctx->rec.chosen;
    fti_path_local(&ctx->dirs, local, c->level, c->slot, ctx->topo.app_rank);
    if (c->level == 4 && !ctx->cfg.l4_local_copy && strcmp(ctx->rec.path, local) == 0)
        unlink(local);
}

void fti_recover_var_close(fti_ctx *ctx)
{
    if (ctx->rec.var_fd >= 0) {
        close(ctx->rec.var_fd);
        fti_recover_drop_l4_copy(ctx);
    }
    ctx->rec.var_fd = -1;
}

void fti_recover_release(fti_ctx *ctx)
{
    fti_recover_var_close(ctx);
    fti_file_header_free(&ctx->rec.hdr);
    fti_file_header_free(&ctx->rec.l4_written);
}
