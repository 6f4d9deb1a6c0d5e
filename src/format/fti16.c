/*
 * fti16.c - reading FTI 1.6's checkpoints and metadata (fti16.h). What FTI
 * 1.6 leaves, as docs/MIGRATION.md describes it:
 *   <meta_dir>/<exec_id>/l<L>/sector<s>-group<g>.fti  INI: [ckpt_info] ckpt_id,
 *     one section per group member k with ckpt_file_name, ckpt_file_size,
 *     ckpt_checksum (md5 hex) and var<j>_id/_typeid/_typesize/_size/_pos;
 *   <glbl_dir>/<exec_id>/l4/Ckpt<id>-Rank<r>.fti    (ckpt_io = 1), or
 *   <glbl_dir>/<exec_id>/l4/Ckpt<id>-mpiio.fti      (ckpt_io = 2, ranks in
 *     order, no checksum recorded);
 *   <ckpt_dir>[/node<k>]/<exec_id>/l1/Ckpt<id>-Rank<r>.fti.
 * A data file is the variables' bytes at their recorded positions.
 */
#include "format/fti16.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fio.h"
#include "base/ini.h"
#include "base/log.h"
#include "base/safe_fs.h"

/* ---- MD5 (RFC 1321) --------------------------------------------------------- */

typedef struct md5_state {
    uint32_t h[4];
    uint64_t len;
    unsigned char block[64];
    size_t fill;
} md5_state;

static const uint32_t md5_k[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
    0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
    0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
    0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
    0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
    0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
    0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
    0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
    0xeb86d391};

static const unsigned char md5_r[16] = {7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21};

static uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static void md5_block(uint32_t h[4], const unsigned char *p)
{
    uint32_t m[16];
    for (int i = 0; i < 16; i++)
        m[i] = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
               (uint32_t)p[4 * i + 3] << 24;
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; i++) {
        uint32_t f;
        int g, round = i / 16;
        if (round == 0) {
            f = (b & c) | (~b & d);
            g = i;
        } else if (round == 1) {
            f = (d & b) | (~d & c);
            g = (5 * i + 1) % 16;
        } else if (round == 2) {
            f = b ^ c ^ d;
            g = (3 * i + 5) % 16;
        } else {
            f = c ^ (b | ~d);
            g = (7 * i) % 16;
        }
        uint32_t t = d;
        d = c;
        c = b;
        b = b + rotl32(a + f + md5_k[i] + m[g], md5_r[round * 4 + i % 4]);
        a = t;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
}

static void md5_init(md5_state *s)
{
    static const uint32_t iv[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
    memcpy(s->h, iv, sizeof iv);
    s->len = 0;
    s->fill = 0;
}

static void md5_feed(md5_state *s, const unsigned char *p, size_t n)
{
    s->len += n;
    while (n > 0) {
        size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->block + s->fill, p, take);
        s->fill += take;
        p += take;
        n -= take;
        if (s->fill == 64) {
            md5_block(s->h, s->block);
            s->fill = 0;
        }
    }
}

static void md5_hex(md5_state *s, char out[33])
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t npad = (s->fill < 56 ? 56 : 120) - s->fill;
    for (int i = 0; i < 8; i++)
        pad[npad + i] = (unsigned char)(bits >> (8 * i));
    md5_feed(s, pad, npad + 8);
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", (unsigned)(s->h[i / 4] >> (8 * (i % 4))) & 0xffu);
}

void fti16_md5_hex(const void *data, size_t n, char out[33])
{
    md5_state s;
    md5_init(&s);
    md5_feed(&s, data, n);
    md5_hex(&s, out);
}

/* ---- where FTI 1.6's files are ------------------------------------------------ */

typedef struct fti16_dirs {
    char meta[FTI_PATH_MAX];   /* <meta_dir>/<exec_id> */
    char global[FTI_PATH_MAX]; /* <glbl_dir>/<exec_id>/l4 */
    char local[FTI_PATH_MAX];  /* <ckpt_dir> */
    char exec_id[FTI_NAME_MAX];
    int local_test;
    int head, node_size; /* head = 1: world rank 0 of each node of node_size was a head */
} fti16_dirs;

