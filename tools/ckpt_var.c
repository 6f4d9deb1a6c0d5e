/*
 * ckpt_var.c - fti-ckpt show and extract: a rank's variable table, and one
 * variable's bytes (raw, or .npy for the predefined types), always from a
 * copy whose checksum verifies: the own file, else the L2 partner copy,
 * else the L4 global copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_json.h"
#include "ckpt_tool.h"
#include "base/fio.h"
#include "base/integrity.h"
#include "data/registry.h"
#include "base/safe_fs.h"

#define CHUNK (1u << 20)

/* The predefined types (fti_types_table.h): name and the numpy kind letter;
 * sizes are this machine's. */
static const struct ptype {
    const char *name;
    char kind;
    size_t size;
} ptypes[FTI_NPREDEFINED] = {
#define FTI_TYPE_ROW(NAME, id, ctype, kind, h5) [id] = {#ctype, kind, sizeof(ctype)},
    FTI_PREDEFINED_TYPES(FTI_TYPE_ROW)
#undef FTI_TYPE_ROW
};

static int is_predefined(int32_t type)
{
    return type >= 0 && type < FTI_NPREDEFINED;
}

static void type_name(const fti_file_entry *e, char *out, size_t n)
{
    if (is_predefined(e->type))
        snprintf(out, n, "%s", ptypes[e->type].name);
    else
        snprintf(out, n, "derived#%d", e->type);
}

/* Reads variable e of fd, hashing it; with out_fd >= 0 also writes it there.
 * 0, or -1 with errno (EIO for a short file). */
static int stream_var(int fd, const fti_file_entry *e, int out_fd, uint64_t *sum)
{
    fti_hash h;
    char *buf = malloc(CHUNK);
    if (buf == NULL || fti_hash_init(&h) != 0) {
        free(buf);
        errno = ENOMEM;
        return -1;
    }
    int rc = 0;
    for (uint64_t done = 0; done < e->nbytes && rc == 0;) {
        size_t len = (size_t)(e->nbytes - done < CHUNK ? e->nbytes - done : CHUNK);
        rc = fti_pread_full(fd, buf, len, (off_t)(e->offset + done));
        if (rc == 0)
            fti_hash_update(&h, buf, len);
        if (rc == 0 && out_fd >= 0)
            rc = ckpt_write_all(out_fd, buf, len);
        done += len;
    }
    int err = errno;
    *sum = fti_hash_final(&h);
    fti_hash_free(&h);
    free(buf);
    errno = err;
    return rc;
}

/* Common to show and extract: the tool, the checkpoint and the rank. */
static int open_rank(const ckpt_opts *o, ckpt_tool *t, fti_commit *c)
{
    int rc = ckpt_open(t, o);
    if (rc == CKPT_EXIT_OK)
        rc = ckpt_pick(t, o->has_id, o->id, c);
    if (rc != CKPT_EXIT_OK)
        return rc;
    if (!o->has_rank || o->rank < 0 || o->rank >= c->nranks) {
        ckpt_error("give --rank R with R in 0..%d (checkpoint #%llu has %d ranks)", c->nranks - 1,
                   (unsigned long long)c->seq, c->nranks);
        return CKPT_EXIT_USAGE;
    }
    if (t->nodes != NULL && ckpt_check_mapping(t, c, 0, 0) != CKPT_EXIT_OK)
        return CKPT_EXIT_USAGE;
    return CKPT_EXIT_OK;
}

/* One copy of a rank's file to read from: a plain file (the own file or
 * the L2 partner copy), or an L4 global copy, read by streaming it. */
typedef struct source {
    ckpt_file f;
    fti_file_header hdr;
    int l4;
    int *var_ok; /* l4: per entry of hdr */
} source;

static void free_source(source *s)
{
    fti_file_header_free(&s->hdr);
    free(s->var_ok);
}

static void take_l4(source *s, const ckpt_file *f, ckpt_l4_out *o)
{
    s->f = *f;
    s->hdr = o->hdr;
    s->var_ok = o->var_ok;
    s->l4 = 1;
}

/* In order: a fully verified plain copy; the L4 copy if it verifies; a
 * plain copy with a good header; the L4 copy with a readable header (bad
 * variables are then reported one by one). */
