/*
 * l4.c - level 4, the copy on the global (parallel) file system: the level
 * ops (levels.h) over the L4 stores (l4_store.h), each in its own file
 * (POSIX l4_pfs.c, MPI-IO l4_mpiio.c, dCP dcp.c, HDF5 hdf5/h5_store.c).
 * With no local copy asked for (l4_local_copy = 0), an inline POSIX or
 * MPI-IO checkpoint is written once, straight to the global directory;
 * otherwise the local file is written first and post-processed here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/fault.h"
#include "stores/l4.h"
#include "stores/l4_store.h"
#include "core/levels.h"
#include "base/log.h"
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

/* The restored file at fti_path_rebuilt goes into this rank's local file. */
static fti_err adopt_rebuilt(fti_ctx *ctx, const fti_commit *c)
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
    return e == FTI_E_OK ? adopt_rebuilt(ctx, c) : e;
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

const fti_level_ops fti_l4_ops = {.level = 4, .name = "L4 global",
                                  .phase = FTI_PHASE_L4_FLUSH, .post = l4_post,
                                  .rebuild = l4_rebuild, .reprotect = NULL,
                                  .remove = l4_remove};
