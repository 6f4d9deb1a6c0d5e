/*
 * ckpt_report.c - fti-ckpt report: a run's metrics file as one self-contained
 * HTML page (inline CSS and SVG; no script, nothing fetched): checkpoints over
 * time by level, time and bandwidth per checkpoint, the share of the run the
 * application waited for fault tolerance, restarts and what they resumed
 * from, and the checkpoint data per level. Lines are read by ckpt_stats.c's
 * reader (one parser for stats and report). A malformed line or a file
 * without events is an error, and then no page is written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_tool.h"
#include "base/safe_fs.h"

enum { EV_CKPT, EV_RECOVERY, EV_RESTORE, EV_OTHER };

typedef struct rev {
    int kind, level, has_id, async;
    long line;
    long long id, seq;
    double time, total_s, gbs, app_wait, bytes;
    char event[32], status[32];
} rev;

typedef struct run {
    rev *e;
    size_t n, cap;
    int oom;
    double t0, t1;  /* start of the first event, end of the last */
    double wait;    /* sum of every event's app_wait_s */
    long nckpt;
} run;

static int kind_of(const char *event)
{
    static const char *names[] = {"checkpoint", "recovery", "restore"};
    for (int k = 0; k < EV_OTHER; k++)
        if (strcmp(event, names[k]) == 0)
            return k;
    return EV_OTHER;
}

static void collect(const ckpt_mline *l, long lineno, void *arg)
{
    run *r = arg;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        rev *e = realloc(r->e, cap * sizeof *e);
        if (e == NULL) {
            r->oom = 1;
            return;
        }
        r->e = e;
        r->cap = cap;
    }
    rev *v = &r->e[r->n++];
    memset(v, 0, sizeof *v);
    const ckpt_mfield *ev = ckpt_mfield_of(l, "event"), *st = ckpt_mfield_of(l, "status"),
                      *id = ckpt_mfield_of(l, "id");
    snprintf(v->event, sizeof v->event, "%.31s", ev->is_str ? ev->str : "?");
    snprintf(v->status, sizeof v->status, "%.31s", st && st->is_str ? st->str : "");
    v->kind = kind_of(v->event);
    v->line = lineno;
    v->has_id = id != NULL && !id->is_null && !id->is_str;
    v->id = (long long)ckpt_mnum(l, "id");
    v->seq = (long long)ckpt_mnum(l, "seq");
    v->level = (int)ckpt_mnum(l, "level");
    v->async = ckpt_mnum(l, "async") != 0;
    v->time = ckpt_mnum(l, "time");
    v->total_s = ckpt_mnum(l, "total_s");
    v->gbs = ckpt_mnum(l, "bandwidth_gbs");
    v->app_wait = ckpt_mnum(l, "app_wait_s");
    v->bytes = ckpt_mnum(l, "bytes");
    /* "time" is written when an event ends: it began total_s earlier */
    double start = v->time - v->total_s;
    if (r->n == 1 || start < r->t0)
        r->t0 = start;
    r->t1 = r->n == 1 || v->time > r->t1 ? v->time : r->t1;
    r->wait += v->app_wait;
    r->nckpt += v->kind == EV_CKPT;
}

/* ---- HTML pieces ------------------------------------------------------------- */

static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

static const char *level_colour(int level)
{
    static const char *c[] = {"#777777", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"};
    return level >= 1 && level <= 4 ? c[level] : c[0];
}

static void bytes_text(double b, char *out, size_t n)
{
    ckpt_human_bytes(b > 0 ? (uint64_t)b : 0, out, n);
}

enum { W = 1000, H = 220, ML = 70, MR = 20, MT = 24, MB = 40 };

static void svg_begin(FILE *f, const char *cls, const char *label, int h)
{
    fprintf(f, "<svg class=\"chart %s\" role=\"img\" aria-label=\"%s\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" xmlns=\"http://www.w3.org/2000/svg\">\n",
            cls, label, W, h, W, h);
    fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", ML, h - MB, W - MR,
            h - MB);
}

