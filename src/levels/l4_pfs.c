/*
 * l4_pfs.c - level 4: every rank's local file is flushed to the global
 * (parallel) file system, as is or compressed. ckpt_io = 1 writes one file
 * per rank through a temporary name (a crash never leaves a half file under
 * the real name); ckpt_io = 2 writes one shared file with MPI-IO
 * (l4_mpiio.c). Recovery restores lost local files from the global copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ckpt_expect.h"
#include "fault.h"
#include "dcp.h"
#include "dcp_file.h"
#include "fio.h"
#ifdef FTI_HAVE_HDF5
#include "hdf5/h5_file.h"
#include "hdf5/h5_single.h"
#endif
#include "fti.h"
#include "l4_pfs.h"
#include "levels.h"
#include "log.h"

void fti_l4_who_of(fti_l4_who *w, int rank)
{
    snprintf(w->s, sizeof w->s, "L4 rank %d", rank);
}

size_t fti_l4_chunk(const fti_ctx *ctx)
{
    int64_t t = ctx->cfg.transfer_size;
    return t > (1 << 30) ? (size_t)1 << 30 : (size_t)t;
}

void fti_l4_temp_path(char *out, const char *path, const char *tag)
{
    size_t n = strlen(path);
    if (n > 4 && strcmp(path + n - 4, ".fti") == 0)
        n -= 4;
    snprintf(out, FTI_PATH_MAX, "%.*s.%s.fti", (int)n, path, tag);
}

/* ---- storing and restoring one rank's bytes -------------------------------- */

/* Floating-point variables of the local file, for the shuffle filter. A
 * header that cannot be read only means no shuffling: returns 0 spans. */
static int float_spans(const char *local, fti_l4_span **out)
{
    *out = NULL;
    int fd = open(local, O_RDONLY | O_CLOEXEC);
    fti_file_header h;
    if (fd < 0 || fti_file_read_header(fd, local, &h) != FTI_E_OK) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    close(fd);
    int n = 0;
    *out = h.nvars > 0 ? calloc(h.nvars, sizeof **out) : NULL;
    for (uint32_t i = 0; *out != NULL && i < h.nvars; i++) {
        const fti_file_entry *v = &h.vars[i];
        uint32_t stride = v->type == FTI_DBLE ? 8 : v->type == FTI_SFLT ? 4 : 0;
        if (stride != 0 && v->nbytes > 0)
            (*out)[n++] = (fti_l4_span){v->offset, v->nbytes, stride};
    }
    fti_file_header_free(&h);
    return n;
}

static fti_err pack_fds(const fti_ctx *ctx, const fti_commit *c, const fti_l4_names *nm, int in,
                        int out, uint64_t size, uint64_t *out_size)
{
    fti_l4_io src, dst;
    fti_l4_io_fd(&src, &in);
    fti_l4_io_fd(&dst, &out);
    if (c->codec == FTI_CODEC_NONE) {
        *out_size = size;
        return fti_l4_copy(&src, size, &dst, fti_l4_chunk(ctx), nm);
    }
    fti_l4_span *spans = NULL;
    fti_l4_encoding enc = {c->codec, ctx->cfg.l4_codec_level, 0, NULL, 0};
    enc.nfloats = float_spans(nm->src, &spans);
    enc.floats = spans;
    fti_err e = fti_l4_encode(&src, size, &dst, &enc, nm, out_size);
    free(spans);
    return e;
}

fti_err fti_l4_pack(const fti_ctx *ctx, const fti_commit *c, const char *who, const char *local,
                    const char *dst, uint64_t *out_size)
{
    fti_l4_names nm = {who, local, dst};
    struct stat st;
    int in = open(local, O_RDONLY | O_CLOEXEC);
    if (in < 0 || fstat(in, &st) != 0) {
        fti_err e = fti_fail(FTI_E_MISSING, "%s: cannot read the local file %s: %s", who, local,
                             strerror(errno));
        if (in >= 0)
            close(in);
        return e;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, FTI_FILE_MODE);
    fti_err e = FTI_E_OK;
    if (out < 0)
        e = fti_fail(FTI_E_IO, "%s: cannot create %s: %s", who, dst, strerror(errno));
    if (e == FTI_E_OK)
        e = pack_fds(ctx, c, &nm, in, out, (uint64_t)st.st_size, out_size);
    if (e == FTI_E_OK && fti_fsync(out) != 0)
        e = fti_fail(FTI_E_IO, "%s: cannot sync %s: %s", who, dst, strerror(errno));
    if (out >= 0)
        close(out);
    close(in);
    return e;
}

