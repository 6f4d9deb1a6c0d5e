/*
 * l4_pfs.c - level 4 with ckpt_io = 1 (POSIX): one global file per rank,
 * as is or compressed, written through a temporary name (a crash never
 * leaves a half file under the real name) either from the rank's local file
 * or, with no local copy kept, straight from the protected variables; and
 * its two stores (l4_store.h): POSIX, and POSIX beside dCP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/ckpt_expect.h"
#include "base/fault.h"
#include "base/fio.h"
#include "fti.h"
#include "stores/l4_image.h"
#include "stores/dcp.h"
#include "stores/l4_common.h"
#include "stores/l4_store.h"
#include "base/log.h"
#include "base/safe_fs.h"

/* ---- POSIX: one global file per rank --------------------------------------- */

/* The complete temporary file takes the global name; the phase's fault
 * point and keep_l4_ckpt's archive see the published file. */
static fti_err publish(const fti_ctx *ctx, const fti_commit *c, int rank, const char *who,
                       const char *tmp, const char *global)
{
    if (rename(tmp, global) != 0) {
        fti_err e = fti_fail(FTI_E_IO, "%s: cannot rename %s to %s: %s", who, tmp, global,
                             fti_fs_strerror(errno));
        unlink(tmp);
        return e;
    }
    char dir[FTI_PATH_MAX];
    fti_path_fanout_dir(&ctx->dirs, dir, ctx->dirs.global, rank);
    if (fti_fsync_dir(dir) != 0)
        return fti_fail(FTI_E_IO, "%s: cannot sync the directory %s: %s", who, dir,
                        fti_fs_strerror(errno));
    fti_fault_wrote(FTI_PHASE_L4_FLUSH, global, 0, 0);
    if (ctx->cfg.keep_l4_ckpt)
        fti_l4_archive(ctx, c->id, rank, global);
    return FTI_E_OK;
}

/* Rank's local file of c to its global file. */
static fti_err post_rank(fti_ctx *ctx, const fti_commit *c, int rank)
{
    fti_l4_who who;
    fti_l4_who_of(&who, rank);
    char local[FTI_PATH_MAX], global[FTI_PATH_MAX], tmp[FTI_PATH_MAX];
    fti_path_local(&ctx->dirs, local, 4, c->slot, rank);
    fti_path_global(&ctx->dirs, global, c->slot, rank);
    fti_path_temp(tmp, global, "tmp");
    fti_err e = fti_layout_create_fanout(&ctx->dirs, &ctx->cfg, rank);
    if (e != FTI_E_OK)
        return e;
    fti_l4_reuse_old(global, tmp);
    uint64_t size = 0;
    e = fti_l4_pack(ctx, c, who.s, local, tmp, &size);
    if (e != FTI_E_OK) {
        unlink(tmp);
        return e;
    }
    return publish(ctx, c, rank, who.s, tmp, global);
}

/* Compressed: the image of the variables, encoded into tmp. */
static fti_err write_compressed(fti_ctx *ctx, const fti_commit *c, const char *who,
                                const char *tmp, fti_file_header *hdr)
{
    fti_l4_image im;
    uint64_t size = 0;
    fti_err e = fti_l4_image_open(&im, ctx, c);
    if (e == FTI_E_OK)
        e = fti_l4_pack_image(ctx, c, who, &im, tmp, &size);
    if (e == FTI_E_OK)
        fti_l4_image_take_header(&im, hdr);
    fti_l4_image_close(&im);
    return e;
}

/* This rank's global file straight from the protected variables (no local
 * file); *hdr gets the file's header (caller frees). */
static fti_err write_direct(fti_ctx *ctx, const fti_commit *c, fti_file_header *hdr)
{
    fti_l4_who who;
    fti_l4_who_of(&who, ctx->topo.app_rank);
    char global[FTI_PATH_MAX], tmp[FTI_PATH_MAX];
    fti_path_global(&ctx->dirs, global, c->slot, ctx->topo.app_rank);
    fti_path_temp(tmp, global, "tmp");
    fti_err e = fti_layout_create_fanout(&ctx->dirs, &ctx->cfg, ctx->topo.app_rank);
    if (e != FTI_E_OK)
        return e;
    fti_l4_reuse_old(global, tmp);
    if (c->codec == FTI_CODEC_NONE) { /* the checkpoint file itself, hashed as it is written */
        fti_expect_data_header(hdr, c, ctx->topo.app_rank, ctx->dirs.exec_id);
        e = fti_file_write_sets(tmp, &ctx->reg, hdr, (size_t)ctx->cfg.gpu_host_bufsize,
                                &ctx->capture);
    } else {
        e = write_compressed(ctx, c, who.s, tmp, hdr);
    }
    if (e != FTI_E_OK) {
        unlink(tmp);
        return e;
    }
    return publish(ctx, c, ctx->topo.app_rank, who.s, tmp, global);
}

