/*
 * l4_common.c - what the L4 stores share (l4_common.h): moving one rank's
 * bytes to and from the global file system (pack, restore, verify), the
 * archive, removing files, and the direct write of POSIX and MPI-IO. Below
 * every store; calls none of them.
 */
#include "stores/l4_common.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fault.h"
#include "base/fio.h"
#include "base/log.h"
#include "base/safe_fs.h"
#include "format/ckpt_expect.h"

void fti_l4_who_of(fti_l4_who *w, int rank)
{
    snprintf(w->s, sizeof w->s, "L4 rank %d", rank);
}

size_t fti_l4_chunk(const fti_ctx *ctx)
{
    int64_t t = ctx->cfg.transfer_size;
    return t > (1 << 30) ? (size_t)1 << 30 : (size_t)t;
}

void fti_l4_reuse_old(const char *global, const char *tmp)
{
    struct stat st;
    if (lstat(global, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1)
        (void)rename(global, tmp); /* when it fails, tmp is simply a new file */
}

/* ---- storing and restoring one rank's bytes -------------------------------- */

/* Stores `size` bytes of src in the open file `out`: as is, or compressed
 * (spans: the floating-point ranges for the shuffle filter). */
static fti_err pack_io(const fti_ctx *ctx, const fti_commit *c, const fti_l4_names *nm,
                       const fti_l4_io *src, uint64_t size, const fti_l4_span *spans, int nspans,
                       int out, uint64_t *out_size)
{
    fti_l4_io dst;
    fti_l4_io_fd(&dst, &out);
    if (c->codec == FTI_CODEC_NONE) {
        *out_size = size;
        return fti_l4_copy(src, size, &dst, fti_l4_chunk(ctx), nm);
    }
    fti_l4_encoding enc = {c->codec, ctx->cfg.l4_codec_level, 0, spans, nspans};
    return fti_l4_encode(src, size, &dst, &enc, nm, out_size);
}

/* Fills dst (0600; an existing file is overwritten in place, then cut to
 * its new size) with pack_io, fsyncs it. h: the source's header, for the
 * shuffle filter (NULL: no shuffling). */
static fti_err pack_into(const fti_ctx *ctx, const fti_commit *c, const fti_l4_names *nm,
                         const fti_l4_io *src, uint64_t size, const fti_file_header *h,
                         uint64_t *out_size)
{
    int out = fti_open_existing_for_write(nm->dst);
    if (out < 0)
        return fti_fail(FTI_E_IO, "%s: cannot create %s: %s", nm->who, nm->dst, fti_fs_strerror(errno));
    fti_l4_span *spans = NULL;
    int n = c->codec == FTI_CODEC_NONE || h == NULL ? 0 : fti_l4_float_spans(h, &spans);
    fti_err e = pack_io(ctx, c, nm, src, size, spans, n, out, out_size);
    free(spans);
    if (e == FTI_E_OK && ftruncate(out, (off_t)*out_size) != 0)
        e = fti_fail(FTI_E_IO, "%s: cannot set the size of %s: %s", nm->who, nm->dst, fti_fs_strerror(errno));
    if (e == FTI_E_OK && fti_fsync(out) != 0)
        e = fti_fail(FTI_E_IO, "%s: cannot sync %s: %s", nm->who, nm->dst, fti_fs_strerror(errno));
    close(out);
    return e;
}

fti_err fti_l4_pack_image(const fti_ctx *ctx, const fti_commit *c, const char *who,
                          fti_l4_image *im, const char *dst, uint64_t *out_size)
{
    fti_l4_names nm = {who, "the protected variables", dst};
    fti_l4_io src;
    fti_l4_image_io(im, &src);
    return pack_into(ctx, c, &nm, &src, im->hdr.file_size, &im->hdr, out_size);
}

fti_err fti_l4_pack(const fti_ctx *ctx, const fti_commit *c, const char *who, const char *local,
                    const char *dst, uint64_t *out_size)
{
    fti_l4_names nm = {who, local, dst};
    struct stat st;
    int in = fti_open_read(local);
    if (in < 0 || fstat(in, &st) != 0) {
        fti_err e = fti_fail(FTI_E_MISSING, "%s: cannot read the local file %s: %s", who, local,
                             fti_fs_strerror(errno));
        if (in >= 0)
            close(in);
        return e;
    }
    fti_l4_io src;
    fti_l4_io_fd(&src, &in);
    fti_file_header h; /* a header that cannot be read only means no shuffling */
    int have = c->codec != FTI_CODEC_NONE && fti_file_read_header(in, local, &h) == FTI_E_OK;
    fti_err e = pack_into(ctx, c, &nm, &src, (uint64_t)st.st_size, have ? &h : NULL, out_size);
    if (have)
        fti_file_header_free(&h);
    close(in);
    return e;
}

/* The restored file must be rank's data of c, every byte. */
fti_err fti_l4_verify_restored(const fti_ctx *ctx, const char *path, const fti_commit *c, int rank,
                               const char *who, const char *src_name, fti_file_version *verified)
{
    fti_expect x;
    fti_expect_data(&x, c, rank, ctx->dirs.exec_id, "file restored from the L4 copy,");
    x.verified = verified;
    if (fti_expect_valid(&x, path, NULL))
        return FTI_E_OK;
    char why[600];
    snprintf(why, sizeof why, "%s", fti_last_error()); /* fti_fail overwrites it */
    return fti_fail(FTI_E_CORRUPT, "%s: global copy %s is not usable: %s", who, src_name, why);
}

fti_err fti_l4_restore(fti_ctx *ctx, const fti_commit *c, int rank, const fti_l4_io *src,
                       uint64_t avail, const char *src_name)
{
    fti_l4_who who;
    fti_l4_who_of(&who, rank);
    char rebuilt[FTI_PATH_MAX];
    fti_path_rebuilt(&ctx->dirs, rebuilt, 4, c->slot, rank);
    fti_l4_names nm = {who.s, src_name, rebuilt};
    int fd = fti_open_new(rebuilt);
    if (fd < 0)
        return fti_fail(FTI_E_IO, "%s: cannot create %s: %s", who.s, rebuilt, fti_fs_strerror(errno));
    fti_l4_io dst;
    fti_l4_io_fd(&dst, &fd);
    uint64_t size = 0;
    fti_err e = c->codec == FTI_CODEC_NONE ? fti_l4_copy(src, avail, &dst, fti_l4_chunk(ctx), &nm)
                                           : fti_l4_decode(src, avail, &dst, &nm, &size);
    if (e == FTI_E_OK && fti_fsync(fd) != 0)
        e = fti_fail(FTI_E_IO, "%s: cannot sync %s: %s", who.s, rebuilt, fti_fs_strerror(errno));
    close(fd);
    if (e == FTI_E_OK)
        e = rank == ctx->topo.app_rank
                ? fti_l4_verify_for_restart(ctx, rebuilt, c, src_name, &ctx->rec.rebuilt)
                : fti_l4_verify_restored(ctx, rebuilt, c, rank, who.s, src_name, NULL);
    if (e != FTI_E_OK)
        unlink(rebuilt);
    return e;
}

fti_err fti_l4_verify_for_restart(fti_ctx *ctx, const char *path, const fti_commit *c,
                                  const char *src_name, fti_file_version *into)
{
    fti_l4_who who;
    fti_l4_who_of(&who, ctx->topo.app_rank);
    return fti_l4_verify_restored(ctx, path, c, ctx->topo.app_rank, who.s, src_name, into);
}

void fti_l4_archive(const fti_ctx *ctx, int64_t id, int rank, const char *file)
{
    char dir[FTI_PATH_MAX], dst[FTI_PATH_MAX];
    fti_path_archive_dir(&ctx->dirs, dir, rank);
    fti_path_archive(&ctx->dirs, dst, (long long)id, rank);
    char why[FTI_PATH_MAX + 512];
    if (fti_job_mkdirs(ctx->dirs.global, dir, ctx->cfg.group_shared_dirs, why, sizeof why) != 0) {
        fti_log(FTI_LOG_WARN, "keep_l4_ckpt: cannot use the archive directory: %s", why);
        return;
    }
    unlink(dst); /* an earlier checkpoint with this id, or an attempt never committed */
    /* A hard link costs nothing; the global file is later replaced by a
     * rename, never rewritten in place, so the archived bytes stay. */
    if (link(file, dst) != 0 && fti_copy_file(file, dst) != 0)
        fti_log(FTI_LOG_WARN, "keep_l4_ckpt: cannot archive %s as %s: %s", file, dst, fti_fs_strerror(errno));
}

void fti_l4_unlink_warn(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT)
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", path, fti_fs_strerror(errno));
}

