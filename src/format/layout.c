#include "format/layout.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/fio.h"
#include "base/integrity.h"
#include "base/log.h"
#include "base/safe_fs.h"

/* Every path is built here; config checks keep them far below FTI_PATH_MAX. */
__attribute__((format(printf, 2, 3))) static void fmt_path(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, FTI_PATH_MAX, fmt, ap);
    va_end(ap);
}

fti_err fti_layout_init(fti_layout *l, const fti_config *cfg)
{
    memset(l, 0, sizeof *l);
    if (cfg->exec_id_given) {
        snprintf(l->exec_id, sizeof l->exec_id, "%s", cfg->exec_id);
    } else {
        char abs[PATH_MAX];
        const char *p = realpath(cfg->file, abs) ? abs : cfg->file;
        snprintf(l->exec_id, sizeof l->exec_id, "cfg-%016llx",
                 (unsigned long long)fti_hash_buffer(p, strlen(p)));
    }
    fti_layout_node_local(l->local, cfg->ckpt_dir, -1, l->exec_id);
    fmt_path(l->global, "%s/%s", cfg->glbl_dir, l->exec_id);
    fmt_path(l->meta, "%s/%s", cfg->meta_dir, l->exec_id);
    fmt_path(l->commit, "%s/commit", l->meta);
    l->l4_files_per_dir = cfg->l4_files_per_dir;
    return FTI_E_OK;
}

void fti_layout_node_local(char *out, const char *root, int node, const char *exec_id)
{
    if (node < 0)
        fmt_path(out, "%s/%s", root, exec_id);
    else
        fmt_path(out, "%s/node%d/%s", root, node, exec_id);
}

void fti_layout_place_node(fti_layout *l, const fti_config *cfg, int node)
{
    if (cfg->local_test)
        fti_layout_node_local(l->local, cfg->ckpt_dir, node, l->exec_id);
}

/* The job's folder dir below the configured root (safe_fs.h: made 0700, or
 * used only if the user's and not writable by others). */
static fti_err make_dir(const char *root, const char *dir, const fti_config *cfg, const char *key)
{
    char why[FTI_PATH_MAX + 512];
    if (fti_job_mkdirs(root, dir, cfg->group_shared_dirs, why, sizeof why) != 0)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] %s: %s", cfg->file, key, why);
    return FTI_E_OK;
}

fti_err fti_layout_create(const fti_layout *l, const fti_config *cfg, int need_local,
                          int need_shared)
{
    fti_err e = FTI_E_OK;
    if (need_local)
        e = make_dir(cfg->ckpt_dir, l->local, cfg, "ckpt_dir");
    if (e == FTI_E_OK && need_shared)
        e = make_dir(cfg->glbl_dir, l->global, cfg, "glbl_dir");
    if (e == FTI_E_OK && need_shared)
        e = make_dir(cfg->meta_dir, l->meta, cfg, "meta_dir");
    return e;
}

void fti_path_local(const fti_layout *l, char *out, int level, int slot, int rank)
{
    fmt_path(out, "%s/l%d-s%d-rank%d.fti", l->local, level, slot, rank);
}

void fti_path_rebuilt(const fti_layout *l, char *out, int level, int slot, int rank)
{
    fmt_path(out, "%s/l%d-s%d-rank%d.rebuilt.fti", l->local, level, slot, rank);
}

void fti_path_partner(const fti_layout *l, char *out, int slot, int rank)
{
    fmt_path(out, "%s/l2-s%d-partner-rank%d.fti", l->local, slot, rank);
}

void fti_path_parity(const fti_layout *l, char *out, int slot, int rank)
{
    fmt_path(out, "%s/l3-s%d-parity-rank%d.fti", l->local, slot, rank);
}

void fti_path_parity_rebuilt(const fti_layout *l, char *out, int slot, int rank)
{
    fmt_path(out, "%s/l3-s%d-parity-rank%d.rebuilt.fti", l->local, slot, rank);
}

void fti_path_fanout_dir(const fti_layout *l, char *out, const char *base, int rank)
{
    int n = l->l4_files_per_dir;
    if (n <= 0 || rank < n) {
        fmt_path(out, "%s", base);
        return;
    }
    long long first = rank - rank % n; /* long long: A + N - 1 may pass INT_MAX */
    fmt_path(out, "%s/l4-ranks%lld-%lld", base, first, first + n - 1);
}

