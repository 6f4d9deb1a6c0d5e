#include "core/recover.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/collective.h"
#include "core/commit.h"
#include "base/safe_fs.h"
#include "base/walltime.h"
#include "runtime/watchdog.h"
#include "format/ckpt_expect.h"
#include "base/fio.h"
#include "base/fault.h"
#include "data/dirty_pages.h"
#include "stores/l4.h"
#include "stores/l4_store.h"
#include "core/levels.h"
#include "base/log.h"
#include "runtime/metrics.h"

/* One rank's reason, gathered on rank 0: the longest (table_matches) is
 * about 150 characters of text and numbers plus a 113-character path tail,
 * so the file's name at its end is never cut off. */
#define REASON_LEN 320

/* Rank 0 prints which ranks could not restore candidate c, and why;
 * `what` says what went wrong on them. */
static void report_failures(fti_ctx *ctx, const fti_commit *c, int ok, const char *why,
                            const char *what)
{
    char mine[REASON_LEN], *all = NULL;
    snprintf(mine, sizeof mine, "%s", ok ? "" : why);
    if (ctx->topo.app_rank == 0)
        all = malloc((size_t)ctx->topo.app_size * REASON_LEN);
    MPI_Gather(mine, REASON_LEN, MPI_CHAR, all, REASON_LEN, MPI_CHAR, 0, ctx->topo.app);
    if (all == NULL)
        return;
    int shown = 0;
    fti_log(FTI_LOG_WARN, "checkpoint #%llu (level %d) %s:", (unsigned long long)c->seq,
            c->level, what);
    for (int r = 0; r < ctx->topo.app_size && shown < 16; r++)
        if (all[(size_t)r * REASON_LEN] != '\0') {
            fti_log(FTI_LOG_WARN, "  rank %d: %s", r, all + (size_t)r * REASON_LEN);
            shown++;
        }
    free(all);
}

static int file_size(const char *path, uint64_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    *size = (uint64_t)st.st_size;
    return 1;
}

/* Where this rank's file of c is when its local file is not valid: the
 * file the level rebuilt, or an L4 global copy read where it is (*in_place,
 * never to be renamed or removed). */
static void rebuilt_path(fti_ctx *ctx, const fti_commit *c, char *path, int *in_place)
{
    *in_place = fti_l4_reads_global(ctx, c, path);
    if (!*in_place)
        fti_path_rebuilt(&ctx->dirs, path, c->level, c->slot, ctx->topo.app_rank);
}

/* This rank's local file of c: valid as it is (*own_ok), or rebuilt by the
 * level (rebuilt_path). *size: its length. */
static int local_ready(fti_ctx *ctx, const fti_commit *c, int *own_ok, uint64_t *size)
{
    char path[FTI_PATH_MAX], rebuilt[FTI_PATH_MAX];
    int in_place;
    fti_expect x;
    fti_path_local(&ctx->dirs, path, c->level, c->slot, ctx->topo.app_rank);
    rebuilt_path(ctx, c, rebuilt, &in_place);
    fti_expect_data(&x, c, ctx->topo.app_rank, ctx->dirs.exec_id, "own file");
    x.verified = &ctx->rec.verified; /* FTI_Recover need not hash this version again */
    fti_recovery_timing *tm = &ctx->metrics.rec; /* metrics */
    double t0 = fti_now();
    *own_ok = fti_l4_local_serves_restart(ctx, c) && fti_expect_valid(&x, path, size);
    double t1 = fti_now();
    tm->verify += t1 - t0; /* metrics */
    int ok = *own_ok;
    const fti_level_ops *lv = fti_level(c->level);
    if (lv != NULL && c->level > 1) {
        /* Every rank joins the rebuild, even with its own file valid. */
        fti_log_quiet(1); /* reasons are reported once, by rank 0, below */
        ok = lv->rebuild(ctx, c, *own_ok) == FTI_E_OK;
        fti_log_quiet(0);
        if (ok && !fti_commit_rank_file(c)) /* no file of the rank's: read from the store */
            *own_ok = 1, *size = 0;
        if (ok && !*own_ok && (ok = file_size(rebuilt, size)) == 0)
            fti_fail(FTI_E_IO, "rebuilt file %s vanished: %s", rebuilt, strerror(errno));
    }
    tm->rebuild += fti_now() - t1; /* metrics */
    return ok;
}

