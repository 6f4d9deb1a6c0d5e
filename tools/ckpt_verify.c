/*
 * ckpt_verify.c - fti-ckpt verify: every checksum of every file of each
 * committed checkpoint, and for each rank whether a restart could restore
 * it: from its own file, its L2 partner copy, its L3 group's parity, or its
 * L4 global copy. Which file may be restored for which rank is decided by
 * the library's own rules (src/format/ckpt_expect.c); a checkpoint is restored
 * only when every rank can be (src/core/recover.c).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ckpt_json.h"
#include "ckpt_tool.h"
#include "base/log.h"
#include "format/rs_codec.h"
#include "format/plan.h"

#define MAX_G FTI_GROUP_MAX

typedef enum { R_NO = 0, R_YES = 1, R_UNKNOWN = -1 } verdict;

typedef struct rank_row {
    ckpt_state own, extra; /* extra: partner copy (L2), parity (L3), global copy (L4) */
    char *own_why, *extra_why;
    verdict ok;
    uint64_t size;  /* of the copy it is restored from; 0: not known (L3 decoding) */
    char via[64];
} rank_row;

typedef struct job {
    const ckpt_tool *t;
    const fti_commit *c;
    rank_row *rows;
    ckpt_json *js; /* --json: the document being written; NULL: text */
} job;

static const char *extra_name(int level)
{
    return level == 2 ? "partner" : level == 3 ? "parity" : level == 4 ? "global" : "-";
}

static char *dup_why(const ckpt_file *f)
{
    return f->st == CK_OK || f->st == CK_NA || f->st == CK_REMOVED ? NULL : strdup(f->why);
}

/* A data file (own or partner copy) must hold this rank's data of c. */
static void check_data(const job *j, const char *path, int rank, const char *role, ckpt_file *f,
                       uint64_t *size)
{
    fti_file_header h;
    fti_expect x;
    fti_expect_data(&x, j->c, rank, j->t->dirs.exec_id, role);
    ckpt_check_file(path, &x, 1, f, &h);
    if (f->st != CK_OK)
        return;
    *size = h.file_size;
    fti_file_header_free(&h);
}

static void check_parity(const job *j, int rank, ckpt_file *f)
{
    char path[FTI_PATH_MAX];
    fti_expect x;
    fti_expect_parity(&x, j->c, rank, ckpt_group_size(j->t, j->c), j->t->dirs.exec_id);
    ckpt_path_parity(j->t, j->c, rank, path);
    ckpt_check_file(path, &x, 1, f, NULL);
}

static void check_extra(const job *j, int rank, ckpt_file *f, uint64_t *size)
{
    char path[FTI_PATH_MAX];
    memset(f, 0, sizeof *f);
    f->st = CK_NA;
    if (j->c->level == 2) {
        ckpt_path_partner(j->t, j->c, rank, path);
        check_data(j, path, rank, "L2 partner copy", f, size);
    } else if (j->c->level == 3) {
        check_parity(j, rank, f);
    } else if (j->c->level == 4) {
        ckpt_l4_out out = {.fd = -1};
        ckpt_l4_check(j->t, j->c, rank, f, &out);
        if (f->st == CK_OK && out.have_hdr)
            *size = out.hdr.file_size;
        ckpt_l4_out_free(&out);
    }
}

