/*
 * ckpt_store.c - fti-ckpt's view of a config's storage: the commit record,
 * and where every file of a checkpoint lives (which node, which name).
 * The naming is the library's own (src/format/layout.c); only the node-local
 * directory of each node is chosen here (--nodes).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_tool.h"
#include "base/log.h"
#include "format/plan.h"

void ckpt_error(const char *fmt, ...)
{
    char msg[FTI_PATH_MAX + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "fti-ckpt: %s\n", msg);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* --exec-id: the same rule as the config key (one path component). */
static int set_exec_id(ckpt_tool *t, const char *id)
{
    if (id[0] == '\0' || strchr(id, '/') != NULL || strcmp(id, ".") == 0 ||
        strcmp(id, "..") == 0 || strlen(id) >= sizeof t->cfg.exec_id) {
        ckpt_error("--exec-id '%s' is not a valid exec_id (one directory name)", id);
        return CKPT_EXIT_USAGE;
    }
    snprintf(t->cfg.exec_id, sizeof t->cfg.exec_id, "%s", id);
    t->cfg.exec_id_given = 1;
    return CKPT_EXIT_OK;
}

static int load_meta(ckpt_tool *t)
{
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_meta_load(t->dirs.commit, &t->meta, &t->have_meta);
    fti_log_quiet(0);
    if (e != FTI_E_OK) {
        ckpt_error("%s", fti_last_error());
        return CKPT_EXIT_USAGE;
    }
    return CKPT_EXIT_OK;
}

/* local_test = 1 keeps every simulated node's folder under ckpt_dir: all are seen. */
static void set_nodes(ckpt_tool *t, const ckpt_opts *o)
{
    t->nodes = o->nodes != NULL ? o->nodes : t->cfg.local_test ? t->cfg.ckpt_dir : NULL;
    t->node_size = o->node_size > 0 ? o->node_size : t->cfg.node_size;
    t->app_per_node = t->node_size > 0 ? t->node_size - (t->cfg.head ? 1 : 0) : 0;
}

int ckpt_open(ckpt_tool *t, const ckpt_opts *o)
{
    memset(t, 0, sizeof *t);
    fti_log_setup(-1, FTI_LOG_WARN);
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_config_load(&t->cfg, o->path);
    fti_log_quiet(0);
    if (e != FTI_E_OK) {
        ckpt_error("%s", fti_last_error());
        return CKPT_EXIT_USAGE;
    }
    if (o->exec_id != NULL && set_exec_id(t, o->exec_id) != CKPT_EXIT_OK)
        return CKPT_EXIT_USAGE;
    fti_layout_init(&t->dirs, &t->cfg);
    errno = 0;
    if (o->nodes != NULL && !is_dir(o->nodes)) {
        ckpt_error("--nodes %s: %s", o->nodes, errno ? strerror(errno) : "not a directory");
        return CKPT_EXIT_USAGE;
    }
    set_nodes(t, o);
    return load_meta(t);
}

int ckpt_commits(const ckpt_tool *t, int has_id, int64_t id, fti_commit out[8])
{
    fti_commit all[8];
    int n = t->have_meta ? fti_meta_candidates(&t->meta, all) : 0, k = 0;
    for (int i = 0; i < n; i++)
        if (!has_id || all[i].id == id)
            out[k++] = all[i];
    return k;
}

int ckpt_pick(const ckpt_tool *t, int has_id, int64_t id, fti_commit *c)
{
    fti_commit all[8];
    if (!t->have_meta) {
        ckpt_error("no commit record %s: no checkpoint was committed for exec_id %s (config %s)",
                   t->dirs.commit, t->dirs.exec_id, t->cfg.file);
        return CKPT_EXIT_USAGE;
    }
    if (ckpt_commits(t, has_id, id, all) == 0) {
        ckpt_error("no committed checkpoint with id %lld in %s ('fti-ckpt list' shows them)",
                   (long long)id, t->dirs.commit);
        return CKPT_EXIT_USAGE;
    }
    *c = all[0];
    return CKPT_EXIT_OK;
}

int ckpt_check_mapping(const ckpt_tool *t, const fti_commit *c, int need_groups, int quiet)
{
    char msg[FTI_PATH_MAX + 256] = "";
    int nnodes = t->app_per_node > 0 ? c->nranks / t->app_per_node : 0;
    if (t->app_per_node <= 0)
        snprintf(msg, sizeof msg, "config %s: [basic] node_size = 0 (detected at run time): give "
                 "--node-size N (ranks per node, heads included) to place ranks on nodes",
                 t->cfg.file);
    else if (c->nranks % t->app_per_node != 0)
        snprintf(msg, sizeof msg, "checkpoint #%llu has %d ranks, not a multiple of the %d "
                 "application ranks per node of config %s (node_size %d, head %d)",
                 (unsigned long long)c->seq, c->nranks, t->app_per_node, t->cfg.file,
                 t->node_size, t->cfg.head);
    else if (need_groups && (ckpt_group_size(t, c) < 2 || nnodes % ckpt_group_size(t, c) != 0))
        snprintf(msg, sizeof msg, "checkpoint #%llu: %d nodes cannot form groups of [basic] "
                 "group_size = %d (config %s)", (unsigned long long)c->seq, nnodes,
                 ckpt_group_size(t, c), t->cfg.file);
    if (msg[0] == '\0')
        return CKPT_EXIT_OK;
    if (!quiet)
        ckpt_error("%s", msg);
    return CKPT_EXIT_USAGE;
}

