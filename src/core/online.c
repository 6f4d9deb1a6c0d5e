#include "core/online.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/walltime.h"
#include "core/post.h"
#include "core/recover.h"
#include "runtime/collective.h"
#include "runtime/jobstatus.h"
#include "runtime/recover_state.h"
#include "runtime/log_fti.h"
#include "runtime/ulfm.h"

void fti_online_watch(fti_ctx *ctx)
{
    fti_topology *t = &ctx->topo;
    MPI_Comm comms[] = {t->app, t->global, t->group_comm, t->flush};
    fti_ulfm_forget(&ctx->ulfm);
    for (size_t i = 0; i < sizeof comms / sizeof comms[0]; i++)
        fti_ulfm_watch(&ctx->ulfm, comms[i]);
}

/* The run's nonce on every rank: a replacement has none (0), a survivor
 * has the run's. Two 32-bit halves, as job_claim.c sends it. */
static void share_nonce(fti_ctx *ctx)
{
    unsigned long long half[2] = {ctx->nonce >> 32, ctx->nonce & 0xffffffffULL};
    MPI_Allreduce(MPI_IN_PLACE, half, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, ctx->topo.global);
    ctx->nonce = (uint64_t)half[0] << 32 | half[1];
}

/* The library's state of a run that starts again over `work`, as FTI_Init
 * left it; a replacement also gets what FTI_Init gives application ranks. */
static fti_err rejoin(fti_ctx *ctx, MPI_Comm work, int replacement)
{
    fti_recover_release(ctx);
    memset(&ctx->rec, 0, sizeof ctx->rec);
    ctx->rec.var_fd = -1;
    /* The revoked communicators are left as they are, not freed: requests
     * the program had in flight at the jump still name them (Open MPI
     * aborts when such a request fails after its communicator was freed).
     * A few handles per recovery. */
    fti_topology_reset(&ctx->topo);
    fti_err e = fti_topology_build(&ctx->topo, &ctx->cfg, work);
    MPI_Comm_free(&work);
    if (e != FTI_E_OK)
        return e;
    fti_log_defer(0);
    fti_log_setup(ctx->topo.app_rank, ctx->cfg.verbosity);
    fti_say_setup(ctx->topo.global_rank, ctx->topo.app_rank == 0);
    fti_layout_place_node(&ctx->dirs, &ctx->cfg, ctx->topo.node);
    e = fti_layout_create(&ctx->dirs, &ctx->cfg, 1, 1);
    e = fti_agree(ctx->topo.global, e, FTI_E_CONFIG, "directories could not be created on "
                  "another rank");
    if (e != FTI_E_OK)
        return e;
    share_nonce(ctx);
    if (replacement && (e = fti_registry_init(&ctx->reg)) == FTI_E_OK)
        e = fti_post_init(ctx);
    if (e != FTI_E_OK)
        return e;
    fti_schedule_init(&ctx->sched, &ctx->cfg);
    fti_online_watch(ctx); /* FTI_COMM_WORLD becomes topo.app in the caller (api.c) */
    return fti_recover_prepare(ctx);
}

fti_err fti_online_repair(fti_ctx *ctx)
{
    double t0 = fti_now();
    int replacement = ctx->ulfm.role < 0;
    MPI_Comm work = MPI_COMM_NULL;
    fti_err e = fti_ulfm_repair(&ctx->ulfm, &work);
    if (e != FTI_E_OK || work == MPI_COMM_NULL) /* still a spare: nothing to rebuild */
        return e;
    double t1 = fti_now();
    e = rejoin(ctx, work, replacement);
    double t2 = fti_now();
    if (e != FTI_E_OK || !ctx->rec.pending)
        return e == FTI_E_OK ? FTI_E_NOREC : e;
    if (ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_INFO, "online recovery: %d rank%s replaced by spares in %.3f s, restart "
                "from checkpoint %lld chosen in %.3f s", ctx->ulfm.replaced,
                ctx->ulfm.replaced == 1 ? "" : "s", t1 - t0, (long long)ctx->rec.chosen.id,
                t2 - t1);
    fti_jobstatus_online(ctx->topo.app_rank, ctx->ulfm.replaced, t1 - t0, t2 - t1,
                         &ctx->rec.chosen);
    return FTI_E_OK;
}

fti_err fti_online_serve_spare(fti_ctx *ctx)
{
    fti_log(FTI_LOG_DEBUG, "spare rank waiting to replace a failed rank");
    while (ctx->ulfm.role < 0) {
        if (fti_ulfm_spare_wait(&ctx->ulfm) == 0) { /* released: ends as a head does */
            MPI_Comm_free(&ctx->ulfm.whole);
            MPI_Finalize();
            exit(0);
        }
        fti_err e = fti_online_repair(ctx);
        if (e != FTI_E_OK)
            return e;
    }
    return FTI_E_OK;
}

void fti_online_release(fti_ctx *ctx)
{
    fti_ulfm_release(&ctx->ulfm);
}
