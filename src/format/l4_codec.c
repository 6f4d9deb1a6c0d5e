#include "format/l4_codec.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef FTI_HAVE_ZSTD
#include <zstd.h>
#endif

#include "format/config.h"
#include "base/fio.h"
#include "base/integrity.h"
#include "base/le_field.h"
#include "base/log.h"
#include "base/worker.h"

/* Chunk table entry: compressed length u64, XXH3-64 of the original chunk
 * u64, flags u32 (bits 0-7: shuffle stride, 0 = none), reserved u32. */
#define F_STRIDE_MASK 0xffu
#define F_STORED 0x100u /* kept as is: compressing did not make it smaller */

typedef unsigned long long ull;

/* ---- byte movers ---------------------------------------------------------- */

static int fd_read(void *arg, void *buf, size_t n, uint64_t off)
{
    return fti_pread_full(*(int *)arg, buf, n, (off_t)off);
}

static int fd_write(void *arg, const void *buf, size_t n, uint64_t off)
{
    return fti_pwrite_full(*(int *)arg, buf, n, (off_t)off);
}

void fti_l4_io_fd(fti_l4_io *io, int *fd)
{
    io->read = fd_read;
    io->write = fd_write;
    io->arg = fd;
}

static fti_err read_at(const fti_l4_io *io, void *buf, size_t n, uint64_t off, const fti_l4_names *nm)
{
    if (n == 0 || io->read(io->arg, buf, n, off) == 0)
        return FTI_E_OK;
    return fti_fail(FTI_E_IO, "%s: cannot read %llu bytes of %s at offset %llu: %s", nm->who,
                    (ull)n, nm->src, (ull)off, strerror(errno));
}

static fti_err write_at(const fti_l4_io *io, const void *buf, size_t n, uint64_t off,
                        const fti_l4_names *nm)
{
    if (n == 0 || io->write(io->arg, buf, n, off) == 0)
        return FTI_E_OK;
    return fti_fail(FTI_E_IO, "%s: cannot write %llu bytes of %s at offset %llu: %s", nm->who,
                    (ull)n, nm->dst, (ull)off, strerror(errno));
}

static void *alloc_or_fail(size_t n, const fti_l4_names *nm, fti_err *e)
{
    void *p = fti_io_alloc(n);
    if (p == NULL && *e == FTI_E_OK)
        *e = fti_fail(FTI_E_NOMEM, "%s: out of memory (%llu bytes) for %s", nm->who, (ull)n, nm->dst);
    return p;
}

fti_err fti_l4_copy(const fti_l4_io *src, uint64_t size, const fti_l4_io *dst, size_t chunk,
                    const fti_l4_names *nm)
{
    fti_err e = FTI_E_OK;
    size_t bufsize = size < chunk ? (size_t)size : chunk;
    unsigned char *buf = alloc_or_fail(bufsize, nm, &e);
    for (uint64_t off = 0; e == FTI_E_OK && off < size; off += bufsize) {
        size_t n = size - off < bufsize ? (size_t)(size - off) : bufsize;
        e = read_at(src, buf, n, off, nm);
        if (e == FTI_E_OK)
            e = write_at(dst, buf, n, off, nm);
    }
    free(buf);
    return e;
}

/* ---- shuffle filter ------------------------------------------------------- */

/* Generic: reads sequential, writes go to `s` streams. */
static void shuffle_any(const unsigned char *in, unsigned char *out, size_t m, size_t from, unsigned s)
{
    for (size_t i = from; i < m; i++)
        for (unsigned j = 0; j < s; j++)
            out[j * m + i] = in[i * s + j];
}

static void unshuffle_any(const unsigned char *in, unsigned char *out, size_t m, size_t from, unsigned s)
{
    for (size_t i = from; i < m; i++)
        for (unsigned j = 0; j < s; j++)
            out[i * s + j] = in[j * m + i];
}

/* Swaps the bytes selected by `mask` in a's upper part with b's lower part
 * (`shift` bits apart): one round of a block transpose. */
#define SWAP_BLOCKS(a, b, shift, mask)                          \
    do {                                                        \
        uint64_t t_ = (((a) >> (shift)) ^ (b)) & (mask);        \
        (a) ^= t_ << (shift);                                   \
        (b) ^= t_;                                              \
    } while (0)

