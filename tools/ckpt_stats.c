/*
 * ckpt_stats.c - fti-ckpt stats: a summary table of a metrics file (one JSON
 * object per line, written by the library when metrics_file is set; fields
 * in docs/USER_GUIDE.md). Lines are grouped by event and level. The reader
 * (ckpt_metrics_read) is also report's (ckpt_report.c). The parser
 * reads flat objects (string, number, true/false/null values), which is all
 * the library writes; any other line is reported with its number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_json.h"
#include "ckpt_tool.h"
#include "base/safe_fs.h"

#define MAX_GROUPS 32

/* ---- a flat JSON object -------------------------------------------------- */

static const char *skip_ws(const char *p)
{
    while (isspace((unsigned char)*p))
        p++;
    return p;
}

/* A string at p (after the quote) into out; returns the char after the
 * closing quote, or NULL. Escapes are kept as written except \" and \\. */
static const char *parse_string(const char *p, char *out, size_t n)
{
    size_t k = 0;
    for (; *p && *p != '"'; p++) {
        if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
        else if (*p == '\\' && p[1] == '\0')
            return NULL;
        if (k + 1 < n)
            out[k++] = *p;
    }
    out[k] = '\0';
    return *p == '"' ? p + 1 : NULL;
}

static const char *parse_value(const char *p, ckpt_mfield *f, const char **err)
{
    static const struct { const char *word; double v; } words[] = {{"true", 1}, {"false", 0}, {"null", 0}};
    if (*p == '"') {
        f->is_str = 1;
        p = parse_string(p + 1, f->str, sizeof f->str);
        *err = p ? NULL : "unterminated string";
        return p;
    }
    if (*p == '{' || *p == '[') {
        *err = "nested objects and arrays are not part of a metrics line";
        return NULL;
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strncmp(p, words[i].word, strlen(words[i].word)) == 0) {
            f->num = words[i].v;
            f->is_null = i == 2;
            return p + strlen(words[i].word);
        }
    char *end = NULL;
    errno = 0;
    f->num = strtod(p, &end);
    if (end == p || errno != 0) {
        *err = "bad value";
        return NULL;
    }
    return end;
}

/* One member "key": value. */
static const char *parse_member(const char *p, ckpt_mline *o, const char **err)
{
    if (o->n == CKPT_MFIELDS) {
        *err = "too many fields";
        return NULL;
    }
    ckpt_mfield *f = &o->f[o->n];
    memset(f, 0, sizeof *f);
    if (*p != '"' || (p = parse_string(p + 1, f->key, sizeof f->key)) == NULL) {
        *err = "expected a \"key\"";
        return NULL;
    }
    p = skip_ws(p);
    if (*p != ':') {
        *err = "expected ':'";
        return NULL;
    }
    p = parse_value(skip_ws(p + 1), f, err);
    if (p != NULL)
        o->n++;
    return p;
}

/* Parses one line; NULL on success, else what is wrong. */
static const char *parse_line(const char *line, ckpt_mline *o)
{
    const char *err = NULL, *p = skip_ws(line);
    o->n = 0;
    if (*p++ != '{')
        return "not a JSON object";
    p = skip_ws(p);
    while (*p != '}') {
        if ((p = parse_member(p, o, &err)) == NULL)
            return err;
        p = skip_ws(p);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != '}')
            return "expected ',' or '}'";
    }
    return *skip_ws(p + 1) == '\0' ? NULL : "text after the object";
}

const ckpt_mfield *ckpt_mfield_of(const ckpt_mline *o, const char *key)
{
    for (int i = 0; i < o->n; i++)
        if (strcmp(o->f[i].key, key) == 0)
            return &o->f[i];
    return NULL;
}

double ckpt_mnum(const ckpt_mline *o, const char *key)
{
    const ckpt_mfield *f = ckpt_mfield_of(o, key);
    return f && !f->is_str ? f->num : 0;
}

/* ---- the summary ------------------------------------------------------------ */

typedef struct group {
    char event[32];
    int level;
    long count, failed;
    double bytes, time_sum, time_max, gbs_sum, wait_sum, wait_max;
    long gbs_n;
} group;

typedef struct summary {
    group g[MAX_GROUPS];
    int n;
    long lines, bad;
    double first, last;
} summary;

static group *group_of(summary *s, const char *event, int level)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->g[i].event, event) == 0 && s->g[i].level == level)
            return &s->g[i];
    if (s->n == MAX_GROUPS)
        return NULL;
    group *g = &s->g[s->n++];
    memset(g, 0, sizeof *g);
    snprintf(g->event, sizeof g->event, "%.31s", event);
    g->level = level;
    return g;
}

static void add(summary *s, const ckpt_mline *o)
{
    const ckpt_mfield *ev = ckpt_mfield_of(o, "event"), *st = ckpt_mfield_of(o, "status");
    group *g = group_of(s, ev && ev->is_str ? ev->str : "?", (int)ckpt_mnum(o, "level"));
    if (g == NULL)
        return;
    double t = ckpt_mnum(o, "total_s"), w = ckpt_mnum(o, "app_wait_s"), time = ckpt_mnum(o, "time");
    g->count++;
    g->failed += st && st->is_str && strcmp(st->str, "failed") == 0;
    g->bytes += ckpt_mnum(o, "bytes");
    g->time_sum += t;
    g->time_max = t > g->time_max ? t : g->time_max;
    g->wait_sum += w;
    g->wait_max = w > g->wait_max ? w : g->wait_max;
    if (ckpt_mfield_of(o, "bandwidth_gbs") != NULL) {
        g->gbs_sum += ckpt_mnum(o, "bandwidth_gbs");
        g->gbs_n++;
    }
    if (time > 0 && (s->first == 0 || time < s->first))
        s->first = time;
    s->last = time > s->last ? time : s->last;
}

