#include "format/config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/config_scan.h"
#include "base/ini.h"
#include "base/fio.h"
#include "format/l4_kind.h"
#include "base/log.h"
#include "base/safe_fs.h"

/* K_BASIC_XFER: [basic] transfer_size, ours in bytes; FTI reads no such key
 * but its tutorial configs carry one in MiB (< 4096), which is ignored. */
typedef enum {
    K_INT, K_SIZE, K_PATH, K_NAME, K_RESTART, K_LOG_STYLE, K_CODEC, K_DEVICES, K_BASIC_XFER, K_IGNORED
} key_kind;

typedef struct key_spec {
    const char *section;
    const char *key;
    key_kind kind;
    size_t offset;   /* into fti_config */
    long long min, max;
    long long scale; /* K_SIZE: bytes per unit of the value in the file */
} key_spec;

#define OFF(field) offsetof(fti_config, field)
#define INTK(sec, key, field, lo, hi) {sec, key, K_INT, OFF(field), lo, hi, 1}

/* Every key the library knows. Our additions are marked (ours). */
static const key_spec known_keys[] = {
    INTK("basic", "head", head, 0, 1),
    INTK("basic", "node_size", node_size, 0, 4096),
    {"basic", "ckpt_dir", K_PATH, OFF(ckpt_dir), 0, 0, 1},
    {"basic", "glbl_dir", K_PATH, OFF(glbl_dir), 0, 0, 1},
    {"basic", "meta_dir", K_PATH, OFF(meta_dir), 0, 0, 1},
    INTK("basic", "ckpt_l1", ckpt_min[1], 0, INT_MAX),
    INTK("basic", "ckpt_l2", ckpt_min[2], 0, INT_MAX),
    INTK("basic", "ckpt_l3", ckpt_min[3], 0, INT_MAX),
    INTK("basic", "ckpt_l4", ckpt_min[4], 0, INT_MAX),
    INTK("basic", "inline_l2", inline_l[2], 0, 1),
    INTK("basic", "inline_l3", inline_l[3], 0, 1),
    INTK("basic", "inline_l4", inline_l[4], 0, 1),
    INTK("basic", "keep_last_ckpt", keep_last_ckpt, 0, 1),
    INTK("basic", "keep_l4_ckpt", keep_l4_ckpt, 0, 1),
    INTK("basic", "l4_local_copy", l4_local_copy, 0, 1),         /* ours */
    INTK("basic", "keep_all_levels", keep_all_levels, 0, 1), /* ours */
    INTK("basic", "staging_mib", staging_mib, 0, 1 << 20),    /* ours: async checkpoints */
    INTK("basic", "keep_heads_alive", keep_heads_alive, 0, 1),
    INTK("basic", "group_size", group_size, 1, FTI_GROUP_MAX),
    INTK("basic", "max_sync_intv", max_sync_intv, 0, INT_MAX),
    INTK("basic", "ckpt_io", ckpt_io, 1, 5),
    INTK("basic", "enable_staging", enable_staging, 0, 1),
    INTK("basic", "enable_dcp", enable_dcp, 0, 1),
    INTK("basic", "h5_single_file_enable", h5_single_file_enable, 0, 1),
    INTK("basic", "dcp_mode", dcp_mode, 0, 10),
    INTK("basic", "dcp_block_size", dcp_block_size, INT_MIN, INT_MAX), /* checked with enable_dcp */
    INTK("basic", "dcp_stack_size", dcp_stack_size, 1, 1000),
    INTK("basic", "verbosity", verbosity, 1, 4),
    {"basic", "transfer_size", K_BASIC_XFER, OFF(transfer_size), 4096, 1LL << 40, 1},
    {"basic", "gpu_host_bufsize", K_SIZE, OFF(gpu_host_bufsize), 4096, 1LL << 40, 1},
    /* (ours) intervals in seconds and in iterations, restart policy, L4 codec,
     * device backend detection */
    INTK("basic", "ckpt_l1_sec", ckpt_sec[1], 0, INT_MAX),
    INTK("basic", "ckpt_l2_sec", ckpt_sec[2], 0, INT_MAX),
    INTK("basic", "ckpt_l3_sec", ckpt_sec[3], 0, INT_MAX),
    INTK("basic", "ckpt_l4_sec", ckpt_sec[4], 0, INT_MAX),
    INTK("basic", "ckpt_l1_iter", ckpt_iter[1], 0, INT_MAX),
    INTK("basic", "ckpt_l2_iter", ckpt_iter[2], 0, INT_MAX),
    INTK("basic", "ckpt_l3_iter", ckpt_iter[3], 0, INT_MAX),
    INTK("basic", "ckpt_l4_iter", ckpt_iter[4], 0, INT_MAX),
    INTK("basic", "dcp_l4", dcp_l4_min, 0, INT_MAX),
    INTK("basic", "dcp_l4_sec", dcp_l4_sec, 0, INT_MAX),
    INTK("basic", "dcp_l4_iter", dcp_l4_iter, 0, INT_MAX),
    {"basic", "restart", K_RESTART, OFF(restart), 0, 0, 1},
    {"basic", "l4_compression", K_CODEC, OFF(l4_codec), 0, 0, 1},
    {"basic", "metrics_file", K_PATH, OFF(metrics_file), 0, 0, 1},
    {"basic", "device_backends", K_DEVICES, OFF(device_backends), 0, 0, 1},
    /* (ours) online recovery with ULFM: checked with the other keys in
     * check_online, and against the MPI in runtime/ulfm.c */
    INTK("basic", "online_recovery", online_recovery, 0, 1),
    INTK("basic", "spare_ranks", spare_ranks, 0, 65536),
    /* [restart] */
    INTK("restart", "failure", failure, 0, 3),
    {"restart", "exec_id", K_NAME, OFF(exec_id), 0, 0, 1},
    INTK("restart", "update_config", update_config, 0, 1), /* (ours) */
    /* [advanced] */
    {"advanced", "block_size", K_SIZE, OFF(block_size), 1, 1LL << 30, 1024},
    INTK("advanced", "mpi_tag", mpi_tag, 0, 32767),
    INTK("advanced", "local_test", local_test, 0, 1),
    INTK("advanced", "group_shared_dirs", group_shared_dirs, 0, 1), /* (ours) */
    INTK("advanced", "dcp_dirty_tracking", dcp_dirty_tracking, 0, 1), /* (ours), default 0 */
    INTK("advanced", "cow_checkpoint", cow_checkpoint, 0, 1), /* (ours) */
    INTK("advanced", "cow_max_mib", cow_max_mib, 1, 1 << 20),  /* (ours) */
    INTK("advanced", "cow_huge_pages", cow_huge_pages, 0, 1),  /* (ours) */
    INTK("advanced", "l4_files_per_dir", l4_files_per_dir, 0, INT_MAX), /* (ours) */
    {"advanced", "log_style", K_LOG_STYLE, OFF(log_style), 0, 0, 1},       /* (ours) */
    /* FTI's [advanced] keys: sizes in FTI's units, tags, fast_forward */
    {"advanced", "transfer_size", K_SIZE, OFF(transfer_size), 1, 1024, 1 << 20},
    {"advanced", "gpu_host_bufsize", K_SIZE, OFF(gpu_host_bufsize), 4096, 1LL << 40, 1},
    INTK("advanced", "general_tag", mpi_tag, 0, 32767),
    INTK("advanced", "ckpt_tag", ckpt_tag, 0, 32767),
    INTK("advanced", "stage_tag", stage_tag, 0, 32767),
    INTK("advanced", "final_tag", final_tag, 0, 32767),
    INTK("advanced", "fast_forward", fast_forward, 1, 10),
    /* [injection] (FTI's) */
    INTK("injection", "rank", inj_rank, INT_MIN, INT_MAX),
    INTK("injection", "index", inj_index, INT_MIN, INT_MAX),
    INTK("injection", "position", inj_position, INT_MIN, INT_MAX),
    INTK("injection", "number", inj_number, INT_MIN, INT_MAX),
    INTK("injection", "frequency", inj_frequency, INT_MIN, INT_MAX),
    /* FTI keys we read but do not use (no warning for them). */
    {"basic", "ckpt_l4_pending", K_IGNORED, 0, 0, 0, 0},
    {"basic", "keep_ckpt_on_failure", K_IGNORED, 0, 0, 0, 0},
    {"basic", "ckpt_level_only", K_IGNORED, 0, 0, 0, 0},
    {"basic", "h5_single_file_dir", K_IGNORED, 0, 0, 0, 0},
    {"basic", "h5_single_file_inline", K_IGNORED, 0, 0, 0, 0},
    {"basic", "enable_icp", K_IGNORED, 0, 0, 0, 0},
    {"basic", "icp_mode", K_IGNORED, 0, 0, 0, 0},
    {"basic", "vpr_mode", K_IGNORED, 0, 0, 0, 0},
    {"basic", "vpr_dir", K_IGNORED, 0, 0, 0, 0},
    {"basic", "enable_vpr", K_IGNORED, 0, 0, 0, 0},
    {"basic", "dcp_max_size", K_IGNORED, 0, 0, 0, 0},
    {"basic", "ckpt_type", K_IGNORED, 0, 0, 0, 0},
    {"basic", "cacheddcp", K_IGNORED, 0, 0, 0, 0},
    {"basic", "h5_single_file_prefix", K_IGNORED, 0, 0, 0, 0},
    {"basic", "h5_single_file_keep", K_IGNORED, 0, 0, 0, 0},
    {"basic", "max_var_id", K_IGNORED, 0, 0, 0, 0},
    {"basic", "glbl_stash_dir", K_IGNORED, 0, 0, 0, 0},
    {"basic", "fast_forward", K_IGNORED, 0, 0, 0, 0},
    /* FTI reads the misspelt "stiping"; its template.ini says "striping" */
    {"advanced", "lustre_stiping_unit", K_IGNORED, 0, 0, 0, 0},
    {"advanced", "lustre_stiping_factor", K_IGNORED, 0, 0, 0, 0},
    {"advanced", "lustre_stiping_offset", K_IGNORED, 0, 0, 0, 0},
    {"advanced", "lustre_striping_unit", K_IGNORED, 0, 0, 0, 0},
    {"advanced", "lustre_striping_factor", K_IGNORED, 0, 0, 0, 0},
    {"advanced", "lustre_striping_offset", K_IGNORED, 0, 0, 0, 0},
};
#define N_KNOWN (sizeof known_keys / sizeof known_keys[0])

