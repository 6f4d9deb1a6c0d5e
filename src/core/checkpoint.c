#include "core/checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/checkpoint_commit.h"
#include "core/checkpoint_write.h"
#include "format/file_image.h"
#include "core/cleanup.h"
#include "runtime/collective.h"
#include "base/fault.h"
#include "base/fio.h"
#include "base/phase_clock.h"
#include "stores/dcp.h"
#include "stores/l4_store.h"
#include "core/levels.h"
#include "base/log.h"
#include "runtime/log_fti.h"
#include "runtime/metrics.h"
#include "base/safe_fs.h"
#include "base/walltime.h"
#include "runtime/watchdog.h"
#include "core/post.h"
#include "core/recover.h"
#include "runtime/recover_state.h"
#include "runtime/say_once.h"

/* The slot a new checkpoint of `level` goes to: never the committed one,
 * nor, in a restart = never run, the one the record it replaces names as the
 * level's newest (that record stays the truth until this run's first commit). */
static int next_slot(const fti_ctx *ctx, int level)
{
    const fti_meta *m = ctx->meta.cur[level].valid ? &ctx->meta : &ctx->replaced;
    return m->cur[level].valid ? 1 - m->cur[level].slot : 0;
}

/* metrics: the checkpoint's line in metrics_file (collective; no-op without the key). */
static void metrics_line(fti_ctx *ctx, const fti_commit *c, fti_ckpt_timing *tm, const char *status)
{
    tm->app_wait = fti_now() - tm->start;
    fti_metrics_checkpoint(ctx, c, tm, status);
}

/* Every rank agreed that checkpoint c failed (first on `rank`): it is
 * abandoned, the last committed one stays; its metrics line, then the
 * error (this rank's own, or one naming the rank that failed). */
static fti_err abandon(fti_ctx *ctx, const fti_commit *c, fti_ckpt_timing *tm, fti_err e, int rank)
{
    metrics_line(ctx, c, tm, "failed");
    if (e == FTI_E_OK) { /* recorded, not printed: the failing ranks' messages say it */
        fti_log_quiet(1);
        e = fti_fail(FTI_E_IO, "checkpoint #%llu (level %d) failed on rank %d (see its message); "
                     "the last committed checkpoint is kept", (unsigned long long)c->seq, c->level,
                     rank);
        fti_log_quiet(0);
    }
    /* Every rank knows of the failure from the vote: the errors kept unsaid
     * (fti_log_defer) are printed once, with the ranks that met them. */
    fti_say_once(ctx->topo.app, FTI_LOG_ERROR, fti_log_take_unsaid());
    return e;
}

/* The one rule on ids, applied to a vote: FTI's programs rely on one id
 * per checkpoint, and a record naming one rank's would restart the others
 * from the wrong one. When the ranks passed different ids, every rank gets
 * this same error. */
static fti_err ids_agree(const fti_ckpt_vote *v)
{
    if (v->id_lo == v->id_hi)
        return FTI_E_OK;
    return fti_fail(FTI_E_ARG, "FTI_Checkpoint: ranks disagree on the checkpoint id: rank %d id "
                    "%lld, rank %d id %lld (every rank must pass the same id); nothing is "
                    "committed, the last committed checkpoint is kept", v->rank_lo,
                    (long long)v->id_lo, v->rank_hi, (long long)v->id_hi);
}

/* The L4 stores (dCP layers, HDF5 files, and with no local copy kept POSIX
 * and MPI-IO files) that go straight to the global file system: no local
 * file, no post-processing. */
static int direct(fti_ctx *ctx, const fti_l4_store *st, const fti_commit *c)
{
    return st != NULL && st->direct(ctx, c);
}

static fti_err write_first(fti_ctx *ctx, const fti_l4_store *st, const fti_commit *c,
                           uint64_t *bytes)
{
    if (direct(ctx, st, c))
        return st->write(ctx, c, bytes);
    return fti_checkpoint_write_from(ctx, &ctx->reg, c, bytes);
}