static fti_err read_ini_file(const char *path, fti_ini *ini)
{
    char *text = NULL;
    size_t n = 0;
    if (fti_read_small(path, &text, &n) != 0)
        return fti_fail(errno == ENOENT ? FTI_E_MISSING : FTI_E_IO, "%s: cannot read: %s", path,
                        fti_fs_strerror(errno));
    fti_err e = fti_ini_parse(ini, path, text, n);
    free(text);
    return e;
}

/* Reads path's INI, hands it to parse, frees it: parse's result. */
static fti_err with_ini_file(const char *path,
                             fti_err (*parse)(const fti_ini *ini, const char *path, void *arg),
                             void *arg)
{
    fti_ini ini;
    fti_err e = read_ini_file(path, &ini);
    if (e != FTI_E_OK)
        return e;
    e = parse(&ini, path, arg);
    fti_ini_free(&ini);
    return e;
}

/* dir/value, or value when absolute: FTI took relative folders from the
 * working directory of its job, which is the config's folder here. */
static void resolve(char *out, const char *dir, const char *value)
{
    while (value[0] == '.' && value[1] == '/')
        value += 2;
    if (value[0] == '/')
        snprintf(out, FTI_PATH_MAX, "%s", value);
    else
        snprintf(out, FTI_PATH_MAX, "%.2000s/%.2000s", dir, value);
}

static fti_err need_key(const fti_ini *ini, const char *path, const char *key, const char **out)
{
    *out = fti_ini_get(ini, key);
    if (*out == NULL || (*out)[0] == '\0')
        return fti_fail(FTI_E_CONFIG, "%s: FTI 1.6 config has no [%.*s] %s", path,
                        (int)(strchr(key, ':') - key), key, strchr(key, ':') + 1);
    return FTI_E_OK;
}

