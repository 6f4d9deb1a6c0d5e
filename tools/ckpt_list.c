/*
 * ckpt_list.c - fti-ckpt list: every committed checkpoint of the commit
 * record (the current and the previous one of each level), newest first.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ckpt_json.h"
#include "ckpt_tool.h"
#include "format/dcp_file.h"
#include "format/l4_kind.h"

typedef struct row {
    fti_commit c;
    const char *state; /* "cur" or "prev" */
} row;

static int collect(const fti_meta *m, row out[8])
{
    int n = 0;
    for (int l = 1; l <= 4; l++) {
        if (m->cur[l].valid)
            out[n++] = (row){m->cur[l], "cur"};
        if (m->prev[l].valid)
            out[n++] = (row){m->prev[l], "prev"};
    }
    for (int i = 1; i < n; i++) /* newest (highest seq) first */
        for (int j = i; j > 0 && out[j].c.seq > out[j - 1].c.seq; j--) {
            row r = out[j];
            out[j] = out[j - 1];
            out[j - 1] = r;
        }
    return n;
}

static void format_time(double t, char *out, size_t n)
{
    time_t s = (time_t)t;
    struct tm tm;
    if (localtime_r(&s, &tm) == NULL || strftime(out, n, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(out, n, "%.0f", t);
}

/* Variables in rank 0's file (from the header of any good copy), or -1. */
static long variables(const ckpt_tool *t, const fti_commit *c)
{
    static ckpt_file f;
    fti_file_header h;
    ckpt_l4_out o = {.fd = -1};
    long n = -1;
    if (t->nodes != NULL && ckpt_check_mapping(t, c, 0, 1) != CKPT_EXIT_OK)
        return -1;
    if (ckpt_find_copy(t, c, 0, 0, &f, &h) == 0) {
        n = h.nvars;
        fti_file_header_free(&h);
    } else if (c->level == 4) { /* reads the whole copy: only when rank 0's own file is gone */
        ckpt_l4_check(t, c, 0, &f, &o);
        if (o.have_hdr)
            n = o.hdr.nvars;
        ckpt_l4_out_free(&o);
    }
    return n;
}

static void print_row(const ckpt_tool *t, const row *r)
{
    char when[32], size[32], vars[24];
    format_time(r->c.time, when, sizeof when);
    ckpt_human_bytes(r->c.bytes, size, sizeof size);
    long nvars = variables(t, &r->c);
    if (nvars < 0)
        snprintf(vars, sizeof vars, "?");
    else
        snprintf(vars, sizeof vars, "%ld", nvars);
    printf("%5llu %8lld %5d %4d  %-5s %-19s %6d %12llu %10s %9s\n",
           (unsigned long long)r->c.seq, (long long)r->c.id,
           fti_commit_shown_level(&r->c), r->c.slot, r->state, when,
           r->c.nranks, (unsigned long long)r->c.bytes, size, vars);
}

static void json_row(ckpt_json *j, const ckpt_tool *t, const row *r)
{
    char when[32];
    format_time(r->c.time, when, sizeof when);
    long nvars = variables(t, &r->c);
    cj_object(j, NULL);
    cj_uint(j, "seq", r->c.seq);
    cj_int(j, "id", r->c.id);
    cj_int(j, "level", fti_commit_shown_level(&r->c));
    cj_int(j, "slot", r->c.slot);
    cj_str(j, "state", r->state);
    cj_num(j, "committed", r->c.time);
    cj_str(j, "committed_local", when);
    cj_int(j, "ranks", r->c.nranks);
    cj_uint(j, "bytes", r->c.bytes);
    if (nvars < 0)
        cj_null(j, "variables");
    else
        cj_int(j, "variables", nvars);
    cj_end(j);
}

static int list_json(const ckpt_tool *t, const row *rows, int n)
{
    ckpt_json j;
    cj_begin(&j, stdout, "list");
    cj_str(&j, "config", t->cfg.file);
    cj_str(&j, "exec_id", t->dirs.exec_id);
    cj_str(&j, "commit_record", t->dirs.commit);
    cj_array(&j, "checkpoints");
    for (int i = 0; i < n; i++)
        json_row(&j, t, &rows[i]);
    cj_finish(&j);
    return CKPT_EXIT_OK;
}

int ckpt_cmd_list(const ckpt_opts *o)
{
    ckpt_tool t;
    int rc = ckpt_open(&t, o);
    if (rc != CKPT_EXIT_OK)
        return rc;
    if (o->json) {
        row rows[8];
        return list_json(&t, rows, t.have_meta ? collect(&t.meta, rows) : 0);
    }
    printf("config %s, exec_id %s\ncommit record %s\n", t.cfg.file, t.dirs.exec_id, t.dirs.commit);
    row rows[8];
    int n = t.have_meta ? collect(&t.meta, rows) : 0;
    if (n == 0) {
        printf("no committed checkpoint\n");
        return CKPT_EXIT_OK;
    }
    printf("%5s %8s %5s %4s  %-5s %-19s %6s %12s %10s %9s\n", "SEQ", "ID", "LEVEL", "SLOT",
           "STATE", "COMMITTED", "RANKS", "BYTES", "SIZE", "VARIABLES");
    for (int i = 0; i < n; i++)
        print_row(&t, &rows[i]);
    return CKPT_EXIT_OK;
}
