/*
 * l3_rs.c - level 3: Reed-Solomon parity across each group of G nodes. The
 * code (rs_codec.h) has G data chunks (each member's local file, shorter
 * ones padded with zeros logically) and G parity chunks, one stored on each
 * member, so any G/2 lost nodes of a group (2 chunks each) are rebuilt.
 *
 * Encoding is distributed: every member gathers the group's data and
 * computes its own parity row (l3_encode.c). A restart re-creates only the
 * lost data chunks, on their owners (l3_decode.c), so the application gets
 * its bytes first; the lost parity follows, from the data, in a second pass
 * of the same stream once the checkpoint is chosen, or at the next
 * checkpoint while the group can still lose a node (l3_reprotect). Data
 * moves in large pipelined messages, whatever block_size is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/collective.h"
#include "format/ckpt_expect.h"
#include "base/fault.h"
#include "base/fio.h"
#include "base/integrity.h"
#include "levels/l3_rs.h"
#include "core/levels.h"
#include "base/log.h"
#include "base/phase_clock.h"
#include "base/walltime.h"
#include "base/safe_fs.h"
#include "runtime/watchdog.h"

#define MAX_G FTI_RS_MAX_G
#define MANIFEST_ID (-1)
#define PARITY_ID (-2)

typedef fti_l3_job l3_job;

static fti_err job_init(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring, l3_job *j)
{
    memset(j, 0, sizeof *j);
    j->r = *ring;
    j->G = j->r.size;
    if (j->G < 2 || j->G > MAX_G)
        return fti_fail(FTI_E_CONFIG, "config %s: level 3 needs [basic] group_size of 2 to %d, it is %d",
                        ctx->cfg.file, MAX_G, j->G);
    if (fti_rs_code_init(&j->code, j->G) != 0)
        return fti_fail(FTI_E_NOMEM, "L3: cannot build the Reed-Solomon code of a group of %d", j->G);
    int rank = ring->app_rank[ring->pos];
    fti_path_local(&ctx->dirs, j->data_path, 3, c->slot, rank);
    fti_path_parity(&ctx->dirs, j->parity_path, c->slot, rank);
    fti_path_rebuilt(&ctx->dirs, j->rebuilt_path, 3, c->slot, rank);
    fti_path_parity_rebuilt(&ctx->dirs, j->parity_rebuilt_path, c->slot, rank);
    j->exec_tag = fti_exec_tag(ctx->dirs.exec_id);
    return FTI_E_OK;
}

/* Every member's file size into j->size, from each member's `mine`. */
static void gather_sizes(l3_job *j, uint64_t mine)
{
    fti_watched_allgather(&mine, 1, MPI_UINT64_T, j->size, j->r.comm, "L3: the group's file sizes");
}

/* smax and the message size follow the members' sizes. */
static void set_sizes(l3_job *j)
{
    j->smax = 0;
    for (int i = 0; i < j->G; i++)
        if (j->size[i] > j->smax)
            j->smax = j->size[i];
    j->msg = fti_l3_message(j->G, j->smax);
}

/* ---- the parity file: a manifest (members' sizes) and the parity bytes ---- */

/* Where the parity bytes start (docs/FORMAT.md: after header and manifest). */
static uint64_t parity_offset(void)
{
    return fti_file_header_size(2) + FTI_FILE_ALIGN;
}

static void parity_header(const l3_job *j, const fti_commit *c, int rank, fti_file_header *h,
                          fti_file_entry e[2])
{
    memset(h, 0, sizeof *h);
    memset(e, 0, 2 * sizeof *e);
    h->version = FTI_FILE_VERSION;
    h->kind = FTI_KIND_PARITY;
    h->seq = c->seq;
    h->ckpt_id = c->id;
    h->level = 3;
    h->rank = (uint32_t)rank;
    h->exec_tag = j->exec_tag;
    h->nonce = c->nonce;
    h->nvars = 2;
    h->data_offset = fti_file_header_size(2);
    h->vars = e;
    e[0] = (fti_file_entry){MANIFEST_ID, -1, 8, (uint64_t)j->G, h->data_offset, 8 * (uint64_t)j->G, 0, "l3-manifest"};
    e[1] = (fti_file_entry){PARITY_ID, -1, 1, j->smax, parity_offset(), j->smax, 0, "l3-parity"};
    h->file_size = e[1].offset + j->smax;
}

