/*
 * dcp.c - writing a differential layer, restoring from a chain of layers,
 * and removing layers nothing needs any more. The previous layer's block
 * map is read from its file at each checkpoint (a few hundred KiB at most),
 * so no state has to survive between checkpoints or across a restart.
 */
#include "stores/dcp.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/dcp_file.h"
#include "base/fault.h"
#include "data/dirty_pages.h"
#include "base/fio.h"
#include "base/integrity.h"
#include "runtime/recover_state.h"
#include "stores/l4_common.h"
#include "stores/l4_store.h"
#include "base/log.h"
#include "base/safe_fs.h"
#include "base/walltime.h"

/* The folder of this rank's layers: the global directory, or its L4
 * fan-out folder (l4_files_per_dir), beside the rank's other L4 files. */
static void layer_dir(const fti_ctx *ctx, char *out)
{
    fti_path_fanout_dir(&ctx->dirs, out, ctx->dirs.global, ctx->topo.app_rank);
}

/* The path of this rank's layer seq. */
static void layer_path(const fti_ctx *ctx, char *out, uint64_t seq)
{
    char dir[FTI_PATH_MAX];
    layer_dir(ctx, dir);
    fti_path_dcp_layer(out, dir, ctx->topo.app_rank, seq);
}

/* 1 when committed checkpoint c is a dCP layer. */
static int is_layer(const fti_commit *c)
{
    const fti_l4_kind *k = fti_l4_kind_of(c);
    return c->valid && k != NULL && k->id == FTI_L4K_DCP;
}

static uint64_t block_size(const fti_ctx *ctx)
{
    return ctx->cfg.dcp_block_size > 0 ? (uint64_t)ctx->cfg.dcp_block_size : FTI_DCP_DEFAULT_BLOCK;
}

static void forget_kept(fti_ctx *ctx)
{
    if (ctx->dcp_last.kept != NULL)
        fti_dcp_layer_free(ctx->dcp_last.kept);
    free(ctx->dcp_last.kept);
    ctx->dcp_last.kept = NULL;
}

/* The layer of cur from memory, where it is the last one this rank wrote
 * (same seq and nonce) and its file still has its length: reading and
 * decoding its map again cost a 1%-changed layer a fifth of its time
 * (bench_dcp, 1 GiB per rank, 4 KiB blocks). 0: read it from its file. */
static int take_kept(fti_ctx *ctx, const fti_commit *cur, const char *path, fti_dcp_layer *prev)
{
    fti_dcp_layer *k = ctx->dcp_last.kept;
    struct stat st;
    int ok = k != NULL && k->seq == cur->seq && k->image.nonce == cur->nonce &&
             stat(path, &st) == 0 && (uint64_t)st.st_size == k->data_offset + k->data_size;
    if (ok) {
        *prev = *k;
        free(k);
        ctx->dcp_last.kept = NULL;
    }
    forget_kept(ctx);
    return ok;
}

/* The committed layer a new one may build on, or 0 (prev zeroed): write a
 * full base. A new base is due after dcp_stack_size layers. */
static int load_prev(fti_ctx *ctx, fti_dcp_layer *prev)
{
    memset(prev, 0, sizeof *prev);
    const fti_commit *cur = &ctx->meta.cur[4];
    if (!is_layer(cur) || fti_recover_passed_over(ctx, cur)) {
        forget_kept(ctx); /* passed over: the restart could not restore it, never build on it */
        return 0;
    }
    char path[FTI_PATH_MAX];
    layer_path(ctx, path, cur->seq);
    fti_err e = FTI_E_OK;
    if (!take_kept(ctx, cur, path, prev) &&
        (e = fti_dcp_read(path, ctx->topo.app_rank, cur->seq, prev)) == FTI_E_OK &&
        (e = fti_dcp_check_owner(prev, path, cur->nonce)) != FTI_E_OK)
        fti_dcp_layer_free(prev);
    if (e != FTI_E_OK) {
        fti_log(FTI_LOG_WARN, "dCP: previous layer unusable (%s); writing a full base",
                fti_last_error());
        return 0;
    }
    int stack = ctx->cfg.dcp_stack_size > 0 ? ctx->cfg.dcp_stack_size : FTI_DCP_DEFAULT_STACK;
    if (prev->block_size == block_size(ctx) && prev->depth + 1 < (uint32_t)stack)
        return 1;
    fti_dcp_layer_free(prev);
    return 0;
}

