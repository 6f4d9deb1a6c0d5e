/*
 * test_l4_codec.c - the compressed form of L4 global copies: round trips for
 * zlib and zstd over sizes around the chunk size (with and without the
 * shuffle filter, compressible and incompressible data), the shuffle filter
 * itself, and a corpus of damaged streams that must each be rejected with
 * FTI_E_CORRUPT and a message naming the file.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/config.h"
#include "base/le_field.h"
#include "format/l4_codec.h"
#include "base/log.h"

#define CHUNK FTI_L4Z_CHUNK

/* ---- an in-memory fti_l4_io ------------------------------------------------- */

typedef struct membuf {
    unsigned char *p;
    size_t len, cap;
} membuf;

static int mem_read(void *arg, void *buf, size_t n, uint64_t off)
{
    membuf *m = arg;
    if (off > m->len || n > m->len - off)
        return -1;
    memcpy(buf, m->p + off, n);
    return 0;
}

static int mem_write(void *arg, const void *buf, size_t n, uint64_t off)
{
    membuf *m = arg;
    if (off + n > m->cap) {
        size_t cap = (size_t)(off + n) * 2;
        m->p = realloc(m->p, cap);
        assert_non_null(m->p);
        memset(m->p + m->cap, 0, cap - m->cap);
        m->cap = cap;
    }
    memcpy(m->p + off, buf, n);
    if (off + n > m->len)
        m->len = (size_t)(off + n);
    return 0;
}

static fti_l4_io mem_io(membuf *m)
{
    fti_l4_io io = {mem_read, mem_write, m};
    return io;
}

static const fti_l4_names names = {"test", "src.bin", "dst.bin"};

/* ---- inputs ------------------------------------------------------------------ */

/* Doubles of a smooth field, then pseudo-random bytes (incompressible:
 * exercises stored chunks), then text. */
static unsigned char *make_input(size_t n, size_t *nfloat_bytes)
{
    unsigned char *p = malloc(n > 0 ? n : 1);
    assert_non_null(p);
    size_t nd = n / 2 / sizeof(double);
    for (size_t i = 0; i < nd; i++) {
        double v = 100.0 * sin((double)i * 1e-4) + 1e-3 * (double)(i % 97);
        memcpy(p + i * sizeof v, &v, sizeof v);
    }
    *nfloat_bytes = nd * sizeof(double);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    size_t rnd_end = *nfloat_bytes + (n - *nfloat_bytes) / 2;
    for (size_t i = *nfloat_bytes; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        p[i] = i < rnd_end ? (unsigned char)x : (unsigned char)("checkpoint "[i % 11]);
    }
    return p;
}

static void encode_input(int codec, const unsigned char *in, size_t n, size_t nfloat,
                          int shuffle, membuf *out)
{
    membuf src = {(unsigned char *)in, n, n};
    fti_l4_io s = mem_io(&src), d = mem_io(out);
    fti_l4_span span = {0, nfloat, 8};
    fti_l4_encoding enc = {codec, 1, 0, shuffle ? &span : NULL, shuffle ? 1 : 0};
    uint64_t out_size = 0;
    assert_int_equal(fti_l4_encode(&s, n, &d, &enc, &names, &out_size), FTI_E_OK);
    assert_int_equal(out_size, out->len);
}

static fti_err decode_buf(const membuf *z, membuf *out)
{
    membuf src = *z;
    fti_l4_io s = mem_io(&src), d = mem_io(out);
    uint64_t size = 0;
    fti_err e = fti_l4_decode(&s, z->len, &d, &names, &size);
    if (e == FTI_E_OK)
        assert_int_equal(size, out->len);
    return e;
}

/* ---- round trips --------------------------------------------------------------- */

static const size_t sizes[] = {0, 1, CHUNK - 1, CHUNK + 1, 3 * CHUNK + 5};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void round_trip(int codec, int shuffle)
{
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k], nfloat = 0;
        unsigned char *in = make_input(n, &nfloat);
        membuf z = {0}, back = {0};
        encode_input(codec, in, n, nfloat, shuffle, &z);
        assert_memory_equal(z.p, FTI_L4Z_MAGIC, 8);
        assert_int_equal(decode_buf(&z, &back), FTI_E_OK);
        assert_int_equal(back.len, n);
        if (n > 0)
            assert_memory_equal(back.p, in, n);
        if (n > 2 * CHUNK) /* half smooth doubles, a quarter text: it must shrink */
            assert_true(z.len < n * 3 / 4);
        free(in);
        free(z.p);
        free(back.p);
    }
}

static void test_zlib_round_trip(void **state)
{
    (void)state;
    round_trip(FTI_CODEC_ZLIB, 0);
}

