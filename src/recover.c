#include "recover.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "fault.h"
#include "levels/l4_pfs.h"
#include "levels/levels.h"
#include "log.h"
#include "metrics.h"

#define REASON_LEN 200

/* Rank 0 reads the commit record; everyone gets the same copy. */
static fti_err load_meta(fti_ctx *ctx, int *found)
{
    int status[2] = {0, 0}; /* ok, found */
    if (ctx->topo.app_rank == 0) {
        fti_err e = fti_meta_load(ctx->dirs.commit, &ctx->meta, found);
        status[0] = e == FTI_E_OK;
        status[1] = *found;
    }
    MPI_Bcast(status, 2, MPI_INT, 0, ctx->topo.app);
    MPI_Bcast(&ctx->meta, (int)sizeof ctx->meta, MPI_BYTE, 0, ctx->topo.app);
    *found = status[1];
    if (!status[0])
        return fti_fail(FTI_E_CORRUPT, "commit record %s is damaged; nothing was deleted "
                        "(see the message of rank 0)", ctx->dirs.commit);
    return FTI_E_OK;
}

/* Rank 0 prints which ranks could not restore candidate c, and why. */
static void report_failures(fti_ctx *ctx, const fti_commit *c, int ok, const char *why)
{
    char mine[REASON_LEN], *all = NULL;
    snprintf(mine, sizeof mine, "%s", ok ? "" : why);
    if (ctx->topo.app_rank == 0)
        all = malloc((size_t)ctx->topo.app_size * REASON_LEN);
    MPI_Gather(mine, REASON_LEN, MPI_CHAR, all, REASON_LEN, MPI_CHAR, 0, ctx->topo.app);
    if (all == NULL)
        return;
    int shown = 0;
    fti_log(FTI_LOG_WARN, "checkpoint #%llu (level %d) cannot be restored on every rank:",
            (unsigned long long)c->seq, c->level);
    for (int r = 0; r < ctx->topo.app_size && shown < 16; r++)
        if (all[(size_t)r * REASON_LEN] != '\0') {
            fti_log(FTI_LOG_WARN, "  rank %d: %s", r, all + (size_t)r * REASON_LEN);
            shown++;
        }
    free(all);
}

/* Can candidate c be restored on every rank (after its level's rebuild)? */
static int try_candidate(fti_ctx *ctx, const fti_commit *c)
{
    char path[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, path, c->level, c->slot, ctx->topo.app_rank);
    fti_clear_error();
    fti_recovery_timing *tm = &ctx->metrics.rec; /* metrics */
    double t0 = fti_now();
    tm->candidates++;
    int own_ok = fti_file_valid(path, c->seq);
    int ok = own_ok;
    double t1 = fti_now();
    tm->verify += t1 - t0; /* metrics */
    const fti_level_ops *lv = fti_level(c->level);
    if (lv != NULL && c->level > 1) {
        /* Every rank joins the rebuild, even with its own file valid. */
        fti_log_quiet(1); /* reasons are reported once, by rank 0, below */
        ok = lv->rebuild(ctx, c, own_ok) == FTI_E_OK;
        fti_log_quiet(0);
    }
    tm->rebuild += fti_now() - t1; /* metrics */
    int all = fti_all_ok(ctx->topo.app, ok);
    if (!all)
        report_failures(ctx, c, ok, fti_last_error());
    return all;
}

static fti_err open_chosen(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    fti_path_local(&ctx->dirs, r->path, r->chosen.level, r->chosen.slot, ctx->topo.app_rank);
    return fti_file_verify(r->path, r->chosen.seq, 0, &r->hdr);
}