/* Rank's local file restored from its global file at fti_path_rebuilt. */
static fti_err rebuild_rank(fti_ctx *ctx, const fti_commit *c, int rank)
{
    fti_l4_who who;
    fti_l4_who_of(&who, rank);
    char global[FTI_PATH_MAX];
    fti_path_global(&ctx->dirs, global, c->slot, rank);
    struct stat st;
    int fd = fti_open_read(global);
    if (fd < 0 || fstat(fd, &st) != 0) {
        fti_err e = fti_fail(FTI_E_MISSING, "%s: local file lost and the global copy %s cannot be "
                             "read: %s", who.s, global, fti_fs_strerror(errno));
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

/* ---- the stores (l4_store.h) ------------------------------------------------ */

/* Uncompressed, the file is written as it goes; compressed, from the image
 * of the variables, which reads host memory (device variables need the
 * capture pipeline). */
static int posix_direct(fti_ctx *ctx, const fti_commit *c)
{
    return fti_l4_direct_allowed(ctx) && (c->codec == FTI_CODEC_NONE || fti_l4_image_possible(&ctx->reg));
}

static fti_err posix_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    return fti_l4_write_kept(ctx, c, bytes, write_direct);
}

static fti_err posix_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    return post_rank(ctx, c, ring->app_rank[ring->pos]);
}

/* Uncompressed, with no local copy kept: the global file is a checkpoint
 * file as it is, read where it is. */
static int posix_in_place(const fti_ctx *ctx, const fti_commit *c, char *path)
{
    if (c->codec != FTI_CODEC_NONE || ctx->cfg.l4_local_copy)
        return 0;
    fti_path_global(&ctx->dirs, path, c->slot, ctx->topo.app_rank);
    return 1;
}

static fti_err posix_restore(fti_ctx *ctx, const fti_commit *c)
{
    return rebuild_rank(ctx, c, ctx->topo.app_rank);
}

static fti_err posix_verify(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    char global[FTI_PATH_MAX];
    if (!own_ok && posix_in_place(ctx, c, global)) /* read where it is: no copy */
        return fti_l4_verify_for_restart(ctx, global, c, global, &ctx->rec.verified);
    return own_ok ? FTI_E_OK : posix_restore(ctx, c);
}

static void posix_remove(fti_ctx *ctx, int slot)
{
    char path[FTI_PATH_MAX];
    fti_path_global(&ctx->dirs, path, slot, ctx->topo.app_rank);
    fti_l4_unlink_warn(path);
}

const fti_l4_store fti_l4_posix_store = {
    .kind = &fti_l4_kinds[FTI_L4K_POSIX], .direct = posix_direct, .write = posix_write,
    .post = posix_post, .post_on_heads = 1, .verify = posix_verify, .restore = posix_restore,
    .reads_in_place = posix_in_place, .remove = posix_remove, .stages = 1};

/* A full L4 checkpoint while dCP is on (level 4, enable_dcp = 1): POSIX
 * files, whose commit makes the dCP layers obsolete (so the commit stays on
 * the application's path: no staging). */
static void full_after_dcp(fti_ctx *ctx, const fti_commit *c)
{
    (void)c;
    fti_dcp_collect(ctx);
}

const fti_l4_store fti_l4_posix_dcp_store = {
    .kind = &fti_l4_kinds[FTI_L4K_POSIX], .direct = posix_direct, .write = posix_write,
    .post = posix_post, .post_on_heads = 1, .verify = posix_verify, .restore = posix_restore,
    .reads_in_place = posix_in_place, .committed = full_after_dcp, .remove = posix_remove,
    .stages = 0};