/* The restored file must be rank's data of c, every byte. */
fti_err fti_l4_verify_restored(const fti_ctx *ctx, const char *path, const fti_commit *c, int rank,
                               const char *who, const char *src_name)
{
    fti_expect x;
    fti_expect_data(&x, c, rank, ctx->dirs.exec_id, "file restored from the L4 copy,");
    if (fti_expect_valid(&x, path, NULL))
        return FTI_E_OK;
    char why[600];
    snprintf(why, sizeof why, "%s", fti_last_error()); /* fti_fail overwrites it */
    return fti_fail(FTI_E_CORRUPT, "%s: global copy %s is not usable: %s", who, src_name, why);
}

fti_err fti_l4_restore(const fti_ctx *ctx, const fti_commit *c, int rank, const fti_l4_io *src,
                       uint64_t avail, const char *src_name)
{
    fti_l4_who who;
    fti_l4_who_of(&who, rank);
    char rebuilt[FTI_PATH_MAX];
    fti_path_rebuilt(&ctx->dirs, rebuilt, 4, c->slot, rank);
    fti_l4_names nm = {who.s, src_name, rebuilt};
    int fd = open(rebuilt, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, FTI_FILE_MODE);
    if (fd < 0)
        return fti_fail(FTI_E_IO, "%s: cannot create %s: %s", who.s, rebuilt, strerror(errno));
    fti_l4_io dst;
    fti_l4_io_fd(&dst, &fd);
    uint64_t size = 0;
    fti_err e = c->codec == FTI_CODEC_NONE ? fti_l4_copy(src, avail, &dst, fti_l4_chunk(ctx), &nm)
                                           : fti_l4_decode(src, avail, &dst, &nm, &size);
    if (e == FTI_E_OK && fti_fsync(fd) != 0)
        e = fti_fail(FTI_E_IO, "%s: cannot sync %s: %s", who.s, rebuilt, strerror(errno));
    close(fd);
    if (e == FTI_E_OK)
        e = fti_l4_verify_restored(ctx, rebuilt, c, rank, who.s, src_name);
    if (e != FTI_E_OK)
        unlink(rebuilt);
    return e;
}

void fti_l4_archive(const fti_ctx *ctx, int64_t id, int rank, const char *file)
{
    char dir[FTI_PATH_MAX], dst[FTI_PATH_MAX];
    fti_path_archive_dir(&ctx->dirs, dir);
    fti_path_archive(&ctx->dirs, dst, (long long)id, rank);
    if (fti_mkdirs(dir) != 0) {
        fti_log(FTI_LOG_WARN, "keep_l4_ckpt: cannot create the archive directory %s: %s", dir,
                strerror(errno));
        return;
    }
    unlink(dst); /* an earlier checkpoint with this id, or an attempt never committed */
    /* A hard link costs nothing; the global file is later replaced by a
     * rename, never rewritten in place, so the archived bytes stay. */
    if (link(file, dst) != 0 && fti_copy_file(file, dst) != 0)
        fti_log(FTI_LOG_WARN, "keep_l4_ckpt: cannot archive %s as %s: %s", file, dst, strerror(errno));
}

/* ---- POSIX: one global file per rank --------------------------------------- */

static fti_err posix_post(fti_ctx *ctx, const fti_commit *c, int rank)
{
    fti_l4_who who;
    fti_l4_who_of(&who, rank);
    char local[FTI_PATH_MAX], global[FTI_PATH_MAX], tmp[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, local, 4, c->slot, rank);
    fti_path_global(&ctx->dirs, global, c->slot, rank);
    fti_l4_temp_path(tmp, global, "tmp");
    uint64_t size = 0;
    fti_err e = fti_l4_pack(ctx, c, who.s, local, tmp, &size);
    if (e == FTI_E_OK && rename(tmp, global) != 0)
        e = fti_fail(FTI_E_IO, "%s: cannot rename %s to %s: %s", who.s, tmp, global, strerror(errno));
    if (e != FTI_E_OK) {
        unlink(tmp);
        return e;
    }
    if (fti_fsync_dir(ctx->dirs.global) != 0)
        return fti_fail(FTI_E_IO, "%s: cannot sync the directory %s: %s", who.s, ctx->dirs.global,
                        strerror(errno));
    fti_fault_wrote(fti_level_phase(4), global, 0, 0);
    if (ctx->cfg.keep_l4_ckpt)
        fti_l4_archive(ctx, c->id, rank, global);
    return FTI_E_OK;
}