/* The job's shape as the library places ranks (src/format/plan.c); one node of
 * every rank when the ranks per node are not known. */
static fti_shape shape_of(const ckpt_tool *t, const fti_commit *c)
{
    int nnodes = t->app_per_node > 0 ? c->nranks / t->app_per_node : 0;
    fti_shape s = {.app_per_node = t->app_per_node > 0 ? t->app_per_node : INT_MAX,
                   .group_size = fti_group_size_fit(t->cfg.group_size, t->cfg.group_size_given, nnodes)};
    return s;
}

int ckpt_node_of(const ckpt_tool *t, int rank)
{
    fti_shape s = {.app_per_node = t->app_per_node > 0 ? t->app_per_node : INT_MAX, .group_size = 1};
    return fti_plan_node(&s, rank);
}

int ckpt_group_size(const ckpt_tool *t, const fti_commit *c)
{
    return shape_of(t, c).group_size;
}

int ckpt_group_pos(const ckpt_tool *t, const fti_commit *c, int rank)
{
    fti_shape s = shape_of(t, c);
    return fti_plan_group_pos(&s, rank);
}

int ckpt_member(const ckpt_tool *t, const fti_commit *c, int rank, int j)
{
    fti_shape s = shape_of(t, c);
    return fti_plan_member(&s, rank, j);
}

void ckpt_node_layout(const ckpt_tool *t, int node, fti_layout *l)
{
    *l = t->dirs;
    if (t->nodes != NULL)
        fti_layout_node_local(l->local, t->nodes, node, t->dirs.exec_id);
}

void ckpt_path_own(const ckpt_tool *t, const fti_commit *c, int rank, char *out)
{
    fti_layout l;
    ckpt_node_layout(t, ckpt_node_of(t, rank), &l);
    fti_path_local(&l, out, c->level, c->slot, rank);
}

void ckpt_path_partner(const ckpt_tool *t, const fti_commit *c, int rank, char *out)
{
    fti_shape s = shape_of(t, c);
    int holder = fti_plan_partner_holder(&s, rank);
    fti_layout l;
    ckpt_node_layout(t, ckpt_node_of(t, holder), &l);
    fti_path_partner(&l, out, c->slot, rank);
}

void ckpt_path_parity(const ckpt_tool *t, const fti_commit *c, int rank, char *out)
{
    fti_layout l;
    ckpt_node_layout(t, ckpt_node_of(t, rank), &l);
    fti_path_parity(&l, out, c->slot, rank);
}

void ckpt_check_file(const char *path, const fti_expect *x, int full, ckpt_file *f,
                     fti_file_header *hdr)
{
    fti_file_header h;
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s", path);
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_expect_file(x, path, full, &h);
    fti_log_quiet(0);
    if (e != FTI_E_OK) {
        f->st = e == FTI_E_MISSING ? CK_MISSING : CK_BAD;
        snprintf(f->why, sizeof f->why, "%s", fti_last_error());
        return;
    }
    f->st = CK_OK;
    f->readable = h.kind == FTI_KIND_DATA;
    if (hdr != NULL)
        *hdr = h;
    else
        fti_file_header_free(&h);
}

static void add_reason(ckpt_file *acc, const char *what, const ckpt_file *f)
{
    size_t n = strlen(acc->why);
    snprintf(acc->why + n, sizeof acc->why - n, "%s%s: %.1400s", n ? "; " : "", what, f->why);
}

/* Whether f is a good copy of rank's data; if not, its reason goes into acc. */
static int usable(ckpt_file *acc, const char *what, const ckpt_file *f)
{
    if (f->st == CK_OK)
        return 1;
    add_reason(acc, what, f);
    return 0;
}

int ckpt_find_copy(const ckpt_tool *t, const fti_commit *c, int rank, int full, ckpt_file *f,
                   fti_file_header *hdr)
{
    static ckpt_file acc; /* large; the tool is single-threaded */
    char path[FTI_PATH_MAX];
    fti_expect x;
    memset(&acc, 0, sizeof acc);
    ckpt_path_own(t, c, rank, path);
    fti_expect_data(&x, c, rank, t->dirs.exec_id, "own file");
    ckpt_check_file(path, &x, full, f, hdr);
    if (usable(&acc, "own file", f))
        return 0;
    if (c->level == 2 && ckpt_check_mapping(t, c, 1, 1) == CKPT_EXIT_OK) {
        ckpt_path_partner(t, c, rank, path);
        x.role = "L2 partner copy";
        ckpt_check_file(path, &x, full, f, hdr);
        if (usable(&acc, "L2 partner copy", f))
            return 0;
    }
    if (c->level == 3) {
        size_t n = strlen(acc.why);
        snprintf(acc.why + n, sizeof acc.why - n, "; a lost L3 file is rebuilt from its group's "
                 "parity when the application restarts (fti-ckpt does not decode)");
    }
    acc.st = CK_MISSING;
    *f = acc;
    return -1;
}

const char *ckpt_state_name(ckpt_state s)
{
    switch (s) {
    case CK_OK: return "ok";
    case CK_MISSING: return "missing";
    case CK_BAD: return "BAD";
    case CK_NO_CODEC: return "NO-CODEC";
    case CK_NA: return "-";
    case CK_REMOVED: return "removed";
    }
    return "?";
}

int ckpt_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

void ckpt_human_bytes(uint64_t n, char *out, size_t len)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(out, len, "%llu B", (unsigned long long)n);
    else
        snprintf(out, len, "%.1f %s", v, unit[u]);
}
