/*
 * l4.c - level 4, the copy on the global (parallel) file system: dispatches
 * to the POSIX writer (l4_pfs.c, one file per rank), MPI-IO (l4_mpiio.c,
 * one shared file), dCP layers (dcp.c) and HDF5 (hdf5/). With no local copy
 * asked for (l4_local_copy = 0), an inline POSIX or MPI-IO checkpoint is
 * written once, straight to the global directory (fti_l4_write); otherwise
 * the local file is written first and post-processed here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dcp.h"
#include "fault.h"
#ifdef FTI_HAVE_HDF5
#include "hdf5/h5_file.h"
#include "hdf5/h5_single.h"
#endif
#include "l4.h"
#include "l4_pfs.h"
#include "levels.h"
#include "log.h"
#include "post.h"
#include "safe_fs.h"

/* With no local copy kept, this rank's local file goes as soon as its global
 * copy is complete, where the post-processing runs (the helper thread: off
 * the application's path, which otherwise pays the freeing of its pages at
 * the commit); its header stays for FTI_Recover in this run, as after a
 * direct write (fti_recover_track). Not on heads: the application ranks'
 * commit reads the header from the file. */
static void drop_local(fti_ctx *ctx, const fti_commit *c)
{
    if (ctx->cfg.l4_local_copy || ctx->topo.is_head)
        return;
    char local[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, local, 4, c->slot, ctx->topo.app_rank);
    int fd = fti_open_read(local);
    if (fd < 0)
        return;
    fti_file_header h;
    fti_err e = fti_file_read_header(fd, local, &h);
    close(fd);
    if (e != FTI_E_OK) /* the commit's pruning removes it */
        return;
    fti_file_header_free(&ctx->rec.l4_written);
    ctx->rec.l4_written = h;
    if (unlink(local) != 0)
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", local, fti_fs_strerror(errno));
}

static fti_err l4_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    fti_err e;
    if (c->io != 2)
        e = fti_l4_posix_post(ctx, c, ring->app_rank[ring->pos]);
    else if (ctx->topo.is_head) /* the shared file is written by the application ranks together */
        return fti_fail(FTI_E_UNSUPPORTED, "L4: ckpt_io = 2 (MPI-IO) cannot be post-processed on a "
                        "head rank; set inline_l4 = 1");
    else
        e = fti_l4_mpiio_post(ctx, c);
    if (e == FTI_E_OK)
        drop_local(ctx, c);
    return e;
}

int fti_l4_writes_direct(fti_ctx *ctx, const fti_commit *c)
{
    if (c->level != 4 || ctx->cfg.l4_local_copy || (c->io != 1 && c->io != 2))
        return 0;
    if (fti_post_async_available(ctx, 4)) /* a head or helper thread flushes the local file */
        return 0;
    /* the image reads host memory; device variables need the capture pipeline */
    return (c->io == 1 && c->codec == FTI_CODEC_NONE) || fti_l4_image_possible(&ctx->reg);
}

fti_err fti_l4_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    fti_file_header *kept = &ctx->rec.l4_written;
    fti_file_header_free(kept);
    memset(kept, 0, sizeof *kept);
    fti_fault_phase(fti_level_phase(4));
    fti_file_header hdr;
    memset(&hdr, 0, sizeof hdr);
    fti_err e = c->io == 2 ? fti_l4_mpiio_write(ctx, c, &hdr) : fti_l4_posix_write(ctx, c, &hdr);
    if (e != FTI_E_OK) {
        fti_file_header_free(&hdr);
        return e;
    }
    *bytes = hdr.file_size;
    *kept = hdr; /* FTI_Recover in this run reads its table (fti_recover_track) */
    return FTI_E_OK;
}

int fti_l4_reads_global(const fti_ctx *ctx, const fti_commit *c, char *path)
{
    if (c->level != 4 || c->io != 1 || c->codec != FTI_CODEC_NONE || ctx->cfg.l4_local_copy)
        return 0;
    fti_path_global(&ctx->dirs, path, c->slot, ctx->topo.app_rank);
    return 1;
}

int fti_l4_local_serves_restart(const fti_ctx *ctx, const fti_commit *c)
{
    return c->level != 4 || ctx->cfg.l4_local_copy != FTI_L4_COPY_UNTIL_FINALIZE;
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
    if (e == FTI_E_OK)
        e = fti_l4_verify_restored(ctx, local, c, rank, "HDF5", file, NULL, NULL);
    if (e != FTI_E_OK)
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
    char global[FTI_PATH_MAX];
    if (!own_ok && fti_l4_reads_global(ctx, c, global)) /* read where it is: no copy */
        return fti_l4_verify_for_restart(ctx, global, c, global, &ctx->rec.verified);
    return own_ok ? FTI_E_OK : fti_l4_posix_rebuild(ctx, c, ctx->topo.app_rank);
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
                     fti_fs_strerror(errno));
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
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", path, fti_fs_strerror(errno));
    fti_path_global_h5(&ctx->dirs, path, slot, ctx->topo.app_rank);
    if (unlink(path) != 0 && errno != ENOENT)
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", path, fti_fs_strerror(errno));
    if (ctx->topo.app_rank != 0)
        return;
    fti_path_global_shared(&ctx->dirs, path, slot);
    if (unlink(path) != 0 && errno != ENOENT)
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", path, fti_fs_strerror(errno));
}

const fti_level_ops fti_l4_ops = {.level = 4, .name = "L4 global", .post = l4_post,
                                  .rebuild = l4_rebuild, .reprotect = NULL,
                                  .remove = l4_remove};
