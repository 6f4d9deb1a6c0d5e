#include "runtime/metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/walltime.h"
#include "core/context.h"
#include "base/log.h"
#include "base/units.h"
#include "base/safe_fs.h"

#define LINE_MAX_LEN 4096

/* A JSON object built into one buffer, written with one write(2). */
typedef struct jline {
    char s[LINE_MAX_LEN];
    size_t n;
} jline;

__attribute__((format(printf, 2, 3))) static void jput(jline *j, const char *fmt, ...)
{
    if (j->n >= sizeof j->s)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(j->s + j->n, sizeof j->s - j->n, fmt, ap);
    va_end(ap);
    j->n += w > 0 ? (size_t)w : 0;
}

/* Keys and strings are ours (event names, exec_id: [A-Za-z0-9._-]): no escaping needed. */
static void jstr(jline *j, const char *key, const char *v)
{
    jput(j, "%s\"%s\":\"%s\"", j->n > 1 ? "," : "", key, v);
}

static void jnum(jline *j, const char *key, double v)
{
    jput(j, "%s\"%s\":%.6f", j->n > 1 ? "," : "", key, v);
}

static void jint(jline *j, const char *key, long long v)
{
    jput(j, "%s\"%s\":%lld", j->n > 1 ? "," : "", key, v);
}

static void jbool(jline *j, const char *key, int v)
{
    jput(j, "%s\"%s\":%s", j->n > 1 ? "," : "", key, v ? "true" : "false");
}

/* "<name>_s": the maximum over ranks; "<name>_s_sum": the sum. */
static void jphase(jline *j, const char *name, double max, double sum)
{
    char key[64];
    snprintf(key, sizeof key, "%s_s", name);
    jnum(j, key, max);
    snprintf(key, sizeof key, "%s_s_sum", name);
    jnum(j, key, sum);
}

static double gbs(uint64_t bytes, double secs)
{
    return secs > 0 ? (double)bytes / secs / 1e9 : 0.0;
}