fti_err fti_recover_prepare(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    memset(r, 0, sizeof *r);
    r->var_fd = -1;
    int found = 0;
    if (ctx->cfg.restart == FTI_RESTART_NEVER)
        return FTI_E_OK;
    fti_err e = load_meta(ctx, &found);
    if (e != FTI_E_OK)
        return e;
    fti_commit cand[8];
    int n = found ? fti_meta_candidates(&ctx->meta, cand) : 0;
    if (n == 0) {
        if (ctx->cfg.restart == FTI_RESTART_REQUIRED)
            return fti_fail(FTI_E_NOREC, "restart = required, but no committed checkpoint exists "
                            "in %s", ctx->dirs.commit);
        if (ctx->cfg.failure > 0 && ctx->topo.app_rank == 0)
            fti_log(FTI_LOG_WARN, "config %s: [restart] failure = %d but no committed checkpoint "
                    "exists in %s; starting fresh", ctx->cfg.file, ctx->cfg.failure,
                    ctx->dirs.commit);
        return FTI_E_OK;
    }
    r->pending = 1;
    ctx->metrics.rec = (fti_recovery_timing){.start = fti_now()}; /* metrics */
    fti_fault_phase("recovery", NULL);
    for (int i = 0; i < n; i++) {
        if (cand[i].nranks != ctx->topo.app_size) {
            if (ctx->topo.app_rank == 0)
                fti_log(FTI_LOG_WARN, "checkpoint #%llu was taken by %d ranks, this run has %d: "
                        "skipped", (unsigned long long)cand[i].seq, cand[i].nranks,
                        ctx->topo.app_size);
            continue;
        }
        if (try_candidate(ctx, &cand[i])) {
            r->chosen = cand[i];
            r->available = 1;
            break;
        }
    }
    if (!r->available) {
        fti_metrics_recovery(ctx, NULL, "failed"); /* metrics */
        int quiet = ctx->topo.app_rank != 0;
        if (quiet)
            fti_log_quiet(1);
        e = fti_fail(FTI_E_NOREC, "no committed checkpoint in %s can be restored on every rank "
                        "(see the list above); nothing was deleted", ctx->dirs.commit);
        if (quiet)
            fti_log_quiet(0);
        return e;
    }
    e = open_chosen(ctx);
    int all = fti_all_ok(ctx->topo.app, e == FTI_E_OK);
    fti_metrics_recovery(ctx, all ? &r->chosen : NULL, all ? "ready" : "failed"); /* metrics */
    if (!all)
        return fti_fail(FTI_E_NOREC, "checkpoint #%llu became unreadable after it was verified",
                        (unsigned long long)r->chosen.seq);
    if (ctx->topo.app_rank == 0)
        /* FTI's words, which its test suites and users' job scripts grep for */
        fti_log(FTI_LOG_INFO, "restart: Recovering successfully from level %d: checkpoint #%llu "
                "(id %lld)", r->chosen.level, (unsigned long long)r->chosen.seq,
                (long long)r->chosen.id);
    return FTI_E_OK;
}

/* Restores var from the open file fd; errors name the variable. */
static fti_err restore_one(fti_ctx *ctx, int fd, const fti_var *v)
{
    const fti_file_entry *e = fti_file_find(&ctx->rec.hdr, v->id);
    if (e == NULL)
        return fti_fail(FTI_E_MISSING, "recover: variable %d is protected but not in checkpoint "
                        "#%llu (%s)", v->id, (unsigned long long)ctx->rec.chosen.seq, ctx->rec.path);
    if (e->nbytes != fti_var_bytes(v))
        return fti_fail(FTI_E_ARG, "recover: variable %d: checkpoint holds %llu bytes, the "
                        "protected buffer has %llu; call FTI_Realloc or protect the stored size",
                        v->id, (unsigned long long)e->nbytes, (unsigned long long)fti_var_bytes(v));
    return fti_file_read_var_sets(fd, ctx->rec.path, e, v, (size_t)ctx->cfg.gpu_host_bufsize,
                                  &ctx->capture);
}

/* The chosen checkpoint's local file, restored from the global copy when an
 * L4 checkpoint kept none (only this rank's: not collective). */
static fti_err ensure_local_file(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    if (r->chosen.level != 4 || access(r->path, F_OK) == 0)
        return FTI_E_OK;
    return fti_l4_restore_own(ctx, &r->chosen);
}

/* As FTI, an L4 checkpoint keeps no local file (unless l4_local_copy = 1):
 * the one restored from the global copy goes once it was read; a later
 * recovery fetches it again. */
static void drop_l4_copy(fti_ctx *ctx)
{
    if (ctx->rec.chosen.level == 4 && !ctx->cfg.l4_local_copy)
        unlink(ctx->rec.path);
}