void fti_config_defaults(fti_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (int l = 2; l <= 4; l++)
        cfg->inline_l[l] = 1;
    cfg->keep_last_ckpt = 0;
    cfg->group_size = 4;
    cfg->max_sync_intv = 512;
    cfg->ckpt_io = 1;
    cfg->verbosity = 2;
    cfg->log_style = FTI_LOG_STYLE_FTI; /* a drop-in prints what FTI's scripts grep */
    cfg->transfer_size = 16 << 20;
    cfg->gpu_host_bufsize = 32 << 20;
    cfg->cow_max_mib = 64;
    cfg->cow_huge_pages = 1; /* used only with cow_checkpoint = 1 */
    cfg->restart = FTI_RESTART_AUTO;
    cfg->update_config = 1; /* FTI rewrites [restart] failure and exec_id */
    cfg->l4_local_copy = -1; /* not given: as FTI (check_consistency) */
    cfg->l4_codec = FTI_CODEC_NONE;
    cfg->device_backends = FTI_DEVICES_AUTO;
    cfg->l4_files_per_dir = FTI_L4_FILES_PER_DIR;
    cfg->block_size = 8 << 20; /* FTI's L3 chunk, only reported: our L3 sizes its own messages */
    cfg->mpi_tag = 2612;
    cfg->ckpt_tag = 711; /* FTI's defaults, reported by FTI_GetConfig */
    cfg->stage_tag = 406;
    cfg->final_tag = 3107;
    cfg->fast_forward = 1;
    cfg->inj_frequency = -1;
}