/* The distinct checkpoint levels, ascending, into lv (<= 16). */
static int levels_of(const run *r, int lv[16])
{
    int n = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (r->e[i].kind != EV_CKPT)
            continue;
        int k = 0;
        while (k < n && lv[k] < r->e[i].level)
            k++;
        if ((k < n && lv[k] == r->e[i].level) || n == 16)
            continue;
        memmove(lv + k + 1, lv + k, (size_t)(n - k) * sizeof *lv);
        lv[k] = r->e[i].level;
        n++;
    }
    return n;
}

static double span(const run *r)
{
    return r->t1 > r->t0 ? r->t1 - r->t0 : 0;
}

static double x_of(const run *r, double t)
{
    double s = span(r);
    return ML + (s > 0 ? (t - r->t0) / s : 0.5) * (W - ML - MR);
}

/* Checkpoints over time, one lane per level; restores as dashed lines. */
static void chart_timeline(FILE *f, const run *r)
{
    int lv[16], nl = levels_of(r, lv);
    int lane = 36, h = MT + MB + lane * (nl > 0 ? nl : 1);
    svg_begin(f, "timeline", "checkpoints over time by level", h);
    for (int k = 0; k < nl; k++)
        fprintf(f, "<text class=\"lane\" x=\"%d\" y=\"%d\">L%d</text>\n", ML - 40,
                MT + lane * k + lane / 2 + 5, lv[k]);
    for (size_t i = 0; i < r->n; i++) {
        const rev *v = &r->e[i];
        if (v->kind == EV_RESTORE)
            fprintf(f, "<line class=\"restart-mark\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\">"
                       "<title>restore of checkpoint id %lld (L%d), %s</title></line>\n",
                    x_of(r, v->time), MT - 10, x_of(r, v->time), h - MB, v->id, v->level,
                    v->status);
        if (v->kind != EV_CKPT)
            continue;
        int k = 0;
        while (k < nl && lv[k] != v->level)
            k++;
        fprintf(f, "<circle class=\"ckpt-mark%s\" data-level=\"%d\" cx=\"%.1f\" cy=\"%d\" r=\"7\" "
                   "fill=\"%s\"><title>checkpoint #%lld, id %lld, L%d, %s</title></circle>\n",
                strcmp(v->status, "committed") == 0 ? "" : " failed", v->level, x_of(r, v->time),
                MT + lane * k + lane / 2, level_colour(v->level), v->seq, v->id, v->level, v->status);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\">0 s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">"
               "%.1f s</text>\n</svg>\n",
            ML, h - MB + 18, W - MR, h - MB + 18, span(r));
}

/* One bar per checkpoint: value(v), coloured by level. */
static void chart_bars(FILE *f, const run *r, const char *cls, const char *label, const char *unit,
                       double (*value)(const rev *))
{
    double max = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->e[i].kind == EV_CKPT && value(&r->e[i]) > max)
            max = value(&r->e[i]);
    svg_begin(f, cls, label, H);
    /* the scale: its top value above the plot, where a long number fits */
    fprintf(f, "<text x=\"%d\" y=\"%d\">max %.4g %s</text>\n"
               "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0</text>\n",
            ML, MT - 6, max, unit, ML - 6, H - MB);
    double slot = r->nckpt > 0 ? (double)(W - ML - MR) / (double)r->nckpt : 0;
    long k = 0;
    for (size_t i = 0; i < r->n; i++) {
        const rev *v = &r->e[i];
        if (v->kind != EV_CKPT)
            continue;
        double bh = max > 0 ? value(v) / max * (H - MT - MB) : 0;
        double x = ML + slot * (double)k++;
        fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                   "fill=\"%s\"><title>checkpoint #%lld (L%d): %.4g %s</title></rect>\n",
                x + slot * 0.15, H - MB - bh, slot * 0.7, bh, level_colour(v->level), v->seq,
                v->level, value(v), unit);
        if (slot >= 18)
            fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">#%lld</text>\n",
                    x + slot / 2, H - MB + 16, v->seq);
    }
    fputs("</svg>\n", f);
}

