/*
 * test_l4_store.c - every L4 store through its ops table (stores/l4_store.h),
 * on the ranks of one job (test/mpi/l4_store.sh runs it on 2): for each
 * built store, a small set of variables is written (straight from the
 * variables, and for the stores that take one, from the local L1 file),
 * verified as a restart would, restored into zeroed buffers and compared
 * byte for byte, and its files removed with their slot. A store this build
 * lacks (HDF5) is its stub: every hook fails naming the config key or the
 * checkpoint's file; the stubs are checked in every build. Also the one
 * mapping from the config and the commit record to a store.
 * argv[1]: a config with ckpt_io = 1, l4_local_copy = 1, inline L4.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/checkpoint_write.h"
#include "core/context.h"
#include "fti.h"
#include "stores/l4.h"
#include "stores/l4_store.h"
#include "core/levels.h"
#include "base/log.h"
#include "core/recover.h"
#include "../check.h"

#define NI 100
#define ND 37

static int rank, nranks, failures;
static int ints[NI];
static double dbls[ND];

static void fill(int seed)
{
    for (int i = 0; i < NI; i++)
        ints[i] = seed * 100000 + rank * 1000 + i;
    for (int i = 0; i < ND; i++)
        dbls[i] = seed + rank * 0.5 + i / 8.0;
}

static int same(int seed)
{
    for (int i = 0; i < NI; i++)
        if (ints[i] != seed * 100000 + rank * 1000 + i)
            return 0;
    for (int i = 0; i < ND; i++)
        if (dbls[i] != seed + rank * 0.5 + i / 8.0)
            return 0;
    return 1;
}

static int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

static fti_commit new_commit(fti_ctx *ctx, const fti_l4_store *st, uint64_t seq)
{
    fti_commit c;
    memset(&c, 0, sizeof c);
    c.valid = 1;
    c.level = 4;
    c.seq = seq;
    c.id = (int64_t)seq;
    c.slot = (int)(seq % 2);
    c.nranks = nranks;
    c.codec = FTI_CODEC_NONE;
    c.io = st->kind->io;
    c.nonce = ctx->nonce;
    return c;
}

/* The store's file of c for this rank, which `remove` must take. */
static void stored_file(fti_ctx *ctx, const fti_commit *c, char *path)
{
    switch (fti_l4_kind_of(c)->id) {
    case FTI_L4K_POSIX: fti_path_global(&ctx->dirs, path, c->slot, rank); break;
    case FTI_L4K_MPIIO: fti_path_global_shared(&ctx->dirs, path, c->slot); break;
    case FTI_L4K_H5: fti_path_global_h5(&ctx->dirs, path, c->slot, rank); break;
    case FTI_L4K_H5_SHARED: fti_path_global_h5single(&ctx->dirs, path, c->slot); break;
    default: path[0] = '\0';
    }
}