/* One collective round: whether every rank is ready, and the sum of
 * their file sizes (*total). */
static int ready_everywhere(fti_ctx *ctx, int ok, uint64_t size, uint64_t *total)
{
    uint64_t mine[2] = {ok ? 0 : 1, ok ? size : 0}, all[2] = {1, 0};
    fti_watched_allreduce(mine, all, 2, MPI_UINT64_T, MPI_SUM, ctx->topo.app,
                          "agreement of all ranks");
    *total = all[1];
    return all[0] == 0;
}

/* The sizes of the ranks' files (total) must add up to the commit record's. */
static int sizes_agree(fti_ctx *ctx, const fti_commit *c, uint64_t mine, uint64_t total)
{
    fti_log_quiet(1);
    fti_err e = fti_expect_total(c, total);
    fti_log_quiet(0);
    if (e == FTI_E_OK)
        return 1;
    char path[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, path, c->level, c->slot, ctx->topo.app_rank);
    fti_log_quiet(1);
    fti_fail(FTI_E_CORRUPT, "%s: %llu bytes; %s", path, (unsigned long long)mine, fti_last_error());
    fti_log_quiet(0);
    return 0;
}

/* Candidate c is chosen: rebuilt files take the place of the lost ones,
 * then the level re-creates its lost extra files. Collective. */
static int adopt_rebuilt(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    char path[FTI_PATH_MAX], rebuilt[FTI_PATH_MAX];
    int in_place;
    fti_path_local(&ctx->dirs, path, c->level, c->slot, ctx->topo.app_rank);
    rebuilt_path(ctx, c, rebuilt, &in_place);
    int ok = own_ok || in_place ||
             (rename(rebuilt, path) == 0 && fti_fsync_dir(ctx->dirs.local) == 0);
    if (!ok)
        fti_fail(FTI_E_IO, "cannot rename the rebuilt file %s to %s: %s", rebuilt, path,
                 strerror(errno));
    if (ok && !own_ok && !in_place) {
        fti_file_version now = fti_file_version_of(-1, path);
        if (fti_file_version_renamed(&ctx->rec.rebuilt, &now))
            ctx->rec.verified = now; /* every byte checked as the rebuild wrote it: no second hash */
    }
    if (!fti_all_ok(ctx->topo.app, ok))
        return 0;
    /* open_chosen reads the file from here */
    snprintf(ctx->rec.path, sizeof ctx->rec.path, "%s", own_ok || !in_place ? path : rebuilt);
    const fti_level_ops *lv = fti_level(c->level);
    if (lv != NULL && lv->reprotect != NULL && lv->reprotect(ctx, c, 1)) {
        ctx->rec.reprotect_due = 1;
        ctx->rec.reprotect = *c;
    }
    return 1;
}

/* Rank 0 says why the local copy its heads kept did not help (as in FTI). */
static void note_unused_l4_copy(fti_ctx *ctx, const fti_commit *c)
{
    char path[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, path, c->level, c->slot, ctx->topo.app_rank);
    if (ctx->topo.app_rank != 0 || fti_l4_local_serves_restart(ctx, c) || access(path, F_OK) != 0)
        return;
    fti_log(FTI_LOG_WARN, "checkpoint #%llu (level 4) needs its global files: the local copy "
            "the heads kept (%s) is not used for a restart, as in FTI (l4_local_copy = 1 "
            "allows it)", (unsigned long long)c->seq, path);
}