/* One round of the transpose: rows i and i + half, for every i with bit
 * `half` clear, swap their `shift`-bit blocks. Unrolled, so that every row
 * index is a constant, as in hand-written rounds. */
static inline void swap_round(uint64_t r[8], unsigned half, unsigned shift, uint64_t mask)
{
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; i++)
        if ((i & half) == 0)
            SWAP_BLOCKS(r[i], r[i + half], shift, mask);
}

/* Transposes the 8x8 byte matrix r[row] byte [col] in place (three rounds
 * of block swaps: 4, 2 and 1 bytes): 8-byte loads and stores instead of 64
 * single bytes. Its own inverse. */
static inline void transpose8(uint64_t r[8])
{
    swap_round(r, 4, 32, 0x00000000ffffffffull);
    swap_round(r, 2, 16, 0x0000ffff0000ffffull);
    swap_round(r, 1, 8, 0x00ff00ff00ff00ffull);
}

/* Stride 8 (doubles), 8 elements at a time: element i's bytes are row i;
 * after the transpose row j holds byte j of the 8 elements. memcpy moves
 * whole words (byte-wise assembly is not merged by gcc -O2: 6x slower);
 * the rows are in host order, so big-endian hosts take the byte loop. */
static void shuffle8(const unsigned char *in, unsigned char *out, size_t m)
{
    size_t done = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t r[8];
    for (; done + 8 <= m; done += 8) {
        memcpy(r, in + done * 8, sizeof r);
        transpose8(r);
        for (size_t j = 0; j < 8; j++)
            memcpy(out + j * m + done, &r[j], 8);
    }
#endif
    shuffle_any(in, out, m, done, 8);
}

static void unshuffle8(const unsigned char *in, unsigned char *out, size_t m)
{
    size_t done = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t r[8];
    for (; done + 8 <= m; done += 8) {
        for (size_t j = 0; j < 8; j++)
            memcpy(&r[j], in + j * m + done, 8);
        transpose8(r);
        memcpy(out + done * 8, r, sizeof r);
    }
#endif
    unshuffle_any(in, out, m, done, 8);
}

/* The filter either way: `undo` selects the inverse, the layout code is shared. */
static void shuffle_filter(const unsigned char *in, unsigned char *out, size_t n, unsigned stride,
                           int undo)
{
    size_t m = stride > 0 ? n / stride : 0, body = m * stride;
    if (stride == 8)
        (undo ? unshuffle8 : shuffle8)(in, out, m);
    else if (stride > 0)
        (undo ? unshuffle_any : shuffle_any)(in, out, m, 0, stride);
    memcpy(out + body, in + body, n - body);
}

void fti_l4_shuffle(const unsigned char *in, unsigned char *out, size_t n, unsigned stride)
{
    shuffle_filter(in, out, n, stride, 0);
}

void fti_l4_unshuffle(const unsigned char *in, unsigned char *out, size_t n, unsigned stride)
{
    shuffle_filter(in, out, n, stride, 1);
}

/* ---- codecs --------------------------------------------------------------- */

typedef struct coder {
    int codec, level;
#ifdef FTI_HAVE_ZSTD
    ZSTD_CCtx *cc;
    ZSTD_DCtx *dc;
#endif
} coder;

/* zlib's calls, the same for every build. */
static const char *zlib_compress(coder *c, const void *in, size_t n, void *out, size_t cap,
                                 size_t *clen)
{
    uLongf len = (uLongf)cap;
    int rc = compress2(out, &len, in, (uLong)n, c->level);
    *clen = len;
    return rc == Z_OK ? NULL : rc == Z_MEM_ERROR ? "zlib: out of memory" : "zlib: compress2 failed";
}

static int zlib_decompress(const void *in, size_t clen, void *out, size_t n)
{
    uLongf len = (uLongf)n;
    return uncompress(out, &len, in, (uLong)clen) == Z_OK && len == n ? 0 : -1;
}

#ifdef FTI_HAVE_ZSTD
static size_t coder_bound(int codec, size_t n)
{
    return codec == FTI_CODEC_ZLIB ? (size_t)compressBound((uLong)n) : ZSTD_compressBound(n);
}