/* One layer being written. */
typedef struct writer {
    int fd;
    const char *path;
    fti_dcp_layer *l;
    fti_dcp_layer *prev;       /* NULL: full base */
    uint64_t k;                /* next map entry */
    fti_ctx *ctx;
    int since_prev;  /* the page tracker was last reset for prev: its dirty pages are the
                      * changes since prev (else every block is hashed) */
    uint64_t hashed; /* bytes hashed for this layer */
    double *t;       /* the phases' seconds (context.h FTI_DCP_T_*) */
    const char *run; /* changed blocks adjacent in memory, not yet written (run_len bytes) */
    uint64_t run_at, run_len;
} writer;

/* A run of changed blocks is written with one call: a pwrite per 4 KiB
 * block made a 100%-changed layer of 1 GiB take 6.1 s where a full L4
 * took 6.0 (bench_dcp). Bounded so that a run's bytes are mostly still in
 * the core's cache (1 MiB of L2 here) when the write copies them, having
 * been read once to be hashed: hashing 256 MiB by 4 KiB blocks and writing
 * it to a new tmpfs file, runs of 16 MiB took 144-181 ms, of 256 KiB to
 * 4 MiB 131-155 ms (one process, best of 5, load 20). */
#define RUN_MAX ((uint64_t)1 << 20)

static fti_err flush_run(writer *w)
{
    if (w->run_len == 0)
        return FTI_E_OK;
    double t0 = fti_now();
    int rc = fti_pwrite_full(w->fd, w->run, (size_t)w->run_len, (off_t)w->run_at);
    w->t[FTI_DCP_T_WRITE] += fti_now() - t0;
    if (rc != 0)
        return fti_fail(FTI_E_IO, "dCP layer %s: writing %llu bytes of blocks: %s", w->path,
                        (unsigned long long)w->run_len, fti_fs_strerror(errno));
    w->run_len = 0;
    return FTI_E_OK;
}

/* Appends the block [p, p + len) at file offset at: joins the pending run
 * when it follows it in memory (the file offsets always follow). */
static fti_err append_block(writer *w, const char *p, uint64_t len, uint64_t at)
{
    if (w->run_len > 0 && w->run + w->run_len == p && w->run_len + len <= RUN_MAX) {
        w->run_len += len;
        return FTI_E_OK;
    }
    fti_err e = flush_run(w);
    w->run = p, w->run_at = at, w->run_len = len;
    return e;
}

/* Map index of the first block of variable id in prev, or -1. */
static int64_t prev_start(const fti_dcp_layer *prev, int id, const fti_file_entry **pe)
{
    uint64_t k = 0;
    for (uint32_t i = 0; prev != NULL && i < prev->image.nvars; i++) {
        if (prev->image.vars[i].id == id) {
            *pe = &prev->image.vars[i];
            return (int64_t)k;
        }
        k += fti_dcp_blocks_of(prev->image.vars[i].nbytes, prev->block_size);
    }
    *pe = NULL;
    return -1;
}

static uint64_t block_len(uint64_t nbytes, uint64_t b, uint64_t bs)
{
    return nbytes - b * bs < bs ? nbytes - b * bs : bs;
}

/* Block b of a variable: reused from prev when its bytes are unchanged
 * (no page of it written since prev: not even hashed; else its hash equal
 * to prev's), else appended to this layer. */
static fti_err put_block(writer *w, const char *p, uint64_t len, uint64_t b,
                         const fti_file_entry *pe, int64_t pk, int clean)
{
    fti_dcp_layer *l = w->l;
    int in_prev = pe != NULL && b < fti_dcp_blocks_of(pe->nbytes, l->block_size) &&
                  block_len(pe->nbytes, b, l->block_size) == len;
    if (in_prev && clean) {
        l->map[w->k++] = w->prev->map[pk + (int64_t)b];
        return FTI_E_OK;
    }
    double t0 = fti_now();
    uint64_t h = fti_hash_buffer(p, (size_t)len);
    w->hashed += len;
    w->t[FTI_DCP_T_HASH] += fti_now() - t0;
    if (in_prev && w->prev->map[pk + (int64_t)b].hash == h) {
        l->map[w->k++] = w->prev->map[pk + (int64_t)b];
        return FTI_E_OK;
    }
    uint64_t at = l->data_offset + l->data_size;
    l->map[w->k++] = (fti_dcp_block){l->seq, at, h};
    l->data_size += len;
    return append_block(w, p, len, at);
}