fti_err fti_layout_create_fanout(const fti_layout *l, const fti_config *cfg, int rank)
{
    char dir[FTI_PATH_MAX];
    fti_path_fanout_dir(l, dir, l->global, rank);
    struct stat st;
    if (strcmp(dir, l->global) == 0 || (stat(dir, &st) == 0 && S_ISDIR(st.st_mode)))
        return FTI_E_OK; /* the folder's checks were made when it was created */
    fti_err e = make_dir(l->global, dir, cfg, "glbl_dir");
    if (e == FTI_E_OK && fti_fsync_dir(l->global) != 0)
        e = fti_fail(FTI_E_IO, "cannot sync the directory %s: %s", l->global,
                     fti_fs_strerror(errno));
    return e;
}

void fti_path_global(const fti_layout *l, char *out, int slot, int rank)
{
    char dir[FTI_PATH_MAX];
    fti_path_fanout_dir(l, dir, l->global, rank);
    fmt_path(out, "%s/l4-s%d-rank%d.fti", dir, slot, rank);
}

void fti_path_global_h5(const fti_layout *l, char *out, int slot, int rank)
{
    char dir[FTI_PATH_MAX];
    fti_path_fanout_dir(l, dir, l->global, rank);
    fmt_path(out, "%s/l4-s%d-rank%d.h5", dir, slot, rank);
}

void fti_path_global_h5single(const fti_layout *l, char *out, int slot)
{
    fmt_path(out, "%s/l4-s%d-single.h5", l->global, slot);
}

void fti_path_global_shared(const fti_layout *l, char *out, int slot)
{
    fmt_path(out, "%s/l4-s%d-shared.fti", l->global, slot);
}

void fti_path_archive_dir(const fti_layout *l, char *out, int rank)
{
    char top[FTI_PATH_MAX];
    fmt_path(top, "%s/l4_archive", l->global);
    fti_path_fanout_dir(l, out, top, rank < 0 ? 0 : rank);
}

void fti_path_archive(const fti_layout *l, char *out, long long id, int rank)
{
    char dir[FTI_PATH_MAX];
    fti_path_archive_dir(l, dir, rank);
    if (rank < 0)
        fmt_path(out, "%s/Ckpt%lld-mpiio.fti", dir, id);
    else
        fmt_path(out, "%s/Ckpt%lld-Rank%d.fti", dir, id, rank);
}

void fti_path_dcp_layer(char *out, const char *dir, int rank, uint64_t seq)
{
    fmt_path(out, "%s/l4-dcp-rank%d-%llu.fti", dir, rank, (unsigned long long)seq);
}

void fti_path_temp(char *out, const char *path, const char *tag)
{
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    if (dot == NULL || (slash != NULL && dot < slash))
        dot = path + strlen(path); /* no suffix: the tag ends the name */
    fmt_path(out, "%.*s.%s%s", (int)(dot - path), path, tag, dot);
}

/* Reads a decimal number of 1 to 19 digits at *p, advancing *p. */
static int take_num(const char **p, uint64_t *v)
{
    const char *s = *p;
    uint64_t n = 0;
    while (*s >= '0' && *s <= '9' && s - *p < 19)
        n = n * 10 + (uint64_t)(*s++ - '0');
    if (s == *p || (*s >= '0' && *s <= '9'))
        return 0;
    *v = n;
    *p = s;
    return 1;
}

static int take_word(const char **p, const char *word)
{
    size_t n = strlen(word);
    if (strncmp(*p, word, n) != 0)
        return 0;
    *p += n;
    return 1;
}

static int take_int(const char **p, int *v)
{
    uint64_t u;
    if (!take_num(p, &u) || u > INT_MAX)
        return 0;
    *v = (int)u;
    return 1;
}

/* The end of a name, [.<tag>].fti or [.<tag>].h5, the tag being what
 * fti_path_rebuilt and fti_path_temp insert ("rebuilt", "tmp", "z",
 * "rebuilt.tmp"): sets n->tag and *h5, 1 if p is all of it. */
static int take_suffix(const char *p, fti_name_info *n, int *h5)
{
    const char *ext = strrchr(p, '.');
    if (*p != '.' || ext == NULL)
        return 0;
    size_t len = (size_t)(ext - p);
    if (len > 0) {
        p++; /* the tag: words of a-z, 0-9 between dots */
        len--;
        if (len == 0 || len >= sizeof n->tag || p[len - 1] == '.')
            return 0;
        for (size_t i = 0; i < len; i++)
            if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') ||
                  (p[i] == '.' && i > 0 && p[i - 1] != '.')))
                return 0;
        memcpy(n->tag, p, len);
    }
    *h5 = strcmp(ext + 1, "h5") == 0;
    return *h5 || strcmp(ext + 1, "fti") == 0;
}