/* "section:key", as ini.h names keys. */
static void full_key(char *out, size_t n, const key_spec *k)
{
    snprintf(out, n, "%s:%s", k->section, k->key);
}

static fti_err parse_integer(const char *file, const key_spec *k, const char *s, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    while (end && isspace((unsigned char)*end))
        end++;
    if (errno != 0 || end == s || (end && *end != '\0'))
        return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s = '%s' is not an integer", file,
                        k->section, k->key, s);
    if (v < k->min || v > k->max)
        return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s = %lld is out of range [%lld, %lld]",
                        file, k->section, k->key, v, k->min, k->max);
    *out = v;
    return FTI_E_OK;
}

/* A name that can be used as one path component: no '/', no '..'. */
static int safe_name(const char *s)
{
    if (s[0] == '\0' || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return 0;
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.')
            return 0;
    return 1;
}

/* FTI's "no id yet" spellings of [restart] exec_id: its templates' date
 * pattern and the ITF template's NULL. */
static int exec_id_placeholder(const char *s)
{
    return strcmp(s, "XXXX-XX-XX_XX-XX-XX") == 0 || strcmp(s, "NULL") == 0;
}

/* [basic] transfer_size: bytes (ours), or FTI's tutorial form in MiB, which
 * FTI itself never reads: ignored likewise. */
static fti_err parse_basic_transfer(const char *file, const key_spec *k, const char *s,
                                    fti_config *cfg)
{
    key_spec any = *k;
    any.min = 0;
    long long v = 0;
    fti_err e = parse_integer(file, &any, s, &v);
    if (e != FTI_E_OK || v >= k->min) {
        if (e == FTI_E_OK)
            cfg->transfer_size = v;
        return e;
    }
    fti_log_rank0(FTI_LOG_INFO, "config %s: [basic] transfer_size = %lld ignored, as FTI does "
                  "(FTI reads [advanced] transfer_size, in MiB; ours in [basic] is in bytes, "
                  "at least %lld)", file, v, k->min);
    return FTI_E_OK;
}

/* [advanced] log_style: fti (FTI's lines, the default), libfti (ours) or
 * both; base/log.h says which lines it chooses between. */
static fti_err parse_log_style(const char *file, const key_spec *k, const char *s, fti_config *cfg)
{
    static const struct { const char *name; int style; } styles[] = {
        {"fti", FTI_LOG_STYLE_FTI}, {"libfti", FTI_LOG_STYLE_OURS}, {"both", FTI_LOG_STYLE_BOTH}};
    for (size_t i = 0; i < sizeof styles / sizeof styles[0]; i++)
        if (strcmp(s, styles[i].name) == 0) {
            cfg->log_style = styles[i].style;
            return FTI_E_OK;
        }
    return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s = '%s' is not one of fti, libfti, both",
                    file, k->section, k->key, s);
}