static void print_summary(const summary *s, const char *path)
{
    printf("metrics %s: %ld lines, %ld malformed, spanning %.1f s\n", path, s->lines, s->bad,
           s->last > s->first ? s->last - s->first : 0.0);
    printf("%-10s %5s %6s %6s %12s %11s %11s %9s %12s %11s\n", "EVENT", "LEVEL", "COUNT", "FAILED",
           "BYTES", "TIME_MEAN_S", "TIME_MAX_S", "GB/S_MEAN", "APP_WAIT_S", "WAIT_MAX_S");
    for (int i = 0; i < s->n; i++) {
        const group *g = &s->g[i];
        char size[32];
        ckpt_human_bytes((uint64_t)g->bytes, size, sizeof size);
        printf("%-10s %5d %6ld %6ld %12s %11.4f %11.4f %9.3f %12.4f %11.4f\n", g->event, g->level,
               g->count, g->failed, size, g->time_sum / (double)g->count, g->time_max,
               g->gbs_n ? g->gbs_sum / (double)g->gbs_n : 0.0, g->wait_sum, g->wait_max);
    }
}

static void json_summary(const summary *s, const char *path)
{
    ckpt_json j;
    cj_begin(&j, stdout, "stats");
    cj_str(&j, "metrics_file", path);
    cj_int(&j, "lines", s->lines);
    cj_int(&j, "malformed", s->bad);
    cj_num(&j, "span_s", s->last > s->first ? s->last - s->first : 0.0);
    cj_array(&j, "events");
    for (int i = 0; i < s->n; i++) {
        const group *g = &s->g[i];
        cj_object(&j, NULL);
        cj_str(&j, "event", g->event);
        cj_int(&j, "level", g->level);
        cj_int(&j, "count", g->count);
        cj_int(&j, "failed", g->failed);
        cj_num(&j, "bytes", g->bytes);
        cj_num(&j, "time_mean_s", g->time_sum / (double)g->count);
        cj_num(&j, "time_max_s", g->time_max);
        if (g->gbs_n)
            cj_num(&j, "bandwidth_mean_gbs", g->gbs_sum / (double)g->gbs_n);
        else
            cj_null(&j, "bandwidth_mean_gbs");
        cj_num(&j, "app_wait_s", g->wait_sum);
        cj_num(&j, "app_wait_max_s", g->wait_max);
        cj_end(&j);
    }
    cj_finish(&j);
}

/* ---- the reader: one rule for stats and report ------------------------------ */

static int read_lines(FILE *in, const char *path, ckpt_mline_fn fn, void *arg, ckpt_mcount *n_out)
{
    static char line[16384];
    static ckpt_mline o;
    while (fgets(line, sizeof line, in) != NULL) {
        size_t n = strlen(line);
        n_out->lines++;
        const char *err = n == sizeof line - 1 && line[n - 1] != '\n' ? "line too long" : NULL;
        if (err == NULL && *skip_ws(line) == '\0')
            continue; /* blank */
        if (err == NULL)
            err = parse_line(line, &o);
        if (err == NULL && ckpt_mfield_of(&o, "event") == NULL)
            err = "no \"event\" field";
        if (err != NULL) {
            ckpt_error("%s:%ld: malformed metrics line (%s)", path, n_out->lines, err);
            n_out->bad++;
            while (n == sizeof line - 1 && line[n - 1] != '\n' && fgets(line, sizeof line, in))
                n = strlen(line); /* rest of an over-long line */
            continue;
        }
        n_out->events++;
        fn(&o, n_out->lines, arg);
    }
    return ferror(in) ? -1 : 0;
}

int ckpt_metrics_read(const char *path, ckpt_mline_fn fn, void *arg, ckpt_mcount *n)
{
    memset(n, 0, sizeof *n);
    FILE *in = fti_fopen_read(path);
    if (in == NULL) {
        ckpt_error("metrics file %s: %s", path, fti_fs_strerror(errno));
        return CKPT_EXIT_USAGE;
    }
    int rc = read_lines(in, path, fn, arg, n);
    fclose(in);
    if (rc != 0) {
        ckpt_error("metrics file %s: read error", path);
        return CKPT_EXIT_USAGE;
    }
    return CKPT_EXIT_OK;
}

static void add_line(const ckpt_mline *o, long lineno, void *arg)
{
    (void)lineno;
    add(arg, o);
}

int ckpt_cmd_stats(const ckpt_opts *o)
{
    static summary s;
    ckpt_mcount n;
    memset(&s, 0, sizeof s);
    int rc = ckpt_metrics_read(o->path, add_line, &s, &n);
    if (rc != CKPT_EXIT_OK)
        return rc;
    s.lines = n.lines;
    s.bad = n.bad;
    if (o->json)
        json_summary(&s, o->path);
    else
        print_summary(&s, o->path);
    return s.bad ? CKPT_EXIT_BAD : CKPT_EXIT_OK;
}