static void encode_manifest(const l3_job *j, unsigned char *buf)
{
    for (int i = 0; i < j->G; i++)
        for (int b = 0; b < 8; b++)
            buf[8 * i + b] = (unsigned char)(j->size[i] >> (8 * b));
}

/* Writes manifest and header; the parity bytes were written already. */
static int finish_parity(int fd, const l3_job *j, fti_file_header *h, fti_file_entry e[2])
{
    unsigned char man[8 * MAX_G];
    encode_manifest(j, man);
    e[0].checksum = fti_hash_buffer(man, e[0].nbytes);
    unsigned char *hbuf = calloc(1, FTI_FILE_ALIGN * 2);
    if (hbuf == NULL)
        return -1;
    fti_file_header_encode(h, hbuf);
    memcpy(hbuf + FTI_FILE_ALIGN, man, e[0].nbytes);
    int rc = fti_pwrite_full(fd, hbuf, 2 * FTI_FILE_ALIGN, 0);
    free(hbuf);
    if (rc == 0)
        rc = ftruncate(fd, (off_t)h->file_size);
    return rc == 0 ? fti_fsync(fd) : -1;
}

/* ---- encode --------------------------------------------------------------- */

/* Collective over ring: this member's parity file of checkpoint c. */
static fti_err l3_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    l3_job j;
    fti_err e = job_init(ctx, c, ring, &j);
    if (e != FTI_E_OK)
        return e;
    struct stat st;
    int data_fd = fti_open_read(j.data_path);
    int parity_fd = fti_open_existing_for_write(j.parity_path);
    uint64_t mine = (data_fd >= 0 && fstat(data_fd, &st) == 0) ? (uint64_t)st.st_size : 0;
    double t0 = fti_now();
    gather_sizes(&j, mine);
    fti_phase_since(FTI_PP_AGREE, t0);
    set_sizes(&j);
    fti_file_header h;
    fti_file_entry ent[2];
    parity_header(&j, c, ring->app_rank[ring->pos], &h, ent);
    if (data_fd < 0 || parity_fd < 0)
        e = fti_fail(FTI_E_IO, "L3: cannot open %s: %s", data_fd < 0 ? j.data_path : j.parity_path,
                     fti_fs_strerror(errno));
    /* the image, where it describes this very file (a re-encode at restart has none) */
    int err = fti_l3_encode(&j, data_fd, fti_file_image_for(ctx->post_image, mine), parity_fd,
                            ent[1].offset, &ent[1].checksum);
    if (e == FTI_E_OK && err == ENOMEM)
        e = fti_fail(FTI_E_NOMEM, "L3 encoding of %s: out of memory on a group member", j.parity_path);
    else if (e == FTI_E_OK && err)
        e = fti_fail(FTI_E_IO, "L3 encoding of %s: %s", j.parity_path, fti_fs_strerror(err));
    t0 = fti_now();
    int finished = e == FTI_E_OK ? finish_parity(parity_fd, &j, &h, ent) : 0;
    fti_phase_since(FTI_PP_SYNC, t0);
    if (finished != 0)
        e = fti_fail(FTI_E_IO, "L3: writing %s: %s", j.parity_path, fti_fs_strerror(errno));
    if (data_fd >= 0)
        close(data_fd);
    if (parity_fd >= 0)
        close(parity_fd);
    return e;
}

/* The level's post-processing: the parity, then (FTI_FAULT) its damage. */
static fti_err l3_post_op(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    fti_err e = l3_post(ctx, c, ring);
    if (e == FTI_E_OK && fti_fault_enabled) {
        char parity[FTI_PATH_MAX];
        fti_path_parity(&ctx->dirs, parity, c->slot, ring->app_rank[ring->pos]);
        fti_fault_wrote(fti_l3_ops.phase, parity, 0, 0);
    }
    return e;
}

/* ---- rebuild -------------------------------------------------------------- */

/* This member's parity file, verified against what the commit record says
 * (another group's or checkpoint's parity counts as lost); its manifest
 * fills j->size. */