static void check_rank(const job *j, int rank)
{
    static ckpt_file own, extra; /* large; the tool is single-threaded */
    char path[FTI_PATH_MAX];
    rank_row *r = &j->rows[rank];
    uint64_t own_size = 0, extra_size = 0;
    ckpt_path_own(j->t, j->c, rank, path);
    check_data(j, path, rank, "own file", &own, &own_size);
    if (own.st == CK_MISSING && j->c->level == 4 && !FTI_L4_LOCAL_KEPT(&j->t->cfg))
        own.st = CK_REMOVED; /* gone after the flush, by design: the global copy restores it */
    check_extra(j, rank, &extra, &extra_size);
    r->own = own.st;
    r->extra = extra.st;
    r->own_why = dup_why(&own);
    r->extra_why = dup_why(&extra);
    r->ok = R_NO;
    r->size = own.st == CK_OK ? own_size : extra_size;
    if (own.st == CK_OK) {
        r->ok = R_YES;
        snprintf(r->via, sizeof r->via, "own file");
    } else if (j->c->level == 2 && extra.st == CK_OK) {
        r->ok = R_YES;
        snprintf(r->via, sizeof r->via, "L2 partner copy");
    } else if (j->c->level == 4 && extra.st == CK_OK) {
        r->ok = R_YES;
        snprintf(r->via, sizeof r->via, "L4 global copy");
    }
}

/* ---- level 3: can the group decode what it lost? ------------------------ */

/* The library's own rebuild plan (src/format/rs_codec.c, as L3 recovery runs it). */
static int l3_decodable(int G, const int *own, const int *par)
{
    static fti_rs_code code; /* large for a stack */
    static fti_rs_plan plan;
    return fti_rs_code_init(&code, G) == 0 && fti_rs_plan_rebuild(&code, own, par, &plan) == 0;
}

typedef struct l3_count {
    int lost, lost_parity, nodes_hit, decodable;
} l3_count;

/* Counts the group's lost chunks; marks its lost ranks recoverable when the
 * group can decode them. */
static l3_count l3_group(const job *j, int first_rank)
{
    int G = ckpt_group_size(j->t, j->c), own[MAX_G], par[MAX_G];
    l3_count n = {0, 0, 0, 0};
    for (int i = 0; i < G; i++) {
        const rank_row *r = &j->rows[ckpt_member(j->t, j->c, first_rank, i)];
        own[i] = r->own == CK_OK;
        par[i] = r->extra == CK_OK;
        n.lost += !own[i];
        n.lost_parity += !par[i];
        n.nodes_hit += !own[i] || !par[i];
    }
    n.decodable = n.lost == 0 || l3_decodable(G, own, par);
    for (int i = 0; i < G && n.decodable; i++) {
        rank_row *r = &j->rows[ckpt_member(j->t, j->c, first_rank, i)];
        if (r->own != CK_OK) {
            r->ok = R_YES;
            snprintf(r->via, sizeof r->via, "L3 decoding");
        }
    }
    return n;
}

static void l3_print(const job *j, int first_rank, const l3_count *n)
{
    int G = ckpt_group_size(j->t, j->c), node = ckpt_node_of(j->t, first_rank);
    printf("  group of nodes %d-%d (ranks at position %d): lost %d data and %d parity files on %d "
           "nodes; %d of %d chunks left, %d needed (tolerates %d lost nodes): %s\n", node,
           node + G - 1, first_rank % j->t->app_per_node, n->lost, n->lost_parity, n->nodes_hit,
           2 * G - n->lost - n->lost_parity, 2 * G, G, G / 2,
           n->lost == 0 ? "nothing to decode" : n->decodable ? "decodable" : "NOT decodable");
}

static void l3_json(const job *j, int first_rank, const l3_count *n)
{
    int G = ckpt_group_size(j->t, j->c), node = ckpt_node_of(j->t, first_rank);
    cj_object(j->js, NULL);
    cj_int(j->js, "first_node", node);
    cj_int(j->js, "last_node", node + G - 1);
    cj_int(j->js, "position", first_rank % j->t->app_per_node);
    cj_int(j->js, "lost_data", n->lost);
    cj_int(j->js, "lost_parity", n->lost_parity);
    cj_int(j->js, "nodes_hit", n->nodes_hit);
    cj_int(j->js, "tolerates_lost_nodes", G / 2);
    cj_bool(j->js, "decodable", n->decodable);
    cj_end(j->js);
}

/* print: 0 only marks the ranks a group can decode, 1 reports each group
 * too (as text, or as JSON objects with --json). */
