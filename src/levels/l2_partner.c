/*
 * l2_partner.c - level 2: every rank's local file is copied to its partner
 * (the next node of its group's ring). A lost node's files come back from
 * its partner; afterwards the lost partner copies are re-sent, so the
 * checkpoint survives a second failure as well as the first.
 */
#include <stdio.h>
#include <unistd.h>

#include "format/ckpt_expect.h"
#include "base/fault.h"
#include "core/levels.h"
#include "base/log.h"
#include "levels/ring.h"

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
    e = fti_ring_transfer_image(r, mine, ctx->post_image, r->right, copy, r->left,
                                (size_t)ctx->cfg.transfer_size);
    if (e == FTI_E_OK)
        fti_fault_wrote(fti_l2_ops.phase, copy, 0, 0);
    return e;
}

/* Rank `rank`'s data of c, found at path in the role `role`. */
static int valid_copy(const fti_ctx *ctx, const fti_commit *c, int rank, const char *role,
                      const char *path)
{
    fti_expect x;
    fti_expect_data(&x, c, rank, ctx->dirs.exec_id, role);
    return fti_expect_valid(&x, path, NULL);
}

/* Moves one file along the ring; the received one, rank `rank`'s data of c
 * in the role `role`, is verified as it is stored (never read back). 1 when
 * this rank received nothing or a valid file, 0 (reason in fti_last_error)
 * otherwise. */
static int move_checked(const fti_ctx *ctx, const fti_commit *c, const fti_ring *r, const char *send,
                        int to, const char *recv, int from, int rank, const char *role)
{
    fti_file_stream chk;
    int checking = from != MPI_PROC_NULL && fti_file_stream_init(&chk, recv) == FTI_E_OK;
    fti_err e = fti_ring_transfer_checked(r, send, to, recv, from, (size_t)ctx->cfg.transfer_size,
                                          checking ? &chk : NULL);
    if (from == MPI_PROC_NULL)
        return 1;
    if (!checking)
        return 0;
    fti_expect x;
    fti_expect_data(&x, c, rank, ctx->dirs.exec_id, role);
    fti_log_quiet(1);
    if (e == FTI_E_OK)
        e = fti_expect_streamed(&x, &chk);
    else
        fti_file_stream_free(&chk);
    fti_log_quiet(0);
    return e == FTI_E_OK;
}

/* The partner of a member that lost its file sends the copy back; the
 * receiver writes it beside its local file (fti_path_rebuilt). */
static fti_err l2_rebuild(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    ctx->rec.extra_ok = 0;
    if (need_partner(ctx) != FTI_E_OK)
        return FTI_E_CONFIG;
    fti_ring r;
    fti_ring_of(ctx, &r);
    char copy[FTI_PATH_MAX], rebuilt[FTI_PATH_MAX];
    fti_path_rebuilt(&ctx->dirs, rebuilt, 2, c->slot, ctx->topo.app_rank);
    fti_path_partner(&ctx->dirs, copy, c->slot, r.app_rank[r.left]);
    int own[FTI_GROUP_MAX], held[FTI_GROUP_MAX];
    ctx->rec.extra_ok = valid_copy(ctx, c, r.app_rank[r.left], "L2 partner copy", copy);
    fti_ring_allgather(&r, own_ok, own);
    fti_ring_allgather(&r, ctx->rec.extra_ok, held);
    int p = r.pos;
    int send = !own[r.left] && held[p];
    int recv = !own[p] && held[r.right];
    int got = 1;
    if (send || recv) /* pairs that move nothing skip the transfer, both sides alike */
        got = move_checked(ctx, c, &r, copy, send ? r.left : MPI_PROC_NULL, rebuilt,
                           recv ? r.right : MPI_PROC_NULL, ctx->topo.app_rank,
                           "L2 partner copy received as");
    if (own_ok)
        return FTI_E_OK;
    if (recv && got) {
        ctx->rec.rebuilt = fti_file_version_of(-1, rebuilt); /* checked as it was written */
        return FTI_E_OK;
    }
    if (recv) {
        char why[600];
        snprintf(why, sizeof why, "%s", fti_last_error());
        unlink(rebuilt);
        return fti_fail(FTI_E_CORRUPT, "L2: local file lost; the copy from node %d is not usable: %s",
                        fti_plan_node(&ctx->topo.shape, r.app_rank[r.right]), why);
    }
    char mine[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, mine, 2, c->slot, ctx->topo.app_rank);
    return fti_fail(FTI_E_MISSING, "L2: local file %s lost, and its partner copy on node %d is lost "
                    "too", mine, fti_plan_node(&ctx->topo.shape, r.app_rank[r.right]));
}

/* Members that lost their partner copy get it again, and check it. Never
 * deferred: a rank whose copy is lost does not survive its node's loss. */
static int l2_reprotect(fti_ctx *ctx, const fti_commit *c, int may_defer)
{
    (void)may_defer;
    fti_ring r;
    fti_ring_of(ctx, &r);
    char mine[FTI_PATH_MAX], copy[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, mine, 2, c->slot, ctx->topo.app_rank);
    fti_path_partner(&ctx->dirs, copy, c->slot, r.app_rank[r.left]);
    int held[FTI_GROUP_MAX];
    fti_ring_allgather(&r, ctx->rec.extra_ok, held);
    int send = !held[r.right], recv = !held[r.pos];
    if (!send && !recv)
        return 0;
    if (!move_checked(ctx, c, &r, mine, send ? r.right : MPI_PROC_NULL, copy,
                      recv ? r.left : MPI_PROC_NULL, r.app_rank[r.left], "L2 partner copy"))
        fti_log(FTI_LOG_WARN, "L2: could not restore the partner copy %s: %s", copy,
                fti_last_error());
    return 0;
}

static void l2_remove(fti_ctx *ctx, int slot)
{
    fti_ring r;
    fti_ring_of(ctx, &r);
    char copy[FTI_PATH_MAX];
    fti_path_partner(&ctx->dirs, copy, slot, r.app_rank[r.left]);
    unlink(copy);
}

const fti_level_ops fti_l2_ops = {.level = 2, .name = "L2 partner copy",
                                  .phase = FTI_PHASE_L2_SEND, .post = l2_post,
                                  .rebuild = l2_rebuild, .reprotect = l2_reprotect,
                                  .remove = l2_remove};