static fti_err parse_codec(const char *file, const key_spec *k, const char *s, fti_config *cfg)
{
    char name[16] = "";
    int level = -1, used = 0;
    int n = sscanf(s, "%15[a-z]%n:%d%n", name, &used, &level, &used);
    int whole = n >= 1 && s[used] == '\0'; /* nothing after the level */
    if (whole && n == 1 && strcmp(name, "none") == 0) {
        cfg->l4_codec = FTI_CODEC_NONE;
    } else if (whole && strcmp(name, "zlib") == 0 && (n == 1 || (level >= 0 && level <= 9))) {
        cfg->l4_codec = FTI_CODEC_ZLIB;
        cfg->l4_codec_level = n == 1 ? 1 : level;
    } else if (whole && strcmp(name, "zstd") == 0 && (n == 1 || (level >= 1 && level <= 19))) {
#ifndef FTI_HAVE_ZSTD
        /* refused, not swapped for zlib: the user asked for zstd's speed */
        return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s = '%s': this build has no zstd "
                        "(configured without libzstd); use zlib:<0-9> or none, or rebuild with "
                        "libzstd", file, k->section, k->key, s);
#endif
        cfg->l4_codec = FTI_CODEC_ZSTD;
        cfg->l4_codec_level = n == 1 ? 1 : level;
    } else {
        return fti_fail(FTI_E_CONFIG,
                        "config %s: [%s] %s = '%s' is not one of none, zlib:<0-9>, zstd:<1-19>",
                        file, k->section, k->key, s);
    }
    return FTI_E_OK;
}

