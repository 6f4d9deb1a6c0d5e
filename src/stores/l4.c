/*
 * l4.c - level 4, the copy on the global (parallel) file system: the level
 * ops (levels.h) over the L4 stores (l4_store.h), and the two stores of
 * checkpoint files, POSIX (l4_pfs.c, one global file per rank) and MPI-IO
 * (l4_mpiio.c, one shared file). With no local copy asked for
 * (l4_local_copy = 0), an inline POSIX or MPI-IO checkpoint is written once,
 * straight to the global directory; otherwise the local file is written
 * first and post-processed here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stores/dcp.h"
#include "base/fault.h"
#include "stores/l4.h"
#include "stores/l4_pfs.h"
#include "stores/l4_store.h"
#include "levels/levels.h"
#include "base/log.h"
#include "core/post.h"
#include "base/safe_fs.h"

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
    const fti_l4_store *st = fti_l4_store_of(c);
    if (st->post == NULL)
        return fti_fail(FTI_E_UNSUPPORTED, "L4: checkpoint #%llu: the %s store (%s) is written "
                        "directly, never from a local file", (unsigned long long)c->seq,
                        st->kind->name, st->kind->config);
    fti_err e = st->post(ctx, c, ring);
    if (e == FTI_E_OK)
        drop_local(ctx, c);
    return e;
}

/* Whether POSIX or MPI-IO may skip the local file: no local copy asked for,
 * and no head or helper thread that would flush the local file. */
static int pfs_direct_allowed(fti_ctx *ctx)
{
    return !ctx->cfg.l4_local_copy && !fti_post_async_available(ctx, 4);
}

/* Writes c with `writer` (POSIX or MPI-IO); ctx->rec.l4_written keeps the
 * header until the commit hands it to fti_recover_track. */
static fti_err pfs_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes,
                         fti_err (*writer)(fti_ctx *, const fti_commit *, fti_file_header *))
{
    fti_file_header *kept = &ctx->rec.l4_written;
    fti_file_header_free(kept);
    memset(kept, 0, sizeof *kept);
    fti_fault_phase(fti_level_phase(4));
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

int fti_l4_reads_global(const fti_ctx *ctx, const fti_commit *c, char *path)
{
    const fti_l4_store *st = fti_l4_store_of(c);
    return st != NULL && st->reads_in_place != NULL && st->reads_in_place(ctx, c, path);
}

int fti_l4_local_serves_restart(const fti_ctx *ctx, const fti_commit *c)
{
    return c->level != 4 || ctx->cfg.l4_local_copy != FTI_L4_COPY_UNTIL_FINALIZE;
}

static fti_err l4_rebuild(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    const fti_l4_store *st = fti_l4_store_of(c);
    if (st->verify != NULL)
        return st->verify(ctx, c, own_ok);
    return own_ok ? FTI_E_OK : st->restore(ctx, c);
}

fti_err fti_l4_adopt_rebuilt(fti_ctx *ctx, const fti_commit *c)
{
    int rank = ctx->topo.app_rank;
    char rebuilt[FTI_PATH_MAX], local[FTI_PATH_MAX];
    fti_path_rebuilt(&ctx->dirs, rebuilt, 4, c->slot, rank);
    fti_path_local(&ctx->dirs, local, 4, c->slot, rank);
    if (rename(rebuilt, local) == 0)
        return FTI_E_OK;
    fti_err e = fti_fail(FTI_E_IO, "L4 rank %d: cannot rename %s to %s: %s", rank, rebuilt, local,
                         fti_fs_strerror(errno));
    unlink(rebuilt);
    return e;
}

/* Outside a recovery (FTI_Recover after the local copy was removed), no
 * other rank waits on this one: the rebuilt file goes into place at once. */
fti_err fti_l4_restore_own(fti_ctx *ctx, const fti_commit *c)
{
    const fti_l4_store *st = fti_l4_store_of(c);
    if (st->restore == NULL)
        return fti_fail(FTI_E_UNSUPPORTED, "L4: checkpoint #%llu (%s) keeps no file of rank %d "
                        "to restore", (unsigned long long)c->seq, st->kind->name,
                        ctx->topo.app_rank);
    fti_err e = st->restore(ctx, c);
    return e == FTI_E_OK ? fti_l4_adopt_rebuilt(ctx, c) : e;
}

void fti_l4_unlink_warn(const char *path)
{
    if (unlink(path) != 0 && errno != ENOENT)
        fti_log(FTI_LOG_WARN, "L4: cannot remove %s: %s", path, fti_fs_strerror(errno));
}

/* Global files of every store (a slot may hold another run's): archives
 * are the user's and never removed here. */
static void l4_remove(fti_ctx *ctx, int slot)
{
    if (ctx->topo.is_head)
        return;
    for (int k = 0; k < FTI_L4K_COUNT; k++) {
        const fti_l4_store *st = fti_l4_store_by_id((fti_l4_kind_id)k);
        if (st->remove != NULL)
            st->remove(ctx, slot);
    }
}

const fti_level_ops fti_l4_ops = {.level = 4, .name = "L4 global", .post = l4_post,
                                  .rebuild = l4_rebuild, .reprotect = NULL,
                                  .remove = l4_remove};

/* ---- POSIX: one global file per rank (l4_pfs.c) ---------------------------- */

/* Uncompressed, the file is written as it goes; compressed, from the image
 * of the variables, which reads host memory (device variables need the
 * capture pipeline). */
static int posix_direct(fti_ctx *ctx, const fti_commit *c)
{
    return pfs_direct_allowed(ctx) && (c->codec == FTI_CODEC_NONE || fti_l4_image_possible(&ctx->reg));
}

static fti_err posix_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    return pfs_write(ctx, c, bytes, fti_l4_posix_write);
}

static fti_err posix_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    return fti_l4_posix_post(ctx, c, ring->app_rank[ring->pos]);
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
    return fti_l4_posix_rebuild(ctx, c, ctx->topo.app_rank);
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

/* ---- MPI-IO: one shared file, a piece per rank (l4_mpiio.c) ----------------- */

/* The shared file's pieces come from the image of the variables. */
static int mpiio_direct(fti_ctx *ctx, const fti_commit *c)
{
    (void)c;
    return pfs_direct_allowed(ctx) && fti_l4_image_possible(&ctx->reg);
}

static fti_err mpiio_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    return pfs_write(ctx, c, bytes, fti_l4_mpiio_write);
}

static fti_err mpiio_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    (void)ring; /* the shared file is written by the application ranks together */
    if (ctx->topo.is_head)
        return fti_fail(FTI_E_UNSUPPORTED, "L4: ckpt_io = 2 (MPI-IO) cannot be post-processed on a "
                        "head rank; set inline_l4 = 1");
    return fti_l4_mpiio_post(ctx, c);
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
    .post = mpiio_post, .post_on_heads = 0, .verify = fti_l4_mpiio_rebuild,
    .restore = fti_l4_mpiio_restore_self, .remove = mpiio_remove, .stages = 1};