/* Can candidate c be restored on every rank (after its level's rebuild)?
 * Until every rank can, nothing is written but the rebuilt files, and
 * those are removed again when one rank cannot. */
static int try_candidate(fti_ctx *ctx, const fti_commit *c)
{
    fti_clear_error();
    ctx->metrics.rec.candidates++; /* metrics */
    ctx->rec.verified.known = 0;
    ctx->rec.rebuilt.known = 0;
    int own_ok = 0;
    uint64_t size = 0;
    uint64_t total = 0;
    int ok = local_ready(ctx, c, &own_ok, &size);
    int all = ready_everywhere(ctx, ok, size, &total);
    if (all)
        all = ok = sizes_agree(ctx, c, size, total);
    if (!all) {
        report_failures(ctx, c, ok, fti_last_error(), "cannot be restored on every rank");
        note_unused_l4_copy(ctx, c);
    }
    if (!all && !own_ok) {
        char rebuilt[FTI_PATH_MAX];
        int in_place;
        rebuilt_path(ctx, c, rebuilt, &in_place);
        if (!in_place)
            unlink(rebuilt);
    }
    if (all && adopt_rebuilt(ctx, c, own_ok))
        return 1;
    const fti_level_ops *lv = fti_level(c->level);
    if (lv != NULL && lv->discard != NULL)
        lv->discard(ctx, c);
    return 0;
}

/* Counts dir's checkpoint files of `rank` (-1: of any rank) and appends
 * the paths of the first ones to list (*shown of them in all, at most 4). */
static int list_ours(const char *dir, int rank, char *list, size_t cap, int *shown)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int count = 0;
    for (struct dirent *ent; (ent = readdir(d)) != NULL;) {
        const char *nm = ent->d_name;
        int owner;
        if (fti_name_fanout_dir(nm)) { /* the L4 fan-out's folders, one level down */
            char sub[FTI_PATH_MAX + 256];
            snprintf(sub, sizeof sub, "%s/%s", dir, nm);
            count += list_ours(sub, rank, list, cap, shown);
            continue;
        }
        if (!fti_name_ckpt(nm, &owner) || (rank >= 0 && owner != rank))
            continue;
        count++;
        if (*shown >= 4)
            continue;
        (*shown)++;
        size_t len = strlen(list);
        snprintf(list + len, cap - len, "%s%s/%s", len ? ", " : "", dir, nm);
    }
    closedir(d);
    return count;
}

/* No commit record: files of this exec id that a restart cannot use
 * (the record was deleted or lost) deserve a word before starting fresh.
 * Collective; one rank, the first that has such files, names them. */
static void warn_orphans(fti_ctx *ctx)
{
    char list[4 * FTI_PATH_MAX + 16] = "";
    int shown = 0;
    int mine = list_ours(ctx->dirs.local, ctx->topo.app_rank, list, sizeof list, &shown);
    if (ctx->topo.app_rank == 0)
        mine += list_ours(ctx->dirs.global, -1, list, sizeof list, &shown);
    int total = 0;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, ctx->topo.app);
    if (fti_first_failed(ctx->topo.app, mine == 0) != ctx->topo.app_rank || total == 0)
        return;
    fti_log(FTI_LOG_WARN, "no commit record %s, but %d checkpoint files of exec id %s exist "
            "(%s%s): without the record none of them can be restored; starting fresh",
            ctx->dirs.commit, total, ctx->dirs.exec_id, list, mine > shown ? ", ..." : "");
}

static fti_err open_chosen(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    if (!fti_commit_rank_file(&r->chosen)) /* no local file: variables come from the store */
        return FTI_E_OK;
    fti_expect x; /* r->path: set when the candidate was adopted */
    fti_expect_data(&x, &r->chosen, ctx->topo.app_rank, ctx->dirs.exec_id, "own file");
    return fti_expect_file(&x, r->path, 0, &r->hdr);
}

