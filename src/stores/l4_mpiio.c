/*
 * l4_mpiio.c - level 4 with ckpt_io = 2: all ranks write one shared global
 * file with collective MPI-IO, in the layout of l4_shared.h: each rank's
 * piece at an offset from an exclusive scan of the aligned sizes.
 * The file is written under a temporary name and renamed by rank 0 once
 * every rank succeeded. A piece comes from the rank's local file, or with
 * no local copy kept straight from its protected variables (l4_image.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/collective.h"
#include "format/layout.h"
#include "base/fault.h"
#include "base/fio.h"
#include "stores/l4_common.h"
#include "stores/l4_store.h"
#include "format/l4_shared.h"
#include "base/log.h"
#include "base/safe_fs.h"

typedef unsigned long long ull;

static const char *mpi_error(int rc, char *buf)
{
    int len = 0;
    if (MPI_Error_string(rc, buf, &len) != MPI_SUCCESS)
        snprintf(buf, MPI_MAX_ERROR_STRING, "MPI error %d", rc);
    return buf;
}

/* The flush's own communicator (topo.flush, a dup of topo.app made at
 * init): the flush may run in the helper thread while the application's
 * thread is in a collective on FTI_COMM_WORLD, and two threads must not
 * share a communicator's collectives. */
static MPI_Comm flush_comm(const fti_ctx *ctx)
{
    return ctx->topo.flush;
}

/* ---- writing ------------------------------------------------------------- */

typedef struct sh_writer {
    fti_ctx *ctx;
    MPI_Comm comm;
    const fti_commit *c;
    fti_l4_who who;
    char local[FTI_PATH_MAX], packed[FTI_PATH_MAX], tmp[FTI_PATH_MAX], final[FTI_PATH_MAX];
    int fd, packed_is_temp;
    fti_l4_io src;           /* the piece's bytes: packed file (fd) or the image */
    fti_l4_image *image;     /* NULL: the piece is a file */
    uint64_t len, offset;    /* this rank's piece: its size, where it goes */
    size_t chunk;
    unsigned char *buf;
    uint64_t *all;           /* rank 0: (offset, length) of every rank */
} sh_writer;

/* fti_agree for one step of the shared write, naming this rank and the step. */
static fti_err agree_step(const sh_writer *w, fti_err mine, const char *step)
{
    return fti_agree(w->comm, mine, FTI_E_IO, "L4 rank %d: %s failed on another rank",
                     w->ctx->topo.app_rank, step);
}

/* The buffers of the write: every rank's, and rank 0's table. */
static fti_err alloc_buffers(sh_writer *w)
{
    int rank = w->ctx->topo.app_rank;
    w->buf = fti_io_alloc(w->chunk);
    if (rank == 0)
        w->all = malloc((size_t)w->ctx->topo.app_size * 2 * sizeof(uint64_t));
    if (w->buf == NULL || (rank == 0 && w->all == NULL))
        return fti_fail(FTI_E_NOMEM, "%s: out of memory for the MPI-IO buffers", w->who.s);
    return FTI_E_OK;
}

/* The piece is the file w->packed, read through w->fd. */
static fti_err open_packed(sh_writer *w)
{
    struct stat st;
    if ((w->fd = fti_open_read(w->packed)) < 0 || fstat(w->fd, &st) != 0)
        return fti_fail(FTI_E_MISSING, "%s: cannot read %s: %s", w->who.s, w->packed, fti_fs_strerror(errno));
    w->len = (uint64_t)st.st_size;
    fti_l4_io_fd(&w->src, &w->fd);
    return FTI_E_OK;
}

/* The piece is compressed first, into a temporary file beside the local one. */
static void name_temp_copy(sh_writer *w)
{
    fti_path_temp(w->packed, w->local, "z");
    w->packed_is_temp = 1;
}

/* This rank's piece: the local file itself, or a compressed copy of it
 * made in local storage first (its size must be known before the scan). */
static fti_err prepare_piece(sh_writer *w)
{
    if (w->c->codec == FTI_CODEC_NONE) {
        snprintf(w->packed, sizeof w->packed, "%s", w->local);
        return open_packed(w);
    }
    name_temp_copy(w);
    fti_err e = fti_l4_pack(w->ctx, w->c, w->who.s, w->local, w->packed, &w->len);
    return e == FTI_E_OK ? open_packed(w) : e;
}

/* With no local copy: the image itself, or compressed into a temporary
 * file in local storage (the only bytes written twice, and compressed). */