static double v_time(const rev *v) { return v->total_s; }
static double v_gbs(const rev *v) { return v->gbs; }

/* The share of the run the application waited: one bar. */
static void chart_overhead(FILE *f, const run *r)
{
    double s = span(r), share = s > 0 ? r->wait / s : 0;
    int h = 70, w = W - ML - MR;
    svg_begin(f, "overhead", "overhead as a share of the run", h);
    fprintf(f, "<rect x=\"%d\" y=\"10\" width=\"%d\" height=\"20\" fill=\"#dddddd\"/>\n"
               "<rect class=\"bar\" x=\"%d\" y=\"10\" width=\"%.1f\" height=\"20\" fill=\"#d62728\"/>\n"
               "<text x=\"%d\" y=\"25\" text-anchor=\"end\">%.2f %%</text>\n</svg>\n",
            ML, w, ML, (share > 1 ? 1 : share) * w, ML - 6, 100 * share);
}

typedef struct lvstore {
    int level;
    long count;
    double newest, written;
} lvstore;

static int storage_of(const run *r, lvstore out[16])
{
    int lv[16], nl = levels_of(r, lv);
    for (int k = 0; k < nl; k++) {
        memset(&out[k], 0, sizeof out[k]);
        out[k].level = lv[k];
        for (size_t i = 0; i < r->n; i++) {
            const rev *v = &r->e[i];
            if (v->kind != EV_CKPT || v->level != lv[k] || strcmp(v->status, "committed") != 0)
                continue;
            out[k].count++;
            out[k].newest = v->bytes;
            out[k].written += v->bytes;
        }
    }
    return nl;
}

/* Checkpoint data per level: the newest checkpoint's bytes. */
static void chart_storage(FILE *f, const lvstore *s, int n)
{
    double max = 0;
    for (int k = 0; k < n; k++)
        max = s[k].newest > max ? s[k].newest : max;
    int row = 30, h = MT + MB + row * (n > 0 ? n : 1);
    svg_begin(f, "storage", "storage used per level", h);
    for (int k = 0; k < n; k++) {
        char b[32];
        bytes_text(s[k].newest, b, sizeof b);
        double w = max > 0 ? s[k].newest / max * (W - ML - MR - 120) : 0;
        fprintf(f, "<text x=\"%d\" y=\"%d\">L%d</text><rect class=\"bar\" x=\"%d\" y=\"%d\" "
                   "width=\"%.1f\" height=\"20\" fill=\"%s\"/><text x=\"%.1f\" y=\"%d\">%s</text>\n",
                ML - 40, MT + row * k + 15, s[k].level, ML, MT + row * k, w,
                level_colour(s[k].level), ML + w + 6, MT + row * k + 15, b);
    }
    fputs("</svg>\n", f);
}

/* ---- tables ------------------------------------------------------------------ */

static void table_checkpoints(FILE *f, const run *r)
{
    fputs("<table id=\"checkpoints\"><tr><th>#</th><th>id</th><th>level</th><th>status</th>"
          "<th>at (s)</th><th>bytes</th><th>time (s)</th><th>GB/s</th><th>app wait (s)</th>"
          "<th>async</th><th>line</th></tr>\n", f);
    for (size_t i = 0; i < r->n; i++) {
        const rev *v = &r->e[i];
        if (v->kind != EV_CKPT)
            continue;
        fprintf(f, "<tr class=\"ckpt-row\"><td>%lld</td><td>%lld</td><td>L%d</td><td>", v->seq,
                v->id, v->level);
        esc(f, v->status);
        fprintf(f, "</td><td>%.3f</td><td>%.0f</td><td>%.4f</td><td>%.3f</td><td>%.4f</td>"
                   "<td>%s</td><td>%ld</td></tr>\n",
                v->time - r->t0, v->bytes, v->total_s, v->gbs, v->app_wait, v->async ? "yes" : "no",
                v->line);
    }
    fputs("</table>\n", f);
}