/* restart = never: the existing record is not restored from, but it stays
 * the truth until this run's first commit replaces it. Its newest slots are
 * kept out of use (checkpoint.c) and this run's sequence numbers follow its
 * own (file names with a seq, dCP layers, never collide). A damaged record
 * names nothing that could be restored: it is overwritten as before. */
static fti_err note_replaced(fti_ctx *ctx)
{
    int found = 0;
    fti_log_quiet(1);
    fti_err e = fti_commit_record_read(ctx, &found);
    fti_log_quiet(0);
    if (e != FTI_E_OK && ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_WARN, "restart = never: %s; this run's first commit replaces it",
                fti_last_error());
    fti_clear_error();
    if (e != FTI_E_OK || !found) {
        memset(&ctx->meta, 0, sizeof ctx->meta);
        return FTI_E_OK;
    }
    ctx->replaced = ctx->meta;
    memset(&ctx->meta, 0, sizeof ctx->meta);
    ctx->meta.last_seq = ctx->replaced.last_seq;
    if (ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_INFO, "restart = never: starting fresh; the committed checkpoints in %s "
                "(newest #%llu) stay untouched until this run's first commit replaces them",
                ctx->dirs.commit, (unsigned long long)ctx->replaced.last_seq);
    return FTI_E_OK;
}

/* A restart decision every rank makes alike (from the same record and
 * agreements): recorded on every rank as its error, printed by rank 0 only. */
__attribute__((format(printf, 3, 4))) static fti_err fail_said_by_rank0(fti_ctx *ctx, fti_err code,
                                                                        const char *fmt, ...)
{
    char msg[1024]; /* as long as the last error message */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int quiet = ctx->topo.app_rank != 0;
    if (quiet)
        fti_log_quiet(1);
    fti_err e = fti_fail(code, "%s", msg);
    if (quiet)
        fti_log_quiet(0);
    return e;
}

/* No committed checkpoint: a fresh start, unless restart = required. */
static fti_err nothing_to_restore(fti_ctx *ctx)
{
    if (ctx->cfg.restart == FTI_RESTART_REQUIRED) /* every rank decides alike: rank 0 says it */
        return fail_said_by_rank0(ctx, FTI_E_NOREC, "restart = required, but no committed "
                                  "checkpoint exists in %s", ctx->dirs.commit);
    if (ctx->cfg.failure > 0 && ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_WARN, "config %s: [restart] failure = %d but no committed checkpoint "
                "exists in %s; starting fresh", ctx->cfg.file, ctx->cfg.failure,
                ctx->dirs.commit);
    return FTI_E_OK;
}

/* Collective: the first candidate, newest first, that every rank can
 * restore becomes ctx->rec.chosen. A checkpoint of another number of
 * ranks is skipped unless its store serves any number (level 9). */
static void choose(fti_ctx *ctx, const fti_commit *cand, int n)
{
    fti_recovery *r = &ctx->rec;
    for (int i = 0; i < n && !r->available; i++) {
        if (cand[i].nranks != ctx->topo.app_size && !fti_commit_any_ranks(&cand[i])) {
            if (ctx->topo.app_rank == 0)
                fti_log(FTI_LOG_WARN, "checkpoint #%llu was taken by %d ranks, this run has %d: "
                        "skipped", (unsigned long long)cand[i].seq, cand[i].nranks,
                        ctx->topo.app_size);
            continue;
        }
        if (try_candidate(ctx, &cand[i])) {
            r->chosen = cand[i];
            r->available = 1;
        }
    }
}

/* Collective: no candidate can be restored on every rank. No rank returns
 * (and maybe aborts the job) before every rank removed its rebuilt files:
 * a refused restart leaves nothing. */
static fti_err refuse(fti_ctx *ctx)
{
    fti_watched_barrier(ctx->topo.app, "refused restart: wait for rebuilt files to be removed");
    fti_metrics_recovery(ctx, NULL, "failed"); /* metrics */
    return fail_said_by_rank0(ctx, FTI_E_NOREC, "no committed checkpoint in %s can be restored "
                              "on every rank (see the list above); nothing was deleted",
                              ctx->dirs.commit);
}