/* One line per run and rank for the first variable whose pages cannot be
 * tracked; the others at debug level. */
static void untracked(fti_ctx *ctx, const fti_var *v, const char *why)
{
    fti_log(ctx->dcp_last.dirty_noted ? FTI_LOG_DEBUG : FTI_LOG_INFO, "dCP: variable %d: its "
            "pages are not tracked (%s); every block of it is hashed at each dCP checkpoint",
            v->id, why);
    ctx->dcp_last.dirty_noted = 1;
}

/* Above this share of a variable's pages written between two layers, its
 * tracking pauses: every written page cost the application a fault and the
 * kernel a split mapping to merge at the reset (at 4 KiB, 2-20 us each where
 * XXH3 hashes the page in under 1 us), so past half the pages, hashing it
 * whole costs less than what tracking saves. */
#define MOSTLY_WRITTEN_PCT 50
/* A run of written pages costs the kernel a split and a merge of mappings
 * and the application its faults: about the hashing of this many clean
 * pages (bench_dcp, 256 MiB, 10% of the pages scattered: 6,500 runs cost
 * the reset 120-210 ms, where hashing the 59,000 clean pages took 150 ms).
 * Scattered writes past that pause tracking too. */
#define RUN_COST_PAGES 12
#define PAUSE_MAX 8 /* layers: a variable written whole at every step is tried again this often */
/* The first pause of a variable found too scattered, in layers: the reset
 * that found it paid the kernel's merge of the mappings its faults split
 * (140-270 ms for 26,000 runs in 1 GiB), and each resumption pays it again
 * if the writes stay scattered, where a layer hashing it whole costs the
 * hashing (about 60 ms per GiB); a mostly written variable starts at 1. */
#define PAUSE_FIRST_SCATTERED 4

static fti_dcp_pause *pause_of(fti_ctx *ctx, int id, int add)
{
    fti_dcp_share *s = &ctx->dcp_last;
    for (int i = 0; i < s->npaused; i++)
        if (s->paused[i].id == id)
            return &s->paused[i];
    fti_dcp_pause *p = add ? realloc(s->paused, (size_t)(s->npaused + 1) * sizeof *p) : NULL;
    if (p == NULL)
        return NULL; /* out of memory: no pause, tracking goes on */
    s->paused = p;
    p[s->npaused] = (fti_dcp_pause){id, 0, 0};
    return &p[s->npaused++];
}

/* 1 while v's tracking is paused: hash it whole. Tracking starts again in
 * the last paused layer, so that the next one knows what changed since it. */
static int paused(fti_ctx *ctx, const fti_var *v, uint64_t nbytes)
{
    fti_dcp_pause *p = pause_of(ctx, v->id, 0);
    if (p == NULL || p->skip == 0)
        return 0;
    char why[160];
    if (--p->skip == 0 && fti_dirty_track(v->ptr, (size_t)nbytes, v->id, why, sizeof why) != 0)
        untracked(ctx, v, why);
    return 1;
}

/* Whether the pages written since the last layer are too many, or too
 * scattered, for tracking to cost less than hashing the variable whole. */
static int mostly_written(const fti_dirty_set *set)
{
    return set->written * 100 > set->npages * MOSTLY_WRITTEN_PCT ||
           set->runs * RUN_COST_PAGES > set->npages - set->written;
}

static int keep_tracking(const fti_dirty_set *set, void *arg)
{
    (void)arg;
    return !mostly_written(set);
}

/* After a reset that found most of v's pages written (and released them):
 * stops tracking v for the next layer(s), twice as many each time it is
 * found so again. */