/* recovery: a launch found checkpoints and chose one ("ready") or could
 * restore none ("failed"); restore: the data was read back from it. */
static void table_restarts(FILE *f, const run *r)
{
    fputs("<table id=\"restarts\"><tr><th>at (s)</th><th>event</th><th>status</th>"
          "<th>resumed from</th><th>time (s)</th><th>line</th></tr>\n", f);
    int any = 0;
    for (size_t i = 0; i < r->n; i++) {
        const rev *v = &r->e[i];
        if (v->kind != EV_RECOVERY && v->kind != EV_RESTORE)
            continue;
        any = 1;
        fprintf(f, "<tr class=\"restart-row %s\"><td>%.3f</td><td>%s</td><td>", v->event,
                v->time - r->t0, v->event);
        esc(f, v->status);
        if (v->has_id)
            fprintf(f, "</td><td>checkpoint #%lld, id %lld, L%d</td>", v->seq, v->id, v->level);
        else
            fputs("</td><td>none</td>", f);
        fprintf(f, "<td>%.4f</td><td>%ld</td></tr>\n", v->total_s, v->line);
    }
    if (!any)
        fputs("<tr><td colspan=\"6\">no restart in this file</td></tr>\n", f);
    fputs("</table>\n", f);
}

static void table_storage(FILE *f, const lvstore *s, int n)
{
    fputs("<table id=\"storage\"><tr><th>level</th><th>checkpoints</th>"
          "<th>newest (bytes)</th><th>written in all (bytes)</th></tr>\n", f);
    for (int k = 0; k < n; k++)
        fprintf(f, "<tr class=\"storage-row\"><td>L%d</td><td>%ld</td><td>%.0f</td><td>%.0f</td></tr>\n",
                s[k].level, s[k].count, s[k].newest, s[k].written);
    fputs("</table>\n", f);
}

static const char css[] =
    "body{font-family:sans-serif;margin:24px;color:#222;background:#fff}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px}"
    "svg.chart{display:block;border:1px solid #ccc;background:#fafafa;margin:8px 0}"
    "svg text{font-size:12px;fill:#333}.axis{stroke:#888}"
    ".restart-mark{stroke:#9400d3;stroke-width:2;stroke-dasharray:5 3}"
    ".ckpt-mark.failed{stroke:#000;stroke-width:2;fill-opacity:.3}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 8px;"
    "text-align:right}th{background:#eee}.legend span{display:inline-block;width:12px;height:12px;"
    "margin:0 4px 0 12px}";

