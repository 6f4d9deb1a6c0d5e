#include "format/ckpt_stream.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"

fti_err fti_file_stream_init(fti_file_stream *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    s->head_need = FTI_FILE_FIXED_HEADER;
    if (fti_hash_init(&s->hash) != 0)
        return fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", path);
    return FTI_E_OK;
}

/* Collects the header region; decodes it once complete. Returns the bytes
 * of buf it took. */
static size_t take_header(fti_file_stream *s, const unsigned char *buf, size_t n)
{
    size_t take = s->head_need - s->head_len < n ? s->head_need - s->head_len : n;
    unsigned char *grown = realloc(s->head, s->head_need);
    if (grown == NULL) {
        s->err = fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", s->path);
        return n;
    }
    s->head = grown;
    memcpy(s->head + s->head_len, buf, take);
    s->head_len += take;
    if (s->head_len == FTI_FILE_FIXED_HEADER && s->head_need == FTI_FILE_FIXED_HEADER) {
        uint64_t need; /* the table follows */
        if ((s->err = fti_file_header_region(s->head, s->path, &need)) != FTI_E_OK)
            return take;
        s->head_need = (size_t)need;
    }
    if (s->head_len == s->head_need) {
        s->err = fti_file_header_decode(s->head, s->head_len, s->path, &s->hdr);
        free(s->head);
        s->head = NULL;
    }
    return take;
}

void fti_file_stream_watch(fti_file_stream *s, const fti_file_stream_vars *w)
{
    s->watch = w;
}

/* Variable s->var is complete: its checksum must match. */
static void close_var(fti_file_stream *s)
{
    const fti_file_entry *v = &s->hdr.vars[s->var];
    int ok = fti_hash_final(&s->hash) == v->checksum;
    if (s->watch != NULL && s->watch->done != NULL)
        s->watch->done(s->watch->arg, s->var, ok);
    fti_err *slot = s->watch != NULL ? &s->mismatch : &s->err;
    if (!ok && *slot == FTI_E_OK)
        *slot = fti_fail(FTI_E_CORRUPT, "checkpoint file %s: variable %d: data checksum mismatch "
                         "(corrupt data)", s->path, v->id);
    fti_hash_free(&s->hash);
    if (s->err == FTI_E_OK && fti_hash_init(&s->hash) != 0)
        s->err = fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", s->path);
    s->var++;
}

/* Hashes the part of [pos, pos + n) inside the variables (in table order,
 * ascending offsets: check_layout holds them to it). */
static void hash_data(fti_file_stream *s, const unsigned char *buf, size_t n)
{
    uint64_t end = s->pos + n;
    while (s->err == FTI_E_OK && s->var < s->hdr.nvars) {
        const fti_file_entry *v = &s->hdr.vars[s->var];
        uint64_t vend = v->offset + v->nbytes;
        if (vend <= s->pos) { /* complete (or empty) */
            close_var(s);
            continue;
        }
        if (v->offset >= end)
            break;
        uint64_t from = v->offset > s->pos ? v->offset : s->pos, to = vend < end ? vend : end;
        if (to > from)
            fti_hash_update(&s->hash, buf + (from - s->pos), (size_t)(to - from));
        if (to > from && s->watch != NULL && s->watch->data != NULL)
            s->watch->data(s->watch->arg, v, buf + (from - s->pos), (size_t)(to - from));
        if (to < vend)
            break;
        close_var(s);
    }
}

void fti_file_stream_feed(fti_file_stream *s, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (s->err == FTI_E_OK && s->hdr.vars == NULL && n > 0) {
        size_t took = take_header(s, p, n);
        s->pos += took, p += took, n -= took;
    }
    if (s->err == FTI_E_OK && s->hdr.vars != NULL && n > 0)
        hash_data(s, p, n);
    s->pos += n;
}

fti_err fti_file_stream_verdict(fti_file_stream *s)
{
    if (s->err == FTI_E_OK && s->hdr.vars == NULL)
        s->err = fti_fail(FTI_E_CORRUPT, "checkpoint file %s: truncated header (%llu bytes)",
                          s->path, (unsigned long long)s->pos);
    if (s->err == FTI_E_OK)
        hash_data(s, NULL, 0); /* closes the empty variables at the end */
    if (s->err == FTI_E_OK)
        s->err = s->mismatch;
    if (s->err == FTI_E_OK && (s->var < s->hdr.nvars || s->pos != s->hdr.file_size))
        s->err = fti_fail(FTI_E_CORRUPT, "checkpoint file %s: %llu bytes, header says %llu "
                          "(truncated or extended)", s->path, (unsigned long long)s->pos,
                          (unsigned long long)s->hdr.file_size);
    return s->err;
}

fti_err fti_file_stream_finish(fti_file_stream *s, fti_file_header *hdr)
{
    fti_err e = fti_file_stream_verdict(s);
    if (e == FTI_E_OK && hdr != NULL) {
        *hdr = s->hdr;
        s->hdr.vars = NULL;
    }
    fti_file_stream_free(s);
    return e;
}

void fti_file_stream_free(fti_file_stream *s)
{
    free(s->head);
    s->head = NULL;
    fti_file_header_free(&s->hdr);
    fti_hash_free(&s->hash);
}
