/*
 * l4_store_stub.c - the stand-in for an L4 store this build lacks (HDF5
 * without the HDF5 library): a config selecting it was refused already
 * (fti_l4_kind_settle), so its hooks meet only checkpoints another build
 * committed. Each fails naming the config key or the checkpoint's file; the
 * files are still removed with their slot.
 */
#include "stores/l4_store.h"

#include <stdio.h>

#include "fti.h"
#include "base/log.h"
#include "stores/l4_common.h"

/* The store's file of c for this rank: the one a restart would read. */
static void file_of(const fti_ctx *ctx, const fti_commit *c, char *path)
{
    if (fti_l4_kind_of(c)->rank_file)
        fti_path_global_h5(&ctx->dirs, path, c->slot, ctx->topo.app_rank);
    else
        fti_path_global_h5single(&ctx->dirs, path, c->slot);
}

/* `what` names what was asked for: the checkpoint, or one of its variables. */
static fti_err unreadable(const fti_ctx *ctx, const fti_commit *c, const char *what)
{
    char path[FTI_PATH_MAX];
    file_of(ctx, c, path);
    const fti_l4_kind *k = fti_l4_kind_of(c);
    return fti_fail(FTI_E_UNSUPPORTED, "%scheckpoint #%llu is a %s checkpoint (%s): this build "
                    "has no %s support to read %s", what, (unsigned long long)c->seq, k->name,
                    k->config, k->name, path);
}

static int stub_direct(fti_ctx *ctx, const fti_commit *c)
{
    (void)ctx, (void)c;
    return 1;
}

static fti_err stub_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    (void)ctx;
    *bytes = 0;
    const fti_l4_kind *k = fti_l4_kind_of(c);
    return fti_fail(FTI_E_UNSUPPORTED, "checkpoint #%llu: %s (%s) is not supported by this "
                    "build", (unsigned long long)c->seq, k->config, k->name);
}

static fti_err stub_verify(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    (void)own_ok;
    return unreadable(ctx, c, "");
}

static fti_err stub_restore(fti_ctx *ctx, const fti_commit *c)
{
    return unreadable(ctx, c, "");
}

static fti_err stub_read_var(fti_ctx *ctx, const fti_var *v)
{
    char what[48];
    snprintf(what, sizeof what, "recover: variable %d: ", v->id);
    return unreadable(ctx, &ctx->rec.chosen, what);
}

static const fti_l4_store stubs[FTI_L4K_COUNT] = {
    [FTI_L4K_H5] = {.kind = &fti_l4_kinds[FTI_L4K_H5], .direct = stub_direct,
                    .write = stub_write, .verify = stub_verify, .restore = stub_restore,
                    .remove = fti_l4_h5_remove},
    [FTI_L4K_H5_SHARED] = {.kind = &fti_l4_kinds[FTI_L4K_H5_SHARED], .direct = stub_direct,
                           .write = stub_write, .verify = stub_verify,
                           .read_var = stub_read_var, .remove = fti_l4_h5s_remove},
};

const fti_l4_store *fti_l4_store_stub(fti_l4_kind_id id)
{
    return stubs[id].kind != NULL ? &stubs[id] : NULL;
}