static void note_share(fti_ctx *ctx, const fti_var *v, const fti_dirty_set *set)
{
    int mostly = mostly_written(set);
    fti_dcp_pause *p = pause_of(ctx, v->id, mostly);
    if (p == NULL)
        return;
    if (!mostly) {
        p->backoff = 0;
        return;
    }
    int many = set->written * 100 > set->npages * MOSTLY_WRITTEN_PCT;
    unsigned first = many ? 1 : PAUSE_FIRST_SCATTERED;
    p->backoff = p->backoff == 0 ? first : p->backoff * 2 > PAUSE_MAX ? PAUSE_MAX : p->backoff * 2;
    p->skip = p->backoff;
    fti_log(FTI_LOG_DEBUG, "dCP: variable %d: %zu of its %zu pages written in %zu runs since the "
            "last layer (%s): not tracked for the next %u layer(s), each hashes it whole",
            v->id, set->written, set->npages, set->runs,
            many ? "more than half" : "too scattered to track for less", p->skip);
}

/* The pages of v written since the page tracker's last reset, in *set (1),
 * or 0: hash every block of v. The tracker is reset (or starts on v) either
 * way, before any block is read, so that the next layer knows what changed
 * since this one; where the pages written since prev say that tracking v
 * costs more than it saves, v is released at the reset rather than
 * protected again (note_share pauses it). */
static int dirty_pages_of(writer *w, const fti_var *v, uint64_t nbytes, fti_dirty_set *set)
{
    char why[160];
    if (!w->ctx->cfg.dcp_dirty_tracking || nbytes == 0 || paused(w->ctx, v, nbytes))
        return 0;
    int rc = fti_dirty_reset_if(v->ptr, (size_t)nbytes, v->id, w->since_prev ? keep_tracking : NULL,
                                NULL, set, why, sizeof why);
    if (rc >= 0) {
        if (w->since_prev) {
            note_share(w->ctx, v, set);
            return 1;
        }
        fti_dirty_set_free(set);
        return 0;
    }
    fti_dirty_release(v->ptr, (size_t)nbytes); /* tracked with other bounds or for another id */
    if (fti_dirty_track(v->ptr, (size_t)nbytes, v->id, why, sizeof why) != 0)
        untracked(w->ctx, v, why);
    return 0;
}

/* How many blocks from b on (of nb, bs bytes each) lie wholly on pages not
 * written since prev. */
static uint64_t clean_blocks(const fti_dirty_set *set, uint64_t b, uint64_t nb, uint64_t bs)
{
    size_t end = fti_dirty_set_clean_to(set, (size_t)(b * bs));
    uint64_t upto = end >= set->nbytes ? nb : end / bs;
    return upto > b ? upto - b : 0;
}

/* Each block hashed at most once: its hash decides whether it is stored,
 * and the variable's checksum in the layer is the hash of its block hashes.
 * With dirty tracking, blocks on no written page keep prev's entry unread. */
static fti_err write_var(writer *w, const fti_var *v, fti_file_entry *e)
{
    if (v->dev != NULL)
        return fti_fail(FTI_E_UNSUPPORTED, "dCP: variable %d is in %s memory; differential "
                        "checkpoints take host variables (use level 4)", v->id, v->dev->name);
    const fti_file_entry *pe;
    int64_t pk = prev_start(w->prev, v->id, &pe);
    uint64_t bs = w->l->block_size, k0 = w->k, nb = fti_dcp_blocks_of(e->nbytes, bs);
    fti_dirty_set set;
    double t0 = fti_now();
    int known = dirty_pages_of(w, v, e->nbytes, &set);
    w->t[FTI_DCP_T_TRACK] += fti_now() - t0;
    fti_err rc = FTI_E_OK;
    int same = known && pe != NULL && pe->nbytes == e->nbytes; /* prev has each block */
    for (uint64_t b = 0; rc == FTI_E_OK && b < nb;) {
        uint64_t n = same ? clean_blocks(&set, b, nb, bs) : 0;
        if (n > 0) { /* prev's entries, as put_block would take them one by one */
            memcpy(&w->l->map[w->k], &w->prev->map[pk + (int64_t)b], n * sizeof *w->l->map);
            w->k += n, b += n;
            continue;
        }
        uint64_t len = block_len(e->nbytes, b, bs);
        int clean = known && !fti_dirty_set_any(&set, (size_t)(b * bs), (size_t)len);
        rc = put_block(w, (const char *)v->ptr + b * bs, len, b, pe, pk, clean);
        b++;
    }
    if (known)
        fti_dirty_set_free(&set);
    t0 = fti_now();
    if (rc == FTI_E_OK && fti_dcp_var_sum(&w->l->map[k0], nb, &e->checksum) != 0)
        rc = fti_fail(FTI_E_NOMEM, "dCP: out of memory");
    w->t[FTI_DCP_T_MAP] += fti_now() - t0;
    return rc;
}

