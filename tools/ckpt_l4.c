/*
 * ckpt_l4.c - level 4 for fti-ckpt: a rank's global copy, in each of the
 * library's layouts (src/levels/l4_pfs.c, l4_mpiio.c, l4_codec.c):
 *   ckpt_io 1: l4-s<slot>-rank<r>.fti, the rank's local file as is, or a
 *              compressed stream (FTIL4Z, l4_compression);
 *   ckpt_io 2: l4-s<slot>-shared.fti, one file for all ranks: a header, an
 *              index of (offset, length) per rank, then each rank's piece
 *              (its local file, as is or compressed);
 *   dCP (io 8): l4-dcp-rank<r>-<seq>.fti and the older layers of its chain
 *              (levels/dcp_file.h), assembled by the library's own code into
 *              an unnamed temporary file outside checkpoint storage.
 * Whatever the layout, the original bytes of the rank's file are streamed
 * (copied, or decoded with the library's own decoder, which checks every
 * chunk) into a sink that parses the checkpoint header and checks every
 * variable's checksum on the way, and can write one variable out (extract).
 * This file is the only place in the tool that knows these layouts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_tool.h"
#include "fio.h"
#include "integrity.h"
#include "levels/dcp_file.h"
#ifdef FTI_HAVE_HDF5
#include "hdf5/h5_file.h"
#endif
#include "levels/l4_codec.h"
#include "levels/l4_kind.h"
#include "le_field.h"
#include "log.h"
#include "safe_fs.h"

/* The shared file's header and index (src/levels/l4_mpiio.c). */
#define SH_MAGIC "FTIL4SH\0"
#define SH_VERSION 1
#define SH_HEADER 64
#define SH_ENTRY 32
#define COPY_CHUNK ((size_t)4 << 20)
#define HEAD_MAX ((uint64_t)64 << 20) /* a bigger checkpoint header is not believed */

/* Where a rank's stored bytes are: a file, an offset in it, a length. */
typedef struct piece {
    char path[FTI_PATH_MAX];
    int fd;
    uint64_t base, len;
} piece;

static void set_state(ckpt_file *f, ckpt_state st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_state(ckpt_file *f, ckpt_state st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->why, sizeof f->why, fmt, ap);
    va_end(ap);
    f->st = st;
}

/* ---- finding the piece ------------------------------------------------------ */

static int open_piece(piece *p, ckpt_file *f)
{
    struct stat st;
    snprintf(f->path, sizeof f->path, "%s", p->path);
    p->fd = fti_open_read(p->path);
    if (p->fd < 0 || fstat(p->fd, &st) != 0) {
        set_state(f, errno == ENOENT ? CK_MISSING : CK_BAD, "global copy %s: %s", p->path,
                  fti_fs_strerror(errno));
        return -1;
    }
    p->base = 0;
    p->len = (uint64_t)st.st_size;
    return 0;
}

static int check_shared_header(const unsigned char *h, const fti_commit *c, piece *p, ckpt_file *f)
{
    if (memcmp(h, SH_MAGIC, 8) != 0 || fti_le_get64(h + 56) != fti_hash_buffer(h, 56)) {
        set_state(f, CK_BAD, "shared global file %s: header corrupt", p->path);
        return -1;
    }
    if (fti_le_get32(h + 8) != SH_VERSION || fti_le_get32(h + 12) != (uint32_t)c->nranks ||
        fti_le_get64(h + 16) != c->seq) {
        set_state(f, CK_BAD, "shared global file %s holds checkpoint #%llu of %u ranks (version "
                  "%u), expected #%llu of %d", p->path, (unsigned long long)fti_le_get64(h + 16),
                  fti_le_get32(h + 12), fti_le_get32(h + 8), (unsigned long long)c->seq, c->nranks);
        return -1;
    }
    return 0;
}

/* ckpt_io = 2: the rank's piece of the shared file, from its index entry. */
static int find_shared_piece(const fti_commit *c, int rank, piece *p, ckpt_file *f)
{
    unsigned char h[SH_HEADER], e[SH_ENTRY];
    uint64_t size = p->len, at = SH_HEADER + (uint64_t)rank * SH_ENTRY;
    if (size < at + SH_ENTRY || fti_pread_full(p->fd, h, sizeof h, 0) != 0 ||
        fti_pread_full(p->fd, e, sizeof e, (off_t)at) != 0) {
        set_state(f, CK_BAD, "shared global file %s is truncated (%llu bytes, no index entry for "
                  "rank %d)", p->path, (unsigned long long)size, rank);
        return -1;
    }
    if (check_shared_header(h, c, p, f) != 0)
        return -1;
    if (fti_le_get64(e + 24) != fti_hash_buffer(e, 24) || fti_le_get32(e + 16) != (uint32_t)rank) {
        set_state(f, CK_BAD, "shared global file %s: index entry of rank %d corrupt", p->path, rank);
        return -1;
    }
    p->base = fti_le_get64(e);
    p->len = fti_le_get64(e + 8);
    if (p->base > size || p->len > size - p->base) {
        set_state(f, CK_BAD, "shared global file %s is truncated: the piece of rank %d ends at byte "
                  "%llu, the file has %llu", p->path, rank, (unsigned long long)(p->base + p->len),
                  (unsigned long long)size);
        return -1;
    }
    return 0;
}