/* Local: ranks may recover with different calls (FTI_Recover on some,
 * FTI_RecoverVar on others), so no rank waits for another here. */
fti_err fti_recover_all(fti_ctx *ctx)
{
    double t0 = fti_now(); /* metrics */
    fti_err e = FTI_E_OK;
    if (!ctx->rec.available)
        e = fti_fail(FTI_E_NOREC, "FTI_Recover: there is no checkpoint to recover (fresh start)");
    if (e == FTI_E_OK)
        e = ensure_local_file(ctx);
    int fd = -1;
    if (e == FTI_E_OK && (fd = open(ctx->rec.path, O_RDONLY | O_CLOEXEC)) < 0)
        e = fti_fail(FTI_E_IO, "recover: %s: %s", ctx->rec.path, strerror(errno));
    for (int i = 0; e == FTI_E_OK && i < ctx->reg.nvars; i++)
        e = restore_one(ctx, fd, &ctx->reg.vars[i]);
    if (fd >= 0) {
        close(fd);
        drop_l4_copy(ctx);
    }
    if (ctx->rec.available) /* metrics */
        fti_metrics_restore(ctx, fti_now() - t0, e == FTI_E_OK);
    if (e == FTI_E_OK)
        ctx->rec.pending = 0;
    return e;
}

fti_err fti_recover_track(fti_ctx *ctx, const fti_commit *c)
{
    fti_recovery *r = &ctx->rec;
    fti_recover_release(ctx);
    r->available = 0;
    r->chosen = *c;
    fti_path_local(&ctx->dirs, r->path, c->level, c->slot, ctx->topo.app_rank);
    fti_log_quiet(1);
    fti_err e = fti_file_verify(r->path, c->seq, 0, &r->hdr);
    fti_log_quiet(0);
    r->available = e == FTI_E_OK;
    return e;
}

fti_err fti_recover_var_open(fti_ctx *ctx)
{
    if (!ctx->rec.available)
        return fti_fail(FTI_E_NOREC, "FTI_RecoverVarInit: there is no checkpoint to recover");
    if (ctx->rec.var_fd >= 0)
        return FTI_E_OK;
    fti_err e = ensure_local_file(ctx);
    if (e != FTI_E_OK)
        return e;
    ctx->rec.var_fd = open(ctx->rec.path, O_RDONLY | O_CLOEXEC);
    if (ctx->rec.var_fd < 0)
        return fti_fail(FTI_E_IO, "FTI_RecoverVarInit: %s: %s", ctx->rec.path, strerror(errno));
    return FTI_E_OK;
}

fti_err fti_recover_var(fti_ctx *ctx, int id)
{
    fti_var *v = fti_registry_find(&ctx->reg, id);
    if (v == NULL)
        return fti_fail(FTI_E_ARG, "FTI_RecoverVar: variable %d is not protected", id);
    if (ctx->rec.var_fd < 0) {
        fti_err e = fti_recover_var_open(ctx);
        if (e != FTI_E_OK)
            return e;
        e = restore_one(ctx, ctx->rec.var_fd, v);
        fti_recover_var_close(ctx);
        return e;
    }
    return restore_one(ctx, ctx->rec.var_fd, v);
}

void fti_recover_var_close(fti_ctx *ctx)
{
    if (ctx->rec.var_fd >= 0) {
        close(ctx->rec.var_fd);
        drop_l4_copy(ctx);
    }
    ctx->rec.var_fd = -1;
}

void fti_recover_release(fti_ctx *ctx)
{
    fti_recover_var_close(ctx);
    fti_file_header_free(&ctx->rec.hdr);
}

int fti_recover_name_id(fti_ctx *ctx, const char *name)
{
    if (!ctx->rec.available || name == NULL)
        return -1;
    for (uint32_t i = 0; i < ctx->rec.hdr.nvars; i++) {
        const fti_file_entry *v = &ctx->rec.hdr.vars[i];
        if (v->id < FTI_FIRST_STRING_ID || strncmp(v->name, name, FTI_NAME_LEN) != 0)
            continue;
        return fti_registry_adopt_name(&ctx->reg, v->name, v->id) == FTI_E_OK ? v->id : -1;
    }
    return -1;
}