/* A map array for n entries: the previous layer's, once its layer is done
 * with, where it has as many (every entry is written before it is read):
 * a new one cost a 1%-changed layer a page fault per 170 entries as it was
 * filled (6 MiB for 1 GiB of 4 KiB blocks). */
static fti_dcp_block *take_spare_map(fti_ctx *ctx, uint64_t n)
{
    fti_dcp_share *s = &ctx->dcp_last;
    fti_dcp_block *m = s->spare_map;
    if (m == NULL || s->spare_blocks != n) {
        free(m);
        m = calloc(n ? n : 1, sizeof *m);
    }
    s->spare_map = NULL;
    s->spare_blocks = 0;
    return m;
}

/* Keeps the map array of prev (done with) for the next layer's map. */
static void keep_spare_map(fti_ctx *ctx, fti_dcp_layer *prev)
{
    free(ctx->dcp_last.spare_map);
    ctx->dcp_last.spare_map = prev->map;
    ctx->dcp_last.spare_blocks = prev->nblocks;
    prev->map = NULL;
}

/* The layer's fixed fields and image table for checkpoint c. */
static fti_err plan_layer(fti_ctx *ctx, const fti_commit *c, const fti_dcp_layer *prev,
                          fti_dcp_layer *l)
{
    memset(l, 0, sizeof *l);
    fti_err e = fti_file_plan(&ctx->reg, &l->image);
    if (e != FTI_E_OK)
        return e;
    l->image.version = FTI_FILE_VERSION;
    l->image.kind = FTI_KIND_DATA;
    l->image.seq = c->seq;
    l->image.ckpt_id = c->id;
    l->image.level = 4;
    l->image.rank = (uint32_t)ctx->topo.app_rank;
    l->image.nonce = c->nonce; /* the image restored from this layer is c's */
    l->rank = (uint32_t)ctx->topo.app_rank;
    l->seq = c->seq;
    l->base_seq = prev != NULL ? prev->base_seq : c->seq;
    l->depth = prev != NULL ? prev->depth + 1 : 0;
    l->block_size = block_size(ctx);
    l->nblocks = fti_dcp_count_blocks(&l->image, l->block_size);
    l->data_offset = fti_dcp_data_offset(&l->image, l->nblocks);
    l->map = take_spare_map(ctx, l->nblocks);
    if (l->map == NULL)
        return fti_fail(FTI_E_NOMEM, "dCP: out of memory for a map of %llu blocks",
                        (unsigned long long)l->nblocks);
    return FTI_E_OK;
}

/* The layer's header region in l->enc, kept with the layer for the next
 * one: patched from prev's where prev has one laid out alike. Encoding the
 * whole map into fresh memory at each layer (6 MiB for 1 GiB of 4 KiB
 * blocks) was most of a 1%-changed layer's map phase (bench_dcp). */
static fti_err encode_header(writer *w)
{
    unsigned char *buf = w->prev != NULL ? w->prev->enc : NULL;
    if (buf != NULL && fti_dcp_encode_patch(w->l, w->prev, buf) == 0) {
        w->prev->enc = NULL; /* now the new layer's */
        w->l->enc = buf;
        return FTI_E_OK;
    }
    return fti_dcp_encode(w->l, &w->l->enc);
}

/* Blocks first, then the header region, fsync: a crash before the rename
 * leaves only a temporary file. */