static void l3_groups(const job *j, int print)
{
    for (int rank = 0; rank < j->c->nranks; rank++)
        if (ckpt_group_pos(j->t, j->c, rank) == 0) { /* the first member of its ring */
            l3_count n = l3_group(j, rank);
            if (print && j->js != NULL)
                l3_json(j, rank, &n);
            else if (print)
                l3_print(j, rank, &n);
        }
}

/* ---- report ---------------------------------------------------------------- */

static void print_rows(const job *j)
{
    const char *extra = extra_name(j->c->level);
    printf("  %6s %5s  %-9s %-9s %s\n", "RANK", "NODE", "OWN", extra[0] == '-' ? "" : extra,
           "RECOVERABLE");
    for (int r = 0; r < j->c->nranks; r++) {
        const rank_row *w = &j->rows[r];
        printf("  %6d %5d  %-9s %-9s %s%s%s%s\n", r, ckpt_node_of(j->t, r), ckpt_state_name(w->own),
               w->extra == CK_NA ? "" : ckpt_state_name(w->extra),
               w->ok == R_YES ? "yes" : "NO",
               w->via[0] ? " (" : "", w->via, w->via[0] ? ")" : "");
    }
}

static void print_problems(const job *j)
{
    int shown = 0;
    for (int r = 0; r < j->c->nranks; r++) {
        const rank_row *w = &j->rows[r];
        const char *why[2] = {w->own_why, w->extra_why};
        for (int k = 0; k < 2; k++)
            if (why[k] != NULL)
                printf("%s    rank %d, %s: %s\n", shown++ ? "" : "  problems:\n", r,
                       k == 0 ? "own file" : extra_name(j->c->level), why[k]);
    }
}

/* The library's last check (src/core/recover.c): the sizes add up to the
 * commit record's. Ranks decoded from L3 parity are not counted. 1 when
 * they do (or not every size is known); else 0, with the problem in why. */
static int sizes_agree(const job *j, char *why, size_t n)
{
    uint64_t total = 0;
    for (int r = 0; r < j->c->nranks; r++) {
        if (j->rows[r].ok != R_YES || j->rows[r].size == 0)
            return 1; /* not every size is known */
        total += j->rows[r].size;
    }
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_expect_total(j->c, total);
    fti_log_quiet(0);
    if (e != FTI_E_OK)
        snprintf(why, n, "%s", fti_last_error());
    return e == FTI_E_OK;
}

/* The checkpoint's verdict, the sentence that explains it, and the problem
 * of the whole checkpoint (empty: none). */
static verdict judge(const job *j, char *summary, size_t n, char *problem, size_t np)
{
    int no = 0;
    problem[0] = '\0';
    for (int r = 0; r < j->c->nranks; r++)
        no += j->rows[r].ok == R_NO;
    if (no == 0 && !sizes_agree(j, problem, np)) {
        snprintf(summary, n, "NOT recoverable: the files do not add up to the committed checkpoint");
        return R_NO;
    }
    if (no > 0)
        snprintf(summary, n, "NOT recoverable: %d of %d ranks cannot be restored", no, j->c->nranks);
    else
        snprintf(summary, n, "recoverable: every rank can be restored");
    return no ? R_NO : R_YES;
}

static const char *verdict_name(verdict v)
{
    return v == R_YES ? "recoverable" : v == R_NO ? "not recoverable" : "unknown";
}

/* The table's state name (ckpt_state_name), in lower case: "bad", "no-codec". */
static void json_state(ckpt_json *js, const char *key, ckpt_state st)
{
    char name[16];
    const char *shown = ckpt_state_name(st);
    size_t i = 0;
    if (st == CK_NA) {
        cj_null(js, key);
        return;
    }
    for (; shown[i] != '\0' && i + 1 < sizeof name; i++)
        name[i] = (char)tolower((unsigned char)shown[i]);
    name[i] = '\0';
    cj_str(js, key, name);
}