/* Collective over comm: element-wise max and sum of n values onto rank 0. */
static void reduce(MPI_Comm comm, const double *mine, int n, double *max, double *sum)
{
    MPI_Reduce(mine, max, n, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(mine, sum, n, MPI_DOUBLE, MPI_SUM, 0, comm);
}

static void begin(jline *j, const fti_ctx *ctx, const char *event, const char *status)
{
    j->n = 0;
    jput(j, "{");
    jstr(j, "event", event);
    jstr(j, "status", status);
    jnum(j, "time", fti_now());
    jstr(j, "exec_id", ctx->dirs.exec_id);
}

static int enabled(const fti_ctx *ctx)
{
    return ctx->cfg.metrics_file[0] != '\0';
}

/* Collective over the application ranks: the element-wise max and sum of the
 * n values of mine onto rank 0, which begins the line of event there and
 * returns 1; 0 on the other ranks, and everywhere when metrics are off. */
static int gather_line(fti_ctx *ctx, jline *j, const char *event, const char *status,
                       const double *mine, int n, double *max, double *sum)
{
    if (!enabled(ctx))
        return 0;
    reduce(ctx->topo.app, mine, n, max, sum);
    if (ctx->topo.app_rank != 0)
        return 0;
    begin(j, ctx, event, status);
    return 1;
}

static void commit_fields(jline *j, const fti_commit *c)
{
    jint(j, "id", (long long)c->id);
    jint(j, "seq", (long long)c->seq);
    jint(j, "level", c->level);
    jint(j, "ranks", c->nranks);
    jint(j, "bytes", (long long)c->bytes);
}

/* O_APPEND and one write per line: lines of concurrent jobs never interleave. */
static void append_line(const fti_ctx *ctx, jline *j)
{
    jput(j, "}\n");
    const char *path = ctx->cfg.metrics_file;
    if (j->n >= sizeof j->s) {
        fti_log(FTI_LOG_WARN, "metrics_file %s: line too long, not written", path);
        return;
    }
    int fd = fti_open_append(path); /* a regular file of this user, 0600, or new */
    ssize_t w = fd >= 0 ? write(fd, j->s, j->n) : -1;
    int err = errno;
    if (fd >= 0 && close(fd) != 0 && w == (ssize_t)j->n) {
        err = errno;
        w = -1;
    }
    if (w != (ssize_t)j->n)
        fti_log(FTI_LOG_WARN, "metrics_file %s: cannot append: %s", path,
                w < 0 ? fti_fs_strerror(err) : "short write");
}

enum { C_WAIT, C_WRITE, C_POST, C_COMMIT, C_TOTAL, C_APP, C_BYTES, C_PHASE, C_N = C_PHASE + FTI_PP_N };

/* "post_<phase>_s": the slowest rank's seconds in each phase of the post
 * (phase_clock.h); the phases may overlap. */
static void post_phases(jline *j, const double *max)
{
    char key[64];
    for (int p = 0; p < FTI_PP_N; p++) {
        snprintf(key, sizeof key, "post_%s_s", fti_post_phase_name[p]);
        jnum(j, key, max[p]);
    }
}

void fti_metrics_checkpoint(fti_ctx *ctx, const fti_commit *c, const fti_ckpt_timing *t,
                            const char *status)
{
    double mine[C_N] = {t->wait_prev, t->write, t->post, t->commit,
                        t->write + t->post + t->commit, t->app_wait, (double)t->bytes};
    for (int p = 0; p < FTI_PP_N; p++)
        mine[C_PHASE + p] = t->phase[p];
    double max[C_N], sum[C_N];
    jline j;
    if (!gather_line(ctx, &j, "checkpoint", status, mine, C_N, max, sum))
        return;
    commit_fields(&j, c);
    jint(&j, "bytes_rank_max", (long long)max[C_BYTES]);
    jbool(&j, "async", t->async);
    jphase(&j, "wait_prev", max[C_WAIT], sum[C_WAIT]);
    jphase(&j, "write", max[C_WRITE], sum[C_WRITE]);
    jphase(&j, "post", max[C_POST], sum[C_POST]);
    jphase(&j, "commit", max[C_COMMIT], sum[C_COMMIT]);
    jphase(&j, "total", max[C_TOTAL], sum[C_TOTAL]);
    jphase(&j, "app_wait", max[C_APP], sum[C_APP]);
    jnum(&j, "write_gbs", gbs(c->bytes, max[C_WRITE]));
    jnum(&j, "bandwidth_gbs", gbs(c->bytes, max[C_TOTAL]));
    post_phases(&j, max + C_PHASE);
    append_line(ctx, &j);
}

enum { R_VERIFY, R_REBUILD, R_TOTAL, R_N };

void fti_metrics_recovery(fti_ctx *ctx, const fti_commit *chosen, const char *status)
{
    const fti_recovery_timing *t = &ctx->metrics.rec;
    double mine[R_N] = {t->verify, t->rebuild, fti_now() - t->start};
    double max[R_N], sum[R_N];
    jline j;
    if (!gather_line(ctx, &j, "recovery", status, mine, R_N, max, sum))
        return;
    if (chosen != NULL) {
        commit_fields(&j, chosen);
    } else {
        jput(&j, ",\"id\":null,\"seq\":null,\"level\":null");
        jint(&j, "ranks", ctx->topo.app_size);
        jint(&j, "bytes", 0);
    }
    jint(&j, "candidates", t->candidates);
    jphase(&j, "verify", max[R_VERIFY], sum[R_VERIFY]);
    jphase(&j, "rebuild", max[R_REBUILD], sum[R_REBUILD]);
    jphase(&j, "total", max[R_TOTAL], sum[R_TOTAL]);
    jphase(&j, "app_wait", max[R_TOTAL], sum[R_TOTAL]);
    append_line(ctx, &j);
}

void fti_metrics_restore(fti_ctx *ctx, double secs, int ok)
{
    ctx->metrics.restore_secs = secs;
    ctx->metrics.restore_state = ok ? 1 : 2;
}

enum { O_REPAIR, O_CHOOSE, O_TOTAL, O_N };

void fti_metrics_online(fti_ctx *ctx, int replaced, double repair, double choose)
{
    double mine[O_N] = {repair, choose, repair + choose}, max[O_N], sum[O_N];
    jline j;
    if (!gather_line(ctx, &j, "online_recovery", "ok", mine, O_N, max, sum))
        return;
    jint(&j, "replaced", replaced);
    commit_fields(&j, &ctx->rec.chosen);
    jphase(&j, "repair", max[O_REPAIR], sum[O_REPAIR]);
    jphase(&j, "choose", max[O_CHOOSE], sum[O_CHOOSE]);
    jphase(&j, "total", max[O_TOTAL], sum[O_TOTAL]);
    jphase(&j, "app_wait", max[O_TOTAL], sum[O_TOTAL]);
    append_line(ctx, &j);
}

enum { S_SECS, S_HAS, S_FAILED, S_N };

void fti_metrics_flush_restore(fti_ctx *ctx)
{
    if (!enabled(ctx))
        return;
    fti_metrics_state *m = &ctx->metrics;
    double mine[S_N] = {m->restore_secs, m->restore_state != 0, m->restore_state == 2};
    double max[S_N], sum[S_N];
    reduce(ctx->topo.app, mine, S_N, max, sum);
    m->restore_secs = 0;
    m->restore_state = 0;
    if (ctx->topo.app_rank != 0 || max[S_HAS] == 0)
        return;
    jline j;
    begin(&j, ctx, "restore", max[S_FAILED] != 0 ? "failed" : "ok");
    commit_fields(&j, &ctx->rec.chosen);
    jphase(&j, "restore", max[S_SECS], sum[S_SECS]);
    jphase(&j, "total", max[S_SECS], sum[S_SECS]);
    jphase(&j, "app_wait", max[S_SECS], sum[S_SECS]);
    jnum(&j, "bandwidth_gbs", gbs(ctx->rec.chosen.bytes, max[S_SECS]));
    append_line(ctx, &j);
}

void fti_metrics_log_summary(const fti_ctx *ctx, const fti_commit *c, double secs, const char *how)
{
    if (ctx->topo.app_rank != 0 || !fti_log_style_has(FTI_LOG_STYLE_OURS))
        return;
    char size[FTI_UNITS_LEN], rate[FTI_UNITS_LEN];
    fti_log(FTI_LOG_INFO, "checkpoint #%llu (id %lld) level %d %s: %s in %.3f s (%s)",
            (unsigned long long)c->seq, (long long)c->id, c->level, how,
            fti_format_bytes(size, (double)c->bytes), secs, fti_format_rate(rate, (double)c->bytes, secs));
}

void fti_metrics_job_committed(fti_ctx *ctx, const fti_commit *c)
{
    fti_job_totals *j = &ctx->metrics.job;
    if (c->level >= 1 && c->level <= 4)
        j->count[c->level]++;
    j->bytes += c->bytes;
}

/* "L1 4, L2 2" into out: the levels that have checkpoints. */
static void level_counts(const fti_job_totals *j, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int l = 1; l <= 4 && n < len; l++)
        if (j->count[l] > 0)
            n += (size_t)snprintf(out + n, len - n, "%sL%d %d", n ? ", " : "", l, j->count[l]);
}

