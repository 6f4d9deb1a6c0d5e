#include "format/layout.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void fti_path_global(const fti_layout *l, char *out, int slot, int rank)
{
    fmt_path(out, "%s/l4-s%d-rank%d.fti", l->global, slot, rank);
}

void fti_path_global_h5(const fti_layout *l, char *out, int slot, int rank)
{
    fmt_path(out, "%s/l4-s%d-rank%d.h5", l->global, slot, rank);
}

void fti_path_global_h5single(const fti_layout *l, char *out, int slot)
{
    fmt_path(out, "%s/l4-s%d-single.h5", l->global, slot);
}

void fti_path_global_shared(const fti_layout *l, char *out, int slot)
{
    fmt_path(out, "%s/l4-s%d-shared.fti", l->global, slot);
}

void fti_path_archive_dir(const fti_layout *l, char *out)
{
    fmt_path(out, "%s/l4_archive", l->global);
}

void fti_path_archive(const fti_layout *l, char *out, long long id, int rank)
{
    if (rank < 0)
        fmt_path(out, "%s/l4_archive/Ckpt%lld-mpiio.fti", l->global, id);
    else
        fmt_path(out, "%s/l4_archive/Ckpt%lld-Rank%d.fti", l->global, id, rank);
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

/* name ends in suffix */
static int ends_with(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n >= k && strcmp(name + n - k, suffix) == 0;
}

int fti_name_ckpt(const char *name, int *rank)
{
    *rank = -1;
    if (name[0] != 'l' || name[1] < '1' || name[1] > '4' || name[2] != '-' ||
        !(ends_with(name, ".fti") || ends_with(name, ".h5")))
        return 0;
    const char *dot = strchr(name, '.'), *r = dot;
    while (r > name && r[-1] >= '0' && r[-1] <= '9')
        r--;
    if (r < dot && r - name >= 5 && strncmp(r - 5, "-rank", 5) == 0)
        *rank = atoi(r);
    return name[1] - '0';
}

int fti_name_dcp_layer(const char *name, int rank, uint64_t *seq, int *tmp)
{
    char prefix[64];
    int n = snprintf(prefix, sizeof prefix, "l4-dcp-rank%d-", rank);
    if (strncmp(name, prefix, (size_t)n) != 0 || name[n] < '0' || name[n] > '9')
        return 0;
    char *end = NULL;
    *seq = strtoull(name + n, &end, 10);
    *tmp = strcmp(end, ".tmp.fti") == 0;
    return *tmp || strcmp(end, ".fti") == 0;
}
