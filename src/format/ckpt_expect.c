#include "format/ckpt_expect.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/integrity.h"
#include "format/l4_kind.h"
#include "base/log.h"

#define L3_MANIFEST_ID (-1) /* the parity file's entries (docs/FORMAT.md) */
#define L3_PARITY_ID (-2)

uint64_t fti_exec_tag(const char *exec_id)
{
    uint64_t h = fti_hash_buffer(exec_id, strlen(exec_id));
    return h != 0 ? h : 1;
}

void fti_expect_data(fti_expect *x, const fti_commit *c, int rank, const char *exec_id,
                     const char *role)
{
    memset(x, 0, sizeof *x);
    x->kind = FTI_KIND_DATA;
    x->level = (uint32_t)c->level;
    x->rank = (uint32_t)rank;
    x->seq = c->seq;
    x->ckpt_id = c->id;
    x->exec_tag = fti_exec_tag(exec_id);
    x->nonce = c->nonce;
    x->role = role;
}

void fti_expect_data_header(fti_file_header *h, const fti_commit *c, int rank,
                            const char *exec_id)
{
    memset(h, 0, sizeof *h);
    h->version = FTI_FILE_VERSION;
    h->kind = FTI_KIND_DATA;
    h->seq = c->seq;
    h->ckpt_id = c->id;
    h->level = (uint32_t)c->level;
    h->rank = (uint32_t)rank;
    h->exec_tag = fti_exec_tag(exec_id);
    h->nonce = c->nonce;
}

void fti_expect_parity(fti_expect *x, const fti_commit *c, int holder, int group,
                       const char *exec_id)
{
    fti_expect_data(x, c, holder, exec_id, "L3 parity file");
    x->kind = FTI_KIND_PARITY;
    x->group = (uint32_t)group;
}

static fti_err differs(const fti_expect *x, const char *path, const char *got, const char *want)
{
    return fti_fail(FTI_E_CORRUPT, "%s %s: holds %s, expected %s", x->role, path, got, want);
}

static int parity_shape_ok(const fti_expect *x, const fti_file_header *h)
{
    return h->nvars == 2 && h->vars[0].id == L3_MANIFEST_ID && h->vars[0].elem_size == 8 &&
           h->vars[0].count == x->group && h->vars[1].id == L3_PARITY_ID;
}

/* keep_last_ckpt = 1 commits the last checkpoint again as level 4 at
 * FTI_Finalize without rewriting it: its L4 copy keeps the header of the
 * level it was written at. Same sequence number, same bytes (checked next). */
static int flushed_to_l4(const fti_expect *x, const fti_file_header *h)
{
    return x->kind == FTI_KIND_DATA && x->level == 4 && h->level >= 1 && h->level < 4;
}

/* Whose file it is, of which job and level: a file that fails this was
 * put there, it is not merely stale. */
static fti_err check_identity(const fti_expect *x, const fti_file_header *h, const char *path)
{
    static const char *kinds[] = {"unknown", "data", "parity"};
    const char *what = kinds[x->kind <= 2 ? x->kind : 0];
    char got[96], want[96];
    if (h->kind != x->kind) {
        snprintf(got, sizeof got, "%s (file kind %u)", kinds[h->kind <= 2 ? h->kind : 0], h->kind);
        return differs(x, path, got, what);
    }
    if (h->rank != x->rank) {
        snprintf(got, sizeof got, "the %s of rank %u", what, h->rank);
        snprintf(want, sizeof want, "rank %u's (another rank's file)", x->rank);
        return differs(x, path, got, want);
    }
    if (h->exec_tag != 0 && h->exec_tag != x->exec_tag)
        return differs(x, path, "the files of another job (exec id)", "this job's");
    if (h->level != x->level && !flushed_to_l4(x, h)) {
        snprintf(got, sizeof got, "level %u %s", h->level, what);
        snprintf(want, sizeof want, "level %u", x->level);
        return differs(x, path, got, want);
    }
    return FTI_E_OK;
}

/* Which checkpoint, and for parity the group's shape. */
static fti_err check_checkpoint(const fti_expect *x, const fti_file_header *h, const char *path)
{
    char got[96], want[96];
    if (h->seq != x->seq) {
        snprintf(got, sizeof got, "checkpoint #%" PRIu64, h->seq);
        snprintf(want, sizeof want, "#%" PRIu64 " (stale file)", x->seq);
        return differs(x, path, got, want);
    }
    if (h->ckpt_id != x->ckpt_id) {
        snprintf(got, sizeof got, "checkpoint id %" PRId64, h->ckpt_id);
        snprintf(want, sizeof want, "id %" PRId64 " of the commit record", x->ckpt_id);
        return differs(x, path, got, want);
    }
    if (x->kind == FTI_KIND_PARITY && !parity_shape_ok(x, h)) {
        snprintf(want, sizeof want, "the parity of a group of %u nodes", x->group);
        return differs(x, path, "parity of another shape", want);
    }
    return FTI_E_OK;
}