static fti_err prepare_image(sh_writer *w)
{
    fti_err e = fti_l4_image_open(w->image, w->ctx, w->c);
    if (e != FTI_E_OK)
        return e;
    if (w->c->codec == FTI_CODEC_NONE) {
        snprintf(w->packed, sizeof w->packed, "the protected variables");
        fti_l4_image_io(w->image, &w->src);
        w->len = w->image->hdr.file_size;
        return FTI_E_OK;
    }
    name_temp_copy(w);
    e = fti_l4_pack_image(w->ctx, w->c, w->who.s, w->image, w->packed, &w->len);
    return e == FTI_E_OK ? open_packed(w) : e;
}

/* The piece (from the local file, or the image when w has one) and the
 * buffers to write it; the buffers even when the piece failed, as every
 * rank takes part in the write. */
static fti_err prepare(sh_writer *w)
{
    fti_ctx *ctx = w->ctx;
    fti_path_local(&ctx->dirs, w->local, 4, w->c->slot, ctx->topo.app_rank);
    fti_err e = w->image != NULL ? prepare_image(w) : prepare_piece(w);
    fti_err b = alloc_buffers(w);
    return e != FTI_E_OK ? e : b;
}

static void writer_free(sh_writer *w)
{
    if (w->fd >= 0)
        close(w->fd);
    if (w->packed_is_temp)
        unlink(w->packed);
    free(w->buf);
    free(w->all);
}

/* Every rank calls MPI_File_write_at_all `rounds` times, with 0 bytes once
 * its piece is written or after a local error: a collective call that one
 * rank skips would hang the others. */
static fti_err write_rounds(sh_writer *w, MPI_File fh, uint64_t rounds)
{
    fti_err e = FTI_E_OK;
    char msg[MPI_MAX_ERROR_STRING];
    for (uint64_t i = 0; i < rounds; i++) {
        uint64_t at = i * w->chunk;
        size_t n = e == FTI_E_OK && at < w->len ? (size_t)(w->len - at < w->chunk ? w->len - at : w->chunk) : 0;
        if (n > 0 && w->src.read(w->src.arg, w->buf, n, at) != 0) {
            e = fti_fail(FTI_E_IO, "%s: cannot read %s at offset %llu: %s", w->who.s, w->packed,
                         (ull)at, fti_fs_strerror(errno));
            n = 0;
        }
        if (n > 0 && fti_fault_on_write(-1, n, (off_t)(w->offset + at)) != 0) {
            e = fti_fail(FTI_E_IO, "%s: cannot write %llu bytes of %s at offset %llu: %s", w->who.s,
                         (ull)n, w->tmp, (ull)(w->offset + at), fti_fs_strerror(errno));
            n = 0;
        }
        MPI_Status st;
        int rc = MPI_File_write_at_all(fh, (MPI_Offset)(w->offset + at), w->buf, (int)n, MPI_BYTE, &st);
        int count = 0;
        if (rc == MPI_SUCCESS && n > 0)
            MPI_Get_count(&st, MPI_BYTE, &count);
        if (e == FTI_E_OK && (rc != MPI_SUCCESS || (size_t)count != n))
            e = fti_fail(FTI_E_IO, "%s: writing %llu bytes at offset %llu of %s failed: %s", w->who.s,
                         (ull)n, (ull)(w->offset + at), w->tmp,
                         rc != MPI_SUCCESS ? mpi_error(rc, msg) : "short write");
    }
    return e;
}

