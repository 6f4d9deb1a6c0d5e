/*
 * l3_rs.c - level 3: Reed-Solomon parity across each group of G nodes. The
 * code has G data chunks (each member's local file, shorter ones padded with
 * zeros logically) and G parity chunks, one stored on each member, so any
 * G/2 lost nodes of a group (2 chunks each) are rebuilt.
 *
 * Encoding is distributed: every member gathers the group's data chunk by
 * chunk and computes its own parity row j (one dot product over the G
 * chunks). Decoding multiplies each surviving chunk by its column of the
 * inverse of the surviving rows, and one reduce-scatter with XOR (addition
 * in GF(2^8)) sums the shares onto the lost members only. Data moves once,
 * in block_size chunks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collective.h"
#include "ckpt_expect.h"
#include "fault.h"
#include "fio.h"
#include "gf_region.h"
#include "integrity.h"
#include "levels.h"
#include "log.h"
#include "plan.h"
#include "ring.h"
#include "rs_codec.h"

#define MAX_G FTI_GROUP_MAX
#define MANIFEST_ID (-1)
#define PARITY_ID (-2)

typedef struct l3_job {
    fti_ring r;
    int G;
    int coef[MAX_G][MAX_G]; /* coding matrix: parity row j, data column i */
    uint64_t size[MAX_G];   /* members' local file sizes */
    uint64_t smax;
    size_t chunk;           /* multiple of FTI_GF_ALIGN */
    uint64_t exec_tag;      /* written into the parity headers */
    char data_path[FTI_PATH_MAX], parity_path[FTI_PATH_MAX];
    char rebuilt_path[FTI_PATH_MAX]; /* where a lost data file is decoded to */
} l3_job;

static fti_err job_init(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring, l3_job *j)
{
    memset(j, 0, sizeof *j);
    j->r = *ring;
    j->G = j->r.size;
    if (j->G < 2 || j->G > MAX_G)
        return fti_fail(FTI_E_CONFIG, "config %s: level 3 needs [basic] group_size of 2 to %d, it is %d",
                        ctx->cfg.file, MAX_G, j->G);
    int err = fti_l3_coding_matrix(j->G, j->coef);
    if (err != 0)
        return fti_fail(FTI_E_NOMEM, "L3: cannot build the Reed-Solomon code: %s", fti_rs_strerror(err));
    j->chunk = fti_gf_round((size_t)ctx->cfg.block_size);
    fti_path_local(&ctx->dirs, j->data_path, 3, c->slot, ring->app_rank[ring->pos]);
    fti_path_parity(&ctx->dirs, j->parity_path, c->slot, ring->app_rank[ring->pos]);
    fti_path_rebuilt(&ctx->dirs, j->rebuilt_path, 3, c->slot, ring->app_rank[ring->pos]);
    j->exec_tag = fti_exec_tag(ctx->dirs.exec_id);
    return FTI_E_OK;
}

static void set_smax(l3_job *j)
{
    j->smax = 0;
    for (int i = 0; i < j->G; i++)
        if (j->size[i] > j->smax)
            j->smax = j->size[i];
}

/* ---- the parity file: a manifest (members' sizes) and the parity bytes ---- */

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
    h->nvars = 2;
    h->data_offset = fti_file_header_size(2);
    h->vars = e;
    e[0] = (fti_file_entry){MANIFEST_ID, -1, 8, (uint64_t)j->G, h->data_offset, 8 * (uint64_t)j->G, 0, "l3-manifest"};
    e[1] = (fti_file_entry){PARITY_ID, -1, 1, j->smax, h->data_offset + FTI_FILE_ALIGN, j->smax, 0, "l3-parity"};
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

typedef struct bufs {
    unsigned char *in, *part, *out;
} bufs;

static int bufs_alloc(bufs *b, size_t chunk, int parts)
{
    b->in = fti_gf_alloc(chunk);
    b->part = fti_gf_alloc(chunk * (size_t)parts);
    b->out = fti_gf_alloc(chunk);
    return b->in && b->part && b->out ? 0 : -1;
}

static void bufs_free(bufs *b)
{
    free(b->in);
    free(b->part);
    free(b->out);
}

/* Every member runs the same number of collectives, whatever fails locally.
 * Each chunk: gather every member's data chunk, then this member's parity
 * row in one dot product (one pass over the inputs, no reduction). */