/* device_backends = cuda needs the CUDA backend built in. */
#ifdef FTI_HAVE_CUDA
#define FTI_CUDA_BUILT 1
#else
#define FTI_CUDA_BUILT 0
#endif

static fti_err parse_devices(const char *file, const key_spec *k, const char *s, fti_config *cfg)
{
    if (strcmp(s, "auto") == 0)
        cfg->device_backends = FTI_DEVICES_AUTO;
    else if (strcmp(s, "off") == 0)
        cfg->device_backends = FTI_DEVICES_OFF;
    else if (strcmp(s, "cuda") == 0 && FTI_CUDA_BUILT)
        cfg->device_backends = FTI_DEVICES_CUDA;
    else if (strcmp(s, "cuda") == 0)
        return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s = cuda, but this library was built "
                        "without the CUDA backend (the CUDA toolkit was not found: "
                        "FTI_ENABLE_CUDA)", file, k->section, k->key);
    else
        return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s = '%s' is not one of auto, off, cuda",
                        file, k->section, k->key, s);
    return FTI_E_OK;
}

static fti_err parse_value(const char *file, const key_spec *k, const char *s, fti_config *cfg)
{
    char *field = (char *)cfg + k->offset;
    long long v = 0;
    fti_err e = FTI_E_OK;
    switch (k->kind) {
    case K_INT:
        if ((e = parse_integer(file, k, s, &v)) == FTI_E_OK)
            *(int *)field = (int)v;
        if (k->offset == OFF(group_size))
            cfg->group_size_given = 1;
        return e;
    case K_SIZE:
        if ((e = parse_integer(file, k, s, &v)) == FTI_E_OK)
            *(int64_t *)field = (int64_t)v * k->scale;
        return e;
    case K_PATH:
        if (s[0] == '\0')
            return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s is empty", file, k->section, k->key);
        if (strlen(s) >= FTI_PATH_MAX - 128)
            return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s is too long", file, k->section, k->key);
        strcpy(field, s);
        return FTI_E_OK;
    case K_NAME:
        if (exec_id_placeholder(s))
            return FTI_E_OK; /* no id given: the default id applies, as without the key */
        if (!safe_name(s) || strlen(s) >= FTI_NAME_MAX)
            return fti_fail(FTI_E_CONFIG,
                            "config %s: [%s] %s = '%s' must be letters, digits, '.', '-', '_' "
                            "(it names a directory)", file, k->section, k->key, s);
        strcpy(field, s);
        cfg->exec_id_given = 1;
        return FTI_E_OK;
    case K_RESTART:
        if (strcmp(s, "auto") == 0)
            cfg->restart = FTI_RESTART_AUTO;
        else if (strcmp(s, "never") == 0)
            cfg->restart = FTI_RESTART_NEVER;
        else if (strcmp(s, "required") == 0)
            cfg->restart = FTI_RESTART_REQUIRED;
        else
            return fti_fail(FTI_E_CONFIG, "config %s: [%s] %s = '%s' is not one of auto, never, required",
                            file, k->section, k->key, s);
        return FTI_E_OK;
    case K_LOG_STYLE:
        return parse_log_style(file, k, s, cfg);
    case K_CODEC:
        return parse_codec(file, k, s, cfg);
    case K_DEVICES:
        return parse_devices(file, k, s, cfg);
    case K_BASIC_XFER:
        return parse_basic_transfer(file, k, s, cfg);
    case K_IGNORED:
        return FTI_E_OK;
    }
    return FTI_E_OK;
}

static const key_spec *find_known(const char *fullkey)
{
    char buf[128];
    for (size_t i = 0; i < N_KNOWN; i++) {
        full_key(buf, sizeof buf, &known_keys[i]);
        if (strcmp(buf, fullkey) == 0)
            return &known_keys[i];
    }
    return NULL;
}

