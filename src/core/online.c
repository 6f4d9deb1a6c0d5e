#include "core/online.h"

#include <stdlib.h>
#include <string.h>

#include "base/fault.h"
#include "base/log.h"
#include "base/walltime.h"
#include "core/post.h"
#include "core/recover.h"
#include "runtime/collective.h"
#include "runtime/job_claim.h"
#include "runtime/jobstatus.h"
#include "runtime/recover_state.h"
#include "runtime/log_fti.h"
#include "runtime/metrics.h"
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
    fti_fault_phase(FTI_PHASE_REJOIN); /* tests: a rank killed while the others rebuild */
    fti_log_defer(0);
    fti_log_setup(ctx->topo.app_rank, ctx->cfg.verbosity);
    fti_say_setup(ctx->topo.global_rank, ctx->topo.app_rank == 0);
    /* a replacement reads FTI_FAULT for the rank it now is, as a relaunched
     * rank would (the others checked it in FTI_Init) */
    if (replacement && ctx->post == NULL &&
        fti_fault_init(ctx->topo.app_rank, ctx->topo.app_size) != 0)
        return FTI_E_CONFIG;
    fti_layout_place_node(&ctx->dirs, &ctx->cfg, ctx->topo.node);
    e = fti_layout_create(&ctx->dirs, &ctx->cfg, 1, 1);
    e = fti_agree(ctx->topo.global, e, FTI_E_CONFIG, "directories could not be created on "
                  "another rank");
    if (e != FTI_E_OK)
        return e;
    /* a relaunch would take the checkpoint set's locks: so does the replacement */
    e = fti_agree(ctx->topo.global, fti_job_claim_retake(ctx), FTI_E_STATE, "the checkpoint "
                  "set's lock could not be taken again on another rank");
    if (e != FTI_E_OK)
        return e;
    share_nonce(ctx);
    /* once: a repair started again after this point finds them made */
    if (replacement && ctx->post == NULL && (e = fti_registry_init(&ctx->reg)) == FTI_E_OK)
        e = fti_post_init(ctx);
    if (e != FTI_E_OK)
        return e;
    fti_schedule_init(&ctx->sched, &ctx->cfg);
    fti_online_watch(ctx); /* FTI_COMM_WORLD becomes topo.app in the caller (api.c) */
    return fti_recover_prepare(ctx);
}

/* A rank that leaves rejoin early (an MPI error: a process failed) revokes
 * the library's new communicators, so no rank waits in one of them for it. */
static void revoke_topology(fti_ctx *ctx)
{
    fti_topology *t = &ctx->topo;
    MPI_Comm comms[] = {t->global, t->app, t->group_comm, t->head_comm, t->heads, t->flush};
    for (size_t i = 0; i < sizeof comms / sizeof comms[0]; i++)
        fti_ulfm_revoke(comms[i]);
}

/* One repair: the communicators, then (application ranks) the library's
 * state over them. Every rank of the repaired communicator, spares too,
 * then agrees whether a process failed meanwhile: *again is set, the whole
 * repair starts over from what survived. */
static fti_err repair_and_rejoin(fti_ctx *ctx, int replacement, double *t1, int *again)
{
    MPI_Comm work = MPI_COMM_NULL;
    *again = 0;
    fti_err e = fti_ulfm_repair(&ctx->ulfm, &work);
    if (e != FTI_E_OK)
        return e;
    *t1 = fti_now();
    if (work != MPI_COMM_NULL) /* a spare that stays one has nothing to rebuild */
        e = rejoin(ctx, work, replacement);
    if (e != FTI_E_OK)
        revoke_topology(ctx);
    int settled = fti_ulfm_settled(&ctx->ulfm, e == FTI_E_OK);
    if (settled < 0) {
        fti_log(ctx->ulfm.role == 0 ? FTI_LOG_WARN : FTI_LOG_DEBUG, /* said once */
                "online recovery: a rank failed while the library rebuilt its "
                "communicators; the repair starts again");
        *again = 1;
        return FTI_E_OK;
    }
    if (e == FTI_E_OK && !settled)
        e = fti_fail(FTI_E_MPI, "online recovery: the library's state could not be rebuilt "
                     "on another rank");
    return e;
}

fti_err fti_online_repair(fti_ctx *ctx)
{
    double t0 = fti_now(), t1 = t0;
    int replacement = ctx->ulfm.role < 0, again = 1, replaced = 0;
    fti_err e = FTI_E_OK;
    for (int attempt = 0; again && attempt < 16; attempt++) {
        e = repair_and_rejoin(ctx, replacement, &t1, &again);
        replaced += ctx->ulfm.replaced;
        if (e != FTI_E_OK)
            return e;
    }
    if (again)
        return fti_fail(FTI_E_MPI, "online recovery: ranks kept failing during the repair "
                        "(16 repairs in a row)");
    if (ctx->ulfm.role < 0) /* still a spare */
        return FTI_E_OK;
    ctx->ulfm.replaced = replaced;
    double t2 = fti_now();
    if (!ctx->rec.pending)
        return FTI_E_NOREC;
    if (ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_INFO, "online recovery: %d rank%s replaced by spares in %.3f s, restart "
                "from checkpoint %lld chosen in %.3f s", ctx->ulfm.replaced,
                ctx->ulfm.replaced == 1 ? "" : "s", t1 - t0, (long long)ctx->rec.chosen.id,
                t2 - t1);
    fti_jobstatus_online(ctx->topo.app_rank, ctx->ulfm.replaced, t1 - t0, t2 - t1,
                         &ctx->rec.chosen);
    fti_metrics_online(ctx, ctx->ulfm.replaced, t1 - t0, t2 - t1);
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