static int pick_source(const ckpt_tool *t, const fti_commit *c, int rank, source *s)
{
    static ckpt_file l4f;
    static char why[sizeof l4f.why];
    ckpt_l4_out o = {.fd = -1};
    memset(s, 0, sizeof *s);
    if (ckpt_find_copy(t, c, rank, 1, &s->f, &s->hdr) == 0)
        return 0;
    snprintf(why, sizeof why, "%s", s->f.why);
    if (c->level == 4) {
        ckpt_l4_check(t, c, rank, &l4f, &o);
        if (l4f.st == CK_OK) {
            take_l4(s, &l4f, &o);
            return 0;
        }
    }
    if (ckpt_find_copy(t, c, rank, 0, &s->f, &s->hdr) == 0) {
        ckpt_l4_out_free(&o);
        return 0;
    }
    if (o.have_hdr) {
        take_l4(s, &l4f, &o);
        return 0;
    }
    ckpt_error("checkpoint #%llu has no readable copy of rank %d's file: %s%s%.1400s",
               (unsigned long long)c->seq, rank, why, c->level == 4 ? "; L4 global copy: " : "",
               c->level == 4 ? l4f.why : "");
    return -1;
}

/* 1 when variable i of the source verifies. */
static int var_good(const source *s, int fd, uint32_t i)
{
    uint64_t sum = 0;
    if (s->l4)
        return s->var_ok[i];
    return stream_var(fd, &s->hdr.vars[i], -1, &sum) == 0 && sum == s->hdr.vars[i].checksum;
}

static int show_vars_json(const source *s, int fd, ckpt_json *j)
{
    int bad = 0;
    char type[32], sum[17];
    cj_array(j, "variables");
    for (uint32_t i = 0; i < s->hdr.nvars; i++) {
        const fti_file_entry *e = &s->hdr.vars[i];
        int ok = var_good(s, fd, i);
        bad += !ok;
        type_name(e, type, sizeof type);
        snprintf(sum, sizeof sum, "%016" PRIx64, e->checksum);
        cj_object(j, NULL);
        cj_int(j, "id", e->id);
        cj_str(j, "name", e->name[0] ? e->name : NULL);
        cj_str(j, "type", type);
        cj_uint(j, "elem_size", e->elem_size);
        cj_uint(j, "count", e->count);
        cj_uint(j, "bytes", e->nbytes);
        cj_str(j, "checksum", sum);
        cj_bool(j, "data_ok", ok);
        cj_end(j);
    }
    cj_end(j);
    return bad;
}

static int show_vars(const source *s, int fd)
{
    int bad = 0;
    char type[32];
    printf("%10s  %-20s %-16s %6s %12s %14s %-16s %s\n", "ID", "NAME", "TYPE", "ELEM", "COUNT",
           "BYTES", "CHECKSUM", "DATA");
    for (uint32_t i = 0; i < s->hdr.nvars; i++) {
        const fti_file_entry *e = &s->hdr.vars[i];
        int ok = var_good(s, fd, i);
        bad += !ok;
        type_name(e, type, sizeof type);
        printf("%10d  %-20s %-16s %6" PRIu64 " %12" PRIu64 " %14" PRIu64 " %016" PRIx64 " %s\n",
               e->id, e->name[0] ? e->name : "-", type, e->elem_size, e->count, e->nbytes,
               e->checksum, ok ? "ok" : "BAD (checksum mismatch)");
    }
    return bad;
}

