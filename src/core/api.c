/*
 * api.c - the public FTI_* entry points. Each one checks the call order,
 * validates its arguments, forwards to a module and maps the internal error
 * onto FTI_SCES / FTI_NSCS / FTI_NREC.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fti.h"
#include "format/fti_types_table.h"

#include "core/checkpoint.h"
#include "runtime/collective.h"
#include "base/walltime.h"
#include "core/context.h"
#include "base/fault.h"
#include "base/fio.h"
#include "base/heap_probe.h"
#include "data/dirty_pages.h"
#include "runtime/job_claim.h"
#include "runtime/jobstatus.h"
#include "stores/hdf5/h5_groups.h"
#include "stores/hdf5/h5_single.h"
#include "stores/dcp.h"
#include "runtime/watchdog.h"
#include "runtime/ulfm.h"
#include "stores/l4_store.h"
#include "core/levels.h"
#include "runtime/conf_update.h"
#include "base/log.h"
#include "runtime/log_fti.h"
#include "runtime/metrics.h"
#include "core/post.h"
#include "core/recover.h"
#include "core/staging.h"
#include "core/cleanup.h"
#include "core/online.h"
#ifdef FTI_HAVE_CUDA
#include "cuda/fti_cuda.h"
#endif

_Static_assert(sizeof(((FTIT_shape *)0)->count) == FTI_MAX_DIMS * sizeof(int64_t),
               "FTI_MAX_DIMS is the size of FTIT_shape's count array");

/* The globals the FTI API defines by contract; everything else is in ctx. */
MPI_Comm FTI_COMM_WORLD = MPI_COMM_NULL;
#define FTI_TYPE_GLOBAL(NAME, id, ctype, kind, h5) fti_id_t FTI_##NAME = id;
FTI_PREDEFINED_TYPES(FTI_TYPE_GLOBAL)
#undef FTI_TYPE_GLOBAL

static fti_ctx the_ctx;
static MPI_Comm user_comm = MPI_COMM_NULL; /* the communicator given to FTI_Init */

static int to_code(fti_err e)
{
    if (e == FTI_E_OK)
        return FTI_SCES;
    return e == FTI_E_NOREC ? FTI_NREC : FTI_NSCS;
}

/* The call-order check: every entry point but FTI_Init needs a live library. */
static fti_ctx *ready(const char *fn)
{
    if (the_ctx.state == FTI_ST_READY)
        return &the_ctx;
    int mpi_up = 0, rank = -1;
    MPI_Initialized(&mpi_up);
    if (mpi_up && the_ctx.state == FTI_ST_UNINIT) /* name the rank even before FTI_Init */
        MPI_Comm_rank(MPI_COMM_WORLD, &rank), fti_log_setup(rank, FTI_LOG_INFO);
    if (the_ctx.state == FTI_ST_FINALIZED)
        fti_fail(FTI_E_STATE, "%s called after FTI_Finalize", fn);
    else
        fti_fail(FTI_E_STATE, "%s called before a successful FTI_Init", fn);
    return NULL;
}

fti_ctx *fti_api_ctx(const char *fn)
{
    return ready(fn);
}

/* ---- init and finalize ---------------------------------------------------- */

static void release(fti_ctx *ctx)
{
    fti_post_shutdown(ctx);
    fti_recover_release(ctx);
    fti_registry_free(&ctx->reg);
    fti_staging_free(ctx);
    fti_capture_sets_free(&ctx->capture); /* pinned buffers and streams of device variables */
    fti_job_claim_release(ctx);
    fti_h5_groups_release(&ctx->h5);
    fti_dcp_release(ctx);
}