static fti_err write_layer(fti_ctx *ctx, writer *w)
{
    fti_err e = FTI_E_OK;
    for (int i = 0; e == FTI_E_OK && i < ctx->reg.nvars; i++)
        e = write_var(w, &ctx->reg.vars[i], &w->l->image.vars[i]);
    if (e == FTI_E_OK)
        e = flush_run(w);
    if (e != FTI_E_OK)
        return e;
    /* the blocks are written, the map is not */
    fti_fault_phase(FTI_PHASE_DCP_LAYER);
    fti_fault_wrote(FTI_PHASE_DCP_LAYER, w->path, 0, 0);
    double t0 = fti_now();
    if ((e = encode_header(w)) != FTI_E_OK)
        return e;
    if (fti_pwrite_full(w->fd, w->l->enc, (size_t)w->l->data_offset, 0) != 0 ||
        ftruncate(w->fd, (off_t)(w->l->data_offset + w->l->data_size)) != 0 || fti_fsync(w->fd) != 0)
        e = fti_fail(FTI_E_IO, "dCP layer %s: %s", w->path, fti_fs_strerror(errno));
    w->t[FTI_DCP_T_MAP] += fti_now() - t0;
    return e;
}

static fti_err publish(const fti_ctx *ctx, const char *tmp, const char *path)
{
    char dir[FTI_PATH_MAX];
    layer_dir(ctx, dir);
    if (rename(tmp, path) != 0)
        return fti_fail(FTI_E_IO, "dCP: cannot rename %s to %s: %s", tmp, path, fti_fs_strerror(errno));
    if (fti_fsync_dir(dir) != 0)
        return fti_fail(FTI_E_IO, "dCP: cannot sync the directory %s: %s", dir,
                        fti_fs_strerror(errno));
    return FTI_E_OK;
}

/* Whether the page tracker's record can stand for the changes since prev
 * (NULL: none); logs once why not where tracking is off or was undone. */
static int tracker_since(fti_ctx *ctx, const fti_dcp_layer *prev)
{
    fti_dcp_share *s = &ctx->dcp_last;
    if (ctx->cfg.dcp_dirty_tracking && !fti_dirty_handler_intact()) {
        fti_dirty_release_all();
        ctx->cfg.dcp_dirty_tracking = 0;
        s->dirty_noted = 0;
        fti_log(FTI_LOG_WARN, "dCP: the application replaced the SIGSEGV handler of dirty "
                "tracking; tracking stops for this run (install yours before FTI_Init)");
    }
    if (!ctx->cfg.dcp_dirty_tracking && !s->dirty_noted) {
        fti_log_rank0(FTI_LOG_INFO, "dCP: dirty tracking off ([advanced] dcp_dirty_tracking = 0): "
                      "every block is hashed at each dCP checkpoint");
        s->dirty_noted = 1;
    }
    return ctx->cfg.dcp_dirty_tracking && prev != NULL && s->dirty_since != 0 &&
           prev->seq == s->dirty_since;
}