#ifdef FTI_HAVE_ZSTD
static void test_zstd_round_trip(void **state)
{
    (void)state;
    round_trip(FTI_CODEC_ZSTD, 0);
}
#endif

#ifdef FTI_HAVE_ZSTD
static void test_zstd_shuffle_round_trip(void **state)
{
    (void)state;
    round_trip(FTI_CODEC_ZSTD, 1);
}
#endif

static void test_zlib_shuffle_round_trip(void **state)
{
    (void)state;
    round_trip(FTI_CODEC_ZLIB, 1);
}

#ifdef FTI_HAVE_ZSTD
/* Shuffling smooth doubles must make zstd's output smaller: the filter pays. */
static void test_shuffle_helps_smooth_doubles(void **state)
{
    (void)state;
    size_t n = 2 * CHUNK, nfloat = n;
    unsigned char *in = malloc(n);
    for (size_t i = 0; i < n / 8; i++) {
        double v = 300.0 + 50.0 * exp(-(double)(i % 4096) / 900.0) * cos((double)(i / 4096) * 0.01);
        memcpy(in + i * 8, &v, 8);
    }
    membuf plain = {0}, shuf = {0}, back = {0};
    encode_input(FTI_CODEC_ZSTD, in, n, nfloat, 0, &plain);
    encode_input(FTI_CODEC_ZSTD, in, n, nfloat, 1, &shuf);
    assert_true(shuf.len < plain.len);
    assert_int_equal(decode_buf(&shuf, &back), FTI_E_OK);
    assert_memory_equal(back.p, in, n);
    free(in);
    free(plain.p);
    free(shuf.p);
    free(back.p);
}
#endif

/* Random bytes do not compress: chunks are stored as they are, the stream
 * grows by header and table only, and damage is still caught. */
static void test_incompressible_stored(void **state)
{
    (void)state;
    size_t n = CHUNK + 100;
    unsigned char *in = malloc(n);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        in[i] = (unsigned char)(x >> 11);
    }
    for (int codec = FTI_CODEC_ZLIB; codec <= FTI_CODEC_ZSTD; codec++) {
        membuf z = {0}, back = {0};
        encode_input(codec, in, n, 0, 0, &z);
        assert_int_equal(z.len, n + FTI_L4Z_HEADER + 2 * FTI_L4Z_ENTRY);
        assert_int_equal(fti_le_get32(z.p + FTI_L4Z_HEADER + 16) & 0x100u, 0x100u);
        assert_int_equal(decode_buf(&z, &back), FTI_E_OK);
        assert_memory_equal(back.p, in, n);
        z.p[z.len - 50] ^= 1; /* inside the stored second chunk */
        fti_log_quiet(1);
        assert_int_equal(decode_buf(&z, &back), FTI_E_CORRUPT);
        fti_log_quiet(0);
        free(z.p);
        free(back.p);
    }
    free(in);
}

static void test_shuffle_inverse(void **state)
{
    (void)state;
    unsigned char in[203], mid[203], out[203];
    for (size_t i = 0; i < sizeof in; i++)
        in[i] = (unsigned char)(i * 7 + 3);
    for (unsigned stride = 1; stride <= 16; stride++) {
        fti_l4_shuffle(in, mid, sizeof in, stride);
        fti_l4_unshuffle(mid, out, sizeof in, stride);
        assert_memory_equal(in, out, sizeof in);
    }
    fti_l4_shuffle(in, mid, 16, 8); /* plane 0 holds byte 0 of both elements */
    assert_int_equal(mid[0], in[0]);
    assert_int_equal(mid[1], in[8]);
    assert_int_equal(mid[2], in[1]);
    /* The word-wise stride-8 path against the definition: 25 elements (3
     * blocks of 8 and one more) and a 3-byte tail. */
    size_t m = sizeof in / 8;
    fti_l4_shuffle(in, mid, sizeof in, 8);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < 8; j++)
            assert_int_equal(mid[j * m + i], in[i * 8 + j]);
    assert_memory_equal(mid + m * 8, in + m * 8, sizeof in - m * 8);
}

/* ---- damaged streams -------------------------------------------------------------- */

typedef struct damaged {
    membuf z;
    size_t n;
    unsigned char *in;
} damaged;

static int setup_damaged(void **state, int codec)
{
    damaged *d = calloc(1, sizeof *d);
    size_t nfloat = 0;
    d->n = 2 * CHUNK + 12345;
    d->in = make_input(d->n, &nfloat);
    encode_input(codec, d->in, d->n, nfloat, 1, &d->z);
    *state = d;
    return 0;
}