/* Steps of FTI_Init that every rank does alike; each ends in agreement. */
static fti_err init_steps(fti_ctx *ctx, const char *configFile, MPI_Comm comm)
{
    /* Every rank reads the same file: its error is printed once, by rank 0
     * of comm, with the ranks that met it (fti_agree). */
    fti_log_defer(1);
    fti_err e = fti_config_load(&ctx->cfg, configFile);
    int njob;
    MPI_Comm_size(comm, &njob);
    if (e == FTI_E_OK)
        e = fti_ulfm_check(&ctx->cfg, njob); /* online_recovery: this MPI can? */
    e = fti_agree(comm, e, FTI_E_CONFIG, "config %s rejected on another rank", configFile);
    fti_log_defer(0);
    if (e != FTI_E_OK)
        return e;
    fti_l4_stores_choose(ctx); /* the L4 stores, once */
    /* online_recovery: the spares (the last ranks) stop here; the others
     * go on over the application ranks' communicator */
    fti_ulfm_setup(&ctx->ulfm, &ctx->cfg, comm, &comm);
    fti_watchdog_blocking(ctx->ulfm.on);
    if (ctx->ulfm.on && ctx->ulfm.role < 0)
        return fti_layout_init(&ctx->dirs, &ctx->cfg);
    int rank, nranks;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nranks);
    fti_log_setup(rank, ctx->cfg.verbosity);
    fti_log_set_style((fti_log_style)ctx->cfg.log_style);
    fti_log_defer(1);
    if (fti_fault_init(rank, nranks) != 0)
        e = FTI_E_CONFIG;
    e = fti_agree(comm, e, FTI_E_CONFIG, "FTI_FAULT rejected on another rank");
    fti_log_defer(0);
    if (e != FTI_E_OK)
        return e;
    if ((e = fti_topology_build(&ctx->topo, &ctx->cfg, comm)) != FTI_E_OK)
        return e; /* its checks agree by construction: same numbers on every rank */
    fti_log_setup(ctx->topo.is_head ? -1 - ctx->topo.node : ctx->topo.app_rank, ctx->cfg.verbosity);
    fti_say_setup(ctx->topo.global_rank, !ctx->topo.is_head && ctx->topo.app_rank == 0);
    fti_layout_init(&ctx->dirs, &ctx->cfg);
    fti_layout_place_node(&ctx->dirs, &ctx->cfg, ctx->topo.node);
    fti_log_defer(1);
    e = fti_layout_create(&ctx->dirs, &ctx->cfg, 1, 1);
    e = fti_agree(ctx->topo.global, e, FTI_E_CONFIG, "directories could not be created on another rank");
    fti_log_defer(0);
    if (e != FTI_E_OK)
        return e;
    if ((e = fti_job_claim(ctx)) != FTI_E_OK) /* collective: every rank agrees */
        return e;
    if ((e = fti_registry_init(&ctx->reg)) != FTI_E_OK)
        return e;
    ctx->reg.no_device_lookup = ctx->cfg.device_backends == FTI_DEVICES_OFF;
#ifdef FTI_HAVE_CUDA
    if (ctx->cfg.device_backends == FTI_DEVICES_CUDA)
        fti_cuda_allow_loading();
#endif
    fti_schedule_init(&ctx->sched, &ctx->cfg);
    ctx->rec.var_fd = -1;
    return FTI_E_OK;
}

/* Undoes a failed FTI_Init: every resource released, FTI_COMM_WORLD left as
 * FTI leaves it, so the application can report and call MPI_Finalize: the
 * communicator given, or, once the heads serve (they end when released
 * here), the application ranks' communicator, which is then kept for it. */
static int init_failed(fti_ctx *ctx, fti_err e, int heads_serving)
{
    MPI_Comm app = MPI_COMM_NULL;
    if (heads_serving) {
        app = ctx->topo.app;
        ctx->topo.app = MPI_COMM_NULL; /* not freed: it is FTI_COMM_WORLD now */
    }
    ctx->state = FTI_ST_UNINIT;
    release(ctx);
    fti_topology_free(&ctx->topo);
    FTI_COMM_WORLD = app != MPI_COMM_NULL ? app : user_comm;
    return to_code(e);
}

/* FTI's own suites call FTI_Init again on a live library and expect success;
 * the library stays as it is (same config, protected variables kept). */
static int init_again(fti_ctx *ctx, const char *configFile)
{
    if (ctx->topo.app_rank <= 0)
        fti_log(FTI_LOG_WARN, "FTI_Init(%s) called again without FTI_Finalize: the library is "
                "already initialized (config %s); nothing changed", configFile ? configFile : "NULL",
                ctx->cfg.file);
    return FTI_SCES;
}

/* A head serves until the application ranks of its node finalized. Kept
 * alive (keep_heads_alive = 1), it returns FTI_HEAD with FTI_COMM_WORLD the
 * communicator of every head in node order, as FTI's: programs call
 * MPI_Comm_rank on it right after. Its own copy, since serving frees the
 * topology; the application owns it from then on (FTI frees it neither). */