fti_err fti_dcp_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    double *t = ctx->dcp_last.t, t0 = fti_now();
    memset(ctx->dcp_last.t, 0, sizeof ctx->dcp_last.t);
    fti_dcp_layer prev, l;
    int have_prev = load_prev(ctx, &prev);
    fti_err e = plan_layer(ctx, c, have_prev ? &prev : NULL, &l);
    char path[FTI_PATH_MAX], tmp[FTI_PATH_MAX];
    layer_path(ctx, path, c->seq);
    fti_path_temp(tmp, path, "tmp");
    writer w = {-1, tmp, &l, have_prev ? &prev : NULL, 0, ctx,
                tracker_since(ctx, have_prev ? &prev : NULL), 0, t, NULL, 0, 0};
    t[FTI_DCP_T_PREV] = fti_now() - t0;
    /* from here the tracker records changes since this layer; it stands for
     * them only once this layer is written (and then committed: see tracker_since) */
    ctx->dcp_last.dirty_since = 0;
    if (e == FTI_E_OK)
        e = fti_layout_create_fanout(&ctx->dirs, &ctx->cfg, ctx->topo.app_rank);
    if (e == FTI_E_OK && (w.fd = fti_open_new(tmp)) < 0)
        e = fti_fail(FTI_E_IO, "dCP layer %s: cannot create: %s", tmp, fti_fs_strerror(errno));
    if (e == FTI_E_OK)
        e = write_layer(ctx, &w);
    if (w.fd >= 0)
        close(w.fd);
    t0 = fti_now();
    if (e == FTI_E_OK)
        e = publish(ctx, tmp, path);
    t[FTI_DCP_T_PUBLISH] = fti_now() - t0;
    if (e != FTI_E_OK)
        unlink(tmp);
    else
        fti_log(FTI_LOG_DEBUG, "dCP layer #%llu: %llu of %llu bytes written, %llu hashed "
                "(depth %u, dirty tracking %s)", (unsigned long long)c->seq,
                (unsigned long long)l.data_size,
                (unsigned long long)(l.image.file_size - l.image.data_offset),
                (unsigned long long)w.hashed, l.depth,
                w.since_prev ? "used" : ctx->cfg.dcp_dirty_tracking ? "starting" : "off");
    if (e == FTI_E_OK)
        fti_log(FTI_LOG_DEBUG, "dCP layer #%llu seconds: previous map %.4f, tracker %.4f, "
                "hash %.4f, write %.4f, map %.4f, publish %.4f", (unsigned long long)c->seq,
                t[FTI_DCP_T_PREV], t[FTI_DCP_T_TRACK], t[FTI_DCP_T_HASH], t[FTI_DCP_T_WRITE],
                t[FTI_DCP_T_MAP], t[FTI_DCP_T_PUBLISH]);
    *bytes = l.data_offset + l.data_size;
    fti_dcp_share *share = &ctx->dcp_last; /* for fti_dcp_report */
    share->dirty_since = e == FTI_E_OK && ctx->cfg.dcp_dirty_tracking ? c->seq : 0;
    share->hashed = w.hashed;
    share->changed = e == FTI_E_OK ? l.data_size : 0;
    share->data = 0;
    for (uint32_t i = 0; e == FTI_E_OK && i < l.image.nvars; i++)
        share->data += l.image.vars[i].nbytes;
    if (e == FTI_E_OK && (share->kept = malloc(sizeof l)) != NULL)
        *share->kept = l; /* the next layer's previous map, if this one is committed */
    else
        fti_dcp_layer_free(&l);
    if (have_prev) {
        keep_spare_map(ctx, &prev);
        fti_dcp_layer_free(&prev);
    }
    return e;
}

/* FTI's dCP statistics line, on stdout as FTI prints it (FTI's test suites
 * read the share from it). MiB, GiB or TiB as FTI chooses the unit. */
static void print_share(uint64_t data, uint64_t changed)
{
    const char *unit[3] = {"MB", "GB", "TB"};
    int ud = data > (1ULL << 40) ? 2 : data > (1ULL << 30) ? 1 : 0;
    int uc = changed > (1ULL << 40) ? 2 : changed > (1ULL << 30) ? 1 : 0;
    printf("[ FTI  dCP Message ] : Total CP data: %.2f %s, Total dCP update: %.2f %s, "
           "dCP share: %.2f%%\n", (double)data / (double)(1ULL << (20 + 10 * ud)), unit[ud],
           (double)changed / (double)(1ULL << (20 + 10 * uc)), unit[uc],
           data ? 100.0 * (double)changed / (double)data : 0.0);
    fflush(stdout);
}

void fti_dcp_report(fti_ctx *ctx)
{
    uint64_t mine[2] = {ctx->dcp_last.changed, ctx->dcp_last.data}, sum[2];
    MPI_Reduce(mine, sum, 2, MPI_UINT64_T, MPI_SUM, 0, ctx->topo.app);
    if (ctx->topo.app_rank == 0) /* at every verbosity, as FTI */
        print_share(sum[1], sum[0]);
}

/* ---- recovery ------------------------------------------------------------- */

/* c's own layer is c's: checked before assembling, so that a layer written
 * over it by another job is named (its image would be refused too). */
static fti_err top_layer_ours(const fti_ctx *ctx, const fti_commit *c)
{
    char path[FTI_PATH_MAX];
    fti_dcp_layer l;
    layer_path(ctx, path, c->seq);
    fti_err e = fti_dcp_read(path, ctx->topo.app_rank, c->seq, &l);
    if (e != FTI_E_OK)
        return e;
    e = fti_dcp_check_owner(&l, path, c->nonce);
    fti_dcp_layer_free(&l);
    if (e != FTI_E_OK)
        fti_log(FTI_LOG_WARN, "refused: %s", fti_last_error());
    return e;
}