static void coder_free(coder *c)
{
    ZSTD_freeCCtx(c->cc);
    ZSTD_freeDCtx(c->dc);
}

/* NULL, or what went wrong. The zstd contexts are reused across chunks. */
static const char *coder_compress(coder *c, const void *in, size_t n, void *out, size_t cap,
                                  size_t *clen)
{
    if (c->codec == FTI_CODEC_ZLIB)
        return zlib_compress(c, in, n, out, cap, clen);
    if (c->cc == NULL && (c->cc = ZSTD_createCCtx()) == NULL)
        return "zstd: out of memory";
    size_t r = ZSTD_compressCCtx(c->cc, out, cap, in, n, c->level);
    *clen = r;
    return ZSTD_isError(r) ? ZSTD_getErrorName(r) : NULL;
}

/* 0 when `clen` bytes decode to exactly n bytes, -1 otherwise. */
static int coder_decompress(coder *c, const void *in, size_t clen, void *out, size_t n)
{
    if (c->codec == FTI_CODEC_ZLIB)
        return zlib_decompress(in, clen, out, n);
    if (c->dc == NULL && (c->dc = ZSTD_createDCtx()) == NULL)
        return -1;
    size_t r = ZSTD_decompressDCtx(c->dc, out, n, in, clen);
    return !ZSTD_isError(r) && r == n ? 0 : -1;
}
#else
/* Built without zstd: the config refuses zstd (config.c) and a zstd file
 * is refused by name before any chunk (codec_known), so only zlib gets here. */
static size_t coder_bound(int codec, size_t n)
{
    (void)codec;
    return (size_t)compressBound((uLong)n);
}

static void coder_free(coder *c)
{
    (void)c;
}

static const char *coder_compress(coder *c, const void *in, size_t n, void *out, size_t cap,
                                  size_t *clen)
{
    return zlib_compress(c, in, n, out, cap, clen);
}

static int coder_decompress(coder *c, const void *in, size_t clen, void *out, size_t n)
{
    (void)c;
    return zlib_decompress(in, clen, out, n);
}
#endif

/* Whether this build codes `codec`. */
static int codec_known(int codec)
{
#ifdef FTI_HAVE_ZSTD
    return codec == FTI_CODEC_ZLIB || codec == FTI_CODEC_ZSTD;
#else
    return codec == FTI_CODEC_ZLIB;
#endif
}

int fti_l4_is_compressed(const unsigned char *first8)
{
    return memcmp(first8, FTI_L4Z_MAGIC, 8) == 0;
}

/* ---- encoder ------------------------------------------------------------- */

/* A writer thread writes chunk i while the caller's thread reads, hashes and
 * compresses chunk i+1 (two output buffers, one write in flight). */

typedef struct enc_writer {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const fti_l4_io *dst;
    const unsigned char *data; /* the write in flight, or NULL */
    size_t n;
    uint64_t off;
    int quit, failed, err; /* failed: a write failed with errno err */
    uint64_t failed_off;
    size_t failed_n;
} enc_writer;

static void *writer_main(void *arg)
{
    enc_writer *w = arg;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->data == NULL && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->data == NULL)
            break;
        const unsigned char *data = w->data;
        size_t n = w->n;
        uint64_t off = w->off;
        pthread_mutex_unlock(&w->mu);
        int rc = w->failed ? 0 : w->dst->write(w->dst->arg, data, n, off);
        int err = errno;
        pthread_mutex_lock(&w->mu);
        if (rc != 0 && !w->failed)
            w->failed = 1, w->err = err, w->failed_off = off, w->failed_n = n;
        w->data = NULL;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Waits until no write is in flight; the first failed write as an error. */
static fti_err writer_idle(enc_writer *w, const fti_l4_names *nm)
{
    pthread_mutex_lock(&w->mu);
    while (w->data != NULL)
        pthread_cond_wait(&w->cv, &w->mu);
    int failed = w->failed;
    pthread_mutex_unlock(&w->mu);
    if (!failed)
        return FTI_E_OK;
    return fti_fail(FTI_E_IO, "%s: cannot write %llu bytes of %s at offset %llu: %s", nm->who,
                    (ull)w->failed_n, nm->dst, (ull)w->failed_off, strerror(w->err));
}