int ckpt_cmd_show(const ckpt_opts *o)
{
    static ckpt_tool t;
    static source s;
    fti_commit c;
    int rc = open_rank(o, &t, &c);
    if (rc != CKPT_EXIT_OK)
        return rc;
    if (pick_source(&t, &c, o->rank, &s) != 0)
        return CKPT_EXIT_BAD;
    int fd = s.l4 ? -1 : fti_open_read(s.f.path);
    if (!s.l4 && fd < 0) {
        ckpt_error("%s: %s", s.f.path, fti_fs_strerror(errno));
        free_source(&s);
        return CKPT_EXIT_BAD;
    }
    int bad;
    if (o->json) {
        ckpt_json j;
        cj_begin(&j, stdout, "show");
        cj_uint(&j, "seq", c.seq);
        cj_int(&j, "id", c.id);
        cj_int(&j, "level", c.level);
        cj_int(&j, "rank", o->rank);
        cj_str(&j, "file", s.f.path);
        cj_bool(&j, "l4_global_copy", s.l4);
        cj_uint(&j, "file_bytes", s.hdr.file_size);
        bad = show_vars_json(&s, fd, &j);
        cj_int(&j, "bad_variables", bad);
        cj_finish(&j);
    } else {
        printf("checkpoint #%llu (id %lld, level %d) rank %d: %s%s\n%u variables, %llu bytes\n",
               (unsigned long long)c.seq, (long long)c.id, c.level, o->rank, s.f.path,
               s.l4 ? " (L4 global copy)" : "", s.hdr.nvars, (unsigned long long)s.hdr.file_size);
        bad = show_vars(&s, fd);
    }
    if (fd >= 0)
        close(fd);
    free_source(&s);
    return bad ? CKPT_EXIT_BAD : CKPT_EXIT_OK;
}

/* ---- extract ------------------------------------------------------------- */

/* The .npy header (format 1.0) of variable e into buf; its length, or 0
 * with a message when the type cannot be described. */
static size_t npy_header(const fti_file_entry *e, char *buf, size_t n)
{
    const uint16_t one = 1;
    char order = *(const char *)&one == 1 ? '<' : '>', descr[32];
    if (is_predefined(e->type) && e->elem_size != ptypes[e->type].size) {
        ckpt_error("variable %d: elements of %" PRIu64 " bytes, but %s has %zu bytes on this "
                   "machine; use --format raw", e->id, e->elem_size, ptypes[e->type].name,
                   ptypes[e->type].size);
        return 0;
    }
    if (is_predefined(e->type))
        snprintf(descr, sizeof descr, "%c%c%" PRIu64, e->elem_size == 1 ? '|' : order,
                 ptypes[e->type].kind, e->elem_size);
    else /* opaque or composite: numpy's void type of the element size */
        snprintf(descr, sizeof descr, "|V%" PRIu64, e->elem_size);
    char dict[256];
    int dlen = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': "
                        "(%" PRIu64 ",), }", descr, e->count);
    size_t total = (10 + (size_t)dlen + 1 + 63) / 64 * 64; /* magic..dict..'\n', 64-aligned */
    if (total > n)
        return 0;
    size_t hlen = total - 10;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    memcpy(buf + 10, dict, (size_t)dlen);
    memset(buf + 10 + dlen, ' ', hlen - (size_t)dlen - 1);
    buf[total - 1] = '\n';
    return total;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int open_output(const char *out, const char *source)
{
    if (strcmp(out, "-") == 0)
        return STDOUT_FILENO;
    if (same_file(out, source)) {
        ckpt_error("-o %s is the checkpoint file itself; fti-ckpt never writes checkpoint data", out);
        return -1;
    }
    /* A new file (safe_fs.h): a link, FIFO or another user's file at the
     * name is refused, never written through; a file of ours is replaced.
     * Only -o names the output: nothing read from the checkpoint (variable
     * names) ever forms a path. */
    int fd = fti_open_new(out);
    if (fd < 0)
        ckpt_error("-o %s: %s", out, fti_fs_strerror(errno));
    return fd;
}

static int use_npy(const ckpt_opts *o, int *npy)
{
    size_t n = strlen(o->output);
    if (o->format == NULL)
        *npy = n > 4 && strcmp(o->output + n - 4, ".npy") == 0;
    else if (strcmp(o->format, "raw") == 0 || strcmp(o->format, "npy") == 0)
        *npy = strcmp(o->format, "npy") == 0;
    else {
        ckpt_error("--format %s: expected raw or npy", o->format);
        return CKPT_EXIT_USAGE;
    }
    return CKPT_EXIT_OK;
}

static int put_header(const fti_file_entry *e, int out, int npy)
{
    char hdr[512];
    size_t hlen = npy ? npy_header(e, hdr, sizeof hdr) : 0;
    if (npy && hlen == 0)
        return CKPT_EXIT_USAGE;
    if (hlen && ckpt_write_all(out, hdr, hlen) != 0) {
        ckpt_error("writing the output: %s", fti_fs_strerror(errno));
        return CKPT_EXIT_BAD;
    }
    return CKPT_EXIT_OK;
}