/* "did you mean": the known key nearest to `fullkey`, when it is near. */
static const key_spec *nearest_known(const char *fullkey)
{
    char buf[128];
    const key_spec *best = NULL;
    int best_d = 4; /* farther than 3 edits is no near-miss */
    for (size_t i = 0; i < N_KNOWN; i++) {
        full_key(buf, sizeof buf, &known_keys[i]);
        int d = fti_edit_distance(fullkey, buf, best_d);
        const char *colon = strchr(fullkey, ':');
        if (colon && strcmp(colon + 1, known_keys[i].key) == 0)
            d = 1; /* the right key in the wrong section */
        if (d < best_d)
            best_d = d, best = &known_keys[i];
    }
    return best;
}

static void warn_unknown_key(const char *file, const char *fullkey)
{
    const key_spec *near = nearest_known(fullkey);
    if (near != NULL)
        fti_log_rank0(FTI_LOG_WARN, "config %s: unknown key '%s' ignored; did you mean [%s] %s?",
                      file, fullkey, near->section, near->key);
    else
        fti_log_rank0(FTI_LOG_WARN, "config %s: unknown key '%s' ignored", file, fullkey);
}

static void warn_unknown_keys(const char *file, const fti_ini *ini)
{
    for (size_t i = 0; i < ini->n; i++)
        if (find_known(ini->e[i].name) == NULL)
            warn_unknown_key(file, ini->e[i].name);
}

/* Settings that are valid but do less than they seem to: said once. */
static void warn_inert_settings(const fti_config *cfg)
{
    int scheduled = 0;
    for (int l = 1; l <= 4; l++)
        scheduled |= cfg->ckpt_min[l] | cfg->ckpt_sec[l] | cfg->ckpt_iter[l];
    scheduled |= cfg->dcp_l4_min | cfg->dcp_l4_sec | cfg->dcp_l4_iter;
    if (!scheduled)
        fti_log_rank0(FTI_LOG_WARN, "config %s: no checkpoint level is scheduled (ckpt_l1..ckpt_l4 "
                      "and their _sec/_iter forms are 0): FTI_Snapshot never checkpoints, only "
                      "FTI_Checkpoint does", cfg->file);
    if (cfg->inj_number > 0)
        fti_log_rank0(FTI_LOG_WARN, "config %s: [injection] number = %d: this build injects no "
                      "faults from the config (FTI_BitFlip does)", cfg->file, cfg->inj_number);
}

/* online_recovery repairs the job between two of the application's MPI
 * calls: no other rank or thread may be in the middle of a checkpoint's
 * post-processing then, so every level is post-processed inline. */
static fti_err check_online(const fti_config *cfg)
{
    if (cfg->spare_ranks > 0 && !cfg->online_recovery)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] spare_ranks = %d needs online_recovery "
                        "= 1 (spares only replace ranks during an online recovery)",
                        cfg->file, cfg->spare_ranks);
    if (!cfg->online_recovery)
        return FTI_E_OK;
    if (cfg->head)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] online_recovery = 1 with head = 1 is "
                        "not supported: set head = 0 (spare_ranks replace failed ranks)", cfg->file);
    if (cfg->staging_mib > 0)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] online_recovery = 1 with staging_mib = "
                        "%d is not supported: set staging_mib = 0", cfg->file, cfg->staging_mib);
    if (cfg->cow_checkpoint) /* its writer thread would still read memory during a repair */
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] online_recovery = 1 with cow_checkpoint = "
                        "1 is not supported: set [advanced] cow_checkpoint = 0", cfg->file);
    for (int l = 2; l <= 4; l++)
        if (!cfg->inline_l[l])
            return fti_fail(FTI_E_CONFIG, "config %s: [basic] online_recovery = 1 needs "
                            "inline_l%d = 1 (post-processing on the application's path)",
                            cfg->file, l);
    return FTI_E_OK;
}