/* Hands data to the writer once the previous write is done. */
static fti_err writer_put(enc_writer *w, const void *data, size_t n, uint64_t off,
                          const fti_l4_names *nm)
{
    fti_err e = writer_idle(w, nm);
    if (e != FTI_E_OK || n == 0)
        return e;
    pthread_mutex_lock(&w->mu);
    w->data = data;
    w->n = n;
    w->off = off;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return FTI_E_OK;
}

static fti_err writer_start(enc_writer *w, const fti_l4_io *dst, const fti_l4_names *nm)
{
    memset(w, 0, sizeof *w);
    w->dst = dst;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->th, NULL, writer_main, w) == 0)
        return FTI_E_OK;
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    return fti_fail(FTI_E_NOMEM, "%s: cannot start the writer thread for %s", nm->who, nm->dst);
}

/* Ends the thread after the write in flight; its outcome as an error. */
static fti_err writer_stop(enc_writer *w, const fti_l4_names *nm)
{
    fti_err e = writer_idle(w, nm);
    fti_worker_stop(w->th, &w->mu, &w->cv, &w->quit);
    return e;
}

typedef struct enc_state {
    coder cd;
    const fti_l4_encoding *enc;
    size_t chunk, cap;
    uint64_t size, nchunks, pos; /* pos: where the next compressed chunk goes */
    unsigned char *table, *in, *tmp, *out[2];
    fti_hash whole;
    enc_writer writer;
    int writing; /* the writer thread runs */
} enc_state;

static uint64_t nchunks_of(uint64_t size, size_t chunk)
{
    return size / chunk + (size % chunk != 0);
}

static fti_err enc_open(enc_state *s, const fti_l4_encoding *enc, uint64_t size, const fti_l4_names *nm)
{
    memset(s, 0, sizeof *s);
    s->enc = enc;
    s->cd.codec = enc->codec;
    s->cd.level = enc->level;
    s->chunk = enc->chunk > 0 ? enc->chunk : FTI_L4Z_CHUNK;
    s->size = size;
    s->nchunks = nchunks_of(size, s->chunk);
    s->pos = FTI_L4Z_HEADER + s->nchunks * FTI_L4Z_ENTRY;
    s->cap = coder_bound(enc->codec, s->chunk);
    fti_err e = FTI_E_OK;
    if (!codec_known(enc->codec))
        return fti_fail(FTI_E_ARG, "%s: %s: codec %d is not in this build", nm->who, nm->dst,
                        enc->codec);
    if (fti_hash_init(&s->whole) != 0)
        e = fti_fail(FTI_E_NOMEM, "%s: out of memory for %s", nm->who, nm->dst);
    s->table = alloc_or_fail((size_t)s->nchunks * FTI_L4Z_ENTRY, nm, &e);
    s->in = alloc_or_fail(s->chunk, nm, &e);
    s->tmp = alloc_or_fail(s->chunk, nm, &e);
    s->out[0] = alloc_or_fail(s->cap, nm, &e);
    s->out[1] = alloc_or_fail(s->cap, nm, &e);
    return e;
}

static void enc_close(enc_state *s)
{
    free(s->out[1]);
    free(s->out[0]);
    free(s->tmp);
    free(s->in);
    free(s->table);
    fti_hash_free(&s->whole);
    coder_free(&s->cd);
}

/* The stride of the floating-point data making up at least half of the
 * chunk [off, off+n), or 0: shuffling other bytes would only cost time. */
static unsigned pick_stride(const fti_l4_encoding *enc, uint64_t off, size_t n)
{
    uint64_t by[9] = {0};
    for (int i = 0; i < enc->nfloats; i++) {
        const fti_l4_span *sp = &enc->floats[i];
        uint64_t lo = sp->offset > off ? sp->offset : off;
        uint64_t hi = sp->offset + sp->nbytes < off + n ? sp->offset + sp->nbytes : off + n;
        if (hi > lo && (sp->stride == 4 || sp->stride == 8))
            by[sp->stride] += hi - lo;
    }
    return by[8] * 2 >= n && by[8] > 0 ? 8 : by[4] * 2 >= n && by[4] > 0 ? 4 : 0;
}

