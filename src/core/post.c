#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* SCHED_BATCH */
#endif
#include "core/post.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/checkpoint_commit.h"
#include "core/checkpoint_write.h"
#include "runtime/collective.h"
#include "core/cleanup.h"
#include "core/commit.h"
#include "base/walltime.h"
#include "data/ckpt_copy.h"
#include "data/cow.h"
#include "base/fault.h"
#include "fti.h"
#include "stores/l4_store.h"
#include "core/levels.h"
#include "base/log.h"
#include "runtime/metrics.h"
#include "base/worker.h"

typedef enum { POST_INLINE, POST_THREAD, POST_HEAD } post_mode;

struct fti_post {
    post_mode mode;
    int in_flight;       /* handed over, not yet committed; the same on every rank */
    fti_commit job;
    /* helper thread */
    fti_ctx *ctx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int has_job, done, quit, started;
    fti_err result;
    double post_secs;    /* metrics: duration of the job in the thread */
    /* staging_mib: the thread writes the checkpoint from a copy of the data */
    int can_stage;       /* every rank's thread runs and staging_mib > 0 (agreed at init) */
    int staged;          /* the job in flight is a staged one (the thread runs all of it) */
    fti_ckpt_copy copy;
    int wrote_live;      /* over staging_mib: this rank wrote its file before the hand-over */
    fti_err live_result; /* ... with this result */
    uint64_t need;       /* bytes of this rank's copy */
    uint64_t nlive, max_need; /* agreed by the thread: ranks that wrote live, largest need */
    /* cow_checkpoint: the thread writes it from a copy-on-write snapshot instead */
    fti_cow *cow;        /* the snapshot keeper and its pool, from the first snapshot */
    fti_capture_sets cow_sets; /* the thread's buffers for reading the snapshot */
    int cowing;          /* the job in flight is written from a snapshot */
    int drained;         /* ... and every page of it was read (the pages are writable) */
    int cow_noted;       /* a fallback was logged at INFO once */
    fti_cow_stats cow_st; /* what the last drain cost */
    double write_secs;   /* metrics: the staged job's local write */
    uint64_t bytes;      /* metrics: its local file */
    /* head */
    int head_attached;   /* application rank served by a head */
    MPI_Request reply;
    int head_result;
    int fti_reports;     /* FTI's head-to-rank messages not received yet (see receive_fti_reports) */
};

#define TAG_JOB(ctx) ((ctx)->cfg.mpi_tag + 1)
#define TAG_RESULT(ctx) ((ctx)->cfg.mpi_tag + 2)
#define TAG_END(ctx) ((ctx)->cfg.mpi_tag + 3)

/* ---- helper thread ------------------------------------------------------- */

/* Level post-processing of c over this rank's ring (in the thread). */
static fti_err ring_post(fti_ctx *ctx, const fti_commit *c)
{
    fti_ring ring;
    fti_ring_of(ctx, &ring);
    fti_fault_phase(fti_level(c->level)->phase);
    return fti_level(c->level)->post(ctx, c, &ring);
}

static fti_err run_post(fti_ctx *ctx, const fti_commit *c)
{
    double t0 = fti_now();
    fti_err e = ring_post(ctx, c);
    ctx->post->post_secs = fti_now() - t0;
    return e;
}

static fti_err head_post(fti_ctx *ctx, const fti_commit *c);

/* Chunks the thread reads a snapshot in: its two buffers are the only
 * memory the drain adds besides the pool. */
#define COW_CHUNK (1 << 20)

/* This rank's local file of c from the snapshot; then every page is the
 * application's again, and a waiting fti_post_drain returns. */
static fti_err cow_write(fti_post *p, const fti_commit *c)
{
    fti_err e = fti_checkpoint_write_via(p->ctx, fti_cow_registry(p->cow), c, &p->bytes,
                                         &p->cow_sets, COW_CHUNK);
    fti_cow_end(p->cow, &p->cow_st);
    pthread_mutex_lock(&p->mu);
    p->drained = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return e;
}

/* This rank's local file of c, from the snapshot or the copy (unless it
 * was written from the live buffers before the hand-over). */
static fti_err staged_write(fti_post *p, const fti_commit *c)
{
    if (p->wrote_live)
        return p->live_result;
    double t0 = fti_now();
    fti_err e = p->cowing ? cow_write(p, c)
                          : fti_checkpoint_write_from(p->ctx, &p->copy.reg, c, &p->bytes);
    p->write_secs = fti_now() - t0;
    return e;
}