/* Collective: the chosen checkpoint's file opens on every rank. */
static fti_err open_everywhere(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    int all = fti_all_ok(ctx->topo.app, open_chosen(ctx) == FTI_E_OK);
    fti_metrics_recovery(ctx, all ? &r->chosen : NULL, all ? "ready" : "failed"); /* metrics */
    if (!all) /* the rank that cannot open it said so */
        return fail_said_by_rank0(ctx, FTI_E_NOREC, "checkpoint #%llu became unreadable after it "
                                  "was verified", (unsigned long long)r->chosen.seq);
    if (ctx->topo.app_rank == 0)
        /* FTI's words, which its test suites and users' job scripts grep for */
        fti_log(FTI_LOG_INFO, "restart: Recovering successfully from level %d: checkpoint #%llu "
                "(id %lld)", r->chosen.level, (unsigned long long)r->chosen.seq,
                (long long)r->chosen.id);
    return FTI_E_OK;
}

fti_err fti_recover_prepare(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    memset(r, 0, sizeof *r);
    r->var_fd = -1;
    int found = 0;
    if (ctx->cfg.restart == FTI_RESTART_NEVER)
        return note_replaced(ctx);
    fti_err e = fti_commit_record_read(ctx, &found);
    if (e != FTI_E_OK)
        return e;
    r->start_seq = ctx->meta.last_seq;
    fti_commit cand[8];
    int n = found ? fti_meta_candidates(&ctx->meta, cand) : 0;
    if (!found)
        warn_orphans(ctx);
    if (n == 0)
        return nothing_to_restore(ctx);
    r->pending = 1;
    ctx->metrics.rec = (fti_recovery_timing){.start = fti_now()}; /* metrics */
    fti_fault_phase(FTI_PHASE_RECOVERY);
    choose(ctx, cand, n);
    return r->available ? open_everywhere(ctx) : refuse(ctx);
}

/* Restores var from the open file fd; errors name the variable. */
static fti_err restore_one(fti_ctx *ctx, int fd, const fti_var *v)
{
    if (v->dev == NULL) /* a read(2) into a write-protected page fails (dirty_pages.h) */
        fti_dirty_release(v->ptr, fti_var_bytes(v));
    if (!fti_commit_rank_file(&ctx->rec.chosen)) /* read from the store itself */
        return fti_l4_store_of(&ctx->rec.chosen)->read_var(ctx, v);
    const fti_file_entry *e = fti_file_find_near(&ctx->rec.hdr, v->id, (int)(v - ctx->reg.vars));
    if (e == NULL)
        return fti_fail(FTI_E_MISSING, "recover: variable %d is protected but not in checkpoint "
                        "#%llu (%s)", v->id, (unsigned long long)ctx->rec.chosen.seq, ctx->rec.path);
    if (e->nbytes != fti_var_bytes(v))
        return fti_fail(FTI_E_ARG, "recover: variable %d: checkpoint holds %llu bytes, the "
                        "protected buffer has %llu; call FTI_Realloc or protect the stored size",
                        v->id, (unsigned long long)e->nbytes, (unsigned long long)fti_var_bytes(v));
    /* Bytes FTI_Init verified are copied without a second hash, as long as
     * the file is still that version; any change since means a full check. */
    fti_file_version now = fti_file_version_of(fd, NULL);
    int checked = fti_file_version_same(&now, &ctx->rec.verified);
    return fti_file_read_var_sets(fd, ctx->rec.path, e, v, (size_t)ctx->cfg.gpu_host_bufsize,
                                  &ctx->capture, checked);
}

/* The chosen checkpoint's file when an L4 checkpoint kept no local one: the
 * global copy itself, or a local file restored from it (only this rank's:
 * not collective). */
