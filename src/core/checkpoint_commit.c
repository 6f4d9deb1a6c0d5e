#include "core/checkpoint_commit.h"

#include "base/fault.h"
#include "core/cleanup.h"
#include "core/commit.h"
#include "runtime/recover_state.h"
#include "runtime/conf_update.h"
#include "runtime/jobstatus.h"
#include "runtime/metrics.h"

fti_err fti_checkpoint_commit(fti_ctx *ctx, const fti_commit *c)
{
    fti_fault_phase(FTI_PHASE_BEFORE_COMMIT);
    fti_err e = fti_commit_record_add(ctx, c);
    if (e != FTI_E_OK)
        return e;
    fti_metrics_job_committed(ctx, c);
    fti_conf_update(ctx, 1); /* FTI: a checkpoint exists to restart from */
    fti_jobstatus_committed(ctx->topo.app_rank, c);
    fti_fault_phase(FTI_PHASE_AFTER_COMMIT);
    fti_recover_track(ctx, c); /* FTI_Recover in this run restores c; best effort */
    fti_prune_after_commit(ctx, c);
    return FTI_E_OK;
}