/* p reads the temporary checkpoint file a converter left open at p->fd
 * (e: the conversion's result); else f says why not. */
static int use_converted(piece *p, ckpt_file *f, fti_err e)
{
    struct stat st;
    if (e != FTI_E_OK || p->fd < 0 || fstat(p->fd, &st) != 0) {
        set_state(f, e == FTI_E_MISSING ? CK_MISSING : CK_BAD, "%s",
                  e != FTI_E_OK ? fti_last_error() : fti_fs_strerror(errno));
        return -1;
    }
    p->base = 0;
    p->len = (uint64_t)st.st_size;
    return 0;
}

/* dCP: the chain of layers assembled into a temporary file (checking every
 * block hash), then read like a per-rank copy. */
static int assemble_dcp(const ckpt_tool *t, const fti_commit *c, int rank, piece *p, ckpt_file *f)
{
    fti_dcp_path(p->path, t->dirs.global, rank, c->seq);
    snprintf(f->path, sizeof f->path, "%s", p->path);
    FILE *tmp = tmpfile();
    if (tmp == NULL) {
        set_state(f, CK_BAD, "cannot create a temporary file: %s", fti_fs_strerror(errno));
        return -1;
    }
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_dcp_assemble(t->dirs.global, rank, c->seq, fileno(tmp), "(assembled dCP layers)");
    fti_log_quiet(0);
    p->fd = e == FTI_E_OK ? dup(fileno(tmp)) : -1;
    fclose(tmp);
    return use_converted(p, f, e);
}

/* HDF5 (io 5): the rank's HDF5 file converted by the library's own code
 * into a temporary checkpoint file; level 9's shared file is for HDF5 tools. */
static int convert_h5(const ckpt_tool *t, const fti_commit *c, int rank, piece *p, ckpt_file *f)
{
#ifdef FTI_HAVE_HDF5
    char tmp[] = "/tmp/fti-ckpt-h5-XXXXXX";
    fti_path_global_h5(&t->dirs, p->path, c->slot, rank);
    snprintf(f->path, sizeof f->path, "%s", p->path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        set_state(f, CK_BAD, "cannot create a temporary file: %s", fti_fs_strerror(errno));
        return -1;
    }
    close(fd);
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_h5_to_ckpt_file(p->path, tmp, c, rank);
    fti_log_quiet(0);
    p->fd = e == FTI_E_OK ? fti_open_read(tmp) : -1;
    unlink(tmp);
    return use_converted(p, f, e);
#else
    (void)t, (void)c, (void)rank, (void)p;
    set_state(f, CK_NA, "HDF5 checkpoint: this fti-ckpt was built without HDF5");
    return -1;
#endif
}

/* ckpt_io = 1: the rank's own global file. */
static int locate_rank_file(const ckpt_tool *t, const fti_commit *c, int rank, piece *p,
                            ckpt_file *f)
{
    fti_path_global(&t->dirs, p->path, c->slot, rank);
    return open_piece(p, f);
}

/* ckpt_io = 2: the rank's piece of the shared file. */
static int locate_shared_piece(const ckpt_tool *t, const fti_commit *c, int rank, piece *p,
                               ckpt_file *f)
{
    fti_path_global_shared(&t->dirs, p->path, c->slot);
    if (open_piece(p, f) != 0)
        return -1;
    return find_shared_piece(c, rank, p, f);
}

static int refuse_h5_shared(const ckpt_tool *t, const fti_commit *c, int rank, piece *p,
                            ckpt_file *f)
{
    (void)t, (void)c, (void)rank, (void)p;
    set_state(f, CK_NA, "shared HDF5 file of level 9: read it with h5dump or h5py");
    return -1;
}

/* How this tool reads a rank's bytes from each L4 store (levels/l4_kind.h),
 * and what it calls them: the file, or "(what [rank])" after it. */
static const struct reader {
    int (*locate)(const ckpt_tool *t, const fti_commit *c, int rank, piece *p, ckpt_file *f);
    const char *what;
    int what_rank;
} readers[FTI_L4K_COUNT] = {
    [FTI_L4K_POSIX] = {locate_rank_file, NULL, 0},
    [FTI_L4K_MPIIO] = {locate_shared_piece, "piece of rank", 1},
    [FTI_L4K_DCP] = {assemble_dcp, "dCP chain", 0},
    [FTI_L4K_H5] = {convert_h5, NULL, 0},
    [FTI_L4K_H5_SHARED] = {refuse_h5_shared, NULL, 0},
};