/* Writes c through st: straight from the variables, or from the local file. */
static int write_through(fti_ctx *ctx, const fti_l4_store *st, fti_commit *c, int via_local)
{
    uint64_t mine = 0;
    fti_err e;
    if (via_local) {
        e = fti_checkpoint_write_from(ctx, &ctx->reg, c, &mine);
        fti_ring ring;
        fti_ring_of(ctx, &ring);
        if (all_ok(e == FTI_E_OK))
            e = fti_level(4)->post(ctx, c, &ring); /* the level ops reach st->post */
    } else {
        e = st->write(ctx, c, &mine);
    }
    MPI_Allreduce(&mine, &c->bytes, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(e == FTI_E_OK, "%s: write (%s) failed", st->kind->name, via_local ? "post" : "direct");
    CHECK(c->bytes > 0, "%s: wrote nothing", st->kind->name); /* level 9: rank 0 counts */
    return all_ok(e == FTI_E_OK) && c->bytes > 0;
}

/* The restart's check, then the bytes back into zeroed buffers. */
static void restore_and_compare(fti_ctx *ctx, const fti_l4_store *st, const fti_commit *c,
                                int seed)
{
    fti_err e = fti_level(4)->rebuild(ctx, c, 0); /* collective: st->verify or st->restore */
    CHECK(all_ok(e == FTI_E_OK), "%s: verify for restart", st->kind->name);
    char rebuilt[FTI_PATH_MAX];
    fti_path_rebuilt(&ctx->dirs, rebuilt, 4, c->slot, rank);
    if (st->kind->rank_file)
        CHECK(access(rebuilt, F_OK) == 0, "%s: no verified file at %s", st->kind->name, rebuilt);
    unlink(rebuilt);
    memset(ints, 0, sizeof ints);
    memset(dbls, 0, sizeof dbls);
    fti_recover_release(ctx);
    if (st->kind->rank_file) {
        e = fti_l4_restore_own(ctx, c); /* st->restore, then the local file */
        CHECK(e == FTI_E_OK, "%s: restore", st->kind->name);
        e = e == FTI_E_OK ? fti_recover_track(ctx, c) : e;
    } else {
        ctx->rec.chosen = *c;
        ctx->rec.available = 1;
    }
    e = e == FTI_E_OK ? fti_recover_all(ctx) : e; /* st->read_var where no rank file */
    CHECK(e == FTI_E_OK && same(seed), "%s: restored bytes differ from those written",
          st->kind->name);
}

static void remove_slot(fti_ctx *ctx, const fti_l4_store *st, const fti_commit *c)
{
    char path[FTI_PATH_MAX];
    stored_file(ctx, c, path);
    if (path[0] != '\0' && (rank == 0 || st->kind->rank_file))
        CHECK(access(path, F_OK) == 0, "%s: %s not written", st->kind->name, path);
    MPI_Barrier(MPI_COMM_WORLD);
    fti_level(4)->remove(ctx, c->slot); /* every store's remove hook */
    MPI_Barrier(MPI_COMM_WORLD);
    if (path[0] != '\0')
        CHECK(access(path, F_OK) != 0, "%s: %s left after remove", st->kind->name, path);
    else /* the store removes its own files after a commit */
        CHECK(st->remove == NULL && (st->committed != NULL || !st->kind->rank_file),
              "%s: remove hook", st->kind->name);
}

static void run_store(fti_ctx *ctx, const fti_l4_store *st, uint64_t seq, int via_local)
{
    fti_commit c = new_commit(ctx, st, seq);
    int before = failures;
    fill((int)seq);
    if (write_through(ctx, st, &c, via_local)) {
        restore_and_compare(ctx, st, &c, (int)seq);
        remove_slot(ctx, st, &c);
    }
    if (rank == 0)
        printf("store %s (%s, io %d): %s\n", st->kind->name, via_local ? "from the local file" :
               "direct", st->kind->io, failures > before ? "FAILED" : "ok");
}

/* The stub's hooks fail naming the key or the file, in any build. */
static void check_stubs(fti_ctx *ctx)
{
    const fti_l4_store *h5 = fti_l4_store_stub(FTI_L4K_H5);
    const fti_l4_store *h5s = fti_l4_store_stub(FTI_L4K_H5_SHARED);
    CHECK(h5 != NULL && h5s != NULL && fti_l4_store_stub(FTI_L4K_POSIX) == NULL, "stub table");
    if (h5 == NULL || h5s == NULL)
        return;
    fti_commit c = new_commit(ctx, h5, 41);
    char path[FTI_PATH_MAX], want[FTI_PATH_MAX + 64];
    uint64_t bytes = 1;
    fti_log_quiet(1);
    fti_err e = h5->write(ctx, &c, &bytes);
    CHECK(e == FTI_E_UNSUPPORTED && bytes == 0 &&
          strstr(fti_last_error(), "[basic] ckpt_io = 5 (HDF5) is not supported by this build"),
          "stub write: %s", fti_last_error());
    fti_path_global_h5(&ctx->dirs, path, c.slot, rank);
    snprintf(want, sizeof want, "checkpoint #41 is a HDF5 checkpoint");
    e = h5->restore(ctx, &c);
    CHECK(e == FTI_E_UNSUPPORTED && strstr(fti_last_error(), want) && strstr(fti_last_error(), path),
          "stub restore names neither the checkpoint nor %s", path);
    e = h5->verify(ctx, &c, 1);
    CHECK(e == FTI_E_UNSUPPORTED && strstr(fti_last_error(), path), "stub verify names %s", path);
    c = new_commit(ctx, h5s, 42);
    ctx->rec.chosen = c;
    fti_path_global_h5single(&ctx->dirs, path, c.slot);
    e = h5s->read_var(ctx, &ctx->reg.vars[1]);
    CHECK(e == FTI_E_UNSUPPORTED && strstr(fti_last_error(), "recover: variable 1: checkpoint #42") &&
          strstr(fti_last_error(), "h5_single_file_enable = 1") && strstr(fti_last_error(), path),
          "stub read_var names neither variable, key nor %s", path);
    fti_log_quiet(0);
    memset(&ctx->rec.chosen, 0, sizeof ctx->rec.chosen);
}

/* The one mapping: config and commit record to a store. */
static void check_mapping(void)
{
    fti_config cfg;
    memset(&cfg, 0, sizeof cfg);
    const int io_of[6] = {0, FTI_L4K_POSIX, FTI_L4K_MPIIO, FTI_L4K_POSIX, -1, FTI_L4K_H5};
    for (int v = 1; v <= 5; v++) {
        cfg.ckpt_io = v;
        const fti_l4_kind *k = fti_l4_kind_for(&cfg, 4);
        CHECK(io_of[v] < 0 ? k == NULL : k != NULL && (int)k->id == io_of[v], "ckpt_io = %d", v);
    }
    cfg.ckpt_io = 1;
    CHECK(fti_l4_kind_for(&cfg, FTI_L4_DCP) == NULL && fti_l4_kind_for(&cfg, 2) == NULL,
          "level 8 without enable_dcp, level 2");
    cfg.enable_dcp = 1;
    CHECK(fti_l4_kind_for(&cfg, FTI_L4_DCP) == &fti_l4_kinds[FTI_L4K_DCP], "enable_dcp = 1");
    cfg.ckpt_io = 5;
    cfg.h5_single_file_enable = 1;
    const fti_l4_kind *h5s = fti_l4_kind_for(&cfg, FTI_L4_H5_SINGLE);
    CHECK(fti_l4_kind_for(&cfg, FTI_L4_DCP) == NULL, "dCP needs POSIX");
    CHECK(fti_l4_kinds[FTI_L4K_H5].built ? h5s == &fti_l4_kinds[FTI_L4K_H5_SHARED] : h5s == NULL,
          "level 9");
    CHECK(fti_l4_kinds[FTI_L4K_DCP].level == FTI_L4_DCP &&
          fti_l4_kinds[FTI_L4K_H5_SHARED].level == FTI_L4_H5_SINGLE, "kind levels");
    for (int k = 0; k < FTI_L4K_COUNT; k++) /* FTI: only level 9 keeps dataset dimensions */
        CHECK(fti_l4_kinds[k].dataset_dims == (k == FTI_L4K_H5_SHARED), "dataset_dims of %s",
              fti_l4_kinds[k].name);
    /* the numbers on disk */
    const int disk[FTI_L4K_COUNT] = {1, 2, 8, 5, 9};
    for (int k = 0; k < FTI_L4K_COUNT; k++) {
        fti_commit c = {.level = 4, .io = disk[k]};
        CHECK(fti_l4_kinds[k].io == disk[k] && fti_l4_kind_of(&c) == &fti_l4_kinds[k] &&
              fti_l4_store_of(&c)->kind == &fti_l4_kinds[k], "io %d", disk[k]);
    }
    fti_commit old = {.level = 4, .io = 0}, l2 = {.level = 2};
    CHECK(fti_l4_kind_of(&old)->id == FTI_L4K_POSIX && fti_l4_kind_of(&l2) == NULL &&
          fti_l4_store_of(&l2) == NULL, "io 0 at level 4 reads as POSIX; level 2 has no store");
}

/* Every variable in a global dataset, for the shared HDF5 file. */
static void define_datasets(void)
{
    FTIT_hsize_t di[1] = {(FTIT_hsize_t)nranks * NI}, dd[1] = {(FTIT_hsize_t)nranks * ND};
    FTIT_hsize_t oi[1] = {(FTIT_hsize_t)rank * NI}, od[1] = {(FTIT_hsize_t)rank * ND};
    FTIT_hsize_t ci[1] = {NI}, cd[1] = {ND};
    int ok = FTI_DefineGlobalDataset(0, 1, di, "ints", NULL, FTI_INTG) == FTI_SCES &&
             FTI_DefineGlobalDataset(1, 1, dd, "dbls", NULL, FTI_DBLE) == FTI_SCES &&
             FTI_AddSubset(0, 1, oi, ci, 0) == FTI_SCES && FTI_AddSubset(1, 1, od, cd, 1) == FTI_SCES;
    CHECK(ok, "global datasets");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 2 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "usage: %s CONFIG (FTI_Init failed)\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fti_ctx *ctx = fti_api_ctx("test_l4_store");
    FTI_Protect(0, ints, NI, FTI_INTG);
    FTI_Protect(1, dbls, ND, FTI_DBLE);
    check_mapping();
    check_stubs(ctx);
    if (fti_l4_kinds[FTI_L4K_H5_SHARED].built)
        define_datasets();
    uint64_t seq = 10;
    for (int k = 0; k < FTI_L4K_COUNT; k++) {
        const fti_l4_store *st = fti_l4_store_by_id((fti_l4_kind_id)k);
        CHECK(st != NULL && st->kind == &fti_l4_kinds[k], "table entry %d", k);
        if (st == NULL || !st->kind->built) {
            CHECK(st == fti_l4_store_stub((fti_l4_kind_id)k), "%d: a store not built is its stub", k);
            continue;
        }
        run_store(ctx, st, seq++, 0);
        if (st->post != NULL)
            run_store(ctx, st, seq++, 1);
    }
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(total == 0 ? "PASS: every L4 store through its ops table\n" : "FAIL: %d checks\n",
               total);
    FTI_Finalize();
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