static fti_err encode(const l3_job *j, int data_fd, int parity_fd, uint64_t parity_off, uint64_t *sum)
{
    bufs b;
    fti_hash h = {0};
    int p = j->r.pos, err = 0;
    unsigned char *rows[MAX_G];
    int ready = bufs_alloc(&b, j->chunk, j->G) == 0 && fti_hash_init(&h) == 0;
    if (!fti_all_ok(j->r.comm, ready)) { /* before the first collective: nobody waits */
        bufs_free(&b);
        fti_hash_free(&h);
        return fti_fail(FTI_E_NOMEM, "L3 encoding of %s: out of memory on a group member", j->parity_path);
    }
    for (uint64_t off = 0; off < j->smax; off += j->chunk) {
        size_t len = (size_t)(j->smax - off < j->chunk ? j->smax - off : j->chunk);
        size_t L = fti_gf_round(len);
        if (!err && fti_read_padded(data_fd, j->size[p], b.in, L, off) != 0)
            err = errno;
        if (err) /* keep the collective going with harmless bytes */
            memset(b.in, 0, L);
        MPI_Allgather(b.in, (int)(L / 8), MPI_UINT64_T, b.part, (int)(L / 8), MPI_UINT64_T, j->r.comm);
        for (int i = 0; i < j->G; i++)
            rows[i] = b.part + (size_t)i * L;
        fti_gf_dot(b.out, rows, j->coef[p], j->G, L);
        if (!err) {
            fti_hash_update(&h, b.out, len);
            if (fti_pwrite_full(parity_fd, b.out, len, (off_t)(parity_off + off)) != 0)
                err = errno;
        }
    }
    *sum = err ? 0 : fti_hash_final(&h);
    fti_hash_free(&h);
    bufs_free(&b);
    return err ? fti_fail(FTI_E_IO, "L3 encoding of %s: %s", j->parity_path, strerror(err)) : FTI_E_OK;
}

static fti_err l3_post(fti_ctx *ctx, const fti_commit *c, const fti_ring *ring)
{
    l3_job j;
    fti_err e = job_init(ctx, c, ring, &j);
    if (e != FTI_E_OK)
        return e;
    struct stat st;
    int data_fd = open(j.data_path, O_RDONLY | O_CLOEXEC);
    int parity_fd = open(j.parity_path, O_WRONLY | O_CREAT | O_CLOEXEC, FTI_FILE_MODE);
    uint64_t mine = (data_fd >= 0 && fstat(data_fd, &st) == 0) ? (uint64_t)st.st_size : 0;
    MPI_Allgather(&mine, 1, MPI_UINT64_T, j.size, 1, MPI_UINT64_T, j.r.comm);
    set_smax(&j);
    fti_file_header h;
    fti_file_entry ent[2];
    parity_header(&j, c, ring->app_rank[ring->pos], &h, ent);
    if (data_fd < 0 || parity_fd < 0)
        fti_fail(FTI_E_IO, "L3: cannot open %s: %s", data_fd < 0 ? j.data_path : j.parity_path,
                 strerror(errno));
    e = encode(&j, data_fd, parity_fd, ent[1].offset, &ent[1].checksum);
    if (data_fd < 0 || parity_fd < 0)
        e = FTI_E_IO;
    if (e == FTI_E_OK && finish_parity(parity_fd, &j, &h, ent) != 0)
        e = fti_fail(FTI_E_IO, "L3: writing %s: %s", j.parity_path, strerror(errno));
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
        fti_fault_wrote(fti_level_phase(3), parity, 0, 0);
    }
    return e;
}

/* ---- decode --------------------------------------------------------------- */

/* This member's parity file, verified against what the commit record says
 * (another group's or checkpoint's parity counts as lost); its manifest
 * fills j->size. */
static int load_parity(fti_ctx *ctx, l3_job *j, const fti_commit *c, uint64_t *parity_off)
{
    fti_file_header h;
    fti_expect x;
    fti_expect_parity(&x, c, j->r.app_rank[j->r.pos], j->G, ctx->dirs.exec_id);
    int ok = fti_expect_probe(&x, j->parity_path, &h) == FTI_E_OK;
    if (!ok)
        return 0;
    unsigned char man[8 * MAX_G];
    int fd = open(j->parity_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fti_pread_full(fd, man, 8 * (size_t)j->G, (off_t)h.vars[0].offset) != 0)
        ok = 0;
    for (int i = 0; ok && i < j->G; i++) {
        j->size[i] = 0;
        for (int b = 7; b >= 0; b--)
            j->size[i] = (j->size[i] << 8) | man[8 * i + b];
    }
    *parity_off = ok ? h.vars[1].offset : 0;
    if (fd >= 0)
        close(fd);
    fti_file_header_free(&h);
    return ok;
}