void fti_l4_h5_remove(fti_ctx *ctx, int slot)
{
    char path[FTI_PATH_MAX];
    fti_path_global_h5(&ctx->dirs, path, slot, ctx->topo.app_rank);
    fti_l4_unlink_warn(path);
}

/* Level 9's shared file goes with its slot (rank 0's; the HDF5 shared
 * store's remove too: no HDF5 call either). */
void fti_l4_h5s_remove(fti_ctx *ctx, int slot)
{
    char path[FTI_PATH_MAX];
    if (ctx->topo.app_rank != 0)
        return;
    fti_path_global_h5single(&ctx->dirs, path, slot);
    fti_l4_unlink_warn(path);
}

int fti_l4_direct_allowed(const fti_ctx *ctx)
{
    return !ctx->cfg.l4_local_copy && !ctx->post_async[4];
}

fti_err fti_l4_write_kept(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes,
                         fti_err (*writer)(fti_ctx *, const fti_commit *, fti_file_header *))
{
    fti_file_header *kept = &ctx->rec.l4_written;
    fti_file_header_free(kept);
    memset(kept, 0, sizeof *kept);
    fti_fault_phase(FTI_PHASE_L4_FLUSH);
    fti_file_header hdr;
    memset(&hdr, 0, sizeof hdr);
    fti_err e = writer(ctx, c, &hdr);
    if (e != FTI_E_OK) {
        fti_file_header_free(&hdr);
        return e;
    }
    *bytes = hdr.file_size;
    *kept = hdr; /* FTI_Recover in this run reads its table (fti_recover_track) */
    return FTI_E_OK;
}
