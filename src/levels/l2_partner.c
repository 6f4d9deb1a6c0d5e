/*
 * l2_partner.c - level 2: every rank's local file is copied to its partner
 * (the next node of its group's ring). A lost node's files come back from
 * its partner; afterwards the lost partner copies are re-sent, so the
 * checkpoint survives a second failure as well as the first.
 */
#include <unistd.h>

#include "checkpoint.h"
#include "fault.h"
#include "levels.h"
#include "log.h"
#include "ring.h"

static fti_err need_partner(const fti_ctx *ctx)
{
    if (ctx->topo.group_size < 2)
        return fti_fail(FTI_E_CONFIG, "config %s: level 2 needs a partner node: [basic] group_size "
                        "is 1", ctx->cfg.file);
    return FTI_E_OK;
}

static fti_err l2_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *r)
{
    fti_err e = need_partner(ctx);
    if (e != FTI_E_OK)
        return e;
    char mine[FTI_PATH_MAX], copy[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, mine, 2, c->slot, r->app_rank[r->pos]);
    fti_path_partner(&ctx->dirs, copy, c->slot, r->app_rank[r->left]);
    e = fti_ring_transfer(r, mine, r->right, copy, r->left, (size_t)ctx->cfg.transfer_size);
    if (e == FTI_E_OK)
        fti_fault_wrote(fti_level_phase(2), copy, 0, 0);
    return e;
}

static fti_err l2_rebuild(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    if (need_partner(ctx) != FTI_E_OK)
        return FTI_E_CONFIG;
    fti_ring r;
    fti_ring_of(ctx, &r);
    size_t chunk = (size_t)ctx->cfg.transfer_size;
    char mine[FTI_PATH_MAX], copy[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, mine, 2, c->slot, ctx->topo.app_rank);
    fti_path_partner(&ctx->dirs, copy, c->slot, r.app_rank[r.left]);
    int own[32], held[32];
    fti_ring_allgather(&r, own_ok, own);
    fti_ring_allgather(&r, fti_file_valid(copy, c->seq), held);

    /* 1: the partner of a member that lost its file sends the copy back. */
    int p = r.pos;
    int send = !own[r.left] && held[p];
    int recv = !own[p] && held[r.right];
    if (send || recv) /* pairs that move nothing skip the transfer, both sides alike */
        fti_ring_transfer(&r, copy, send ? r.left : MPI_PROC_NULL, mine, recv ? r.right : MPI_PROC_NULL, chunk);
    int ok = own_ok || (recv && fti_file_valid(mine, c->seq));
    if (!ok)
        fti_fail(FTI_E_MISSING, "L2: local file %s lost, and its partner copy on node %d is lost too",
                 mine, ctx->topo.group * r.size + r.right);

    /* 2: members that lost their partner copy get it again. */
    int now[32];
    fti_ring_allgather(&r, ok, now);
    send = !held[r.right] && now[p] && now[r.right];
    recv = !held[p] && now[r.left] && now[p];
    if (send || recv)
        if (fti_ring_transfer(&r, mine, send ? r.right : MPI_PROC_NULL, copy,
                              recv ? r.left : MPI_PROC_NULL, chunk) != FTI_E_OK)
            fti_log(FTI_LOG_WARN, "L2: could not restore the partner copy %s", copy);
    return ok ? FTI_E_OK : FTI_E_MISSING;
}

static void l2_remove(fti_ctx *ctx, int slot)
{
    fti_ring r;
    fti_ring_of(ctx, &r);
    char copy[FTI_PATH_MAX];
    fti_path_partner(&ctx->dirs, copy, slot, r.app_rank[r.left]);
    unlink(copy);
}

const fti_level_ops fti_l2_ops = {2, "L2 partner copy", l2_post, l2_rebuild, l2_remove};