/* How the run began, for the summary: "fresh start", or the checkpoint it
 * restarted from and the time that took (decision and restore). */
static void how_started(const fti_job_totals *j, double recovery, char *out, size_t len)
{
    if (!j->restarted)
        snprintf(out, len, "; fresh start");
    else
        snprintf(out, len, "; restart from checkpoint #%llu (id %lld, L%d) took %.3f s",
                 (unsigned long long)j->from.seq, (long long)j->from.id, j->from.level, recovery);
}

static void log_job(const fti_job_totals *j, double run, double blocked, double recovery)
{
    int total = j->count[1] + j->count[2] + j->count[3] + j->count[4];
    char levels[64], size[FTI_UNITS_LEN], rec[128];
    how_started(j, recovery, rec, sizeof rec);
    if (total == 0) {
        fti_log(FTI_LOG_INFO, "job summary: no checkpoint in %.1f s since FTI_Init%s", run, rec);
        return;
    }
    level_counts(j, levels, sizeof levels);
    fti_log(FTI_LOG_INFO, "job summary: %d checkpoint%s (%s), %s, %.3f s in checkpoint calls "
            "of %.1f s since FTI_Init: %.1f%% overhead%s", total, total == 1 ? "" : "s", levels,
            fti_format_bytes(size, (double)j->bytes), blocked, run,
            run > 0 ? 100.0 * blocked / run : 0.0, rec);
}

enum { J_BLOCKED, J_RECOVERY, J_N };

void fti_metrics_job_summary(fti_ctx *ctx)
{
    const fti_job_totals *j = &ctx->metrics.job;
    double mine[J_N] = {j->blocked, j->recovery}, max[J_N], sum[J_N];
    reduce(ctx->topo.app, mine, J_N, max, sum);
    if (ctx->topo.app_rank != 0)
        return;
    log_job(j, fti_now() - j->start, max[J_BLOCKED], max[J_RECOVERY]);
}