static int mismatch(const fti_file_entry *e, const char *src)
{
    ckpt_error("variable %d in %s: data checksum mismatch (corrupt data); nothing extracted", e->id,
               src);
    return CKPT_EXIT_BAD;
}

/* A plain copy: the variable's bytes, checked on the way. */
static int copy_plain(const char *src, const fti_file_entry *e, int out)
{
    uint64_t sum = 0;
    int in = fti_open_read(src);
    int rc = in >= 0 && stream_var(in, e, out, &sum) == 0 ? 0 : -1;
    int err = errno;
    if (in >= 0)
        close(in);
    if (rc != 0) {
        ckpt_error("extracting variable %d from %s: %s", e->id, src, fti_fs_strerror(err));
        return CKPT_EXIT_BAD;
    }
    return sum == e->checksum ? CKPT_EXIT_OK : mismatch(e, src);
}

/* An L4 copy: streamed again, the variable written out on the way. */
static int copy_l4(const ckpt_tool *t, const fti_commit *c, int rank, const fti_file_entry *e,
                   int out)
{
    static ckpt_file f;
    ckpt_l4_out o = {.var_id = e->id, .fd = out};
    ckpt_l4_check(t, c, rank, &f, &o);
    const fti_file_entry *again = o.have_hdr ? fti_file_find(&o.hdr, e->id) : NULL;
    int ok = again != NULL && again->nbytes == e->nbytes && o.var_ok[again - o.hdr.vars];
    int rc = CKPT_EXIT_OK;
    if (o.out_errno) {
        ckpt_error("writing the output: %s", fti_fs_strerror(o.out_errno));
        rc = CKPT_EXIT_BAD;
    } else if (!ok) {
        rc = mismatch(e, f.path);
    }
    ckpt_l4_out_free(&o);
    return rc;
}

static const fti_file_entry *find_var(const fti_file_header *h, int id, const char *path)
{
    const fti_file_entry *e = fti_file_find(h, id);
    if (e != NULL)
        return e;
    char ids[512] = "";
    size_t n = 0;
    for (uint32_t i = 0; i < h->nvars && n < sizeof ids - 16; i++)
        n += (size_t)snprintf(ids + n, sizeof ids - n, "%s%d", i ? ", " : "", h->vars[i].id);
    ckpt_error("variable %d is not in %s (its variables: %s)", id, path, ids);
    return NULL;
}

static int extract_from(const ckpt_opts *o, const ckpt_tool *t, const fti_commit *c,
                        const source *s, int npy)
{
    const fti_file_entry *e = find_var(&s->hdr, o->var, s->f.path);
    if (e == NULL)
        return CKPT_EXIT_USAGE;
    int out = open_output(o->output, s->f.path);
    if (out < 0)
        return CKPT_EXIT_USAGE;
    int rc = put_header(e, out, npy);
    if (rc == CKPT_EXIT_OK)
        rc = s->l4 ? copy_l4(t, c, o->rank, e, out) : copy_plain(s->f.path, e, out);
    if (out != STDOUT_FILENO && close(out) != 0 && rc == CKPT_EXIT_OK) {
        ckpt_error("-o %s: %s", o->output, fti_fs_strerror(errno));
        rc = CKPT_EXIT_BAD;
    }
    if (rc != CKPT_EXIT_OK && out != STDOUT_FILENO)
        unlink(o->output); /* our own partial output, never checkpoint data */
    return rc;
}

int ckpt_cmd_extract(const ckpt_opts *o)
{
    static ckpt_tool t;
    static source s;
    fti_commit c;
    int npy = 0;
    if (!o->has_var || o->output == NULL) {
        ckpt_error("extract needs --var ID and -o FILE");
        return CKPT_EXIT_USAGE;
    }
    int rc = use_npy(o, &npy);
    if (rc == CKPT_EXIT_OK)
        rc = open_rank(o, &t, &c);
    if (rc != CKPT_EXIT_OK)
        return rc;
    if (pick_source(&t, &c, o->rank, &s) != 0)
        return CKPT_EXIT_BAD;
    rc = extract_from(o, &t, &c, &s, npy);
    free_source(&s);
    return rc;
}