/* Checkpoint c is committed: the store removes what c made obsolete. */
static void remove_obsolete(fti_ctx *ctx, const fti_l4_store *st, const fti_commit *c)
{
    if (st != NULL && st->committed != NULL)
        st->committed(ctx, c);
}

/* What write_and_commit did: the checkpoint committed in the call (c.seq
 * 0 when it commits later, in the background, whose line post.c writes),
 * and the times of its steps. */
typedef struct fti_taken {
    fti_commit c;
    fti_ckpt_timing tm;
} fti_taken;

static fti_err write_and_commit(fti_ctx *ctx, int64_t id, int level, fti_taken *done);

/* A checkpoint's line(s), from one measure of the call (log_style picks
 * FTI's, ours or both). FTI's parts: waiting for the previous checkpoint,
 * the write, the rest (agreement, post-processing or hand-over, commit). */
static void say_taken(fti_ctx *ctx, int64_t id, int level, const fti_taken *done, double secs)
{
    double wait = done->tm.wait_prev, write = done->tm.write;
    fti_say_checkpoint((int)id, level > 4 ? 4 : level, (double)fti_registry_bytes(&ctx->reg), secs,
                       wait, write, secs - wait - write);
    if (done->c.seq != 0)
        fti_metrics_log_summary(ctx, &done->c, secs, "committed");
}

/* cow_checkpoint: why an L4 checkpoint of store st is written synchronously. */
static void not_staged(fti_ctx *ctx, const fti_l4_store *st, const fti_commit *c, int straight)
{
    char why[160];
    snprintf(why, sizeof why, "the %s store %s", st->kind->name,
             straight ? "writes straight to the global file system" : "is not staged");
    fti_post_not_staged(ctx, c, why);
}

fti_err fti_checkpoint_take(fti_ctx *ctx, int64_t id, int level)
{
    double t0 = fti_now();
    fti_taken done = {0};
    fti_err e = write_and_commit(ctx, id, level, &done);
    double secs = fti_now() - t0;
    if (e == FTI_E_OK)
        say_taken(ctx, id, level, &done, secs);
    if (e == FTI_E_OK && level == FTI_L4_DCP) /* committed on every rank */
        fti_dcp_report(ctx); /* after the checkpoint's line, as FTI prints them */
    ctx->metrics.job.blocked += secs; /* metrics: the job summary */
    fti_watchdog_reference(secs);
    return e;
}

/* The previous asynchronous post-processing ends (and commits), and the
 * restored checkpoint is whole, before a new checkpoint starts. */
static void settle_previous(fti_ctx *ctx)
{
    fti_metrics_flush_restore(ctx); /* a collective point: FTI_Recover itself is not */
    if (fti_post_wait(ctx) != FTI_E_OK)
        fti_log(FTI_LOG_WARN, "previous asynchronous checkpoint was not committed; the last "
                "committed one is still checkpoint #%llu", (unsigned long long)ctx->meta.last_seq);
    fti_recover_reprotect_due(ctx);
}

/* The record of a new checkpoint of `level` (1-4), in store st's form. */
static fti_commit new_commit(const fti_ctx *ctx, int64_t id, int level, const fti_l4_store *st,
                             double t0)
{
    fti_commit c;
    memset(&c, 0, sizeof c);
    c.level = level;
    c.seq = ctx->meta.last_seq + 1;
    c.id = id;
    c.slot = next_slot(ctx, level);
    c.nranks = ctx->topo.app_size;
    c.time = t0;
    c.codec = st != NULL ? (int)ctx->cfg.l4_codec : 0;
    c.io = st != NULL ? st->kind->io : 0;
    c.nonce = ctx->nonce; /* every file of c carries it: the record names this run's files */
    return c;
}

/* The level's post-processing goes to the head or helper thread; the
 * checkpoint commits there. */
static fti_err hand_over(fti_ctx *ctx, const fti_commit *c, fti_ckpt_timing *tm)
{
    fti_err e = fti_post_start(ctx, c);
    tm->async = 1; /* metrics: post.c writes the line once it is committed */
    tm->handover = fti_now();
    tm->app_wait = tm->handover - tm->start;
    ctx->metrics.pending = *tm;
    if (ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_DEBUG, "checkpoint #%llu level %d written, post-processing in background",
                (unsigned long long)c->seq, c->level);
    ctx->ckpt_count++;
    return e;
}