/* Cross-key rules that a single key's bounds cannot express. */
static fti_err check_consistency(fti_config *cfg)
{
    if (cfg->ckpt_dir[0] == '\0')
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] ckpt_dir is missing", cfg->file);
    if (cfg->glbl_dir[0] == '\0')
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] glbl_dir is missing", cfg->file);
    if (cfg->meta_dir[0] == '\0')
        {
        size_t n = strlen(cfg->glbl_dir); /* bounded by the K_PATH length check */
        memcpy(cfg->meta_dir, cfg->glbl_dir, n);
        memcpy(cfg->meta_dir + n, "/meta", 6);
    }
    fti_err e = fti_l4_kind_settle(cfg); /* the store ckpt_io selects, built here */
    if (e == FTI_E_OK)
        e = check_online(cfg);
    if (e != FTI_E_OK)
        return e;
    /* 0 is the documented default: dcp.c takes FTI_DCP_DEFAULT_BLOCK then */
    if (cfg->enable_dcp && cfg->dcp_block_size != 0 &&
        (cfg->dcp_block_size < 512 || cfg->dcp_block_size > (1 << 30)))
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] dcp_block_size = %d must be 0 (the "
                        "default, 64 KiB) or 512-1073741824 bytes when enable_dcp = 1",
                        cfg->file, cfg->dcp_block_size);
    if (!cfg->enable_dcp && (cfg->dcp_l4_min | cfg->dcp_l4_sec | cfg->dcp_l4_iter)) {
        /* as FTI: a dCP interval without dCP schedules nothing */
        fti_log_rank0(FTI_LOG_WARN, "config %s: [basic] dcp_l4 (or dcp_l4_sec/_iter) is set but "
                      "enable_dcp = 0: the dCP interval is ignored", cfg->file);
        cfg->dcp_l4_min = cfg->dcp_l4_sec = cfg->dcp_l4_iter = 0;
    }
    if (cfg->max_sync_intv == 0)
        cfg->max_sync_intv = 512;
    /* FTI's heads keep the local file of an L4 checkpoint they flushed (in
     * its L1 directory) until FTI_Finalize; inline L4 keeps none. */
    if (cfg->l4_local_copy < 0)
        cfg->l4_local_copy = cfg->head && !cfg->inline_l[4] ? FTI_L4_COPY_UNTIL_FINALIZE : 0;
    return FTI_E_OK;
}

/* The file, read once and parsed by the one INI grammar (ini.h). */
static fti_err read_ini(const char *path, fti_ini *ini)
{
    char *text = NULL;
    size_t n = 0;
    char real[PATH_MAX]; /* a link to the config is followed; a FIFO is never read */
    if (realpath(path, real) == NULL || fti_read_small(real, &text, &n) != 0)
        return fti_fail(FTI_E_CONFIG, "config %s: cannot read: %s", path, fti_fs_strerror(errno));
    fti_err e = fti_ini_parse(ini, path, text, n);
    free(text);
    return e;
}

fti_err fti_config_load(fti_config *cfg, const char *path)
{
    fti_config_defaults(cfg);
    if (path == NULL || path[0] == '\0')
        return fti_fail(FTI_E_CONFIG, "config file name is empty");
    snprintf(cfg->file, sizeof cfg->file, "%s", path);
    if (access(path, R_OK) != 0)
        return fti_fail(FTI_E_CONFIG, "config %s: cannot read: %s", path, strerror(errno));

    fti_ini ini;
    fti_err e = read_ini(path, &ini);
    if (e != FTI_E_OK)
        return e;

    char fk[128];
    for (size_t i = 0; i < N_KNOWN && e == FTI_E_OK; i++) {
        full_key(fk, sizeof fk, &known_keys[i]);
        const char *s = fti_ini_get(&ini, fk);
        if (s != NULL)
            e = parse_value(path, &known_keys[i], s, cfg);
    }
    if (e == FTI_E_OK) {
        warn_unknown_keys(path, &ini);
        e = check_consistency(cfg);
    }
    if (e == FTI_E_OK)
        warn_inert_settings(cfg);
    fti_ini_free(&ini);
    return e;
}