/* The thread's part of a staged job: the local file, then (every rank's
 * write agreed on over topo.flush, which only this thread uses meanwhile)
 * the level's post-processing, on the head when it serves this level.
 * c->bytes becomes the checkpoint's size. */
static fti_err run_staged(fti_post *p, fti_commit *c)
{
    fti_ctx *ctx = p->ctx;
    fti_fault_phase(FTI_PHASE_STAGED);
    fti_err e = staged_write(p, c);
    uint64_t v[3] = {p->bytes, e != FTI_E_OK, (uint64_t)p->wrote_live}, all[3] = {0, 1, 0};
    MPI_Allreduce(v, all, 3, MPI_UINT64_T, MPI_SUM, ctx->topo.flush);
    MPI_Allreduce(&p->need, &p->max_need, 1, MPI_UINT64_T, MPI_MAX, ctx->topo.flush);
    c->bytes = all[0];
    p->nlive = all[2];
    if (e == FTI_E_OK && all[1] != 0)
        e = fti_fail(FTI_E_IO, "asynchronous checkpoint #%llu: the local write failed on %llu "
                     "other rank(s)", (unsigned long long)c->seq, (unsigned long long)all[1]);
    if (e != FTI_E_OK || c->level < 2) {
        p->post_secs = 0;
        return e;
    }
    if (p->mode == POST_HEAD && ctx->post_async[c->level])
        return head_post(ctx, c);
    return run_post(ctx, c);
}

/* The thread is background work: SCHED_BATCH keeps it, woken by a
 * hand-over, from taking the CPU of the application thread still in its
 * pause (same share of the CPU otherwise). Measured with bench_async --cow
 * on a 2-core VM at load 20: hand-overs of 1-10 ms, 0.01 ms undisturbed.
 * Refused: the thread stays as it is. */
static void run_in_background(void)
{
#ifdef SCHED_BATCH
    struct sched_param sp = {0};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
#endif
}