static fti_err parse_dirs(const fti_ini *ini, const char *config_path, void *arg)
{
    fti16_dirs *d = arg;
    fti_err e = FTI_E_OK;
    char dir[FTI_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", config_path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    const char *meta, *glbl, *local, *exec;
    if ((e = need_key(ini, config_path, "basic:meta_dir", &meta)) == FTI_E_OK &&
        (e = need_key(ini, config_path, "basic:glbl_dir", &glbl)) == FTI_E_OK &&
        (e = need_key(ini, config_path, "basic:ckpt_dir", &local)) == FTI_E_OK &&
        (e = need_key(ini, config_path, "restart:exec_id", &exec)) == FTI_E_OK) {
        char tmp[FTI_PATH_MAX];
        snprintf(d->exec_id, sizeof d->exec_id, "%s", exec);
        resolve(tmp, dir, meta);
        snprintf(d->meta, sizeof d->meta, "%.3800s/%.250s", tmp, exec);
        resolve(tmp, dir, glbl);
        snprintf(d->global, sizeof d->global, "%.3800s/%.250s/l4", tmp, exec);
        resolve(d->local, dir, local);
        const char *lt = fti_ini_get(ini, "advanced:local_test");
        d->local_test = lt != NULL && atoi(lt) == 1;
        const char *hd = fti_ini_get(ini, "basic:head"), *ns = fti_ini_get(ini, "basic:node_size");
        d->head = hd != NULL && atoi(hd) == 1;
        d->node_size = ns != NULL ? atoi(ns) : 0;
        if (d->head && d->node_size < 2)
            e = fti_fail(FTI_E_CONFIG, "%s: head = 1 needs node_size >= 2 (it is '%s')",
                         config_path, ns ? ns : "");
    }
    return e;
}

static fti_err load_dirs(const char *config_path, fti16_dirs *d)
{
    return with_ini_file(config_path, parse_dirs, d);
}

/* ---- one metadata file -------------------------------------------------------- */

static fti_err get_u64(const fti_ini *ini, const char *meta, const char *key, int required,
                       uint64_t *out, int *found)
{
    const char *v = fti_ini_get(ini, key);
    *found = v != NULL;
    if (v == NULL)
        return required ? fti_fail(FTI_E_CORRUPT, "FTI metadata %s: no key %s", meta, key)
                        : FTI_E_OK;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0')
        return fti_fail(FTI_E_CORRUPT, "FTI metadata %s: %s = '%s' is not an integer", meta, key,
                        v);
    *out = (uint64_t)x;
    return FTI_E_OK;
}

/* Variable j of member k: 1 loaded, 0 no such variable, -1 an error. */
static int load_var(const fti_ini *ini, const char *meta, int k, int j, const fti16_rank *r,
                    fti16_var *v)
{
    static const char *const fields[] = {"id", "typeid", "typesize", "size", "pos"};
    uint64_t x[5];
    for (int f = 0; f < 5; f++) {
        char key[96];
        int found;
        snprintf(key, sizeof key, "%d:var%d_%s", k, j, fields[f]);
        if (get_u64(ini, meta, key, f > 0, &x[f], &found) != FTI_E_OK)
            return -1;
        if (!found)
            return 0;
    }
    *v = (fti16_var){(int)x[0], (int)x[1], x[2], x[3], x[4]};
    if (v->typesize == 0 || v->size % v->typesize != 0 || v->pos > r->size ||
        v->size > r->size - v->pos) {
        fti_fail(FTI_E_CORRUPT,
                 "FTI metadata %s: variable %d of %s (size %" PRIu64 " at %" PRIu64
                 ", element %" PRIu64 ") does not fit its %" PRIu64 "-byte file",
                 meta, v->id, r->file, v->size, v->pos, v->typesize, r->size);
        return -1;
    }
    return 1;
}

/* Member k's section: its file name (hence rank), size, md5, variables. */
static fti_err load_member(const fti_ini *ini, const char *meta, int k, fti16_rank *r)
{
    char key[64];
    snprintf(key, sizeof key, "%d:ckpt_file_name", k);
    const char *name = fti_ini_get(ini, key);
    int id, n = 0;
    if (name == NULL || sscanf(name, "Ckpt%d-Rank%d.fti%n", &id, &r->world, &n) != 2 ||
        name[n] != '\0' || r->world < 0)
        return fti_fail(FTI_E_CORRUPT, "FTI metadata %s: %s is not Ckpt<id>-Rank<r>.fti", meta,
                        key);
    snprintf(r->file, sizeof r->file, "%s", name); /* the folder is added by the caller */
    snprintf(r->meta, sizeof r->meta, "%s", meta);
    int found;
    snprintf(key, sizeof key, "%d:ckpt_file_size", k);
    fti_err e = get_u64(ini, meta, key, 1, &r->size, &found);
    if (e != FTI_E_OK)
        return e;
    snprintf(key, sizeof key, "%d:ckpt_checksum", k);
    const char *sum = fti_ini_get(ini, key);
    r->md5[0] = '\0';
    if (sum != NULL && strlen(sum) == 32 && strspn(sum, "0") != 32) /* zeros: none recorded */
        snprintf(r->md5, sizeof r->md5, "%s", sum);
    for (int j = 0;; j++) {
        fti16_var v;
        int rc = load_var(ini, meta, k, j, r, &v);
        if (rc < 0)
            return FTI_E_CORRUPT;
        if (rc == 0)
            return FTI_E_OK;
        fti16_var *grown = realloc(r->vars, (size_t)(j + 1) * sizeof *grown);
        if (grown == NULL)
            return fti_fail(FTI_E_NOMEM, "FTI metadata %s: out of memory", meta);
        r->vars = grown;
        r->vars[j] = v;
        r->nvars = j + 1;
    }
}

static fti_err add_rank(fti16_ckpt *c, const fti16_rank *r)
{
    fti16_rank *grown = realloc(c->ranks, (size_t)(c->nranks + 1) * sizeof *grown);
    if (grown == NULL)
        return fti_fail(FTI_E_NOMEM, "FTI metadata: out of memory");
    c->ranks = grown;
    c->ranks[c->nranks++] = *r;
    return FTI_E_OK;
}

/* Every member of one sector/group metadata file. */
static fti_err parse_meta_file(const fti_ini *ini, const char *meta, void *arg)
{
    fti16_ckpt *c = arg;
    uint64_t id = 0;
    int found;
    fti_err e = get_u64(ini, meta, "ckpt_info:ckpt_id", 1, &id, &found);
    if (e == FTI_E_OK && c->nranks > 0 && (int64_t)id != c->id)
        e = fti_fail(FTI_E_CORRUPT, "FTI metadata %s: checkpoint id %" PRId64 ", others %" PRId64,
                     meta, (int64_t)id, c->id);
    c->id = (int64_t)id;
    for (int k = 0; e == FTI_E_OK; k++) {
        char key[64];
        snprintf(key, sizeof key, "%d:ckpt_file_name", k);
        if (fti_ini_get(ini, key) == NULL)
            break;
        fti16_rank r = {0};
        e = load_member(ini, meta, k, &r);
        if (e == FTI_E_OK)
            e = add_rank(c, &r);
        if (e != FTI_E_OK)
            free(r.vars);
    }
    return e;
}

static fti_err load_meta_file(const char *meta, fti16_ckpt *c)
{
    return with_ini_file(meta, parse_meta_file, c);
}

/* ---- a level's checkpoint ----------------------------------------------------- */

static int by_rank(const void *a, const void *b)
{
    const fti16_rank *x = a, *y = b;
    return (x->world > y->world) - (x->world < y->world);
}

/* The world rank of application rank i: with heads, FTI 1.6 made the first
 * rank of each node the head and FTI_COMM_WORLD the others in order. */
static int world_of(const fti16_dirs *d, int i)
{
    if (!d->head)
        return i;
    int app = d->node_size - 1;
    return i / app * d->node_size + 1 + i % app;
}

static int is_meta_name(const char *name)
{
    int s, g, n = 0;
    return sscanf(name, "sector%d-group%d.fti%n", &s, &g, &n) == 2 && name[n] == '\0';
}

/* Loads the metadata of level L: FTI_E_MISSING when the level has none. */
static fti_err load_level(const fti16_dirs *d, int level, fti16_ckpt *c)
{
    char dir[FTI_PATH_MAX];
    snprintf(dir, sizeof dir, "%.4000s/l%d", d->meta, level);
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return FTI_E_MISSING;
    fti_err e = FTI_E_OK;
    struct dirent *de;
    c->level = level;
    while (e == FTI_E_OK && (de = readdir(dp)) != NULL) {
        if (!is_meta_name(de->d_name))
            continue;
        char meta[FTI_PATH_MAX];
        snprintf(meta, sizeof meta, "%.3800s/%.250s", dir, de->d_name);
        e = load_meta_file(meta, c);
    }
    closedir(dp);
    if (e == FTI_E_OK && c->nranks == 0)
        return FTI_E_MISSING;
    if (e != FTI_E_OK)
        return e;
    qsort(c->ranks, (size_t)c->nranks, sizeof *c->ranks, by_rank);
    for (int i = 0; i < c->nranks; i++) {
        if (c->ranks[i].world != world_of(d, i))
            return fti_fail(FTI_E_CORRUPT,
                            "FTI metadata in %s: application rank %d's file is %s, expected "
                            "Ckpt%" PRId64 "-Rank%d.fti (head = %d, node_size = %d)",
                            dir, i, c->ranks[i].file, c->id, world_of(d, i), d->head,
                            d->node_size);
        c->ranks[i].rank = i;
    }
    return FTI_E_OK;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Levels 1-3: the rank's own file <ckpt_dir>/<exec_id>/l<L>/NAME, or with
 * local_test in any node<k>/. L2's partner copies and L3's parity are not
 * read: a file lost with its node is refused as missing. */
static fti_err place_local(const fti16_dirs *d, int level, fti16_rank *r)
{
    char path[FTI_PATH_MAX];
    snprintf(path, sizeof path, "%.3000s/%.250s/l%d/%.250s", d->local, d->exec_id, level, r->file);
    DIR *dp = d->local_test ? opendir(d->local) : NULL;
    struct dirent *de;
    while (dp != NULL && !exists(path) && (de = readdir(dp)) != NULL) {
        int k, n = 0;
        if (sscanf(de->d_name, "node%d%n", &k, &n) == 1 && de->d_name[n] == '\0')
            snprintf(path, sizeof path, "%.3000s/%.250s/%.250s/l%d/%.250s", d->local, de->d_name,
                     d->exec_id, level, r->file);
    }
    if (dp != NULL)
        closedir(dp);
    if (!exists(path))
        return fti_fail(FTI_E_MISSING, "FTI 1.6 level %d file %s of rank %d (%s): not found under %s",
                        level, r->file, r->rank, r->meta, d->local);
    snprintf(r->file, sizeof r->file, "%s", path);
    return FTI_E_OK;
}

/* Level 4: each rank's file, or the MPI-IO shared file with the ranks' bytes
 * one after the other in rank order. */
static fti_err place_l4(const fti16_dirs *d, fti16_ckpt *c)
{
    char shared[FTI_PATH_MAX];
    snprintf(shared, sizeof shared, "%.4000s/Ckpt%" PRId64 "-mpiio.fti", d->global, c->id);
    char own[FTI_PATH_MAX];
    snprintf(own, sizeof own, "%.3800s/%.250s", d->global, c->ranks[0].file);
    c->shared = !exists(own) && exists(shared);
    uint64_t off = 0;
    for (int i = 0; i < c->nranks; i++) {
        fti16_rank *r = &c->ranks[i];
        if (c->shared) {
            snprintf(r->file, sizeof r->file, "%s", shared);
            r->offset = off;
            off += r->size;
        } else {
            snprintf(own, sizeof own, "%.3800s/%.250s", d->global, r->file);
            snprintf(r->file, sizeof r->file, "%s", own);
        }
    }
    return FTI_E_OK;
}

fti_err fti16_open(const char *config_path, fti16_ckpt *c)
{
    memset(c, 0, sizeof *c);
    fti16_dirs d;
    fti_err e = load_dirs(config_path, &d);
    if (e != FTI_E_OK)
        return e;
    /* The newest checkpoint over the levels (FTI numbers its checkpoints
     * upwards; at equal ids the higher level); a level whose metadata is
     * damaged is an error even if another is fine. */
    int found = 0;
    for (int level = 4; level >= 1 && e == FTI_E_OK; level--) {
        fti16_ckpt l = {0};
        fti_err el = load_level(&d, level, &l);
        if (el == FTI_E_OK && (!found || l.id > c->id)) {
            fti16_free(c);
            *c = l;
            found = 1;
            continue;
        }
        fti16_free(&l);
        if (el != FTI_E_MISSING && el != FTI_E_OK)
            e = el;
    }
    if (e == FTI_E_OK && !found)
        return fti_fail(FTI_E_MISSING, "no FTI 1.6 checkpoint metadata in %s/l1 .. %s/l4", d.meta,
                        d.meta);
    if (e == FTI_E_OK && c->level == 4)
        e = place_l4(&d, c);
    for (int i = 0; e == FTI_E_OK && c->level < 4 && i < c->nranks; i++)
        e = place_local(&d, c->level, &c->ranks[i]);
    if (e != FTI_E_OK)
        fti16_free(c);
    return e;
}

/* ---- reading and checking a rank's bytes -------------------------------------- */

static fti_err check_size(const fti16_ckpt *c, const fti16_rank *r, uint64_t have)
{
    uint64_t want = r->size;
    if (c->shared) /* the shared file holds every rank */
        want = c->ranks[c->nranks - 1].offset + c->ranks[c->nranks - 1].size;
    if (have != want)
        return fti_fail(FTI_E_CORRUPT,
                        "FTI 1.6 file %s: %" PRIu64 " bytes, FTI's metadata %s records %" PRIu64,
                        r->file, have, r->meta, want);
    return FTI_E_OK;
}

/* Opens rank r's file for reading after checking its size. */
static fti_err open_rank(const fti16_ckpt *c, const fti16_rank *r, int *fd)
{
    *fd = fti_open_read(r->file);
    if (*fd < 0)
        return fti_fail(errno == ENOENT ? FTI_E_MISSING : FTI_E_IO, "FTI 1.6 file %s: %s", r->file,
                        fti_fs_strerror(errno));
    struct stat st;
    fti_err e = fstat(*fd, &st) == 0 ? check_size(c, r, (uint64_t)st.st_size)
                                     : fti_fail(FTI_E_IO, "FTI 1.6 file %s: %s", r->file,
                                                fti_fs_strerror(errno));
    if (e != FTI_E_OK) {
        close(*fd);
        *fd = -1;
    }
    return e;
}

/* The one md5 rule: r's bytes hash to what FTI recorded (nothing to check
 * where it recorded none, as for the MPI-IO file). */
static fti_err md5_verdict(const fti16_rank *r, md5_state *s)
{
    char sum[33];
    md5_hex(s, sum);
    if (r->md5[0] != '\0' && strcmp(sum, r->md5) != 0)
        return fti_fail(FTI_E_CORRUPT, "FTI 1.6 file %s: md5 %s, FTI's metadata %s records %s",
                        r->file, sum, r->meta, r->md5);
    return FTI_E_OK;
}

fti_err fti16_read_rank(const fti16_ckpt *c, int i, unsigned char **buf)
{
    const fti16_rank *r = &c->ranks[i];
    *buf = NULL;
    int fd;
    fti_err e = open_rank(c, r, &fd);
    if (e != FTI_E_OK)
        return e;
    unsigned char *b = malloc(r->size ? r->size : 1);
    if (b == NULL)
        e = fti_fail(FTI_E_NOMEM, "FTI 1.6 file %s: out of memory for %" PRIu64 " bytes", r->file,
                     r->size);
    if (e == FTI_E_OK && fti_pread_full(fd, b, r->size, (off_t)r->offset) != 0)
        e = fti_fail(FTI_E_IO, "FTI 1.6 file %s: %s", r->file, fti_fs_strerror(errno));
    close(fd);
    if (e == FTI_E_OK) {
        md5_state s;
        md5_init(&s);
        md5_feed(&s, b, r->size);
        e = md5_verdict(r, &s);
    }
    if (e != FTI_E_OK) {
        free(b);
        return e;
    }
    *buf = b;
    return FTI_E_OK;
}

/* Hashes r's bytes from fd, FTI16_CHUNK at a time, into a fresh *s. */
static fti_err hash_rank(int fd, const fti16_rank *r, md5_state *s)
{
    unsigned char *b = malloc(FTI16_CHUNK);
    if (b == NULL)
        return fti_fail(FTI_E_NOMEM, "FTI 1.6 file %s: out of memory", r->file);
    md5_init(s);
    fti_err e = FTI_E_OK;
    for (uint64_t at = 0; at < r->size && e == FTI_E_OK; at += FTI16_CHUNK) {
        size_t n = r->size - at < FTI16_CHUNK ? (size_t)(r->size - at) : FTI16_CHUNK;
        if (fti_pread_full(fd, b, n, (off_t)(r->offset + at)) != 0)
            e = fti_fail(FTI_E_IO, "FTI 1.6 file %s: %s", r->file, fti_fs_strerror(errno));
        else
            md5_feed(s, b, n);
    }
    free(b);
    return e;
}

fti_err fti16_check_rank(const fti16_ckpt *c, int i)
{
    const fti16_rank *r = &c->ranks[i];
    int fd;
    fti_err e = open_rank(c, r, &fd);
    if (e != FTI_E_OK)
        return e;
    md5_state s;
    e = hash_rank(fd, r, &s);
    close(fd);
    return e == FTI_E_OK ? md5_verdict(r, &s) : e;
}

/* ---- a rank's variables as a source of the capture pipeline -------------------- */

/* Variable j's place: the source and where its bytes start in the rank's. */
typedef struct fti16_region {
    struct fti16_source *src;
    uint64_t pos;
} fti16_region;

struct fti16_source {
    const fti16_rank *r;
    int fd;
    md5_state md5;    /* of the bytes read so far, while they come in file order */
    uint64_t next;    /* the rank's byte the next read must start at to stay in order */
    int out_of_order; /* a read did not: the rank is hashed again at close */
    fti16_region *regions;
};

static _Thread_local char source_error[FTI_PATH_MAX + 128];

/* The pipeline's "device" is FTI's file: reads are synchronous preads, the
 * "pinned" buffers are ordinary ones, streams are placeholders. */
static int src_owns(const void *ptr, fti_devptr_info *info)
{
    (void)ptr, (void)info;
    return 0;
}

static int src_stream_create(void **stream)
{
    static char placeholder;
    *stream = &placeholder;
    return 0;
}

static void src_stream_destroy(void *stream)
{
    (void)stream;
}

static int src_stream_sync(void *stream)
{
    (void)stream;
    return 0;
}

static int src_host_alloc(void **p, size_t n)
{
    *p = malloc(n ? n : 1);
    return *p == NULL ? -1 : 0;
}

static void src_host_free(void *p)
{
    free(p);
}

/* n bytes of a variable from byte off of it; hashed while the reads go in
 * file order, which is how the writer reads FTI's tightly packed variables. */
static int src_to_host(void *stream, void *dst, const void *handle, size_t off, size_t n)
{
    (void)stream;
    const fti16_region *g = handle;
    struct fti16_source *s = g->src;
    uint64_t at = g->pos + off;
    if (fti_pread_full(s->fd, dst, n, (off_t)(s->r->offset + at)) != 0) {
        snprintf(source_error, sizeof source_error, "FTI 1.6 file %s: %s", s->r->file,
                 fti_fs_strerror(errno));
        return -1;
    }
    if (at != s->next)
        s->out_of_order = 1;
    if (!s->out_of_order) {
        md5_feed(&s->md5, dst, n);
        s->next = at + n;
    }
    return 0;
}

static int src_to_device(void *stream, void *handle, size_t off, const void *src, size_t n)
{
    (void)stream, (void)handle, (void)off, (void)src, (void)n;
    snprintf(source_error, sizeof source_error, "FTI 1.6 files are only read");
    return -1;
}

static const char *src_last_error(void)
{
    return source_error;
}

static const fti_device_ops source_ops = {
    .version = FTI_DEVICE_OPS_VERSION, .name = "FTI 1.6 file", .owns = src_owns,
    .stream_create = src_stream_create, .stream_destroy = src_stream_destroy,
    .stream_sync = src_stream_sync, .host_alloc = src_host_alloc, .host_free = src_host_free,
    .to_host = src_to_host, .to_device = src_to_device, .last_error = src_last_error,
    .order_after_app = NULL,
};

const fti_device_ops *fti16_source_ops(void)
{
    return &source_ops;
}

fti_err fti16_source_open(const fti16_ckpt *c, int i, fti16_source **out)
{
    const fti16_rank *r = &c->ranks[i];
    struct fti16_source *s = calloc(1, sizeof *s);
    fti16_region *g = calloc(r->nvars ? (size_t)r->nvars : 1, sizeof *g);
    fti_err e = s != NULL && g != NULL ? open_rank(c, r, &s->fd)
                                       : fti_fail(FTI_E_NOMEM, "FTI 1.6 file %s: out of memory",
                                                  r->file);
    if (e != FTI_E_OK) {
        free(g);
        free(s);
        return e;
    }
    for (int j = 0; j < r->nvars; j++)
        g[j] = (fti16_region){.src = s, .pos = r->vars[j].pos};
    s->r = r;
    s->regions = g;
    md5_init(&s->md5);
    *out = s;
    return FTI_E_OK;
}

void *fti16_source_var(fti16_source *s, int j)
{
    return &s->regions[j];
}

fti_err fti16_source_close(fti16_source *s)
{
    if (s == NULL)
        return FTI_E_OK;
    /* Bytes between or after the variables, or reads out of order: the
     * md5 of what went by is not the file's, so the rank is hashed again. */
    fti_err e = FTI_E_OK;
    if (s->out_of_order || s->next != s->r->size)
        e = hash_rank(s->fd, s->r, &s->md5);
    if (e == FTI_E_OK)
        e = md5_verdict(s->r, &s->md5);
    close(s->fd);
    free(s->regions);
    free(s);
    return e;
}

void fti16_free(fti16_ckpt *c)
{
    for (int i = 0; i < c->nranks; i++)
        free(c->ranks[i].vars);
    free(c->ranks);
    memset(c, 0, sizeof *c);
}