static int serve_head(fti_ctx *ctx)
{
    MPI_Comm heads = MPI_COMM_NULL;
    if (ctx->cfg.keep_heads_alive)
        fti_watched_dup(ctx->topo.heads, &heads, "FTI_Init: the heads' FTI_COMM_WORLD");
    int rc = fti_post_serve_head(ctx);
    FTI_COMM_WORLD = heads;
    return rc;
}

/* FTI_Init's last words, from application rank 0: FTI's execution id line
 * and our ready line say the same start (log_style picks them); the head
 * hint is ours alone, so it is said in every style. */
static void say_ready(const fti_ctx *ctx)
{
    static const char head_hint[] = "head = 1: one rank per node serves checkpoints, so the "
                                    "application must communicate on FTI_COMM_WORLD, never "
                                    "MPI_COMM_WORLD";
    fti_say_exec_id(ctx->rec.pending, ctx->dirs.exec_id);
    if (ctx->topo.app_rank != 0)
        return;
    if (fti_log_style_has(FTI_LOG_STYLE_OURS))
        fti_log(FTI_LOG_INFO, "FTI %s ready: %d application ranks, %d nodes, exec_id %s, %s%s%s",
                FTI_VERSION_STRING, ctx->topo.app_size, ctx->topo.nnodes, ctx->dirs.exec_id,
                ctx->rec.pending ? "restart" : "fresh start", ctx->cfg.head ? "; " : "",
                ctx->cfg.head ? head_hint : "");
    else if (ctx->cfg.head)
        fti_log(FTI_LOG_INFO, "%s", head_hint);
}

/* Online recovery cannot go on (no spare left, no checkpoint all ranks can
 * restore): the job ends as it would without it, and fti-run relaunches. */