static void *thread_main(void *arg)
{
    fti_post *p = arg;
    run_in_background();
    pthread_mutex_lock(&p->mu);
    for (;;) {
        fti_worker_await(&p->mu, &p->cv, &p->has_job, &p->quit);
        if (p->quit)
            break;
        fti_commit c = p->job;
        pthread_mutex_unlock(&p->mu);
        fti_err e = p->staged ? run_staged(p, &c) : run_post(p->ctx, &c);
        pthread_mutex_lock(&p->mu);
        p->job = c; /* a staged job learned its size */
        p->result = e;
        p->done = 1;
        p->has_job = 0;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static int wants_async(const fti_config *cfg)
{
    return !cfg->inline_l[2] || !cfg->inline_l[3] || !cfg->inline_l[4];
}

static void warn_no_thread(fti_ctx *ctx)
{
    if (ctx->topo.app_rank == 0 && !ctx->cfg.head && wants_async(&ctx->cfg))
        fti_log(FTI_LOG_WARN, "config %s: inline_lX = 0 without heads needs MPI initialised with "
                "MPI_Init_thread(MPI_THREAD_MULTIPLE); post-processing runs inline", ctx->cfg.file);
}

/* The helper thread; with heads it only runs staged jobs (mode stays HEAD). */
static fti_err start_thread(fti_ctx *ctx, fti_post *p)
{
    int level;
    MPI_Query_thread(&level);
    if (level < MPI_THREAD_MULTIPLE) {
        warn_no_thread(ctx);
        return FTI_E_OK;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (pthread_create(&p->thread, NULL, thread_main, p) != 0)
        return fti_fail(FTI_E_NOMEM, "cannot start the post-processing thread");
    p->started = 1;
    if (p->mode == POST_INLINE)
        p->mode = POST_THREAD;
    return FTI_E_OK;
}

/* Whether checkpoints of `level` (2-4) can be post-processed off the
 * application's path, once the worker is started. */
static int async_available(const fti_ctx *ctx, const fti_post *p, int level)
{
    if (ctx->cfg.inline_l[level])
        return 0;
    if (p->mode == POST_HEAD) /* a shared MPI-IO file needs the application ranks' collective */
        return level != 4 || ctx->l4[4] == NULL || ctx->l4[4]->post_on_heads;
    return p->mode == POST_THREAD;
}

static fti_err start_worker(fti_ctx *ctx, fti_post *p)
{
    fti_err e = FTI_E_OK;
    if (ctx->cfg.head) {
        p->mode = POST_HEAD;
        p->head_attached = !ctx->topo.is_head;
        if (!p->head_attached)
            return FTI_E_OK;
    }
    int staging = ctx->cfg.staging_mib > 0 || ctx->cfg.cow_checkpoint;
    if (staging || (!ctx->cfg.head && wants_async(&ctx->cfg)))
        e = start_thread(ctx, p);
    /* Collective over the application ranks, once: staging then needs none. */
    if (e == FTI_E_OK && staging)
        p->can_stage = fti_all_ok(ctx->topo.app, p->started);
    char key[64];
    if (ctx->cfg.cow_checkpoint)
        snprintf(key, sizeof key, "cow_checkpoint = 1");
    else
        snprintf(key, sizeof key, "staging_mib = %d", ctx->cfg.staging_mib);
    if (e == FTI_E_OK && staging && !p->can_stage && ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_WARN, "config %s: %s needs MPI initialised with "
                "MPI_Init_thread(MPI_THREAD_MULTIPLE) on every rank; checkpoints are written "
                "synchronously", ctx->cfg.file, key);
    return e;
}

fti_err fti_post_init(fti_ctx *ctx)
{
    fti_post *p = calloc(1, sizeof *p);
    if (p == NULL)
        return fti_fail(FTI_E_NOMEM, "FTI_Init: out of memory");
    p->ctx = ctx;
    p->reply = MPI_REQUEST_NULL;
    ctx->post = p;
    fti_err e = start_worker(ctx, p);
    for (int level = 2; level <= 4; level++)
        ctx->post_async[level] = async_available(ctx, p, level);
    return e;
}

void fti_post_shutdown(fti_ctx *ctx)
{
    fti_post *p = ctx->post;
    if (p == NULL)
        return;
    if (p->started)
        fti_worker_stop(p->thread, &p->mu, &p->cv, &p->quit);
    if (p->head_attached) { /* our head serves until every rank of the node said goodbye */
        int bye = 0;
        MPI_Send(&bye, 1, MPI_INT, ctx->topo.head_global, TAG_END(ctx), ctx->topo.global);
    }
    fti_ckpt_copy_free(&p->copy);
    fti_cow_free(p->cow);
    fti_capture_sets_free(&p->cow_sets);
    free(p);
    ctx->post = NULL;
    memset(ctx->post_async, 0, sizeof ctx->post_async);
}

/* In the thread: the head post-processes c for this rank's node. */
static fti_err head_post(fti_ctx *ctx, const fti_commit *c)
{
    fti_post *p = ctx->post;
    double t0 = fti_now();
    int ok = 0;
    MPI_Send(c, (int)sizeof *c, MPI_BYTE, ctx->topo.head_global, TAG_JOB(ctx), ctx->topo.global);
    MPI_Recv(&ok, 1, MPI_INT, ctx->topo.head_global, TAG_RESULT(ctx), ctx->topo.global,
             MPI_STATUS_IGNORE);
    p->post_secs = fti_now() - t0;
    return ok ? FTI_E_OK : fti_fail(FTI_E_IO, "level %d post-processing of checkpoint #%llu "
                                    "failed on the head", c->level, (unsigned long long)c->seq);
}

fti_err fti_post_start(fti_ctx *ctx, const fti_commit *c)
{
    fti_post *p = ctx->post;
    p->job = *c;
    p->in_flight = 1;
    if (p->mode == POST_THREAD || p->staged) {
        pthread_mutex_lock(&p->mu);
        p->has_job = 1;
        p->done = 0;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    } else {
        MPI_Send(&p->job, (int)sizeof p->job, MPI_BYTE, ctx->topo.head_global, TAG_JOB(ctx),
                 ctx->topo.global);
        MPI_Irecv(&p->head_result, 1, MPI_INT, ctx->topo.head_global, TAG_RESULT(ctx),
                  ctx->topo.global, &p->reply);
    }
    return FTI_E_OK;
}

/* Over staging_mib (or the copy failed): this rank writes its local file
 * from the live buffers now; the thread does the rest. */
static void write_live(fti_ctx *ctx, fti_post *p, const fti_commit *c)
{
    double t0 = fti_now();
    p->wrote_live = 1;
    p->live_result = fti_checkpoint_write_from(ctx, &ctx->reg, c, &p->bytes);
    p->write_secs = fti_now() - t0;
}

int fti_post_can_stage(const fti_ctx *ctx)
{
    return ctx->post != NULL && ctx->post->can_stage;
}

/* Why this checkpoint is not copy-on-write, in one line: at INFO the first
 * time, at DEBUG after (the reason rarely changes between checkpoints). */
static void cow_fallback(fti_post *p, const fti_commit *c, const char *why, const char *instead)
{
    fti_log(p->cow_noted ? FTI_LOG_DEBUG : FTI_LOG_INFO, "checkpoint #%llu: not copy-on-write "
            "(cow_checkpoint = 1): %s; %s", (unsigned long long)c->seq, why, instead);
    p->cow_noted = 1;
}

void fti_post_not_staged(fti_ctx *ctx, const fti_commit *c, const char *why)
{
    if (ctx->cfg.cow_checkpoint && ctx->post != NULL && ctx->post->can_stage)
        cow_fallback(ctx->post, c, why, "written synchronously");
}

/* A refusal of huge pages (cow_huge_pages), once, at INFO: from the
 * snapshot (MADV_HUGEPAGE) or the last drain's collapse. */
static void log_huge_refused(fti_post *p, const fti_commit *c)
{
    char note[256];
    if (p->cow != NULL && fti_cow_huge_note(p->cow, note, sizeof note))
        fti_log(FTI_LOG_INFO, "checkpoint #%llu: cow_huge_pages = 1: %s; the protected memory "
                "stays in 4 KiB pages (the pause grows with the data)",
                (unsigned long long)c->seq, note);
}

/* What the snapshot cost the application, at DEBUG, once it is handed
 * over (the line is no part of the pause it reports): the pause from
 * FTI_Checkpoint's start, the part before the snapshot (the previous
 * checkpoint settled, the id agreed by every rank), the snapshot's steps
 * and the hand-over to the thread. */
static void log_take(fti_post *p, const fti_commit *c, const fti_ckpt_timing *tm,
                     double snap0, double handed)
{
    log_huge_refused(p, c);
    const fti_cow_take_times *t = fti_cow_last_take(p->cow);
    fti_log(FTI_LOG_DEBUG, "checkpoint #%llu: paused %.3f ms: before the snapshot %.3f ms, "
            "copy-on-write snapshot %.3f ms (tables and edge pages %.3f ms, protection %.3f ms, "
            "huge pages %.3f ms over %.1f MiB), hand-over %.3f ms", (unsigned long long)c->seq,
            (handed - tm->start) * 1e3, (snap0 - tm->start) * 1e3, t->total_s * 1e3,
            t->prepare_s * 1e3, t->protect_s * 1e3, t->huge_s * 1e3,
            (double)t->huge_bytes / (1 << 20), (handed - snap0 - t->total_s) * 1e3);
}

/* The snapshot keeper, made at its first use (NULL: out of memory). */
static fti_cow *cow_keeper(fti_ctx *ctx, fti_post *p)
{
    if (p->cow == NULL && (p->cow = fti_cow_new((size_t)ctx->cfg.cow_max_mib << 20)) != NULL)
        fti_cow_huge_pages(p->cow, ctx->cfg.cow_huge_pages);
    return p->cow;
}

void fti_post_protected(fti_ctx *ctx, int id, const void *ptr, size_t n)
{
    fti_post *p = ctx->post;
    if (!ctx->cfg.cow_checkpoint || !ctx->cfg.cow_huge_pages || p == NULL || !p->can_stage ||
        cow_keeper(ctx, p) == NULL)
        return;
    double secs = fti_cow_prefer_huge(p->cow, ptr, n);
    char note[256];
    if (fti_cow_huge_note(p->cow, note, sizeof note))
        fti_log(FTI_LOG_INFO, "FTI_Protect: variable %d: cow_huge_pages = 1: %s; the protected "
                "memory stays in 4 KiB pages (the pause grows with the data)", id, note);
    else if (secs > 0)
        fti_log(FTI_LOG_DEBUG, "FTI_Protect: variable %d (%.1f MiB) collapsed into huge pages "
                "in %.3f ms, once (cow_huge_pages = 1)", id, (double)n / (1 << 20), secs * 1e3);
}

/* cow_checkpoint: 1 when the protected data is now a copy-on-write
 * snapshot for the thread to write. */
static int take_snapshot(fti_ctx *ctx, fti_post *p, const fti_commit *c)
{
    char why[512] = "";
    if (!ctx->cfg.cow_checkpoint)
        return 0;
    if (cow_keeper(ctx, p) == NULL) {
        snprintf(why, sizeof why, "out of memory for a pool of cow_max_mib = %d MiB",
                 ctx->cfg.cow_max_mib);
    } else if (fti_cow_take(p->cow, &ctx->reg, why, sizeof why) == 0) {
        return 1;
    }
    cow_fallback(p, c, why,
                 ctx->cfg.staging_mib > 0 ? "the staging copy is used (staging_mib)"
                                          : "written synchronously (staging_mib = 0)");
    return 0;
}

void fti_post_drain(fti_ctx *ctx)
{
    fti_post *p = ctx->post;
    if (p == NULL || !p->in_flight || !p->cowing)
        return;
    pthread_mutex_lock(&p->mu);
    while (!p->drained)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void fti_post_stage(fti_ctx *ctx, const fti_commit *c, fti_ckpt_timing *tm)
{
    fti_post *p = ctx->post;
    p->need = fti_ckpt_copy_need(&ctx->reg);
    p->wrote_live = 0;
    p->bytes = 0;
    p->drained = 0;
    double snap0 = fti_now();
    p->cowing = take_snapshot(ctx, p, c);
    if (p->cowing)
        p->need = 0; /* nothing copied */
    else if (p->need > (uint64_t)ctx->cfg.staging_mib << 20 ||
        fti_ckpt_copy_take(&p->copy, &ctx->reg, &ctx->capture,
                           (size_t)ctx->cfg.gpu_host_bufsize) != FTI_E_OK)
        write_live(ctx, p, c);
    p->staged = 1;
    tm->async = 1; /* metrics: finish() writes the line once it is committed */
    tm->handover = fti_now();
    tm->app_wait = tm->handover - tm->start;
    ctx->metrics.pending = *tm;
    fti_post_start(ctx, c);
    if (p->cowing)
        log_take(p, c, tm, snap0, fti_now());
}

/* Rank 0, at the commit of a staged checkpoint: how it was written. */
static void log_staged(fti_ctx *ctx, const fti_post *p)
{
    if (ctx->topo.app_rank != 0)
        return;
    const fti_commit *c = &p->job;
    if (p->nlive > 0)
        fti_log(FTI_LOG_INFO, "checkpoint #%llu: %llu rank(s) had more than staging_mib = %d MiB "
                "to copy (largest %.1f MiB) and wrote synchronously; post-processing ran in the "
                "background", (unsigned long long)c->seq, (unsigned long long)p->nlive,
                ctx->cfg.staging_mib, (double)p->max_need / (1 << 20));
    else if (p->cowing)
        fti_log(FTI_LOG_DEBUG, "checkpoint #%llu level %d written copy-on-write in the "
                "background (rank 0: %zu pages copied before the writer took them, at most %zu "
                "at once, %zu writes waited for it; huge pages collapsed in %.3f ms)",
                (unsigned long long)c->seq, c->level, p->cow_st.pooled, p->cow_st.peak_slots,
                p->cow_st.waits, p->cow_st.collapse_s * 1e3);
    else
        fti_log(FTI_LOG_DEBUG, "checkpoint #%llu level %d staged (%.1f MiB copied on the "
                "largest rank), written in the background", (unsigned long long)c->seq, c->level,
                (double)p->max_need / (1 << 20));
}

static int local_done(fti_post *p)
{
    int done = 0;
    if (p->mode == POST_THREAD || p->staged) {
        pthread_mutex_lock(&p->mu);
        done = p->done;
        pthread_mutex_unlock(&p->mu);
    } else {
        MPI_Test(&p->reply, &done, MPI_STATUS_IGNORE);
        if (done)
            p->reply = MPI_REQUEST_NULL;
    }
    return done;
}

static fti_err local_wait(fti_post *p)
{
    if (p->mode == POST_THREAD || p->staged) {
        pthread_mutex_lock(&p->mu);
        while (!p->done)
            pthread_cond_wait(&p->cv, &p->mu);
        fti_err e = p->result;
        pthread_mutex_unlock(&p->mu);
        return e;
    }
    MPI_Wait(&p->reply, MPI_STATUS_IGNORE);
    return p->head_result ? FTI_E_OK : FTI_E_IO;
}

/* Collective: every rank's post-processing agreed on, then the commit. */
static fti_err finish(fti_ctx *ctx)
{
    fti_post *p = ctx->post;
    fti_err e = local_wait(p);
    p->in_flight = 0;
    if (p->mode == POST_HEAD && ctx->user_comm != MPI_COMM_NULL)
        p->fti_reports++;
    /* metrics: heads do not report their duration; the hand-over to now is an upper bound */
    fti_ckpt_timing *tm = &ctx->metrics.pending;
    tm->post = p->mode == POST_THREAD || p->staged ? p->post_secs : fti_now() - tm->handover;
    if (p->staged) {
        tm->write = p->write_secs;
        tm->bytes = p->bytes;
        log_staged(ctx, p);
        if (p->cowing)
            log_huge_refused(p, &p->job); /* the drain's collapse, on every rank */
        p->staged = 0;
        p->cowing = 0;
    }
    if (!fti_all_ok(ctx->topo.app, e == FTI_E_OK)) {
        fti_metrics_checkpoint(ctx, &p->job, tm, "failed");
        return fti_fail(FTI_E_IO, "asynchronous level %d post-processing of checkpoint #%llu failed; "
                        "the last committed checkpoint is #%llu", p->job.level,
                        (unsigned long long)p->job.seq, (unsigned long long)ctx->meta.last_seq);
    }
    double t = fti_now();
    e = fti_checkpoint_commit(ctx, &p->job);
    tm->commit = fti_now() - t;
    if (e == FTI_E_OK) /* from the start of the local write to the commit */
        fti_metrics_log_summary(ctx, &p->job, fti_now() - tm->start - tm->wait_prev,
                                "committed after asynchronous post-processing");
    fti_metrics_checkpoint(ctx, &p->job, tm, e == FTI_E_OK ? "committed" : "failed");
    return e;
}

/* FTI's heads tell each application rank the level of a checkpoint they
 * post-processed (FTI_NSCS when it failed): one int with general_tag on the
 * communicator given to FTI_Init. FTI receives it when the next checkpoint
 * starts and in FTI_Finalize; until then a program may receive it itself
 * (FTI's test programs do, to know that the head finished). */
static void receive_fti_reports(fti_ctx *ctx)
{
    fti_post *p = ctx->post;
    for (; p->fti_reports > 0; p->fti_reports--) {
        int level;
        MPI_Recv(&level, 1, MPI_INT, ctx->topo.head_global, ctx->cfg.mpi_tag, ctx->user_comm,
                 MPI_STATUS_IGNORE);
    }
}

fti_err fti_post_wait(fti_ctx *ctx)
{
    fti_post *p = ctx->post;
    if (p == NULL)
        return FTI_E_OK;
    fti_err e = p->in_flight ? finish(ctx) : FTI_E_OK;
    receive_fti_reports(ctx);
    return e;
}

fti_err fti_post_poll(fti_ctx *ctx)
{
    fti_post *p = ctx->post;
    if (p == NULL || !p->in_flight)
        return FTI_E_OK;
    if (!fti_all_ok(ctx->topo.app, local_done(p)))
        return FTI_E_OK;
    return finish(ctx);
}

/* ---- head ranks ---------------------------------------------------------- */

/* Post-processing for every application rank of this node, in the same
 * order on every head of the group, so the collectives match. */
static int run_head_job(fti_ctx *ctx, const fti_commit *c)
{
    int ok = 1;
    fti_fault_phase(fti_level(c->level)->phase);
    for (int pos = 0; pos < ctx->topo.app_per_node; pos++) {
        fti_ring ring;
        fti_head_ring_of(ctx, pos, &ring);
        if (fti_level(c->level)->post(ctx, c, &ring) != FTI_E_OK)
            ok = 0;
    }
    return ok;
}

/* Every head agrees on the job's outcome; when all succeeded, node 0's head
 * adds it to the commit record before any rank hears of it, as FTI's heads
 * commit the checkpoint themselves: a program that ends right after
 * learning it (FTI's crash simulations) restarts from it. The application
 * ranks commit the same record again at their next call. */
static int head_commit(fti_ctx *ctx, const fti_commit *c, int ok)
{
    if (!fti_all_ok(ctx->topo.heads, ok))
        return 0;
    int wrote = ctx->topo.node != 0 || fti_commit_record_add_on_disk(ctx, c) == FTI_E_OK;
    if (fti_all_ok(ctx->topo.heads, wrote)) /* the record is written before any reply */
        fti_prune_node_lower(ctx, c);
    return 1;
}

/* The outcome to every application rank of the node: ours on our
 * communicator, then FTI's report (see receive_fti_reports). */
static void reply(fti_ctx *ctx, const fti_commit *c, int ok)
{
    int fti_level = !ok ? FTI_NSCS : c->level > 4 ? 4 : c->level;
    for (int pos = 0; pos < ctx->topo.app_per_node; pos++) {
        int rank = fti_plan_global_at(&ctx->topo.shape, ctx->topo.node, pos);
        MPI_Send(&ok, 1, MPI_INT, rank, TAG_RESULT(ctx), ctx->topo.global);
        if (ctx->user_comm != MPI_COMM_NULL)
            MPI_Send(&fti_level, 1, MPI_INT, rank, ctx->cfg.mpi_tag, ctx->user_comm);
    }
}

/* FTI's own test programs end a head directly when they simulate a crash:
 * every application rank of the node sends FTI_ENDW with FTI's final_tag
 * on the communicator given to FTI_Init, then all call MPI_Barrier on it. */
static int compat_end_request(fti_ctx *ctx)
{
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, ctx->cfg.final_tag, ctx->user_comm, &flag, &st);
    if (!flag)
        return 0;
    int value = 0;
    MPI_Recv(&value, 1, MPI_INT, st.MPI_SOURCE, ctx->cfg.final_tag, ctx->user_comm,
             MPI_STATUS_IGNORE);
    return value == FTI_ENDW;
}

/* An idle head naps between polls, longer and longer up to 10 ms: it
 * shares the node's cores with the application (MPI's blocking receive
 * would spin on one). */
#define HEAD_NAP_MIN_NS 50000L
#define HEAD_NAP_MAX_NS 10000000L

/* 1 when a message of ours arrived (in *job, *tag), 0 when the node's
 * ranks all sent FTI_ENDW instead. */
static int next_message(fti_ctx *ctx, fti_commit *job, int *tag, int *endw)
{
    long nap_ns = HEAD_NAP_MIN_NS;
    for (;;) {
        int flag = 0;
        MPI_Status st;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ctx->topo.global, &flag, &st);
        if (flag) {
            MPI_Recv(job, (int)sizeof *job, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, ctx->topo.global,
                     MPI_STATUS_IGNORE);
            *tag = st.MPI_TAG;
            return 1;
        }
        if (ctx->user_comm != MPI_COMM_NULL && compat_end_request(ctx) &&
            ++*endw == ctx->topo.app_per_node)
            return 0;
        struct timespec nap = {0, nap_ns};
        nanosleep(&nap, NULL);
        nap_ns = nap_ns * 2 < HEAD_NAP_MAX_NS ? nap_ns * 2 : HEAD_NAP_MAX_NS;
    }
}

/* Returns 1 when the node's ranks finalized, 0 when they sent FTI_ENDW. */
static int serve(fti_ctx *ctx)
{
    int napp = ctx->topo.app_per_node, ends = 0, njobs = 0, endw = 0, tag = 0;
    fti_commit job;
    while (ends < napp) {
        if (!next_message(ctx, &job, &tag, &endw))
            return 0;
        if (tag == TAG_END(ctx)) {
            ends++;
        } else if (tag == TAG_JOB(ctx) && ++njobs == napp) {
            /* Every rank of the node wrote its local file: the job can start. */
            int ok = head_commit(ctx, &job, run_head_job(ctx, &job));
            reply(ctx, &job, ok);
            njobs = 0;
        }
    }
    return 1;
}

int fti_post_serve_head(fti_ctx *ctx)
{
    fti_log(FTI_LOG_DEBUG, "head of node %d serving %d ranks", ctx->topo.node, ctx->topo.app_per_node);
    int finalized = serve(ctx);
    if (!finalized) /* FTI's crash simulation: join the application's barrier */
        MPI_Barrier(ctx->user_comm);
    int keep = ctx->cfg.keep_heads_alive;
    fti_post_shutdown(ctx);
    fti_registry_free(&ctx->reg);
    fti_topology_free(&ctx->topo);
    ctx->state = FTI_ST_FINALIZED;
    if (keep)
        return FTI_HEAD;
    /* FTI's contract: a head never runs application code. */
    MPI_Finalize();
    exit(0);
}