static fti_err ensure_local_file(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    if (r->chosen.level != 4 || access(r->path, F_OK) == 0)
        return FTI_E_OK;
    char global[FTI_PATH_MAX];
    if (fti_l4_reads_global(ctx, &r->chosen, global)) {
        snprintf(r->path, sizeof r->path, "%s", global);
        return FTI_E_OK;
    }
    return fti_l4_restore_own(ctx, &r->chosen);
}

/* The tail of a long path, which names the file (a reason has 200 bytes). */
static const char *path_tail(const char *path)
{
    size_t n = strlen(path);
    return n > 110 ? path + n - 110 : path;
}

/* Whether this rank's file of the chosen checkpoint holds every protected
 * variable at its protected size; else `why` names the first variable that
 * differs and the file. FTI_Init chose the checkpoint before the
 * application protected anything, so this is known only now. */
static int table_matches(fti_ctx *ctx, char *why, size_t cap)
{
    const fti_recovery *r = &ctx->rec;
    if (!fti_commit_rank_file(&r->chosen)) /* datasets, not a table: checked as they are read */
        return 1;
    const char *dots = strlen(r->path) > 110 ? "..." : "";
    for (int i = 0; i < ctx->reg.nvars; i++) {
        const fti_var *v = &ctx->reg.vars[i];
        const fti_file_entry *e = fti_file_find_near(&r->hdr, v->id, i);
        if (e == NULL)
            snprintf(why, cap, "variable %d is protected but not in checkpoint #%llu (%s%.110s)",
                     v->id, (unsigned long long)r->chosen.seq, dots, path_tail(r->path));
        else if (e->nbytes != fti_var_bytes(v))
            snprintf(why, cap, "variable %d: checkpoint holds %llu bytes, the protected buffer "
                     "has %llu (checkpoint #%llu, %s%.110s)", v->id,
                     (unsigned long long)e->nbytes, (unsigned long long)fti_var_bytes(v),
                     (unsigned long long)r->chosen.seq, dots, path_tail(r->path));
        else
            continue;
        return 0;
    }
    return 1;
}

/* Collective: whether the chosen checkpoint's tables match on every rank;
 * rank 0 lists the ranks whose table does not. A rank without the chosen
 * checkpoint (one this run committed, whose file it lost) counts as a
 * match: no other checkpoint helps it, its FTI_Recover fails as before. */
static int tables_match_everywhere(fti_ctx *ctx)
{
    char why[REASON_LEN] = "";
    int ok = !ctx->rec.available || table_matches(ctx, why, sizeof why);
    if (fti_all_ok(ctx->topo.app, ok))
        return 1;
    report_failures(ctx, &ctx->rec.chosen, ok, why,
                    "does not match the protected variables on every rank");
    return 0;
}

/* Collective: candidate c becomes the chosen checkpoint when every rank can
 * restore it (as FTI_Init chose it). */
static int adopt(fti_ctx *ctx, const fti_commit *c)
{
    fti_recover_release(ctx);
    if (!try_candidate(ctx, c))
        return 0;
    ctx->rec.chosen = *c;
    return fti_all_ok(ctx->topo.app, open_chosen(ctx) == FTI_E_OK);
}

/* Collective. The chosen checkpoint's tables do not match on every rank:
 * the newest older committed checkpoint that every rank can restore with
 * matching tables is chosen instead, as FTI_Init passes over an unreadable
 * one. When none matches, the first choice stays: ranks whose table matches
 * restore it, the others fail in restore_one (or call FTI_Realloc, which
 * FTI's programs do, and try again). */