/* Which job's checkpoint: the same checkpoint (kind, rank, level, seq, id)
 * written by another job sharing the folders (another meta_dir), or by
 * another run of this one, carries another nonce. Checked after the
 * sequence number, so a merely stale file is called stale. The nonces
 * must be equal, 0 included: a record without one (older library) accepts
 * only files without one, a record with one refuses files without it. */
static fti_err check_owner(const fti_expect *x, const fti_file_header *h, const char *path)
{
    if (h->nonce == x->nonce)
        return FTI_E_OK;
    return fti_fail(FTI_E_CORRUPT, "%s %s: holds another job's checkpoint (nonce %016" PRIx64
                    ", expected %016" PRIx64 "): written by a job sharing these folders (same "
                    "exec_id, another meta_dir?), not by the job of the commit record",
                    x->role, path, h->nonce, x->nonce);
}

fti_err fti_expect_header(const fti_expect *x, const fti_file_header *h, const char *path)
{
    fti_err e = check_identity(x, h, path);
    if (e == FTI_E_OK)
        e = check_checkpoint(x, h, path);
    return e != FTI_E_OK ? e : check_owner(x, h, path);
}

fti_err fti_expect_file(const fti_expect *x, const char *path, int full, fti_file_header *hdr)
{
    fti_file_header h;
    fti_err e = fti_file_verify(path, 0, full, &h);
    if (e != FTI_E_OK)
        return e;
    e = fti_expect_header(x, &h, path);
    if (e == FTI_E_OK && hdr != NULL)
        *hdr = h;
    else
        fti_file_header_free(&h);
    return e;
}

/* The version of path verified as it stood throughout, into x->verified;
 * a file that changed meanwhile passes, but nothing of it is kept. */
static void record_version(const fti_expect *x, const char *path, const fti_file_version *before)
{
    fti_file_version after = fti_file_version_of(-1, path);
    if (fti_file_version_same(before, &after))
        *x->verified = after;
}

fti_err fti_expect_probe(const fti_expect *x, const char *path, fti_file_header *hdr)
{
    fti_file_header h;
    fti_log_quiet(1);
    fti_file_version before = x->verified != NULL ? fti_file_version_of(-1, path)
                                                  : (fti_file_version){0};
    fti_err e = fti_file_verify(path, 0, 1, &h);
    int foreign = 0;
    if (e == FTI_E_OK) {
        foreign = (e = check_identity(x, &h, path)) != FTI_E_OK;
        if (e == FTI_E_OK)
            e = check_checkpoint(x, &h, path);
        if (e == FTI_E_OK)
            foreign = (e = check_owner(x, &h, path)) != FTI_E_OK;
        if (e == FTI_E_OK && hdr != NULL)
            *hdr = h;
        else
            fti_file_header_free(&h);
        if (e == FTI_E_OK && x->verified != NULL)
            record_version(x, path, &before);
    }
    fti_log_quiet(0);
    if (foreign) /* someone put it there: say so, whatever the level reports */
        fti_log(FTI_LOG_WARN, "refused: %s", fti_last_error());
    return e;
}

fti_err fti_expect_streamed(const fti_expect *x, fti_file_stream *s)
{
    fti_file_header h;
    fti_err e = fti_file_stream_finish(s, &h);
    if (e != FTI_E_OK)
        return e;
    e = fti_expect_header(x, &h, s->path);
    fti_file_header_free(&h);
    return e;
}

int fti_expect_valid(const fti_expect *x, const char *path, uint64_t *size)
{
    fti_file_header h;
    if (fti_expect_probe(x, path, &h) != FTI_E_OK)
        return 0;
    if (size != NULL)
        *size = h.file_size;
    fti_file_header_free(&h);
    return 1;
}

fti_err fti_expect_total(const fti_commit *c, uint64_t total)
{
    /* dCP and HDF5 commits count the layers or HDF5 files written, not the
     * checkpoint files assembled from them (whose checksums are verified). */
    if (total == c->bytes || !fti_commit_bytes_are_files(c))
        return FTI_E_OK;
    return fti_fail(FTI_E_CORRUPT, "checkpoint #%" PRIu64 ": the ranks' files hold %" PRIu64
                    " bytes together, the commit record says %" PRIu64 " (files of another run?)",
                    c->seq, total, c->bytes);
}
