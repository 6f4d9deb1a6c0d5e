/*
 * ckpt_l4.c - level 4 for fti-ckpt: a rank's global copy, in each of the
 * library's layouts (src/stores/l4_pfs.c, l4_mpiio.c, l4_codec.c):
 *   ckpt_io 1: l4-s<slot>-rank<r>.fti, the rank's local file as is, or a
 *              compressed stream (FTIL4Z, l4_compression);
 *   ckpt_io 2: l4-s<slot>-shared.fti, one file for all ranks: a header, an
 *              index of (offset, length) per rank, then each rank's piece
 *              (its local file, as is or compressed);
 *   dCP (io 8): l4-dcp-rank<r>-<seq>.fti and the older layers of its chain
 *              (format/dcp_file.h), assembled by the library's own code into
 *              an unnamed temporary file outside checkpoint storage.
 * Whatever the layout, the original bytes of the rank's file are streamed
 * (copied, or decoded with the library's own decoder, which checks every
 * chunk) into the library's file check (ckpt_stream.h), which parses the
 * checkpoint header and checks every variable's checksum on the way; this
 * file watches the variables for their verdicts and can write one out
 * (extract). The layouts are the library's (l4_shared.h, l4_codec.h,
 * dcp_file.h): this file only picks the reader of each store.
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
#include "format/layout.h"
#include "base/fio.h"
#include "format/dcp_file.h"
#include "format/l4_codec.h"
#include "format/l4_kind.h"
#include "format/l4_shared.h"
#include "base/log.h"
#include "base/safe_fs.h"
#include "stores/hdf5/h5_convert.h"

#define COPY_CHUNK ((size_t)4 << 20)

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

static int piece_read(void *arg, void *buf, size_t n, uint64_t off)
{
    const piece *p = arg;
    return fti_pread_full(p->fd, buf, n, (off_t)(p->base + off));
}

/* ckpt_io = 2: the rank's piece of the shared file, from its index entry. */
static int find_shared_piece(const fti_commit *c, int rank, piece *p, ckpt_file *f)
{
    fti_l4_io src = {piece_read, NULL, p};
    uint64_t base = 0, len = 0;
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_l4sh_find_piece(&src, p->len, c->nranks, c->seq, rank, NULL, p->path, &base,
                                    &len);
    fti_log_quiet(0);
    if (e != FTI_E_OK) {
        set_state(f, CK_BAD, "%s", fti_last_error());
        return -1;
    }
    p->base = base;
    p->len = len;
    return 0;
}

/* p reads the temporary checkpoint file a converter left open at p->fd
 * (e: the conversion's result); else f says why not. */