/* Picks G surviving chunks (data first) and inverts their generator rows:
 * data x = sum over col of inv[x][col] * chunk[pick[col]]. */
static int plan_decode(const l3_job *j, const int *own, const int *par, int *pick, int *inv)
{
    return fti_l3_plan_decode(j->G, own, par, j->coef, pick, inv);
}

typedef struct decode_io {
    int data_fd, parity_fd, out_fd;
    uint64_t parity_off;
} decode_io;

/* Adds this member's chunks' share of every lost data chunk into part. */
static int contribute(const l3_job *j, const decode_io *io, const int *pick, const int *inv,
                      const int *lost, int nlost, uint64_t off, size_t L, bufs *b)
{
    int p = j->r.pos;
    memset(b->part, 0, L * (size_t)(nlost ? nlost : 1));
    for (int col = 0; col < j->G; col++) {
        int rc;
        if (pick[col] == p)
            rc = fti_read_padded(io->data_fd, j->size[p], b->in, L, off);
        else if (pick[col] == j->G + p)
            rc = fti_read_padded(io->parity_fd, io->parity_off + j->smax, b->in, L, io->parity_off + off);
        else
            continue;
        if (rc != 0)
            return errno ? errno : EIO;
        for (int t = 0; t < nlost; t++)
            fti_gf_mad(b->part + (size_t)t * L, b->in, inv[lost[t] * j->G + col], L, 1);
    }
    return 0;
}

static int decode(const l3_job *j, const decode_io *io, const int *pick, const int *inv,
                  const int *own)
{
    int lost[MAX_G], nlost = 0, counts[MAX_G], p = j->r.pos, err = 0;
    for (int i = 0; i < j->G; i++)
        if (!own[i])
            lost[nlost++] = i;
    bufs b;
    if (!fti_all_ok(j->r.comm, bufs_alloc(&b, j->chunk, nlost) == 0)) {
        bufs_free(&b);
        return ENOMEM;
    }
    for (uint64_t off = 0; off < j->smax; off += j->chunk) {
        size_t len = (size_t)(j->smax - off < j->chunk ? j->smax - off : j->chunk), L = fti_gf_round(len);
        for (int i = 0; i < j->G; i++)
            counts[i] = own[i] ? 0 : (int)(L / 8);
        if (!err)
            err = contribute(j, io, pick, inv, lost, nlost, off, L, &b);
        if (err)
            memset(b.part, 0, L * (size_t)nlost);
        MPI_Reduce_scatter(b.part, b.out, counts, MPI_UINT64_T, MPI_BXOR, j->r.comm);
        if (!own[p] && !err && off < j->size[p]) {
            size_t n = (size_t)(j->size[p] - off < len ? j->size[p] - off : len);
            if (fti_pwrite_full(io->out_fd, b.out, n, (off_t)off) != 0)
                err = errno;
        }
    }
    bufs_free(&b);
    return err;
}

static fti_err lost_too_many(const fti_ctx *ctx, const l3_job *j, const int *own, const int *par)
{
    char list[256] = "";
    size_t n = 0;
    int count = 0;
    for (int i = 0; i < j->G; i++)
        if (!own[i] || !par[i]) {
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%d", count ? ", " : "",
                                  ctx->topo.group * j->G + i);
            count++;
        }
    return fti_fail(FTI_E_MISSING, "L3: group %d lost data or parity on %d nodes (%s); a group of %d "
                    "nodes can rebuild at most %d lost nodes", ctx->topo.group, count, list, j->G,
                    j->G / 2);
}

static fti_err check_decoded(fti_ctx *ctx, const fti_commit *c, const l3_job *j);