/* After "l<L>-s<S>-": whose file it is, rank<R> | partner-rank<R> |
 * parity-rank<R> | shared | single, then the suffix. */
static fti_name_kind take_owner(const char *p, fti_name_info *n)
{
    int h5 = 0;
    if (take_word(&p, "shared"))
        return n->level == 4 && take_suffix(p, n, &h5) && !h5 ? FTI_NAME_SHARED : FTI_NAME_NONE;
    if (take_word(&p, "single"))
        return n->level == 4 && take_suffix(p, n, &h5) && h5 ? FTI_NAME_H5SINGLE : FTI_NAME_NONE;
    fti_name_kind k = FTI_NAME_RANK;
    if (take_word(&p, "partner-"))
        k = n->level == 2 ? FTI_NAME_PARTNER : FTI_NAME_NONE;
    else if (take_word(&p, "parity-"))
        k = n->level == 3 ? FTI_NAME_PARITY : FTI_NAME_NONE;
    if (k == FTI_NAME_NONE || !take_word(&p, "rank") || !take_int(&p, &n->rank) ||
        !take_suffix(p, n, &h5))
        return FTI_NAME_NONE;
    if (h5)
        return k == FTI_NAME_RANK && n->level == 4 ? FTI_NAME_H5 : FTI_NAME_NONE;
    return k;
}

/* After "l4-dcp-": rank<R>-<seq>[.<tag>].fti. */
static fti_name_kind take_dcp(const char *p, fti_name_info *n)
{
    int h5 = 0;
    if (n->level != 4 || !take_word(&p, "rank") || !take_int(&p, &n->rank) ||
        !take_word(&p, "-") || !take_num(&p, &n->seq) || !take_suffix(p, n, &h5) || h5)
        return FTI_NAME_NONE;
    return FTI_NAME_DCP;
}

/* After "l4-ranks": <A>-<B>, a fan-out folder (fti_path_fanout_dir). */
static fti_name_kind take_fanout(const char *p, fti_name_info *n)
{
    uint64_t last;
    if (n->level != 4 || !take_int(&p, &n->rank) || !take_word(&p, "-") ||
        !take_num(&p, &last) || *p != '\0' || last < (uint64_t)n->rank)
        return FTI_NAME_NONE;
    return FTI_NAME_FANOUT;
}

int fti_name_parse(const char *name, fti_name_info *n)
{
    memset(n, 0, sizeof *n);
    n->level = n->slot = n->rank = -1;
    const char *p = name;
    fti_name_kind k = FTI_NAME_NONE;
    if (strcmp(name, "commit") == 0)
        k = FTI_NAME_COMMIT;
    else if (take_word(&p, "l") && *p >= '1' && *p <= '4' && p[1] == '-') {
        n->level = *p - '0';
        p += 2;
        if (take_word(&p, "ranks"))
            k = take_fanout(p, n);
        else if (take_word(&p, "dcp-"))
            k = take_dcp(p, n);
        else if (take_word(&p, "s") && take_int(&p, &n->slot) && take_word(&p, "-"))
            k = take_owner(p, n);
    }
    if (k == FTI_NAME_NONE) {
        memset(n, 0, sizeof *n);
        n->level = n->slot = n->rank = -1;
    }
    n->kind = k;
    return k != FTI_NAME_NONE;
}

const char *fti_name_kind_str(fti_name_kind kind)
{
    static const char *const words[] = {"none", "rank",     "partner", "parity", "shared",
                                        "h5",   "h5single", "dcp",     "commit", "fanout"};
    return (unsigned)kind < sizeof words / sizeof words[0] ? words[kind] : "none";
}

int fti_name_ckpt(const char *name, int *rank)
{
    fti_name_info n;
    *rank = -1;
    if (!fti_name_parse(name, &n) || n.level < 1 || n.kind == FTI_NAME_FANOUT)
        return 0;
    if (n.kind != FTI_NAME_DCP) /* a layer is kept apart, by fti_name_dcp_layer */
        *rank = n.rank;
    return n.level;
}

int fti_name_fanout_dir(const char *name)
{
    fti_name_info n;
    return fti_name_parse(name, &n) && n.kind == FTI_NAME_FANOUT;
}

int fti_name_dcp_layer(const char *name, int rank, uint64_t *seq, int *tmp)
{
    fti_name_info n;
    if (!fti_name_parse(name, &n) || n.kind != FTI_NAME_DCP || n.rank != rank ||
        (n.tag[0] != '\0' && strcmp(n.tag, "tmp") != 0))
        return 0;
    *seq = n.seq;
    *tmp = n.tag[0] != '\0';
    return 1;
}