static int use_converted(piece *p, ckpt_file *f, fti_err e)
{
    struct stat st;
    if (e != FTI_E_OK || p->fd < 0 || fstat(p->fd, &st) != 0) {
        ckpt_state why = e == FTI_E_MISSING       ? CK_MISSING
                         : e == FTI_E_UNSUPPORTED ? CK_NO_CODEC /* HDF5 in a build without */
                                                  : CK_BAD;
        set_state(f, why, "%s",
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
    char dir[FTI_PATH_MAX];
    fti_path_fanout_dir(&t->dirs, dir, t->dirs.global, rank); /* beside its other L4 files */
    fti_path_dcp_layer(p->path, dir, rank, c->seq);
    snprintf(f->path, sizeof f->path, "%s", p->path);
    FILE *tmp = tmpfile();
    if (tmp == NULL) {
        set_state(f, CK_BAD, "cannot create a temporary file: %s", fti_fs_strerror(errno));
        return -1;
    }
    fti_clear_error();
    fti_log_quiet(1);
    fti_err e = fti_dcp_assemble(dir, rank, c->seq, fileno(tmp), "(assembled dCP layers)");
    fti_log_quiet(0);
    p->fd = e == FTI_E_OK ? dup(fileno(tmp)) : -1;
    fclose(tmp);
    return use_converted(p, f, e);
}

/* HDF5 (io 5): the rank's HDF5 file converted by the library's own code
 * into a temporary checkpoint file (a build without HDF5 says it cannot);
 * level 9's shared file is for HDF5 tools. */
static int convert_h5(const ckpt_tool *t, const fti_commit *c, int rank, piece *p, ckpt_file *f)
{
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

/* How this tool reads a rank's bytes from each L4 store (format/l4_kind.h),
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

/* The library's file check (ckpt_stream.h) fed with the bytes in order;
 * the variables it watches give their verdicts and the extracted bytes. */
typedef struct sink {
    fti_file_stream fs;
    fti_file_stream_vars watch;
    fti_expect x;                /* what the header must say */
    const char *name;
    int checked;                 /* the header was held to x */
    int *var_ok;                 /* per entry of the header */
    ckpt_l4_out *out;            /* extract: variable out->var_id to out->fd */
    int out_errno;
    uint64_t pos;
    char err[FTI_PATH_MAX + 256]; /* the first error of the check (the copy's comes after) */
} sink;

static void var_data(void *arg, const fti_file_entry *v, const void *buf, size_t n)
{
    sink *s = arg;
    if (s->out != NULL && s->out->fd >= 0 && v->id == s->out->var_id && !s->out_errno &&
        ckpt_write_all(s->out->fd, buf, n) != 0)
        s->out_errno = errno;
}

/* The verdicts, one per entry of the decoded header (0 until given). */
static int *var_verdicts(sink *s)
{
    if (s->var_ok == NULL)
        s->var_ok = calloc(s->fs.hdr.nvars ? s->fs.hdr.nvars : 1, sizeof *s->var_ok);
    return s->var_ok;
}

static void var_done(void *arg, uint32_t index, int ok)
{
    sink *s = arg;
    if (var_verdicts(s) != NULL)
        s->var_ok[index] = ok;
}

/* Once decoded, the header must be the rank's (fti_expect_header). */
static void check_header(sink *s)
{
    s->checked = 1;
    if (var_verdicts(s) == NULL)
        snprintf(s->err, sizeof s->err, "out of memory");
    else if (fti_expect_header(&s->x, &s->fs.hdr, s->name) != FTI_E_OK)
        snprintf(s->err, sizeof s->err, "%s", fti_last_error());
}

static int sink_write(void *arg, const void *buf, size_t n, uint64_t off)
{
    sink *s = arg;
    if (off != s->pos)
        snprintf(s->err, sizeof s->err, "%s: bytes out of order", s->name);
    if (s->err[0] == '\0')
        fti_file_stream_feed(&s->fs, buf, n);
    if (s->err[0] == '\0' && s->fs.err != FTI_E_OK)
        snprintf(s->err, sizeof s->err, "%s", fti_last_error());
    if (s->err[0] == '\0' && !s->checked && s->fs.hdr.vars != NULL)
        check_header(s);
    s->pos += n;
    if (s->err[0] == '\0')
        return 0;
    errno = EIO;
    return -1;
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
    fti_err e = c->codec == FTI_CODEC_NONE ? fti_l4_copy(&src, p->len, &dst, COPY_CHUNK, &nm)
                                           : fti_l4_decode(&src, p->len, &dst, &nm, &size);
    if (s->err[0] != '\0')
        set_state(f, CK_BAD, "%s", s->err);
    else if (e != FTI_E_OK)
        set_state(f, e == FTI_E_UNSUPPORTED ? CK_NO_CODEC : CK_BAD, "%s", fti_last_error());
    else if (fti_file_stream_verdict(&s->fs) != FTI_E_OK)
        set_state(f, CK_BAD, "%s", fti_last_error());
    else if (s->out_errno)
        set_state(f, CK_BAD, "writing variable %d out: %s", s->out->var_id,
                  fti_fs_strerror(s->out_errno));
}

/* Hands the header and the per-variable results to the caller, or frees them. */
static void finish(sink *s, ckpt_l4_out *out)
{
    if (out != NULL)
        out->out_errno = s->out_errno;
    if (out != NULL && s->checked && s->var_ok != NULL) {
        out->hdr = s->fs.hdr;
        s->fs.hdr.vars = NULL;
        out->var_ok = s->var_ok;
        out->have_hdr = 1;
    } else {
        free(s->var_ok);
    }
    fti_file_stream_free(&s->fs);
}

/* Streams the rank's bytes found by rd (in p) through the library's check. */
static void check_piece(const ckpt_tool *t, const fti_commit *c, int rank, const struct reader *rd,
                        piece *p, ckpt_file *f, ckpt_l4_out *out)
{
    char name[FTI_PATH_MAX + 64];
    if (rd->what == NULL)
        snprintf(name, sizeof name, "%s", p->path);
    else if (rd->what_rank)
        snprintf(name, sizeof name, "%s (%s %d)", p->path, rd->what, rank);
    else
        snprintf(name, sizeof name, "%s (%s)", p->path, rd->what);
    sink s;
    memset(&s, 0, sizeof s);
    s.name = name;
    s.out = out;
    s.watch = (fti_file_stream_vars){var_data, var_done, &s};
    fti_expect_data(&s.x, c, rank, t->dirs.exec_id, "L4 global copy");
    f->st = CK_OK;
    fti_clear_error();
    fti_log_quiet(1);
    if (fti_file_stream_init(&s.fs, name) != FTI_E_OK)
        set_state(f, CK_BAD, "%s", fti_last_error());
    else {
        fti_file_stream_watch(&s.fs, &s.watch);
        stream(c, p, &s, f);
    }
    fti_log_quiet(0);
    finish(&s, out);
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
    if (rd != NULL && rd->locate(t, c, rank, &p, f) == 0)
        check_piece(t, c, rank, rd, &p, f, out);
    if (p.fd >= 0)
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