static void online_failed(fti_ctx *ctx, fti_err e)
{
    fti_log(FTI_LOG_ERROR, "%s; no online recovery: the job ends (MPI_Abort)", fti_last_error());
    fti_jobstatus_init_error(ctx->topo.global_rank, e, fti_last_error());
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* After a repair (e from it), on the replacement and on the survivors: the
 * job goes on over the repaired FTI_COMM_WORLD, or ends (online_failed). */
static void online_rejoined(fti_ctx *ctx, fti_err e)
{
    if (e == FTI_E_NOREC)
        fti_fail(e, "online recovery: no checkpoint that every rank can restore");
    if (e != FTI_E_OK)
        online_failed(ctx, e);
    FTI_COMM_WORLD = ctx->topo.app;
    ctx->metrics.job.restarted = 1;
}

/* A spare (online_recovery, spare_ranks): waits in FTI_Init and returns only
 * as the rank it replaces, its restart pending; released by FTI_Finalize,
 * it ends as a head does. */
static int serve_spare(fti_ctx *ctx)
{
    online_rejoined(ctx, fti_online_serve_spare(ctx));
    ctx->state = FTI_ST_READY;
    fti_jobstatus_ready(ctx->topo.app_rank, ctx->dirs.exec_id, &ctx->rec.chosen);
    return FTI_SCES;
}

int FTI_Init(const char *configFile, MPI_Comm globalComm)
{
    fti_ctx *ctx = &the_ctx;
    int mpi_up = 0;
    MPI_Initialized(&mpi_up);
    if (!mpi_up) {
        fti_fail(FTI_E_STATE, "FTI_Init called before MPI_Init");
        return FTI_NSCS;
    }
    if (ctx->state == FTI_ST_READY)
        return init_again(ctx, configFile);
    memset(ctx, 0, sizeof *ctx);
    fti_topology_reset(&ctx->topo); /* MPI_COMM_NULL is not 0 (MPICH) */
    ctx->metrics.job.start = fti_now(); /* metrics: the job summary */
    user_comm = globalComm;
    ctx->user_comm = globalComm;
    FTI_COMM_WORLD = globalComm;
    int rank;
    MPI_Comm_rank(globalComm, &rank);
    fti_log_setup(rank, FTI_LOG_INFO);
    fti_log_set_style(FTI_LOG_STYLE_FTI); /* until the config says otherwise */
    fti_clear_error();

    fti_err e = init_steps(ctx, configFile, globalComm);
    int spare = e == FTI_E_OK && ctx->ulfm.on && ctx->ulfm.role < 0;
    if (e == FTI_E_OK && !spare)
        e = fti_post_init(ctx);
    if (e != FTI_E_OK) {
        fti_jobstatus_init_error(rank, e, fti_last_error());
        return init_failed(ctx, e, 0);
    }
    if (spare)
        return serve_spare(ctx);
    FTI_COMM_WORLD = ctx->topo.app;
    fti_online_watch(ctx); /* online_recovery: the failure handler */
    ctx->state = FTI_ST_READY;
    fti_watchdog_setup(ctx->cfg.head);
    if (ctx->topo.is_head)
        return serve_head(ctx);

    double t0 = fti_now();
    e = fti_recover_prepare(ctx);
    ctx->metrics.job.recovery += fti_now() - t0; /* metrics: the job summary */
    if (e != FTI_E_OK) {
        fti_jobstatus_restart_refused(ctx->topo.app_rank, e, fti_last_error());
        /* Only `restart = required` or a damaged record stops here; else, as
         * FTI, FTI_NREC and a fresh start (the old files stay until this
         * run's first commit). */
        if (e != FTI_E_NOREC || ctx->cfg.restart != FTI_RESTART_AUTO)
            return init_failed(ctx, e, ctx->cfg.head);
        fti_recover_start_fresh(ctx);
        if (ctx->topo.app_rank == 0)
            fti_log(FTI_LOG_WARN, "FTI_Init returns FTI_NREC and the run starts fresh, as FTI's "
                    "does: the checkpoints above stay until this run commits its first "
                    "checkpoint ([basic] restart = required makes FTI_Init fail instead)");
    }
    /* metrics: the job summary says a restart only once one is under way
     * (a refused one went on as a fresh start above) */
    ctx->metrics.job.restarted = ctx->rec.pending;
    ctx->metrics.job.from = ctx->rec.chosen;
    say_ready(ctx);
    fti_conf_update(ctx, fti_conf_failure_at_init(ctx));
    fti_jobstatus_ready(ctx->topo.app_rank, ctx->dirs.exec_id, ctx->rec.pending ? &ctx->rec.chosen : NULL);
    return ctx->rec.refused ? FTI_NREC : FTI_SCES;
}

int FTI_Finalize(void)
{
    fti_ctx *ctx = ready("FTI_Finalize");
    if (ctx == NULL)
        return FTI_NSCS;
    /* the resume point's frame may be gone: a failure from here on ends the
     * job (online recovery) */
    ctx->ulfm.armed = 0;
    fti_err e = fti_post_wait(ctx);
    fti_metrics_flush_restore(ctx);
    if (!ctx->topo.is_head)
        fti_metrics_job_summary(ctx);
    if (e == FTI_E_OK && ctx->cfg.keep_last_ckpt)
        fti_recover_reprotect_due(ctx); /* the checkpoints stay: the restored one whole */
    if (e == FTI_E_OK && fti_recover_refused_untouched(ctx))
        fti_log(ctx->topo.app_rank == 0 ? FTI_LOG_INFO : FTI_LOG_DEBUG, "FTI_Finalize: this run "
                "committed no checkpoint; the ones FTI_Init could not restore stay as they are");
    else if (e == FTI_E_OK && fti_recover_replaced_untouched(ctx))
        fti_log(ctx->topo.app_rank == 0 ? FTI_LOG_INFO : FTI_LOG_DEBUG, "FTI_Finalize: this run "
                "(restart = never) committed no checkpoint; the ones it found stay as they are");
    else if (e == FTI_E_OK)
        e = ctx->cfg.keep_last_ckpt ? fti_checkpoint_flush_last(ctx) : fti_remove_checkpoints(ctx);
    if (e == FTI_E_OK)
        fti_conf_update_finalize(ctx);
    /* Rank 0 rewrote [restart] failure above; an FTI_Init in the same job
     * (PDI's plugin re-initialises) reads the file on every rank, so no rank
     * returns before the write is done, as FTI's FTI_Finalize ends in a barrier. */
    if (!ctx->topo.is_head)
        MPI_Barrier(ctx->topo.app);
    fti_online_release(ctx); /* the spares waiting in FTI_Init end */
    fti_jobstatus_finalized(ctx->topo.app_rank, e);
    release(ctx);
    /* Our communicators are freed but the application ranks': FTI_COMM_WORLD
     * stays the communicator of the run, the application's from now on, as
     * FTI 1.6 leaves it (it never frees it). Programs keep a copy of it
     * during the run and finish on it, or free it. */
    MPI_Comm app = ctx->topo.app;
    ctx->topo.app = MPI_COMM_NULL;
    fti_topology_free(&ctx->topo);
    FTI_COMM_WORLD = app;
    ctx->state = FTI_ST_FINALIZED;
    return to_code(e);
}

jmp_buf *FTI_ResumeJmp(void)
{
    /* armed only with online recovery: without it a failure ends the job */
    the_ctx.ulfm.armed = the_ctx.state == FTI_ST_READY && the_ctx.ulfm.on;
    return &the_ctx.ulfm.resume;
}

void FTI_Resumed(void)
{
    fti_ctx *ctx = &the_ctx;
    online_rejoined(ctx, fti_online_repair(ctx));
    /* the jump came back into setjmp, past FTI_ResumeJmp: armed again here,
     * for the next failure */
    ctx->ulfm.armed = 1;
}

const char *FTI_GetVersion(void)
{
    return FTI_VERSION_STRING;
}

/* FTI's value: 0 before FTI_Init, with nothing to restore and once
 * FTI_Recover restored it; during a restart 3 for the shared HDF5 file
 * (level 9), 2 where the config's [restart] failure is 2 (what FTI_Finalize
 * writes when keep_last_ckpt kept the last checkpoint: FTI returns the value
 * it read there), else 1. */
int FTI_Status(void)
{
    if (the_ctx.state != FTI_ST_READY || !the_ctx.rec.pending)
        return 0;
    const fti_l4_kind *k = fti_l4_kind_of(&the_ctx.rec.chosen);
    if (k != NULL && k->restart_status != 1)
        return k->restart_status;
    return the_ctx.cfg.failure == 2 ? 2 : 1;
}

/* ---- registration ---------------------------------------------------------- */

int FTI_Protect(int id, void *ptr, int64_t count, fti_id_t tid)
{
    fti_ctx *ctx = ready("FTI_Protect");
    if (ctx == NULL)
        return FTI_NSCS;
    fti_post_drain(ctx); /* a snapshot being written keeps the old pointer's pages protected */
    int known = fti_registry_find(&ctx->reg, id) != NULL;
    fti_err e = fti_registry_protect(&ctx->reg, id, ptr, count, tid);
    if (e == FTI_E_OK) {
        const fti_var *v = fti_registry_find(&ctx->reg, id);
        fti_say_protect(id, !known, v->dev != NULL, (double)fti_registry_bytes(&ctx->reg));
        if (v->dev == NULL)
            fti_post_protected(ctx, id, v->ptr, (size_t)fti_var_bytes(v));
    }
    return to_code(e);
}

int FTI_SetAttribute(int id, FTIT_attribute attribute, FTIT_attributeFlag flag)
{
    fti_ctx *ctx = ready("FTI_SetAttribute");
    fti_var *v = ctx != NULL ? fti_registry_require(&ctx->reg, "FTI_SetAttribute", id) : NULL;
    if (v == NULL)
        return FTI_NSCS;
    if ((flag & FTI_ATTRIBUTE_DIM) && (attribute.dim.ndims < 0 || attribute.dim.ndims > FTI_MAX_DIMS)) {
        fti_fail(FTI_E_ARG, "FTI_SetAttribute: variable %d: %d dimensions (0-%d allowed)", id,
                 attribute.dim.ndims, FTI_MAX_DIMS);
        return FTI_NSCS;
    }
    if (flag & FTI_ATTRIBUTE_NAME)
        fti_var_set_name(v, attribute.name);
    if (flag & FTI_ATTRIBUTE_DIM) {
        v->ndims = attribute.dim.ndims;
        memcpy(v->dims, attribute.dim.count, sizeof v->dims);
    }
    return FTI_SCES;
}

int FTI_InitType(fti_id_t *type, int size)
{
    fti_ctx *ctx = ready("FTI_InitType");
    if (ctx == NULL)
        return FTI_NSCS;
    if (type == NULL || size <= 0) {
        fti_fail(FTI_E_ARG, "FTI_InitType: type pointer is NULL or size %d is not positive", size);
        return FTI_NSCS;
    }
    return to_code(fti_registry_new_type(&ctx->reg, (size_t)size, "opaque", 0, type));
}

fti_id_t FTI_InitCompositeType(const char *name, size_t size, FTIT_H5Group *h5g)
{
    (void)h5g;
    fti_ctx *ctx = ready("FTI_InitCompositeType");
    int id;
    if (ctx == NULL || fti_registry_new_type(&ctx->reg, size, name, 1, &id) != FTI_E_OK)
        return FTI_NSCS;
    return id;
}

int FTI_AddScalarField(fti_id_t id, const char *name, fti_id_t fid, int64_t offset)
{
    fti_ctx *ctx = ready("FTI_AddScalarField");
    if (ctx == NULL)
        return FTI_NSCS;
    return to_code(fti_registry_add_field(&ctx->reg, id, name, fid, offset, 0, NULL));
}

int (FTI_AddVectorField)(fti_id_t id, const char *name, fti_id_t tid, int64_t offset, int ndims,
                         int64_t *dims)
{
    fti_ctx *ctx = ready("FTI_AddVectorField");
    if (ctx == NULL)
        return FTI_NSCS;
    return to_code(fti_registry_add_field(&ctx->reg, id, name, tid, offset, ndims, dims));
}

int FTI_setIDFromString(const char *name)
{
    fti_ctx *ctx = ready("FTI_setIDFromString");
    int id;
    if (ctx == NULL || fti_registry_set_name(&ctx->reg, name, &id) != FTI_E_OK)
        return FTI_NSCS;
    return id;
}

int FTI_getIDFromString(const char *name)
{
    fti_ctx *ctx = ready("FTI_getIDFromString");
    if (ctx == NULL)
        return FTI_NSCS;
    int id = fti_registry_get_name(&ctx->reg, name);
    return id >= 0 ? id : fti_recover_name_id(ctx, name);
}

/* ---- checkpoint -------------------------------------------------------------- */

/* FTI's dCP levels 5-8 (FTI_L1_DCP..FTI_L4_DCP): 8 is a differential L4
 * checkpoint when enable_dcp = 1 and ckpt_io = 1, else a full L4 one, as in
 * FTI; 5-7 are levels 1-3 (dCP exists only at L4). */
static fti_err check_level(const fti_ctx *ctx, const char *fn, int *level)
{
    if ((*level == FTI_L4_DCP || *level == FTI_L4_H5_SINGLE) && ctx->l4[*level] != NULL)
        return FTI_E_OK;
    if (*level == FTI_L4_H5_SINGLE)
        return fti_fail(FTI_E_ARG, "%s: level 9 is not one of 1, 2, 3, 4 here: FTI_L4_H5_SINGLE "
                        "needs ckpt_io = 5, h5_single_file_enable = 1 and a build with HDF5", fn);
    if (*level >= 5 && *level <= 8) {
        fti_log(FTI_LOG_DEBUG, "%s: level %d: %s; taking level %d", fn, *level,
                *level < 8 ? "dCP exists only at level 4" : "dCP is off (enable_dcp, ckpt_io = 1)",
                *level - 4);
        *level -= 4;
    }
    if (*level < 1 || *level > 4)
        return fti_fail(FTI_E_ARG, "%s: level %d is not one of 1, 2, 3, 4 (or FTI's dCP levels 5-8)", fn, *level);
    if (*level > 1 && fti_level(*level) == NULL)
        return fti_fail(FTI_E_UNSUPPORTED, "%s: level %d is not available in this build", fn, *level);
    return FTI_E_OK;
}

int FTI_Checkpoint(int id, int level)
{
    fti_ctx *ctx = ready("FTI_Checkpoint");
    if (ctx == NULL || check_level(ctx, "FTI_Checkpoint", &level) != FTI_E_OK)
        return FTI_NSCS;
    if (ctx->icp_active) {
        fti_fail(FTI_E_STATE, "FTI_Checkpoint called inside FTI_InitICP..FTI_FinalizeICP");
        return FTI_NSCS;
    }
    fti_err e = fti_checkpoint_take(ctx, id, level);
    if (e == FTI_E_OK)
        fti_schedule_taken(&ctx->sched, level > 4 ? 4 : level);
    return e == FTI_E_OK ? FTI_DONE : FTI_NSCS;
}

/* fti_recover_all, its time counted in the job summary. */
static fti_err recover_timed(fti_ctx *ctx)
{
    double t0 = fti_now();
    fti_err e = fti_recover_all(ctx);
    ctx->metrics.job.recovery += fti_now() - t0;
    return e;
}

int FTI_Snapshot(void)
{
    fti_ctx *ctx = ready("FTI_Snapshot");
    if (ctx == NULL)
        return FTI_NSCS;
    if (ctx->rec.pending)
        return to_code(recover_timed(ctx));
    fti_err e = fti_post_poll(ctx);
    int level = fti_schedule_tick(&ctx->sched, ctx->topo.app);
    if (level == 0)
        return to_code(e);
    if (check_level(ctx, "FTI_Snapshot", &level) != FTI_E_OK)
        return FTI_NSCS;
    e = fti_checkpoint_take(ctx, (int64_t)(ctx->meta.last_seq + 1), level);
    fti_schedule_taken(&ctx->sched, level > 4 ? 4 : level);
    return e == FTI_E_OK ? FTI_DONE : FTI_NSCS;
}

int FTI_InitICP(int id, int level, bool activate)
{
    fti_ctx *ctx = ready("FTI_InitICP");
    if (ctx == NULL || check_level(ctx, "FTI_InitICP", &level) != FTI_E_OK)
        return FTI_NSCS;
    if (!activate)
        return FTI_SCES;
    if (ctx->icp_active) {
        fti_fail(FTI_E_STATE, "FTI_InitICP called twice without FTI_FinalizeICP");
        return FTI_NSCS;
    }
    ctx->icp_active = 1;
    ctx->icp_id = id;
    ctx->icp_level = level;
    return FTI_SCES;
}

int FTI_AddVarICP(int varID)
{
    fti_ctx *ctx = ready("FTI_AddVarICP");
    if (ctx == NULL)
        return FTI_NSCS;
    if (!ctx->icp_active) {
        fti_fail(FTI_E_STATE, "FTI_AddVarICP(%d) called outside FTI_InitICP..FTI_FinalizeICP", varID);
        return FTI_NSCS;
    }
    if (fti_registry_require(&ctx->reg, "FTI_AddVarICP", varID) == NULL)
        return FTI_NSCS;
    return FTI_SCES;
}

/* The checkpoint is written as a whole at FinalizeICP: every protected
 * variable's state at that point, which is what recovery restores. */
int FTI_FinalizeICP(void)
{
    fti_ctx *ctx = ready("FTI_FinalizeICP");
    if (ctx == NULL)
        return FTI_NSCS;
    if (!ctx->icp_active)
        return FTI_SCES; /* FTI_InitICP(.., false): nothing to do */
    ctx->icp_active = 0;
    fti_err e = fti_checkpoint_take(ctx, ctx->icp_id, ctx->icp_level);
    if (e == FTI_E_OK)
        fti_schedule_taken(&ctx->sched, ctx->icp_level > 4 ? 4 : ctx->icp_level);
    return e == FTI_E_OK ? FTI_DONE : FTI_NSCS;
}

/* ---- recovery ---------------------------------------------------------------- */

int FTI_Recover(void)
{
    fti_ctx *ctx = ready("FTI_Recover");
    if (ctx == NULL)
        return FTI_NSCS;
    fti_post_drain(ctx); /* the restore writes into the variables */
    return to_code(recover_timed(ctx));
}

int FTI_RecoverVarInit(void)
{
    fti_ctx *ctx = ready("FTI_RecoverVarInit");
    if (ctx == NULL)
        return FTI_NSCS;
    fti_post_drain(ctx); /* FTI_RecoverVar writes into the variables */
    return to_code(fti_recover_var_open(ctx));
}

int FTI_RecoverVar(int id)
{
    fti_ctx *ctx = ready("FTI_RecoverVar");
    if (ctx == NULL)
        return FTI_NSCS;
    fti_post_drain(ctx);
    return to_code(fti_recover_var(ctx, id));
}

int FTI_RecoverVarFinalize(void)
{
    fti_ctx *ctx = ready("FTI_RecoverVarFinalize");
    if (ctx == NULL)
        return FTI_NSCS;
    /* The restart stays pending, as FTI's: FTI_Status() keeps its value and
     * FTI_Snapshot still recovers; only FTI_Recover ends it. */
    fti_recover_var_close(ctx);
    return FTI_SCES;
}

int64_t FTI_GetStoredSize(int id)
{
    fti_ctx *ctx = ready("FTI_GetStoredSize");
    if (ctx == NULL || !ctx->rec.available)
        return 0;
    const fti_file_entry *e = fti_file_find(&ctx->rec.hdr, id);
    return e ? (int64_t)e->nbytes : 0;
}

void *FTI_Realloc(int id, void *ptr)
{
    fti_ctx *ctx = ready("FTI_Realloc");
    if (ctx == NULL)
        return NULL;
    const fti_file_entry *e = ctx->rec.available ? fti_file_find(&ctx->rec.hdr, id) : NULL;
    fti_var *v = fti_registry_find(&ctx->reg, id);
    if (e == NULL || v == NULL) {
        fti_fail(FTI_E_ARG, "FTI_Realloc: variable %d is %s", id,
                 v == NULL ? "not protected" : "not in the recovered checkpoint");
        return NULL;
    }
    if (v->dev != NULL) {
        fti_fail(FTI_E_ARG, "FTI_Realloc: variable %d is device memory; reallocate it yourself "
                 "to FTI_GetStoredSize bytes and protect it again", id);
        return NULL;
    }
    char why[FTI_PATH_MAX + 64];
    if (fti_not_heap(ptr, why, sizeof why)) { /* realloc(3) would abort the job */
        fti_fail(FTI_E_ARG, "FTI_Realloc: variable %d: %s, not memory from malloc; allocate "
                 "FTI_GetStoredSize bytes yourself and protect them again", id, why);
        return NULL;
    }
    fti_post_drain(ctx);
    fti_dirty_release(v->ptr, fti_var_bytes(v)); /* realloc may move its pages, protection and all */
    void *p = realloc(ptr, e->nbytes ? e->nbytes : 1);
    if (p == NULL) {
        fti_fail(FTI_E_NOMEM, "FTI_Realloc: variable %d: cannot allocate %llu bytes", id,
                 (unsigned long long)e->nbytes);
        return NULL;
    }
    if (fti_registry_protect(&ctx->reg, id, p, (int64_t)(e->nbytes / v->elem_size), v->type) != FTI_E_OK)
        return NULL;
    return p;
}

/* ---- testing aid ------------------------------------------------------------- */

int FTI_BitFlip(int datasetID)
{
    fti_ctx *ctx = ready("FTI_BitFlip");
    if (ctx == NULL)
        return FTI_NSCS;
    fti_var *v = fti_registry_find(&ctx->reg, datasetID);
    if (v == NULL || v->dev != NULL || fti_var_bytes(v) == 0) {
        fti_fail(FTI_E_ARG, "FTI_BitFlip: variable %d is not a non-empty host variable", datasetID);
        return FTI_NSCS;
    }
    ((unsigned char *)v->ptr)[0] ^= 1;
    return FTI_SCES;
}

/* ---- staging ------------------------------------------------------------------ */

int FTI_GetStageDir(char *stageDir, int maxLen)
{
    fti_ctx *ctx = ready("FTI_GetStageDir");
    return ctx ? to_code(fti_staging_dir(ctx, stageDir, maxLen)) : FTI_NSCS;
}

int FTI_GetStageStatus(int ID)
{
    fti_ctx *ctx = ready("FTI_GetStageStatus");
    return ctx ? fti_staging_status(ctx, ID) : FTI_SI_FAIL;
}

int FTI_SendFile(const char *lpath, const char *rpath)
{
    fti_ctx *ctx = ready("FTI_SendFile");
    return ctx ? fti_staging_send(ctx, lpath, rpath) : FTI_NSCS;
}

/* ---- HDF5 datasets -----------------------------------------------------------
 * FTI_InitGroup .. FTI_UpdateSubset: core/h5_api.c. */