#ifdef FTI_HAVE_ZSTD
static int setup_zstd(void **state)
{
    return setup_damaged(state, FTI_CODEC_ZSTD);
}
#endif

static int setup_zlib(void **state)
{
    return setup_damaged(state, FTI_CODEC_ZLIB);
}

static int teardown_damaged(void **state)
{
    damaged *d = *state;
    free(d->z.p);
    free(d->in);
    free(d);
    return 0;
}

/* Decoding a copy of the stream with the byte at flip_at changed and cut
 * (or extended with garbage) to new_len bytes must fail as corrupt and name
 * the source file. */
static void expect_rejected(const damaged *d, size_t flip_at, size_t new_len)
{
    membuf z = {malloc(d->z.len + 16), 0, d->z.len + 16}, back = {0};
    memcpy(z.p, d->z.p, d->z.len);
    memset(z.p + d->z.len, 0xab, 16);
    z.len = new_len;
    if (flip_at < new_len)
        z.p[flip_at] ^= 0x10;
    fti_log_quiet(1);
    assert_int_equal(decode_buf(&z, &back), FTI_E_CORRUPT);
    fti_log_quiet(0);
    assert_non_null(strstr(fti_last_error(), "src.bin"));
    free(z.p);
    free(back.p);
}

static void test_reject_flipped_bytes(void **state)
{
    const damaged *d = *state;
    size_t len = d->z.len, none = (size_t)-1;
    expect_rejected(d, 0, len);                  /* magic */
    expect_rejected(d, 33, len);                 /* original size */
    expect_rejected(d, 60, len);                 /* header checksum */
    expect_rejected(d, FTI_L4Z_HEADER + 2, len); /* chunk table */
    expect_rejected(d, len / 2, len);            /* compressed data, middle */
    expect_rejected(d, len - 1, len);            /* last byte of the last chunk */
    expect_rejected(d, none, len - 1);           /* truncated by one byte */
    expect_rejected(d, none, len / 2);           /* truncated to half */
    expect_rejected(d, none, 40);                /* shorter than the header */
    expect_rejected(d, none, len + 16);          /* trailing garbage */
}

/* A flip inside each chunk, stored chunks (random bytes) included. */
static void test_reject_every_chunk(void **state)
{
    const damaged *d = *state;
    const unsigned char *t = d->z.p + FTI_L4Z_HEADER;
    uint64_t nchunks = fti_le_get64(d->z.p + 40), pos = FTI_L4Z_HEADER + nchunks * FTI_L4Z_ENTRY;
    assert_int_equal(nchunks, 3);
    for (uint64_t i = 0; i < nchunks; i++) {
        uint64_t clen = fti_le_get64(t + i * FTI_L4Z_ENTRY);
        expect_rejected(d, (size_t)(pos + clen / 3), d->z.len);
        pos += clen;
    }
}

static void test_intact_stream_accepted(void **state)
{
    const damaged *d = *state;
    membuf back = {0};
    assert_int_equal(decode_buf(&d->z, &back), FTI_E_OK);
    assert_int_equal(back.len, d->n);
    assert_memory_equal(back.p, d->in, d->n);
    free(back.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shuffle_inverse),
        cmocka_unit_test(test_zlib_round_trip),
#ifdef FTI_HAVE_ZSTD /* a build without libzstd refuses zstd in its config (test_config) */
        cmocka_unit_test(test_zstd_round_trip),
        cmocka_unit_test(test_zstd_shuffle_round_trip),
#endif
        cmocka_unit_test(test_zlib_shuffle_round_trip),
#ifdef FTI_HAVE_ZSTD
        cmocka_unit_test(test_shuffle_helps_smooth_doubles),
#endif
        cmocka_unit_test(test_incompressible_stored),
#ifdef FTI_HAVE_ZSTD
        cmocka_unit_test_setup_teardown(test_intact_stream_accepted, setup_zstd, teardown_damaged),
        cmocka_unit_test_setup_teardown(test_reject_flipped_bytes, setup_zstd, teardown_damaged),
        cmocka_unit_test_setup_teardown(test_reject_every_chunk, setup_zstd, teardown_damaged),
#endif
        cmocka_unit_test_setup_teardown(test_intact_stream_accepted, setup_zlib, teardown_damaged),
        cmocka_unit_test_setup_teardown(test_reject_flipped_bytes, setup_zlib, teardown_damaged),
        cmocka_unit_test_setup_teardown(test_reject_every_chunk, setup_zlib, teardown_damaged),
    };
    return cmocka_run_group_tests_name("l4_codec", tests, NULL, NULL);
}