fti_err fti_dcp_rebuild(fti_ctx *ctx, const fti_commit *c)
{
    int rank = ctx->topo.app_rank;
    char local[FTI_PATH_MAX]; /* renamed into place once every rank can restore */
    fti_path_rebuilt(&ctx->dirs, local, 4, c->slot, rank);
    fti_err e = top_layer_ours(ctx, c);
    if (e != FTI_E_OK)
        return e;
    int fd = fti_open_new(local);
    if (fd < 0)
        return fti_fail(FTI_E_IO, "dCP rank %d: cannot create the local file %s: %s", rank, local,
                        fti_fs_strerror(errno));
    char dir[FTI_PATH_MAX];
    layer_dir(ctx, dir);
    e = fti_dcp_assemble(dir, rank, c->seq, fd, local);
    if (e == FTI_E_OK && fti_fsync(fd) != 0)
        e = fti_fail(FTI_E_IO, "dCP rank %d: cannot sync %s: %s", rank, local, fti_fs_strerror(errno));
    close(fd);
    if (e == FTI_E_OK)
        e = fti_l4_verify_restored(ctx, local, c, rank, "dCP", "(its chain of layers)", NULL);
    if (e != FTI_E_OK)
        unlink(local);
    return e;
}

/* ---- removing layers ------------------------------------------------------ */

/* The oldest layer seq that a committed dCP checkpoint needs (its chain's
 * base); UINT64_MAX when none needs any, 0 when unknown (keep everything). */
static uint64_t oldest_needed(const fti_ctx *ctx)
{
    uint64_t min = UINT64_MAX;
    const fti_commit *cs[2] = {&ctx->meta.cur[4], &ctx->meta.prev[4]};
    for (int i = 0; i < 2; i++) {
        if (!is_layer(cs[i]))
            continue;
        char path[FTI_PATH_MAX];
        fti_dcp_layer l;
        layer_path(ctx, path, cs[i]->seq);
        if (fti_dcp_read_fixed(path, ctx->topo.app_rank, cs[i]->seq, &l) != FTI_E_OK)
            return 0; /* its header alone: reading its map too cost a 1% layer a third */
        if (l.base_seq < min)
            min = l.base_seq;
    }
    return min;
}

void fti_dcp_collect(fti_ctx *ctx)
{
    uint64_t keep_from = oldest_needed(ctx);
    char dir[FTI_PATH_MAX];
    layer_dir(ctx, dir);
    DIR *d = opendir(dir);
    if (keep_from == 0 || d == NULL) {
        if (d != NULL)
            closedir(d);
        return;
    }
    struct dirent *ent;
    char path[FTI_PATH_MAX + 256];
    while ((ent = readdir(d)) != NULL) {
        uint64_t seq;
        int tmp;
        if (!fti_name_dcp_layer(ent->d_name, ctx->topo.app_rank, &seq, &tmp) || (!tmp && seq >= keep_from))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            fti_log(FTI_LOG_WARN, "dCP: cannot remove %s: %s", path, fti_fs_strerror(errno));
    }
    closedir(d);
}

void fti_dcp_release(fti_ctx *ctx)
{
    forget_kept(ctx);
    free(ctx->dcp_last.spare_map);
    ctx->dcp_last.spare_map = NULL;
    ctx->dcp_last.spare_blocks = 0;
    free(ctx->dcp_last.paused);
    ctx->dcp_last.paused = NULL;
    ctx->dcp_last.npaused = 0;
    fti_dirty_release_all();
}

/* ---- the store ------------------------------------------------------------- */

static int layer_direct(fti_ctx *ctx, const fti_commit *c)
{
    (void)ctx, (void)c;
    return 1;
}

/* The new layer's commit makes older chains obsolete. */
static void layer_committed(fti_ctx *ctx, const fti_commit *c)
{
    (void)c;
    double t0 = fti_now();
    fti_dcp_collect(ctx);
    ctx->dcp_last.t[FTI_DCP_T_COLLECT] = fti_now() - t0;
}

const fti_l4_store fti_l4_dcp_store = {
    .kind = &fti_l4_kinds[FTI_L4K_DCP], .direct = layer_direct, .write = fti_dcp_write,
    .restore = fti_dcp_rebuild, .committed = layer_committed};