/* staging_mib: c is handed to the helper thread, which writes it from a
 * copy of the data after FTI_Checkpoint returned and agrees on the write
 * there. The id is agreed on here (one reduction), so that a mismatch
 * fails this call on every rank, as a synchronous checkpoint's does, before
 * anything is copied or handed over. */
static fti_err stage(fti_ctx *ctx, const fti_commit *c, fti_ckpt_timing *tm)
{
    fti_ckpt_vote v;
    fti_ckpt_vote_cast(ctx->topo.app, 0, 1, c->id, &v);
    fti_log_defer(1);
    fti_err e = ids_agree(&v);
    if (e != FTI_E_OK)
        e = abandon(ctx, c, tm, e, -1);
    fti_log_defer(0);
    if (e != FTI_E_OK)
        return e;
    fti_post_stage(ctx, c, tm);
    ctx->ckpt_count++;
    return FTI_E_OK;
}

/* Checkpoint `id` of `level`: written (the local file, or straight to the
 * global file system), post-processed and committed here, or handed over
 * after the write (head, helper thread) or before it (staging) to commit
 * later. level: 1-4, or FTI_L4_DCP / FTI_L4_H5_SINGLE, whose store the
 * caller checked is enabled (ctx->l4). done: the checkpoint, when it
 * committed here, and the step times. */
static fti_err write_and_commit(fti_ctx *ctx, int64_t id, int level, fti_taken *done)
{
    const fti_l4_store *st = level >= 4 ? ctx->l4[level] : NULL;
    int asked = level;
    if (st != NULL)
        level = 4;
    fti_ckpt_timing *tm = &done->tm; /* metrics, and FTI's line */
    tm->start = fti_now();
    settle_previous(ctx);
    double t0 = fti_now();
    tm->wait_prev = t0 - tm->start; /* metrics */
    fti_commit c = new_commit(ctx, id, level, st, t0);
    int straight = direct(ctx, st, &c);

    /* staging_mib: the helper thread writes a copy of the data, FTI_Checkpoint returns. */
    if (!straight && (st == NULL || st->stages) && fti_post_can_stage(ctx))
        return stage(ctx, &c, tm);
    if (st != NULL)
        not_staged(ctx, st, &c, straight);
    uint64_t mine = 0;
    int bad = -1; /* the first rank that failed a step */
    fti_log_defer(1); /* a write error is said once, by abandon */
    fti_err e = write_first(ctx, st, &c, &mine);
    tm->bytes = mine; /* metrics */
    tm->write = fti_now() - t0;
    /* The first collective: size, success and the id, in one reduction. */
    fti_ckpt_vote v;
    fti_ckpt_vote_cast(ctx->topo.app, mine, e == FTI_E_OK, id, &v);
    c.bytes = v.bytes;
    fti_err ids = ids_agree(&v);
    if (ids != FTI_E_OK || (bad = v.first_failed) >= 0)
        e = abandon(ctx, &c, tm, ids != FTI_E_OK ? ids : e, ids != FTI_E_OK ? -1 : bad);
    fti_log_defer(0);
    if (ids != FTI_E_OK || v.first_failed >= 0)
        return e;
    if (ctx->topo.node_pos == 0 && asked != FTI_L4_DCP)
        fti_say_node_flag(ctx->topo.node, level); /* FTI's one rank per node */
    if (!straight && level > 1 && !ctx->cfg.inline_l[level] && ctx->post_async[level])
        return hand_over(ctx, &c, tm);
    double t1 = fti_now();
    if (level > 1 && !straight) { /* else written on the global file system already */
        fti_fault_phase(fti_level(level)->phase);
        fti_ring ring;
        fti_ring_of(ctx, &ring);
        fti_phase_reset(); /* metrics: the post's phases */
        /* The application waits in this call: its buffers still hold what
         * the local file got, and the post may send from them. Not while
         * dCP's dirty tracking write-protects them: an MPI that registers
         * a send buffer for RDMA may ask for write access, and fail. */
        fti_file_image img = {0};
        if (!ctx->cfg.dcp_dirty_tracking && fti_file_image_of(&ctx->reg, &img) == FTI_E_OK)
            ctx->post_image = &img;
        e = fti_level(level)->post(ctx, &c, &ring);
        ctx->post_image = NULL;
        fti_file_image_free(&img);
        fti_phase_read(tm->phase);
    }
    tm->post = fti_now() - t1; /* metrics */
    if ((bad = fti_first_failed(ctx->topo.app, e == FTI_E_OK)) >= 0)
        return abandon(ctx, &c, tm, e, bad);
    double t2 = fti_now();
    e = fti_checkpoint_commit(ctx, &c);
    tm->commit = fti_now() - t2; /* metrics */
    if (e == FTI_E_OK) {
        ctx->ckpt_count++;
        remove_obsolete(ctx, st, &c);
        done->c = c; /* its line: fti_checkpoint_take's, with FTI's */
    }
    metrics_line(ctx, &c, tm, e == FTI_E_OK ? "committed" : "failed");
    return e;
}