/* Chunk i compressed into s->out[i % 2] (the writer may still be writing
 * the other buffer), then handed to the writer. */
static fti_err enc_chunk(enc_state *s, uint64_t i, const fti_l4_io *src, const fti_l4_names *nm)
{
    uint64_t off = i * s->chunk;
    size_t n = s->size - off < s->chunk ? (size_t)(s->size - off) : s->chunk, clen = 0;
    unsigned char *out = s->out[i % 2];
    fti_err e = read_at(src, s->in, n, off, nm);
    if (e != FTI_E_OK)
        return e;
    fti_hash_update(&s->whole, s->in, n);
    unsigned stride = pick_stride(s->enc, off, n);
    if (stride)
        fti_l4_shuffle(s->in, s->tmp, n, stride);
    const char *why = coder_compress(&s->cd, stride ? s->tmp : s->in, n, out, s->cap, &clen);
    if (why != NULL)
        return fti_fail(FTI_E_IO, "%s: compressing chunk %llu of %s into %s failed: %s", nm->who,
                        (ull)i, nm->src, nm->dst, why);
    uint32_t flags = stride;
    if (clen >= n) { /* incompressible: store the original bytes (cap >= n) */
        flags = F_STORED;
        memcpy(out, s->in, n);
        clen = n;
    }
    unsigned char *ent = s->table + i * FTI_L4Z_ENTRY;
    fti_le_put64(ent, clen);
    fti_le_put64(ent + 8, fti_hash_buffer(s->in, n));
    fti_le_put32(ent + 16, flags);
    fti_le_put32(ent + 20, 0);
    e = writer_put(&s->writer, out, clen, s->pos, nm);
    s->pos += clen;
    return e;
}

/* Header and table go last: until then the stream has no valid magic. */
static fti_err enc_finish(enc_state *s, const fti_l4_io *dst, const fti_l4_names *nm)
{
    unsigned char h[FTI_L4Z_HEADER];
    memcpy(h, FTI_L4Z_MAGIC, 8);
    fti_le_put32(h + 8, FTI_L4Z_VERSION);
    fti_le_put32(h + 12, (uint32_t)s->cd.codec);
    fti_le_put32(h + 16, (uint32_t)s->cd.level);
    fti_le_put32(h + 20, 0);
    fti_le_put64(h + 24, s->chunk);
    fti_le_put64(h + 32, s->size);
    fti_le_put64(h + 40, s->nchunks);
    fti_le_put64(h + 48, fti_hash_final(&s->whole));
    fti_hash meta;
    if (fti_hash_init(&meta) != 0)
        return fti_fail(FTI_E_NOMEM, "%s: out of memory for %s", nm->who, nm->dst);
    fti_hash_update(&meta, h, 56);
    fti_hash_update(&meta, s->table, (size_t)s->nchunks * FTI_L4Z_ENTRY);
    fti_le_put64(h + 56, fti_hash_final(&meta));
    fti_hash_free(&meta);
    fti_err e = write_at(dst, h, sizeof h, 0, nm);
    if (e == FTI_E_OK)
        e = write_at(dst, s->table, (size_t)s->nchunks * FTI_L4Z_ENTRY, FTI_L4Z_HEADER, nm);
    return e;
}

fti_err fti_l4_encode(const fti_l4_io *src, uint64_t size, const fti_l4_io *dst,
                      const fti_l4_encoding *enc, const fti_l4_names *nm, uint64_t *out_size)
{
    enc_state s;
    fti_err e = enc_open(&s, enc, size, nm);
    if (e == FTI_E_OK && (e = writer_start(&s.writer, dst, nm)) == FTI_E_OK)
        s.writing = 1;
    for (uint64_t i = 0; e == FTI_E_OK && i < s.nchunks; i++)
        e = enc_chunk(&s, i, src, nm);
    if (s.writing) {
        fti_err w = writer_stop(&s.writer, nm); /* every chunk written before the header */
        if (e == FTI_E_OK)
            e = w;
    }
    if (e == FTI_E_OK)
        e = enc_finish(&s, dst, nm);
    if (e == FTI_E_OK)
        *out_size = s.pos;
    enc_close(&s);
    return e;
}

/* ---- decoder -------------------------------------------------------------- */