static int load_parity(fti_ctx *ctx, l3_job *j, const fti_commit *c)
{
    fti_file_header h;
    fti_expect x;
    fti_expect_parity(&x, c, j->r.app_rank[j->r.pos], j->G, ctx->dirs.exec_id);
    int ok = fti_expect_probe(&x, j->parity_path, &h) == FTI_E_OK;
    if (!ok)
        return 0;
    unsigned char man[8 * MAX_G];
    int fd = fti_open_read(j->parity_path);
    if (fd < 0 || fti_pread_full(fd, man, 8 * (size_t)j->G, (off_t)h.vars[0].offset) != 0 ||
        h.vars[1].offset != parity_offset())
        ok = 0;
    for (int i = 0; ok && i < j->G; i++) {
        j->size[i] = 0;
        for (int b = 7; b >= 0; b--)
            j->size[i] = (j->size[i] << 8) | man[8 * i + b];
    }
    if (fd >= 0)
        close(fd);
    fti_file_header_free(&h);
    return ok;
}

static fti_err lost_too_many(const fti_ctx *ctx, const l3_job *j, const int *own, const int *par)
{
    char list[256] = "";
    size_t n = 0;
    int count = 0;
    for (int i = 0; i < j->G; i++)
        if (!own[i] || !par[i]) {
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", count ? ", " : "",
                                  fti_plan_node(&ctx->topo.shape, j->r.app_rank[i]));
            count++;
        }
    return fti_fail(FTI_E_MISSING, "L3: group %d lost data or parity on %d nodes (%s); a group of %d "
                    "nodes can rebuild at most %d lost nodes", ctx->topo.group, count, list, j->G,
                    j->G / 2);
}

/* The decoded file must be this rank's data of c, every byte: checked as
 * the rebuild wrote it (chk), not read back. */
static fti_err check_decoded(fti_ctx *ctx, const fti_commit *c, const l3_job *j,
                             fti_file_stream *chk)
{
    fti_expect x;
    fti_expect_data(&x, c, j->r.app_rank[j->r.pos], ctx->dirs.exec_id, "L3 decoded file");
    fti_log_quiet(1);
    fti_err e = fti_expect_streamed(&x, chk);
    fti_log_quiet(0);
    if (e == FTI_E_OK) {
        ctx->rec.rebuilt = fti_file_version_of(-1, j->rebuilt_path);
        return FTI_E_OK;
    }
    char why[600];
    snprintf(why, sizeof why, "%s", fti_last_error());
    unlink(j->rebuilt_path);
    return fti_fail(FTI_E_CORRUPT, "L3: rebuilt %s does not verify: %s", j->data_path, why);
}