static fti_err rebuild_data(fti_ctx *ctx, const fti_commit *c, l3_job *j, const int *own,
                            const int *par, uint64_t parity_off)
{
    int pick[MAX_G], inv[MAX_G * MAX_G];
    if (plan_decode(j, own, par, pick, inv) != 0)
        return lost_too_many(ctx, j, own, par);
    int p = j->r.pos;
    decode_io io = {-1, -1, -1, parity_off};
    io.data_fd = own[p] ? open(j->data_path, O_RDONLY | O_CLOEXEC) : -1;
    io.parity_fd = par[p] ? open(j->parity_path, O_RDONLY | O_CLOEXEC) : -1;
    io.out_fd = own[p] ? -1 : open(j->rebuilt_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, FTI_FILE_MODE);
    int err = decode(j, &io, pick, inv, own);
    if (!own[p] && !err && (io.out_fd < 0 || fti_fsync(io.out_fd) != 0))
        err = errno ? errno : EIO;
    if (io.data_fd >= 0) close(io.data_fd);
    if (io.parity_fd >= 0) close(io.parity_fd);
    if (io.out_fd >= 0) close(io.out_fd);
    if (!own[p] && err)
        unlink(j->rebuilt_path);
    if (err)
        return fti_fail(FTI_E_IO, "L3: rebuilding %s: %s", j->data_path, strerror(err));
    return own[p] ? FTI_E_OK : check_decoded(ctx, c, j);
}

/* The decoded file must be this rank's data of c, every byte. */
static fti_err check_decoded(fti_ctx *ctx, const fti_commit *c, const l3_job *j)
{
    fti_expect x;
    fti_expect_data(&x, c, j->r.app_rank[j->r.pos], ctx->dirs.exec_id, "L3 decoded file");
    if (fti_expect_valid(&x, j->rebuilt_path, NULL))
        return FTI_E_OK;
    char why[600];
    snprintf(why, sizeof why, "%s", fti_last_error());
    unlink(j->rebuilt_path);
    return fti_fail(FTI_E_CORRUPT, "L3: rebuilt %s does not verify: %s", j->data_path, why);
}

static fti_err l3_rebuild(fti_ctx *ctx, const fti_commit *c, int own_ok)
{
    l3_job j;
    fti_ring ring;
    fti_ring_of(ctx, &ring);
    ctx->rec.extra_ok = 0;
    fti_err e = job_init(ctx, c, &ring, &j);
    if (e != FTI_E_OK)
        return e;
    uint64_t parity_off = 0;
    int own[MAX_G], par[MAX_G], lost = 0, root = -1;
    ctx->rec.extra_ok = load_parity(ctx, &j, c, &parity_off);
    fti_ring_allgather(&j.r, own_ok, own);
    fti_ring_allgather(&j.r, ctx->rec.extra_ok, par);
    for (int i = 0; i < j.G; i++) {
        lost += !own[i];
        if (par[i] && root < 0)
            root = i;
    }
    if (lost && root < 0)
        return lost_too_many(ctx, &j, own, par);
    if (!lost)
        return FTI_E_OK;
    MPI_Bcast(j.size, j.G, MPI_UINT64_T, root, j.r.comm); /* sizes of the lost files */
    set_smax(&j);
    return rebuild_data(ctx, c, &j, own, par, parity_off);
}

/* With every data file back, parity that was lost is simply encoded again. */
static void l3_reprotect(fti_ctx *ctx, const fti_commit *c)
{
    fti_ring ring;
    fti_ring_of(ctx, &ring);
    int par[MAX_G], lost_parity = 0;
    fti_ring_allgather(&ring, ctx->rec.extra_ok, par);
    for (int i = 0; i < ring.size; i++)
        lost_parity += !par[i];
    if (lost_parity && l3_post(ctx, c, &ring) != FTI_E_OK) {
        char path[FTI_PATH_MAX];
        fti_path_parity(&ctx->dirs, path, c->slot, ctx->topo.app_rank);
        fti_log(FTI_LOG_WARN, "L3: could not re-create the lost parity file %s", path);
    }
}

static void l3_remove(fti_ctx *ctx, int slot)
{
    char path[FTI_PATH_MAX];
    fti_path_parity(&ctx->dirs, path, slot, ctx->topo.app_rank);
    unlink(path);
}

const fti_level_ops fti_l3_ops = {.level = 3, .name = "L3 Reed-Solomon", .post = l3_post_op,
                                  .rebuild = l3_rebuild, .reprotect = l3_reprotect,
                                  .remove = l3_remove};