static void json_rows(const job *j)
{
    const char *extra = extra_name(j->c->level);
    cj_array(j->js, "ranks_detail");
    for (int r = 0; r < j->c->nranks; r++) {
        const rank_row *w = &j->rows[r];
        cj_object(j->js, NULL);
        cj_int(j->js, "rank", r);
        cj_int(j->js, "node", ckpt_node_of(j->t, r));
        json_state(j->js, "own", w->own);
        cj_str(j->js, "extra_kind", extra[0] == '-' ? NULL : extra);
        json_state(j->js, "extra", w->extra);
        cj_bool(j->js, "recoverable", w->ok == R_YES);
        cj_str(j->js, "via", w->via[0] ? w->via : NULL);
        cj_array(j->js, "problems");
        if (w->own_why != NULL)
            cj_str(j->js, NULL, w->own_why);
        if (w->extra_why != NULL)
            cj_str(j->js, NULL, w->extra_why);
        cj_end(j->js);
        cj_end(j->js);
    }
    cj_end(j->js);
}

/* The text report of one checkpoint, or its JSON object's members. */
static void report(const job *j, verdict v, const char *summary, const char *problem)
{
    if (j->js == NULL) {
        print_rows(j);
        if (j->c->level == 3)
            l3_groups(j, 1);
        print_problems(j);
        if (problem[0])
            printf("  problem: %s\n", problem);
        printf("  => %s\n", summary);
        return;
    }
    cj_str(j->js, "verdict", verdict_name(v));
    cj_str(j->js, "summary", summary);
    cj_str(j->js, "problem", problem[0] ? problem : NULL);
    json_rows(j);
    if (j->c->level == 3) {
        cj_array(j->js, "l3_groups");
        l3_groups(j, 1);
        cj_end(j->js);
    }
}

static void free_rows(rank_row *rows, int n)
{
    for (int r = 0; r < n; r++) {
        free(rows[r].own_why);
        free(rows[r].extra_why);
    }
    free(rows);
}

static void commit_head(const fti_commit *c, ckpt_json *js)
{
    if (js == NULL) {
        char size[32];
        ckpt_human_bytes(c->bytes, size, sizeof size);
        printf("checkpoint #%llu (id %lld, level %d, slot %d, %d ranks, %s)\n",
               (unsigned long long)c->seq, (long long)c->id, c->level, c->slot, c->nranks, size);
        return;
    }
    cj_uint(js, "seq", c->seq);
    cj_int(js, "id", c->id);
    cj_int(js, "level", c->level);
    cj_int(js, "slot", c->slot);
    cj_int(js, "ranks", c->nranks);
    cj_uint(js, "bytes", c->bytes);
}

static verdict cannot_tell(ckpt_json *js, const char *why)
{
    if (js == NULL) {
        printf("  => cannot tell: %s\n", why);
    } else {
        cj_str(js, "verdict", verdict_name(R_UNKNOWN));
        cj_str(js, "summary", why);
    }
    return R_UNKNOWN;
}

static verdict verify_commit(const ckpt_tool *t, const fti_commit *c, ckpt_json *js)
{
    commit_head(c, js);
    int need_groups = c->level == 2 || c->level == 3;
    if ((need_groups || t->nodes != NULL) && ckpt_check_mapping(t, c, need_groups, 0) != CKPT_EXIT_OK)
        return cannot_tell(js, "ranks cannot be placed on nodes (see the error)");
    job j = {t, c, calloc((size_t)c->nranks, sizeof(rank_row)), js};
    if (j.rows == NULL) {
        ckpt_error("out of memory for %d ranks", c->nranks);
        return cannot_tell(js, "out of memory");
    }
    for (int r = 0; r < c->nranks; r++)
        check_rank(&j, r);
    if (c->level == 3)
        l3_groups(&j, 0);
    char summary[256], problem[1024];
    verdict v = judge(&j, summary, sizeof summary, problem, sizeof problem);
    report(&j, v, summary, problem);
    free_rows(j.rows, c->nranks);
    return v;
}