static void close_io(const fti_l3_io *io)
{
    const int fds[4] = {io->data_fd, io->parity_fd, io->out_data_fd, io->out_parity_fd};
    for (int i = 0; i < 4; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* Opens what this member reads (its surviving chunks) and writes (its
 * chunks that the plan re-creates); a failure shows as -1 and is reported
 * by the stream. */
static void open_io(const l3_job *j, int own, int par, const fti_rs_plan *plan, fti_l3_io *io)
{
    int p = j->r.pos;
    io->parity_off = parity_offset();
    io->check = NULL;
    io->data_fd = own ? fti_open_read(j->data_path) : -1;
    io->parity_fd = par ? fti_open_read(j->parity_path) : -1;
    io->out_data_fd = fti_rs_planned(plan, p) ? fti_open_new_rdwr(j->rebuilt_path) : -1;
    io->out_parity_fd =
        fti_rs_planned(plan, j->G + p) ? fti_open_new_rdwr(j->parity_rebuilt_path) : -1;
}

/* Header and manifest of the re-created parity, once its bytes are in. */
static int finish_rebuilt_parity(const l3_job *j, const fti_commit *c, int fd, uint64_t sum)
{
    fti_file_header h;
    fti_file_entry ent[2];
    parity_header(j, c, j->r.app_rank[j->r.pos], &h, ent);
    ent[1].checksum = sum;
    return finish_parity(fd, j, &h, ent) == 0 ? 0 : (errno ? errno : EIO);
}

/* Streams the chunks of plan onto their owners; a data file is verified,
 * a parity file given its header. Leaves nothing behind on failure. */
static fti_err rebuild_lost(fti_ctx *ctx, const fti_commit *c, const l3_job *j, const int *own,
                            const int *par, const fti_rs_plan *plan)
{
    int p = j->r.pos;
    int make_data = fti_rs_planned(plan, p), make_parity = fti_rs_planned(plan, j->G + p);
    fti_l3_io io;
    fti_file_stream chk;
    open_io(j, own[p], par[p], plan, &io);
    int err = make_data && fti_file_stream_init(&chk, j->rebuilt_path) != FTI_E_OK ? ENOMEM : 0;
    io.check = make_data && !err ? &chk : NULL;
    uint64_t sum = 0;
    int serr = fti_l3_rebuild_stream(j, plan, &io, &sum); /* collective: always joined */
    err = err ? err : serr;
    if (!err && make_data && fti_fsync(io.out_data_fd) != 0)
        err = errno ? errno : EIO;
    if (!err && make_parity)
        err = finish_rebuilt_parity(j, c, io.out_parity_fd, sum);
    close_io(&io);
    fti_err e = FTI_E_OK;
    if (err)
        e = fti_fail(err == ENOMEM ? FTI_E_NOMEM : FTI_E_IO, "L3: rebuilding %s: %s",
                     make_data ? j->data_path : j->parity_path, fti_fs_strerror(err));
    if (e == FTI_E_OK && make_data)
        e = check_decoded(ctx, c, j, &chk);
    else if (make_data)
        fti_file_stream_free(&chk);
    if (e != FTI_E_OK) {
        unlink(j->parity_rebuilt_path);
        if (make_data)
            unlink(j->rebuilt_path);
    }
    return e;
}

/* Every member's file sizes: from a surviving manifest, or, when no parity
 * survived but every data file did, from the files themselves. */
static int agree_sizes(l3_job *j, const int *own, const int *par, int own_ok)
{
    int root = -1, all_own = 1;
    for (int i = 0; i < j->G; i++) {
        all_own &= own[i];
        if (par[i] && root < 0)
            root = i;
    }
    if (root >= 0) {
        fti_watched_bcast(j->size, j->G, MPI_UINT64_T, root, j->r.comm,
                          "L3 rebuild: file sizes from a parity manifest");
    } else if (all_own) {
        struct stat st;
        uint64_t mine = own_ok && stat(j->data_path, &st) == 0 ? (uint64_t)st.st_size : 0;
        gather_sizes(j, mine);
    } else {
        return -1;
    }
    set_sizes(j);
    return 0;
}

/* Restart: only the lost data comes back now, so the application gets its
 * bytes first; lost parity is re-created by l3_reprotect. */
static fti_err l3_rebuild(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    l3_job j;
    fti_ring ring;
    fti_ring_of(ctx, &ring);
    ctx->rec.extra_ok = 0;
    fti_err e = job_init(ctx, c, &ring, &j);
    if (e != FTI_E_OK)
        return e;
    int own[MAX_G], par[MAX_G], lost = 0;
    ctx->rec.extra_ok = load_parity(ctx, &j, c);
    fti_ring_allgather(&j.r, own_ok, own);
    fti_ring_allgather(&j.r, ctx->rec.extra_ok, par);
    for (int i = 0; i < j.G; i++)
        lost += !own[i];
    if (lost == 0)
        return FTI_E_OK;
    fti_rs_plan plan;
    if (fti_rs_plan_rebuild(&j.code, own, par, &plan) != 0 || agree_sizes(&j, own, par, own_ok) != 0)
        return lost_too_many(ctx, &j, own, par);
    fti_rs_plan_drop_parity(&plan);
    return rebuild_lost(ctx, c, &j, own, par, &plan);
}

/* The checkpoint was not chosen: re-created parity goes with it. */
static void l3_discard(fti_ctx *ctx, const fti_commit *c)
{
    char path[FTI_PATH_MAX];
    fti_path_parity_rebuilt(&ctx->dirs, path, c->slot, ctx->topo.app_rank);
    unlink(path);
}

/* This member's re-created parity takes the lost one's place. */
static int adopt_parity(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    char path[FTI_PATH_MAX], rebuilt[FTI_PATH_MAX];
    int rank = ring->app_rank[ring->pos];
    fti_path_parity(&ctx->dirs, path, c->slot, rank);
    fti_path_parity_rebuilt(&ctx->dirs, rebuilt, c->slot, rank);
    fti_expect x;
    fti_expect_parity(&x, c, rank, ring->size, ctx->dirs.exec_id);
    fti_log_quiet(1);
    /* Its parity bytes were hashed as the rebuild wrote them (the checksum
     * in its header), as a checkpoint's parity is: the header is checked. */
    int ok = fti_expect_file(&x, rebuilt, 0, NULL) == FTI_E_OK;
    fti_log_quiet(0);
    return ok && rename(rebuilt, path) == 0 && fti_fsync_dir(ctx->dirs.local) == 0;
}

/* The parity of c lost on some members, re-created from the group's data
 * (all in place again) on those members, then put in place. Should that
 * fail anywhere, the group encodes its parity again, so c is never left
 * half protected. Collective over ring. */
static void recreate_parity(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring, l3_job *j,
                            const int *par)
{
    int own[MAX_G];
    for (int i = 0; i < j->G; i++)
        own[i] = 1;
    fti_rs_plan plan; /* both steps depend on par alone: they fail on every member or none */
    if (fti_rs_plan_rebuild(&j->code, own, par, &plan) != 0 || agree_sizes(j, own, par, 1) != 0)
        return; /* cannot happen: every data chunk is there */
    int ok = rebuild_lost(ctx, c, j, own, par, &plan) == FTI_E_OK;
    ok = ok && (par[ring->pos] || adopt_parity(ctx, c, ring));
    if (fti_all_ok(ring->comm, ok))
        return;
    fti_log(FTI_LOG_WARN, "L3: re-created parity could not be adopted in group %d; encoding it again",
            ctx->topo.group);
    l3_discard(ctx, c);
    if (l3_post(ctx, c, ring) != FTI_E_OK)
        fti_log(FTI_LOG_WARN, "L3: could not re-create the lost parity file %s", j->parity_path);
}

/* Lost parity of the chosen checkpoint c. A restart leaves it for later
 * (the application goes first) while the group can still lose a node:
 * with p parity chunks missing, 2G - p chunks remain, a node holds 2 and G
 * are needed, so (G - p) / 2 more lost nodes are survived: p <= G - 2. */
static int l3_reprotect(fti_ctx *ctx, const fti_commit *c, int may_defer)
{
    fti_ring ring;
    fti_ring_of(ctx, &ring);
    l3_job j;
    if (job_init(ctx, c, &ring, &j) != FTI_E_OK)
        return 0;
    /* Right after the rebuild, its verdict on this member's parity stands;
     * later, the parity is checked again (and its manifest read) now. */
    int par[MAX_G], lost = 0, mine = may_defer ? ctx->rec.extra_ok : load_parity(ctx, &j, c);
    fti_ring_allgather(&ring, mine, par);
    for (int i = 0; i < ring.size; i++)
        lost += !par[i];
    if (lost == 0)
        return 0;
    if (may_defer && lost <= j.G - 2) {
        if (ring.pos == 0)
            fti_log(FTI_LOG_INFO, "L3: group %d lost the parity of %d node(s); it is re-created at "
                    "the next checkpoint or FTI_Finalize (until then the group survives %d lost "
                    "node(s), not %d)", ctx->topo.group, lost, (j.G - lost) / 2, j.G / 2);
        return 1;
    }
    if (may_defer && mine)
        load_parity(ctx, &j, c); /* the members' sizes, from its manifest */
    recreate_parity(ctx, c, &ring, &j, par);
    return 0;
}

static void l3_remove(fti_ctx *ctx, int slot)
{
    char path[FTI_PATH_MAX];
    fti_path_parity(&ctx->dirs, path, slot, ctx->topo.app_rank);
    unlink(path);
    fti_path_parity_rebuilt(&ctx->dirs, path, slot, ctx->topo.app_rank); /* a crashed restart's */
    unlink(path);
}

const fti_level_ops fti_l3_ops = {.level = 3, .name = "L3 Reed-Solomon",
                                  .phase = FTI_PHASE_L3_ENCODE, .post = l3_post_op,
                                  .rebuild = l3_rebuild, .reprotect = l3_reprotect,
                                  .discard = l3_discard, .remove = l3_remove};