static void fall_back_on_table(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    const fti_commit first = r->chosen;
    fti_commit cand[8];
    int n = fti_meta_candidates(&ctx->meta, cand), tried = 0;
    for (int i = 0; i < n; i++) {
        if (cand[i].seq >= first.seq || !fti_commit_rank_file(&cand[i]) ||
            cand[i].nranks != ctx->topo.app_size)
            continue;
        r->reprotect_due = 0; /* the one passed over is not re-protected */
        tried = 1; /* the first choice's header and mapping are released */
        if (adopt(ctx, &cand[i]) && tables_match_everywhere(ctx)) {
            if (ctx->topo.app_rank == 0)
                fti_log(FTI_LOG_WARN, "FTI_Recover: restoring checkpoint #%llu (level %d, id %lld) "
                        "instead", (unsigned long long)r->chosen.seq, r->chosen.level,
                        (long long)r->chosen.id);
            return;
        }
    }
    if (tried && !adopt(ctx, &first))
        r->available = 0;
    r->chosen = first;
    if (ctx->topo.app_rank == 0)
        fti_log(FTI_LOG_WARN, "FTI_Recover: no older committed checkpoint matches the protected "
                "variables on every rank; checkpoint #%llu stays chosen (call FTI_Realloc or "
                "protect the stored sizes where it does not match)", (unsigned long long)first.seq);
}

/* Collective, once per restart: the first recovery call of every rank
 * (FTI_Recover, FTI_RecoverVarInit or FTI_RecoverVar, the restoring
 * FTI_Snapshot; FTI's programs mix them across ranks) compares the tables.
 * Later calls are local, so a rank may retry after FTI_Realloc alone. */
static void check_tables_once(fti_ctx *ctx)
{
    fti_recovery *r = &ctx->rec;
    if (!r->pending || r->tables_checked)
        return;
    r->tables_checked = 1;
    if (!tables_match_everywhere(ctx))
        fall_back_on_table(ctx);
}

/* Local but for the first call of a restart (check_tables_once). */
fti_err fti_recover_all(fti_ctx *ctx)
{
    double t0 = fti_now(); /* metrics */
    fti_err e = FTI_E_OK;
    check_tables_once(ctx);
    if (!ctx->rec.available)
        e = fti_fail(FTI_E_NOREC, "FTI_Recover: there is no checkpoint to recover (fresh start)");
    int rank_file = fti_commit_rank_file(&ctx->rec.chosen);
    if (e == FTI_E_OK && rank_file)
        e = ensure_local_file(ctx);
    int fd = -1;
    if (e == FTI_E_OK && rank_file &&
        (fd = fti_open_read(ctx->rec.path)) < 0)
        e = fti_fail(FTI_E_IO, "recover: %s: %s", ctx->rec.path, fti_fs_strerror(errno));
    for (int i = 0; e == FTI_E_OK && i < ctx->reg.nvars; i++)
        e = restore_one(ctx, fd, &ctx->reg.vars[i]);
    if (fd >= 0) {
        close(fd);
        fti_recover_drop_l4_copy(ctx);
    }
    if (ctx->rec.available) /* metrics */
        fti_metrics_restore(ctx, fti_now() - t0, e == FTI_E_OK);
    if (e == FTI_E_OK)
        ctx->rec.pending = 0;
    return e;
}

void fti_recover_reprotect_due(fti_ctx *ctx)
{
    if (!ctx->rec.reprotect_due)
        return;
    ctx->rec.reprotect_due = 0;
    fti_level(ctx->rec.reprotect.level)->reprotect(ctx, &ctx->rec.reprotect, 0);
}

fti_err fti_recover_var_open(fti_ctx *ctx)
{
    check_tables_once(ctx);
    if (!ctx->rec.available)
        return fti_fail(FTI_E_NOREC, "FTI_RecoverVarInit: there is no checkpoint to recover");
    if (ctx->rec.var_fd >= 0 || !fti_commit_rank_file(&ctx->rec.chosen))
        return FTI_E_OK;
    fti_err e = ensure_local_file(ctx);
    if (e != FTI_E_OK)
        return e;
    ctx->rec.var_fd = fti_open_read(ctx->rec.path);
    if (ctx->rec.var_fd < 0)
        return fti_fail(FTI_E_IO, "FTI_RecoverVarInit: %s: %s", ctx->rec.path,
                        fti_fs_strerror(errno));
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