static void page(FILE *f, const run *r, const char *path)
{
    lvstore st[16];
    int nl = storage_of(r, st);
    double s = span(r);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<title>fti-ckpt report</title><style>", f);
    fputs(css, f);
    fprintf(f, "</style></head>\n<body><main data-checkpoints=\"%ld\">\n<h1>Run report: ",
            r->nckpt);
    esc(f, path);
    fprintf(f, "</h1>\n<p>%zu events, %ld checkpoints, from the start of the first event to the "
               "end of the last %.3f s (gaps between launches included).</p>\n<p class=\"legend\">",
            r->n, r->nckpt, s);
    for (int k = 0; k < nl; k++)
        fprintf(f, "<span style=\"background:%s\"></span>L%d", level_colour(st[k].level), st[k].level);
    fputs("<span style=\"background:#9400d3\"></span>restore</p>\n", f);
    fprintf(f, "<h2>Overhead</h2>\n<p id=\"overhead\">The application waited %.3f s for "
               "checkpoints, recoveries and restores (the sum of app_wait_s) in %.3f s: "
               "%.2f %% of the run.</p>\n",
            r->wait, s, s > 0 ? 100 * r->wait / s : 0.0);
    chart_overhead(f, r);
    fputs("<h2>Checkpoints over time by level</h2>\n", f);
    chart_timeline(f, r);
    fputs("<h2>Restarts</h2>\n<p>recovery: a launch found committed checkpoints and chose the "
          "one to restart from (ready), or could restore none (failed); restore: the "
          "application's data was read back from it.</p>\n", f);
    table_restarts(f, r);
    fputs("<h2>Time per checkpoint (total_s)</h2>\n", f);
    chart_bars(f, r, "time", "time per checkpoint", "s", v_time);
    fputs("<h2>Bandwidth per checkpoint (bandwidth_gbs)</h2>\n", f);
    chart_bars(f, r, "bandwidth", "bandwidth per checkpoint", "GB/s", v_gbs);
    fputs("<h2>Storage used per level</h2>\n<p>Checkpoint data of the newest committed "
          "checkpoint of each level (L2 partner copies and L3 parity add to it on disk).</p>\n", f);
    chart_storage(f, st, nl);
    table_storage(f, st, nl);
    fputs("<h2>Checkpoints</h2>\n", f);
    table_checkpoints(f, r);
    fputs("</main></body></html>\n", f);
}

/* ---- the command --------------------------------------------------------------- */

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Writes the page to -o (a new file, as extract: a link or another user's
 * file there is refused); a partial page is removed. */
static int write_page(const run *r, const ckpt_opts *o)
{
    int to_stdout = strcmp(o->output, "-") == 0;
    if (!to_stdout && same_file(o->output, o->path)) {
        ckpt_error("-o %s is the metrics file itself", o->output);
        return CKPT_EXIT_USAGE;
    }
    int fd = to_stdout ? STDOUT_FILENO : fti_open_new(o->output);
    FILE *f = fd >= 0 ? (to_stdout ? stdout : fdopen(fd, "w")) : NULL;
    if (f == NULL) {
        ckpt_error("-o %s: %s", o->output, fti_fs_strerror(errno));
        if (fd >= 0)
            close(fd);
        return CKPT_EXIT_USAGE;
    }
    page(f, r, o->path);
    int bad = ferror(f) != 0;
    int err = errno;
    if (to_stdout ? fflush(f) != 0 : fclose(f) != 0) {
        bad = 1;
        err = errno;
    }
    if (bad) {
        ckpt_error("writing %s: %s", o->output, fti_fs_strerror(err));
        if (!to_stdout)
            unlink(o->output); /* our own partial page */
        return CKPT_EXIT_BAD;
    }
    return CKPT_EXIT_OK;
}

int ckpt_cmd_report(const ckpt_opts *o)
{
    if (o->output == NULL) {
        ckpt_error("report needs -o FILE (the HTML page; - is stdout)");
        return CKPT_EXIT_USAGE;
    }
    run r;
    ckpt_mcount n;
    memset(&r, 0, sizeof r);
    int rc = ckpt_metrics_read(o->path, collect, &r, &n);
    if (rc == CKPT_EXIT_OK && r.oom) {
        ckpt_error("metrics file %s: out of memory", o->path);
        rc = CKPT_EXIT_BAD;
    } else if (rc == CKPT_EXIT_OK && n.bad > 0) {
        ckpt_error("metrics file %s: %ld malformed line%s (above); no report written", o->path,
                   n.bad, n.bad == 1 ? "" : "s");
        rc = CKPT_EXIT_USAGE;
    } else if (rc == CKPT_EXIT_OK && n.events == 0) {
        ckpt_error("metrics file %s: no event line in its %ld line%s; no report written", o->path,
                   n.lines, n.lines == 1 ? "" : "s");
        rc = CKPT_EXIT_USAGE;
    }
    if (rc == CKPT_EXIT_OK)
        rc = write_page(&r, o);
    free(r.e);
    return rc;
}