typedef struct dec_state {
    coder cd;
    uint64_t chunk, size, nchunks, whole_sum, pos, avail;
    unsigned char *table, *in, *tmp, *out;
    fti_hash whole;
} dec_state;

#define CORRUPT(...) fti_fail(FTI_E_CORRUPT, __VA_ARGS__)

static fti_err dec_check_header(dec_state *s, const unsigned char *h, const fti_l4_names *nm)
{
    if (!fti_l4_is_compressed(h))
        return CORRUPT("%s: %s is not a compressed L4 copy (bad magic)", nm->who, nm->src);
    if (fti_le_get32(h + 8) != FTI_L4Z_VERSION)
        return CORRUPT("%s: %s: compressed format version %u, this library reads %d", nm->who,
                       nm->src, fti_le_get32(h + 8), FTI_L4Z_VERSION);
    s->cd.codec = (int)fti_le_get32(h + 12);
    s->chunk = fti_le_get64(h + 24);
    s->size = fti_le_get64(h + 32);
    s->nchunks = fti_le_get64(h + 40);
    s->whole_sum = fti_le_get64(h + 48);
    /* Not corrupt: readable by a build with zstd, so a tool must not call it damaged. */
    if (s->cd.codec == FTI_CODEC_ZSTD && !codec_known(s->cd.codec))
        return fti_fail(FTI_E_UNSUPPORTED, "%s: %s is compressed with zstd and this build has no "
                        "zstd (configured without libzstd): read it with a build that has",
                        nm->who, nm->src);
    if (!codec_known(s->cd.codec))
        return CORRUPT("%s: %s: unknown codec %d in the header", nm->who, nm->src, s->cd.codec);
    if (s->chunk == 0 || s->chunk > FTI_L4Z_MAX_CHUNK || s->nchunks != nchunks_of(s->size, s->chunk))
        return CORRUPT("%s: %s: header corrupt (chunk size %llu, %llu chunks for %llu bytes)",
                       nm->who, nm->src, (ull)s->chunk, (ull)s->nchunks, (ull)s->size);
    if (s->nchunks > (s->avail - FTI_L4Z_HEADER) / FTI_L4Z_ENTRY)
        return CORRUPT("%s: %s is truncated: %llu bytes cannot hold the table of %llu chunks",
                       nm->who, nm->src, (ull)s->avail, (ull)s->nchunks);
    return FTI_E_OK;
}

static fti_err dec_open(dec_state *s, const fti_l4_io *src, const fti_l4_names *nm)
{
    unsigned char h[FTI_L4Z_HEADER];
    if (s->avail < FTI_L4Z_HEADER)
        return CORRUPT("%s: %s is truncated: %llu bytes, a compressed copy has at least %d",
                       nm->who, nm->src, (ull)s->avail, FTI_L4Z_HEADER);
    fti_err e = read_at(src, h, sizeof h, 0, nm);
    if (e == FTI_E_OK)
        e = dec_check_header(s, h, nm);
    size_t tbytes = (size_t)s->nchunks * FTI_L4Z_ENTRY;
    if (e == FTI_E_OK)
        s->table = alloc_or_fail(tbytes, nm, &e);
    if (e == FTI_E_OK)
        e = read_at(src, s->table, tbytes, FTI_L4Z_HEADER, nm);
    if (e != FTI_E_OK)
        return e;
    fti_hash meta;
    if (fti_hash_init(&meta) != 0)
        return fti_fail(FTI_E_NOMEM, "%s: out of memory for %s", nm->who, nm->dst);
    fti_hash_update(&meta, h, 56);
    fti_hash_update(&meta, s->table, tbytes);
    uint64_t sum = fti_hash_final(&meta);
    fti_hash_free(&meta);
    if (sum != fti_le_get64(h + 56))
        return CORRUPT("%s: %s: header or chunk table corrupt (checksum mismatch)", nm->who,
                       nm->src);
    s->pos = FTI_L4Z_HEADER + tbytes;
    s->in = alloc_or_fail(coder_bound(s->cd.codec, s->chunk), nm, &e);
    s->tmp = alloc_or_fail(s->chunk, nm, &e);
    s->out = alloc_or_fail(s->chunk, nm, &e);
    if (e == FTI_E_OK && fti_hash_init(&s->whole) != 0)
        e = fti_fail(FTI_E_NOMEM, "%s: out of memory for %s", nm->who, nm->dst);
    return e;
}