/* The reader of c's store; NULL (f says why) below level 4. */
static const struct reader *reader_of(const fti_commit *c, ckpt_file *f)
{
    const fti_l4_kind *k = fti_l4_kind_of(c);
    if (k == NULL)
        set_state(f, CK_NA, "checkpoint #%llu is of level %d, not an L4 checkpoint",
                  (unsigned long long)c->seq, c->level);
    return k == NULL ? NULL : &readers[k->id];
}

/* ---- the sink: the rank's original bytes, in order -------------------------- */

typedef struct sink {
    const fti_commit *c;
    int rank;
    const char *exec_id;
    const char *name;
    unsigned char *head;         /* the checkpoint header, captured */
    uint64_t head_len, head_want;
    fti_file_header hdr;
    int have_hdr;
    uint32_t cur;                /* the variable being hashed */
    fti_hash h;
    int *var_ok;
    ckpt_l4_out *out;            /* extract: variable out->var_id to out->fd */
    int out_errno;
    uint64_t pos;
    char err[FTI_PATH_MAX + 256];
} sink;

static void parse_header(sink *s)
{
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_file_header_decode(s->head, (size_t)s->head_len, s->name, &s->hdr);
    fti_log_quiet(0);
    if (e != FTI_E_OK) {
        snprintf(s->err, sizeof s->err, "%s", fti_last_error());
        return;
    }
    s->have_hdr = 1;
    fti_expect x;
    fti_expect_data(&x, s->c, s->rank, s->exec_id, "L4 global copy");
    fti_log_quiet(1);
    if (fti_expect_header(&x, &s->hdr, s->name) != FTI_E_OK)
        snprintf(s->err, sizeof s->err, "%s", fti_last_error());
    fti_log_quiet(0);
    s->var_ok = calloc(s->hdr.nvars ? s->hdr.nvars : 1, sizeof *s->var_ok);
    if (s->var_ok == NULL || fti_hash_init(&s->h) != 0)
        snprintf(s->err, sizeof s->err, "out of memory");
}

/* The fixed part tells the size of the whole header; then it is parsed. */
static void header_step(sink *s)
{
    if (s->head_want > FTI_FILE_FIXED_HEADER) {
        parse_header(s);
        return;
    }
    uint64_t want = fti_file_header_size(fti_le_get32(s->head + 40));
    unsigned char *bigger = want <= HEAD_MAX ? realloc(s->head, (size_t)want) : NULL;
    if (bigger == NULL) {
        snprintf(s->err, sizeof s->err, "%s: corrupt header (variable table)", s->name);
        return;
    }
    s->head = bigger;
    s->head_want = want;
}

static void take_header(sink *s, const unsigned char *buf, size_t n, uint64_t off)
{
    while (!s->have_hdr && s->err[0] == '\0' && s->head_len >= off && s->head_len < off + n) {
        uint64_t k = off + n - s->head_len;
        if (k > s->head_want - s->head_len)
            k = s->head_want - s->head_len;
        memcpy(s->head + s->head_len, buf + (s->head_len - off), (size_t)k);
        s->head_len += k;
        if (s->head_len == s->head_want)
            header_step(s);
    }
}

/* Hashes (and maybe writes out) the variables' bytes in [off, off + n). */
static void feed_vars(sink *s, const unsigned char *buf, size_t n, uint64_t off)
{
    uint64_t end = off + n;
    while (s->cur < s->hdr.nvars) {
        const fti_file_entry *e = &s->hdr.vars[s->cur];
        uint64_t lo = e->offset > off ? e->offset : off;
        uint64_t hi = e->offset + e->nbytes < end ? e->offset + e->nbytes : end;
        if (e->offset > end || (e->offset == end && e->nbytes > 0))
            return; /* starts in a later block */
        if (lo < hi) {
            fti_hash_update(&s->h, buf + (lo - off), (size_t)(hi - lo));
            if (s->out != NULL && s->out->fd >= 0 && e->id == s->out->var_id && !s->out_errno &&
                ckpt_write_all(s->out->fd, buf + (lo - off), (size_t)(hi - lo)) != 0)
                s->out_errno = errno;
        }
        if (e->offset + e->nbytes > end)
            return; /* continues in the next block */
        s->var_ok[s->cur++] = fti_hash_final(&s->h) == e->checksum;
        fti_hash_free(&s->h);
        if (fti_hash_init(&s->h) != 0)
            snprintf(s->err, sizeof s->err, "out of memory");
    }
}