/* This rank's local file of `from`, under the name of L4 checkpoint `to`:
 * a hard link (the L1-L3 file is removed only once `to` committed). */
static fti_err link_as_l4(fti_ctx *ctx, const fti_commit *from, const fti_commit *to)
{
    char src[FTI_PATH_MAX], dst[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, src, from->level, from->slot, ctx->topo.app_rank);
    fti_path_local(&ctx->dirs, dst, 4, to->slot, ctx->topo.app_rank);
    unlink(dst);
    if (link(src, dst) != 0 && fti_copy_file(src, dst) != 0)
        return fti_fail(FTI_E_IO, "keep_last_ckpt: cannot copy %s to %s: %s", src, dst,
                        fti_fs_strerror(errno));
    return FTI_E_OK;
}

/* The checkpoint a restart would restore: the newest commit this run's
 * restart did not pass over. -1: none. */
static int last_restorable(const fti_ctx *ctx, const fti_commit *cand, int n)
{
    for (int i = 0; i < n; i++)
        if (!fti_recover_passed_over(ctx, &cand[i]))
            return i;
    return -1;
}

fti_err fti_checkpoint_flush_last(fti_ctx *ctx)
{
    fti_commit cand[8];
    int n = fti_meta_candidates(&ctx->meta, cand);
    int last = last_restorable(ctx, cand, n);
    if (ctx->cfg.keep_all_levels || last < 0 || fti_level(4) == NULL)
        return FTI_E_OK;
    if (cand[last].level == 4) { /* on the global file system already: local storage is emptied */
        fti_prune_local(ctx, 1, ctx->cfg.l4_local_copy != 1);
        return FTI_E_OK;
    }
    fti_commit c = cand[last];
    c.level = 4;
    c.slot = next_slot(ctx, 4);
    c.codec = (int)ctx->cfg.l4_codec;
    c.io = fti_l4_store_from_local(ctx)->kind->io;
    fti_err e = link_as_l4(ctx, &cand[last], &c);
    if (fti_all_ok(ctx->topo.app, e == FTI_E_OK)) {
        fti_ring ring;
        fti_ring_of(ctx, &ring);
        e = fti_level(4)->post(ctx, &c, &ring);
    }
    e = fti_agree(ctx->topo.app, e, FTI_E_IO, "keep_last_ckpt: checkpoint #%llu could not be copied "
                  "to the global directory on another rank; it stays in local storage",
                  (unsigned long long)c.seq);
    if (e != FTI_E_OK)
        return e;
    e = fti_checkpoint_commit(ctx, &c);
    if (e == FTI_E_OK && ctx->cfg.l4_local_copy == FTI_L4_COPY_UNTIL_FINALIZE)
        fti_prune_local(ctx, 1, 1); /* as FTI: local storage emptied */
    if (e == FTI_E_OK && ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_INFO, "keep_last_ckpt: checkpoint #%llu (id %lld) is now in %s",
                (unsigned long long)c.seq, (long long)c.id, ctx->dirs.global);
    return e;
}