static void dec_close(dec_state *s)
{
    free(s->out);
    free(s->tmp);
    free(s->in);
    free(s->table);
    fti_hash_free(&s->whole);
    coder_free(&s->cd);
}

/* Reads chunk i's stored bytes into s->in after checking its table entry. */
static fti_err dec_fetch(dec_state *s, uint64_t i, size_t n, const fti_l4_io *src, const fti_l4_names *nm)
{
    const unsigned char *ent = s->table + i * FTI_L4Z_ENTRY;
    uint64_t clen = fti_le_get64(ent);
    uint32_t flags = fti_le_get32(ent + 16);
    int stored = (flags & F_STORED) != 0;
    if ((stored && (clen != n || (flags & F_STRIDE_MASK))) || clen == 0 ||
        clen > coder_bound(s->cd.codec, (size_t)s->chunk))
        return CORRUPT("%s: %s: chunk %llu has a bad table entry (length %llu)", nm->who,
                       nm->src, (ull)i, (ull)clen);
    if (clen > s->avail - s->pos)
        return CORRUPT("%s: %s is truncated: chunk %llu ends at byte %llu, the copy has %llu",
                       nm->who, nm->src, (ull)i, (ull)(s->pos + clen), (ull)s->avail);
    return read_at(src, s->in, (size_t)clen, s->pos, nm);
}

static fti_err dec_chunk(dec_state *s, uint64_t i, const fti_l4_io *src, const fti_l4_io *dst,
                         const fti_l4_names *nm)
{
    uint64_t off = i * s->chunk;
    size_t n = s->size - off < s->chunk ? (size_t)(s->size - off) : (size_t)s->chunk;
    fti_err e = dec_fetch(s, i, n, src, nm);
    if (e != FTI_E_OK)
        return e;
    const unsigned char *ent = s->table + i * FTI_L4Z_ENTRY;
    uint64_t clen = fti_le_get64(ent);
    uint32_t flags = fti_le_get32(ent + 16);
    unsigned stride = flags & F_STRIDE_MASK;
    if (flags & F_STORED)
        memcpy(s->out, s->in, n);
    else if (coder_decompress(&s->cd, s->in, (size_t)clen, stride ? s->tmp : s->out, n) != 0)
        return CORRUPT("%s: %s: chunk %llu (original bytes %llu-%llu) does not decompress", nm->who,
                       nm->src, (ull)i, (ull)off, (ull)(off + n - 1));
    if (stride && !(flags & F_STORED))
        fti_l4_unshuffle(s->tmp, s->out, n, stride);
    if (fti_hash_buffer(s->out, n) != fti_le_get64(ent + 8))
        return CORRUPT("%s: %s: chunk %llu (original bytes %llu-%llu) is corrupt (checksum "
                       "mismatch)", nm->who, nm->src, (ull)i, (ull)off, (ull)(off + n - 1));
    fti_hash_update(&s->whole, s->out, n);
    s->pos += clen;
    return write_at(dst, s->out, n, off, nm);
}

fti_err fti_l4_decode(const fti_l4_io *src, uint64_t avail, const fti_l4_io *dst,
                      const fti_l4_names *nm, uint64_t *out_size)
{
    dec_state s;
    memset(&s, 0, sizeof s);
    s.avail = avail;
    fti_err e = dec_open(&s, src, nm);
    for (uint64_t i = 0; e == FTI_E_OK && i < s.nchunks; i++)
        e = dec_chunk(&s, i, src, dst, nm);
    if (e == FTI_E_OK && s.pos != avail)
        e = CORRUPT("%s: %s: %llu unexpected bytes after the last chunk", nm->who, nm->src,
                    (ull)(avail - s.pos));
    if (e == FTI_E_OK && fti_hash_final(&s.whole) != s.whole_sum)
        e = CORRUPT("%s: %s: the checksum of the original bytes does not match", nm->who, nm->src);
    if (e == FTI_E_OK)
        *out_size = s.size;
    dec_close(&s);
    return e;
}