static int sink_write(void *arg, const void *buf, size_t n, uint64_t off)
{
    sink *s = arg;
    if (off != s->pos)
        snprintf(s->err, sizeof s->err, "%s: bytes out of order", s->name);
    if (s->err[0] == '\0')
        take_header(s, buf, n, off);
    if (s->err[0] == '\0' && s->have_hdr)
        feed_vars(s, buf, n, off);
    s->pos += n;
    if (s->err[0] == '\0')
        return 0;
    errno = EIO;
    return -1;
}

static int piece_read(void *arg, void *buf, size_t n, uint64_t off)
{
    const piece *p = arg;
    return fti_pread_full(p->fd, buf, n, (off_t)(p->base + off));
}

static int no_read(void *arg, void *buf, size_t n, uint64_t off)
{
    (void)arg, (void)buf, (void)n, (void)off;
    errno = EBADF;
    return -1;
}

/* ---- streaming and the verdict --------------------------------------------- */

/* The library's own copy or decoder, the way a restart restores the file. */
static void stream(const fti_commit *c, piece *p, sink *s, ckpt_file *f)
{
    fti_l4_io src = {piece_read, NULL, p}, dst = {no_read, sink_write, s};
    fti_l4_names nm = {"L4 global copy", s->name, "(verification)"};
    uint64_t size = 0;
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = c->codec == FTI_CODEC_NONE ? fti_l4_copy(&src, p->len, &dst, COPY_CHUNK, &nm)
                                           : fti_l4_decode(&src, p->len, &dst, &nm, &size);
    fti_log_quiet(0);
    if (s->err[0] != '\0')
        set_state(f, CK_BAD, "%s", s->err);
    else if (e != FTI_E_OK)
        set_state(f, CK_BAD, "%s", fti_last_error());
}

static void verdict(sink *s, ckpt_file *f)
{
    if (f->st != CK_OK)
        return;
    if (!s->have_hdr || s->pos != s->hdr.file_size || s->cur != s->hdr.nvars) {
        set_state(f, CK_BAD, "%s: %llu bytes, its header says %llu (truncated)", s->name,
                  (unsigned long long)s->pos, (unsigned long long)(s->have_hdr ? s->hdr.file_size : 0));
        return;
    }
    for (uint32_t i = 0; i < s->hdr.nvars; i++)
        if (!s->var_ok[i]) {
            set_state(f, CK_BAD, "%s: variable %d: data checksum mismatch (corrupt data)", s->name,
                      s->hdr.vars[i].id);
            return;
        }
    if (s->out_errno)
        set_state(f, CK_BAD, "writing variable %d out: %s", s->out->var_id, fti_fs_strerror(s->out_errno));
}

/* Hands the header and the per-variable results to the caller, or frees them. */
static void finish(sink *s, ckpt_l4_out *out)
{
    if (out != NULL)
        out->out_errno = s->out_errno;
    if (out != NULL && s->have_hdr && s->var_ok != NULL) {
        out->hdr = s->hdr;
        out->var_ok = s->var_ok;
        out->have_hdr = 1;
    } else {
        if (s->have_hdr)
            fti_file_header_free(&s->hdr);
        free(s->var_ok);
    }
    fti_hash_free(&s->h);
    free(s->head);
}

void ckpt_l4_check(const ckpt_tool *t, const fti_commit *c, int rank, ckpt_file *f, ckpt_l4_out *out)
{
    piece p;
    memset(f, 0, sizeof *f);
    memset(&p, 0, sizeof p);
    if (out != NULL)
        out->have_hdr = 0;
    const struct reader *rd = reader_of(c, f);
    p.fd = -1;
    if (rd == NULL || rd->locate(t, c, rank, &p, f) != 0) {
        if (p.fd >= 0)
            close(p.fd);
        return;
    }
    char name[FTI_PATH_MAX + 64];
    if (rd->what == NULL)
        snprintf(name, sizeof name, "%s", p.path);
    else if (rd->what_rank)
        snprintf(name, sizeof name, "%s (%s %d)", p.path, rd->what, rank);
    else
        snprintf(name, sizeof name, "%s (%s)", p.path, rd->what);
    sink s = {.c = c, .rank = rank, .exec_id = t->dirs.exec_id, .name = name, .head = malloc(FTI_FILE_FIXED_HEADER),
              .head_want = FTI_FILE_FIXED_HEADER, .out = out};
    f->st = CK_OK;
    if (s.head == NULL)
        set_state(f, CK_BAD, "out of memory");
    else
        stream(c, &p, &s, f);
    verdict(&s, f);
    finish(&s, out);
    close(p.fd);
}

void ckpt_l4_out_free(ckpt_l4_out *out)
{
    if (out->have_hdr)
        fti_file_header_free(&out->hdr);
    free(out->var_ok);
    out->var_ok = NULL;
    out->have_hdr = 0;
}