/* Rank 0 writes header and index with independent writes. */
static fti_err write_index(sh_writer *w, MPI_File fh)
{
    int n = w->ctx->topo.app_size;
    size_t bytes = FTI_L4SH_HEADER + (size_t)n * FTI_L4SH_ENTRY;
    unsigned char *idx = calloc(1, bytes);
    if (idx == NULL)
        return fti_fail(FTI_E_NOMEM, "%s: out of memory for the index of %s", w->who.s, w->tmp);
    fti_l4sh_encode_header(idx, n, w->c->seq, (uint32_t)w->c->codec);
    for (int r = 0; r < n; r++)
        fti_l4sh_encode_entry(idx + FTI_L4SH_HEADER + (size_t)r * FTI_L4SH_ENTRY, w->all[2 * r],
                              w->all[2 * r + 1], r);
    fti_err e = FTI_E_OK;
    char msg[MPI_MAX_ERROR_STRING];
    for (size_t at = 0; e == FTI_E_OK && at < bytes; at += w->chunk) {
        int k = (int)(bytes - at < w->chunk ? bytes - at : w->chunk);
        int rc = MPI_File_write_at(fh, (MPI_Offset)at, idx + at, k, MPI_BYTE, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            e = fti_fail(FTI_E_IO, "%s: writing the index of %s failed: %s", w->who.s, w->tmp,
                         mpi_error(rc, msg));
    }
    free(idx);
    return e;
}

/* Where this rank's piece goes, and how many write rounds everyone does. */
static void place_pieces(sh_writer *w, uint64_t *rounds, uint64_t *total)
{
    MPI_Comm comm = w->comm;
    uint64_t padded = fti_l4sh_align(w->len), before = 0, mine = w->len / w->chunk + (w->len % w->chunk != 0);
    MPI_Exscan(&padded, &before, 1, MPI_UINT64_T, MPI_SUM, comm);
    if (w->ctx->topo.app_rank == 0)
        before = 0; /* MPI_Exscan leaves rank 0's result undefined */
    w->offset = fti_l4sh_data_offset(w->ctx->topo.app_size) + before;
    MPI_Allreduce(&padded, total, 1, MPI_UINT64_T, MPI_SUM, comm);
    *total += fti_l4sh_data_offset(w->ctx->topo.app_size);
    MPI_Allreduce(&mine, rounds, 1, MPI_UINT64_T, MPI_MAX, comm);
    uint64_t me[2] = {w->offset, w->len};
    MPI_Gather(me, 2, MPI_UINT64_T, w->all, 2, MPI_UINT64_T, 0, comm);
}

/* MPI_File_open creates files with the umask's mode and follows links;
 * checkpoint files are private (0600), so rank 0 creates it first, as a
 * regular file of this user (safe_fs.h), and no rank opens it otherwise. */
static fti_err precreate(const sh_writer *w)
{
    int fd = fti_open_existing_for_write(w->tmp); /* mode reset: a stale attempt's file */
    if (fd < 0)
        return fti_fail(FTI_E_IO, "%s: cannot create the shared global file %s: %s", w->who.s,
                        w->tmp, fti_fs_strerror(errno));
    close(fd);
    return FTI_E_OK;
}

/* Collective: the whole shared file under its temporary name. */
static fti_err write_shared(sh_writer *w)
{
    uint64_t rounds = 0, total = 0;
    place_pieces(w, &rounds, &total);
    char msg[MPI_MAX_ERROR_STRING];
    MPI_File fh;
    fti_err pre = FTI_E_OK;
    if (w->ctx->topo.app_rank == 0) {
        fti_l4_reuse_old(w->final, w->tmp); /* overwritten in place, as the POSIX files */
        pre = precreate(w);
    }
    if ((pre = agree_step(w, pre, "creating the shared global file")) != FTI_E_OK)
        return pre;
    int rc = MPI_File_open(w->comm, w->tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    fti_err e = rc == MPI_SUCCESS ? FTI_E_OK
                                  : fti_fail(FTI_E_IO, "%s: cannot create the shared global file %s: %s",
                                             w->who.s, w->tmp, mpi_error(rc, msg));
    /* MPI-IO agrees on the outcome of an open; should it ever not, the
     * ranks that opened leak the handle rather than wait in a close. */
    if ((e = agree_step(w, e, "opening the shared global file")) != FTI_E_OK)
        return e;
    e = write_rounds(w, fh, rounds);
    if (w->ctx->topo.app_rank == 0 && e == FTI_E_OK)
        e = write_index(w, fh);
    /* set_size drops the tail of an older, longer file of the same name. */
    rc = MPI_File_set_size(fh, (MPI_Offset)total);
    if (rc == MPI_SUCCESS)
        rc = MPI_File_sync(fh);
    int rc_close = MPI_File_close(&fh);
    if (e == FTI_E_OK && (rc != MPI_SUCCESS || rc_close != MPI_SUCCESS))
        e = fti_fail(FTI_E_IO, "%s: cannot complete the shared global file %s: %s", w->who.s, w->tmp,
                     mpi_error(rc != MPI_SUCCESS ? rc : rc_close, msg));
    return e;
}

/* Rank 0 renames the complete file into place; all learn the outcome. */
static fti_err publish(sh_writer *w)
{
    fti_ctx *ctx = w->ctx;
    fti_err e = FTI_E_OK;
    if (ctx->topo.app_rank == 0) {
        if (rename(w->tmp, w->final) != 0)
            e = fti_fail(FTI_E_IO, "%s: cannot rename %s to %s: %s", w->who.s, w->tmp, w->final,
                         fti_fs_strerror(errno));
        else if (fti_fsync_dir(ctx->dirs.global) != 0)
            e = fti_fail(FTI_E_IO, "%s: cannot sync the directory %s: %s", w->who.s,
                         ctx->dirs.global, fti_fs_strerror(errno));
        else if (ctx->cfg.keep_l4_ckpt)
            fti_l4_archive(ctx, w->c->id, -1, w->final);
    }
    int ok = e == FTI_E_OK;
    MPI_Bcast(&ok, 1, MPI_INT, 0, w->comm);
    if (!ok && e == FTI_E_OK)
        e = fti_fail(FTI_E_IO, "%s: rank 0 could not rename the shared global file %s into place",
                     w->who.s, w->final);
    return e;
}

static void writer_init(sh_writer *w, fti_ctx *ctx, const fti_commit *c)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    w->comm = flush_comm(ctx);
    w->c = c;
    w->fd = -1;
    w->chunk = fti_l4_chunk(ctx);
    fti_l4_who_of(&w->who, ctx->topo.app_rank);
    fti_path_global_shared(&ctx->dirs, w->final, c->slot);
    fti_path_temp(w->tmp, w->final, "tmp");
}

/* Collective: the prepared pieces (prepared = this rank's outcome) become
 * the published shared file. */
static fti_err write_and_publish(sh_writer *w, fti_err prepared)
{
    int rank = w->ctx->topo.app_rank;
    fti_err e = agree_step(w, prepared, "preparing the L4 piece");
    if (e == FTI_E_OK)
        e = agree_step(w, write_shared(w), "writing the shared global file");
    if (e == FTI_E_OK)
        e = publish(w);
    if (e == FTI_E_OK) /* this rank's piece of the published file */
        fti_fault_wrote(FTI_PHASE_L4_FLUSH, w->final, w->offset, w->len);
    else if (rank == 0)
        unlink(w->tmp);
    writer_free(w);
    return e;
}

/* The shared file from the local files (collective). */
static fti_err shared_post(fti_ctx *ctx, const fti_commit *c)
{
    sh_writer w;
    writer_init(&w, ctx, c);
    return write_and_publish(&w, prepare(&w));
}

/* The shared file straight from the protected variables (collective); *hdr
 * gets this rank's header (caller frees). With compression, the compressed
 * piece goes through a local temporary file first: its size must be known
 * before the write. */
static fti_err shared_write(fti_ctx *ctx, const fti_commit *c, fti_file_header *hdr)
{
    sh_writer w;
    fti_l4_image im;
    writer_init(&w, ctx, c);
    w.image = &im;
    fti_err e = write_and_publish(&w, prepare(&w));
    if (e == FTI_E_OK)
        fti_l4_image_take_header(&im, hdr);
    fti_l4_image_close(&im);
    return e;
}

/* ---- reading ------------------------------------------------------------- */

typedef struct sh_source {
    MPI_File fh;
    uint64_t base;
    size_t chunk;
} sh_source;

static int sh_read(void *arg, void *buf, size_t n, uint64_t off)
{
    sh_source *s = arg;
    for (size_t done = 0; done < n;) {
        int k = (int)(n - done < s->chunk ? n - done : s->chunk), count = 0;
        MPI_Status st;
        if (MPI_File_read_at(s->fh, (MPI_Offset)(s->base + off + done), (char *)buf + done, k,
                             MPI_BYTE, &st) != MPI_SUCCESS ||
            MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS || count != k) {
            errno = EIO;
            return -1;
        }
        done += (size_t)k;
    }
    return 0;
}

static int sh_write(void *arg, const void *buf, size_t n, uint64_t off)
{
    (void)arg, (void)buf, (void)n, (void)off;
    errno = EBADF; /* a source only */
    return -1;
}

/* Finds this rank's piece in the open shared file: *offset, *length. */
static fti_err find_piece(const fti_ctx *ctx, const fti_commit *c, sh_source *s, const char *who,
                          const char *path, uint64_t *offset, uint64_t *length)
{
    MPI_Offset fsize = 0;
    MPI_File_get_size(s->fh, &fsize);
    fti_l4_io src = {sh_read, sh_write, s};
    return fti_l4sh_find_piece(&src, (uint64_t)fsize, ctx->topo.app_size, c->seq,
                               ctx->topo.app_rank, who, path, offset, length);
}

static fti_err restore_piece(fti_ctx *ctx, const fti_commit *c, MPI_File fh, const char *path)
{
    fti_l4_who who;
    fti_l4_who_of(&who, ctx->topo.app_rank);
    sh_source s = {fh, 0, fti_l4_chunk(ctx)};
    uint64_t offset = 0, length = 0;
    fti_err e = find_piece(ctx, c, &s, who.s, path, &offset, &length);
    if (e != FTI_E_OK)
        return e;
    s.base = offset;
    fti_l4_io src = {sh_read, sh_write, &s};
    char name[FTI_PATH_MAX + 64];
    snprintf(name, sizeof name, "%s (piece of rank %d)", path, ctx->topo.app_rank);
    return fti_l4_restore(ctx, c, ctx->topo.app_rank, &src, length, name);
}

/* Restart (collective): the ranks whose local file is lost restore their piece. */
static fti_err shared_rebuild(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    int need = !own_ok, any = 0;
    MPI_Allreduce(&need, &any, 1, MPI_INT, MPI_MAX, ctx->topo.app);
    if (!any) /* the open below is collective: skip it together */
        return FTI_E_OK;
    char path[FTI_PATH_MAX], msg[MPI_MAX_ERROR_STRING];
    fti_path_global_shared(&ctx->dirs, path, c->slot);
    MPI_File fh;
    int regular = fti_check_regular(path) == 0, err = errno; /* a FIFO would block the open */
    if (!fti_all_ok(ctx->topo.app, regular))
        return !need ? FTI_E_OK
                     : fti_fail(FTI_E_MISSING, "L4 rank %d: local file lost and the shared global "
                                "file %s cannot be opened: %s", ctx->topo.app_rank, path,
                                regular ? "failed on another rank" : fti_fs_strerror(err));
    int rc = MPI_File_open(ctx->topo.app, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    int all_open = fti_all_ok(ctx->topo.app, rc == MPI_SUCCESS);
    fti_err e = FTI_E_OK;
    if (need && all_open)
        e = restore_piece(ctx, c, fh, path);
    else if (need)
        e = fti_fail(FTI_E_MISSING, "L4 rank %d: local file lost and the shared global file %s cannot "
                     "be opened: %s", ctx->topo.app_rank, path,
                     rc != MPI_SUCCESS ? mpi_error(rc, msg) : "failed on another rank");
    if (all_open) /* collective, after the independent reads of the ranks that needed them */
        MPI_File_close(&fh);
    return e;
}

/* Local: this rank's piece only (the file opened on MPI_COMM_SELF). */
static fti_err shared_restore_self(fti_ctx *ctx, const fti_commit *c)
{
    char path[FTI_PATH_MAX], msg[MPI_MAX_ERROR_STRING];
    fti_path_global_shared(&ctx->dirs, path, c->slot);
    MPI_File fh;
    if (fti_check_regular(path) != 0)
        return fti_fail(FTI_E_MISSING, "L4 rank %d: no local file and the shared global file %s "
                        "cannot be opened: %s", ctx->topo.app_rank, path, fti_fs_strerror(errno));
    int rc = MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS)
        return fti_fail(FTI_E_MISSING, "L4 rank %d: no local file and the shared global file %s "
                        "cannot be opened: %s", ctx->topo.app_rank, path, mpi_error(rc, msg));
    fti_err e = restore_piece(ctx, c, fh, path);
    MPI_File_close(&fh);
    return e;
}

/* ---- the store (l4_store.h) ------------------------------------------------- */

/* The shared file's pieces come from the image of the variables. */
static int mpiio_direct(fti_ctx *ctx, const fti_commit *c)
{
    (void)c;
    return fti_l4_direct_allowed(ctx) && fti_l4_image_possible(&ctx->reg);
}

static fti_err mpiio_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    return fti_l4_write_kept(ctx, c, bytes, shared_write);
}

static fti_err mpiio_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    (void)ring; /* the shared file is written by the application ranks together */
    if (ctx->topo.is_head)
        return fti_fail(FTI_E_UNSUPPORTED, "L4: ckpt_io = 2 (MPI-IO) cannot be post-processed on a "
                        "head rank; set inline_l4 = 1");
    return shared_post(ctx, c);
}

static void mpiio_remove(fti_ctx *ctx, int slot)
{
    char path[FTI_PATH_MAX];
    if (ctx->topo.app_rank != 0)
        return;
    fti_path_global_shared(&ctx->dirs, path, slot);
    fti_l4_unlink_warn(path);
}

const fti_l4_store fti_l4_mpiio_store = {
    .kind = &fti_l4_kinds[FTI_L4K_MPIIO], .direct = mpiio_direct, .write = mpiio_write,
    .post = mpiio_post, .post_on_heads = 0, .verify = shared_rebuild,
    .restore = shared_restore_self, .remove = mpiio_remove, .stages = 1};