static fti_err posix_rebuild(fti_ctx *ctx, const fti_commit *c, int rank)
{
    fti_l4_who who;
    fti_l4_who_of(&who, rank);
    char global[FTI_PATH_MAX];
    fti_path_global(&ctx->dirs, global, c->slot, rank);
    struct stat st;
    int fd = open(global, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        fti_err e = fti_fail(FTI_E_MISSING, "%s: local file lost and the global copy %s cannot be "
                             "read: %s", who.s, global, strerror(errno));
        if (fd >= 0)
            close(fd);
        return e;
    }
    fti_l4_io src;
    fti_l4_io_fd(&src, &fd);
    fti_err e = fti_l4_restore(ctx, c, rank, &src, (uint64_t)st.st_size, global);
    close(fd);
    return e;
}

/* ---- the level ------------------------------------------------------------- */

static fti_err l4_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    if (c->io != 2)
        return posix_post(ctx, c, ring->app_rank[ring->pos]);
    if (ctx->topo.is_head) /* the shared file is written by the application ranks together */
        return fti_fail(FTI_E_UNSUPPORTED, "L4: ckpt_io = 2 (MPI-IO) cannot be post-processed on a "
                        "head rank; set inline_l4 = 1");
    return fti_l4_mpiio_post(ctx, c);
}

#ifdef FTI_HAVE_HDF5
/* This rank's HDF5 file of c, converted into a checkpoint file at the
 * temporary the recovery adopts. Here, not in hdf5/, so that fti-ckpt (which
 * converts HDF5 files too) links none of the MPI-using levels. */
static fti_err h5_rebuild(fti_ctx *ctx, const fti_commit *c)
{
    int rank = ctx->topo.app_rank;
    char file[FTI_PATH_MAX], local[FTI_PATH_MAX];
    fti_path_global_h5(&ctx->dirs, file, c->slot, rank);
    fti_path_rebuilt(&ctx->dirs, local, 4, c->slot, rank);
    fti_err e = fti_h5_to_ckpt_file(file, local, c, rank);
    if (e == FTI_E_OK && (e = fti_l4_verify_restored(ctx, local, c, rank, "HDF5", file)) != FTI_E_OK)
        unlink(local);
    return e;
}
#endif

static fti_err l4_rebuild(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    if (c->io == 2)
        return fti_l4_mpiio_rebuild(ctx, c, own_ok);
    if (c->io == FTI_IO_DCP)
        return own_ok ? FTI_E_OK : fti_dcp_rebuild(ctx, c);
#ifdef FTI_HAVE_HDF5
    if (c->io == FTI_COMMIT_IO_HDF5)
        return own_ok ? FTI_E_OK : h5_rebuild(ctx, c);
    if (c->io == FTI_IO_H5_SINGLE) /* collective; read straight from the shared file */
        return fti_h5s_verify(ctx, c);
#endif
    return own_ok ? FTI_E_OK : posix_rebuild(ctx, c, ctx->topo.app_rank);
}

/* Outside a recovery (FTI_Recover after the local copy was removed), no
 * other rank waits on this one: the rebuilt file goes into place at once. */
fti_err fti_l4_restore_own(fti_ctx *ctx, const fti_commit *c)
{
    int rank = ctx->topo.app_rank;
    fti_err e = c->io == 2 ? fti_l4_mpiio_restore_self(ctx, c) : l4_rebuild(ctx, c, 0);
    if (e != FTI_E_OK)
        return e;
    char rebuilt[FTI_PATH_MAX], local[FTI_PATH_MAX];
    fti_path_rebuilt(&ctx->dirs, rebuilt, 4, c->slot, rank);
    fti_path_local(&ctx->dirs, local, 4, c->slot, rank);
    if (rename(rebuilt, local) != 0) {
        e = fti_fail(FTI_E_IO, "L4 rank %d: cannot rename %s to %s: %s", rank, rebuilt, local,
                     strerror(errno));
        unlink(rebuilt);
    }
    return e;
}

/* Global files only: archives are the user's and never removed here. */
static void l4_remove(fti_ctx *ctx, int slot)
{
    char path[FTI_PATH_MAX];
    if (ctx->topo.is_head)
        return;
    fti_path_global(&ctx->dirs, path, slot, ctx->topo.app_rank);
    if (unlink(path) != 0 && errno != ENOENT)
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", path, strerror(errno));
    fti_path_global_h5(&ctx->dirs, path, slot, ctx->topo.app_rank);
    if (unlink(path) != 0 && errno != ENOENT)
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", path, strerror(errno));
    if (ctx->topo.app_rank != 0)
        return;
    fti_path_global_shared(&ctx->dirs, path, slot);
    if (unlink(path) != 0 && errno != ENOENT)
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", path, strerror(errno));
}

const fti_level_ops fti_l4_ops = {.level = 4, .name = "L4 global", .post = l4_post,
                                  .rebuild = l4_rebuild, .reprotect = NULL,
                                  .remove = l4_remove};