/* Which node-local storage the verdicts saw. */
static void where_json(const ckpt_tool *t, ckpt_json *js)
{
    struct stat st;
    cj_object(js, "node_local");
    cj_str(js, "seen", t->nodes == NULL ? "this node" : t->nodes == t->cfg.ckpt_dir ? "local_test"
                                                                                   : "--nodes");
    cj_str(js, "path", t->nodes != NULL ? t->nodes : t->dirs.local);
    cj_bool(js, "exists", t->nodes != NULL || stat(t->dirs.local, &st) == 0);
    cj_end(js);
}

static void where_note(const ckpt_tool *t)
{
    struct stat st;
    if (t->nodes != NULL)
        printf("node-local storage: %s/node<K>/%s (%s)\n", t->nodes, t->dirs.exec_id,
               t->nodes == t->cfg.ckpt_dir ? "local_test = 1" : "--nodes");
    else if (stat(t->dirs.local, &st) != 0)
        printf("note: node-local directory %s does not exist on this node: local files count as "
               "missing (--nodes DIR shows every node's storage)\n", t->dirs.local);
    else
        printf("node-local storage: %s (this node only; --nodes DIR shows every node's)\n",
               t->dirs.local);
}

/* The job's verdict, as the text's last line says it; the same exit code. */
static int verify_json_end(ckpt_json *js, const fti_commit *chosen, int unknown)
{
    cj_end(js); /* checkpoints */
    cj_object(js, "job");
    cj_str(js, "verdict", chosen != NULL ? "recoverable" : unknown ? "unknown" : "not recoverable");
    if (chosen != NULL) {
        cj_object(js, "restores");
        cj_uint(js, "seq", chosen->seq);
        cj_int(js, "id", chosen->id);
        cj_int(js, "level", chosen->level);
        cj_end(js);
    } else {
        cj_null(js, "restores");
    }
    cj_finish(js);
    return chosen != NULL ? CKPT_EXIT_OK : CKPT_EXIT_BAD;
}

int ckpt_cmd_verify(const ckpt_opts *o)
{
    ckpt_tool t;
    int rc = ckpt_open(&t, o);
    if (rc != CKPT_EXIT_OK)
        return rc;
    fti_commit c[8];
    int n = ckpt_commits(&t, o->has_id, o->id, c);
    if (n == 0)
        return ckpt_pick(&t, o->has_id, o->id, &c[0]); /* prints why there is none */
    ckpt_json doc, *js = o->json ? &doc : NULL;
    if (js != NULL) {
        cj_begin(js, stdout, "verify");
        cj_str(js, "config", t.cfg.file);
        cj_str(js, "exec_id", t.dirs.exec_id);
        where_json(&t, js);
        cj_array(js, "checkpoints");
    } else {
        where_note(&t);
    }
    int chosen = -1, unknown = 0;
    for (int i = 0; i < n; i++) {
        if (js != NULL)
            cj_object(js, NULL);
        verdict v = verify_commit(&t, &c[i], js);
        if (js != NULL)
            cj_end(js);
        if (v == R_YES && chosen < 0)
            chosen = i;
        unknown += v == R_UNKNOWN && chosen < 0;
    }
    if (js != NULL)
        return verify_json_end(js, chosen >= 0 ? &c[chosen] : NULL, unknown);
    if (chosen >= 0) {
        printf("job: recoverable: a restart restores checkpoint #%llu (id %lld, level %d)%s\n",
               (unsigned long long)c[chosen].seq, (long long)c[chosen].id, c[chosen].level,
               chosen > 0 ? " (the newer ones above are not restorable or could not be checked)" : "");
        return CKPT_EXIT_OK;
    }
    printf("job: %s\n", unknown ? "cannot tell whether a restart can restore a checkpoint"
                                : "NOT recoverable: no committed checkpoint can be restored on every rank");
    return CKPT_EXIT_BAD;
}
