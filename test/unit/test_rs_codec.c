/*
 * test_rs_codec.c - the Reed-Solomon codec: round trips over every erasure
 * pattern, odd lengths and alignments, argument errors, a known-answer check
 * against a scalar GF(2^8) (polynomial 0x11d) reference, and jerasure/ISA-L
 * agreement when ISA-L is built in (detected at run time).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "levels/rs_codec.h"

#define MAX_CHUNKS FTI_RS_MAX_CHUNKS

static const size_t lengths[] = {0, 1, 7, 8, 4097, (1u << 20) + 3};
#define NLENGTHS (sizeof(lengths) / sizeof(lengths[0]))

/* k+m chunks of len bytes; `shift` > 0 offsets chunk i by i*shift bytes so
 * that chunk pointers differ modulo 16. */
typedef struct chunks {
    int k, m;
    size_t len;
    unsigned char *base[MAX_CHUNKS];
    unsigned char *p[MAX_CHUNKS]; /* data 0..k-1, parity k..k+m-1 */
    unsigned char *orig[MAX_CHUNKS];
} chunks;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static unsigned char next_byte(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned char)(rng_state >> 24);
}

static void chunks_alloc(chunks *c, int k, int m, size_t len, size_t shift)
{
    memset(c, 0, sizeof(*c));
    c->k = k;
    c->m = m;
    c->len = len;
    for (int i = 0; i < k + m; i++) {
        c->base[i] = malloc(len + (size_t)i * shift + 1);
        c->orig[i] = malloc(len + 1);
        assert_non_null(c->base[i]);
        assert_non_null(c->orig[i]);
        c->p[i] = c->base[i] + (size_t)i * shift;
        for (size_t b = 0; b < len; b++)
            c->p[i][b] = next_byte();
    }
}

static void chunks_free(chunks *c)
{
    for (int i = 0; i < c->k + c->m; i++) {
        free(c->base[i]);
        free(c->orig[i]);
    }
}

static int encode(const fti_rs *rs, chunks *c)
{
    return fti_rs_encode(rs, (const unsigned char *const *)c->p, c->p + c->k, c->len);
}

static int decode(const fti_rs *rs, chunks *c, const int *erased)
{
    return fti_rs_decode(rs, c->p, c->p + c->k, erased, c->len);
}

static void save(chunks *c)
{
    for (int i = 0; i < c->k + c->m; i++)
        memcpy(c->orig[i], c->p[i], c->len);
}

/* Codecs for each engine this build has: jerasure always, ISA-L maybe. */
static int make_engines(int k, int m, fti_rs **rs)
{
    int err, n = 0;

    rs[n] = fti_rs_create(k, m, FTI_RS_ENGINE_JERASURE, &err);
    assert_int_equal(err, FTI_RS_OK);
    assert_non_null(rs[n]);
    n++;
    rs[n] = fti_rs_create(k, m, FTI_RS_ENGINE_ISAL, &err);
    if (rs[n] == NULL) {
        assert_int_equal(err, FTI_RS_ENOENGINE);
        return n;
    }
    assert_string_equal(fti_rs_engine(rs[n]), "isa-l");
    return n + 1;
}

static void free_engines(fti_rs **rs, int n)
{
    for (int i = 0; i < n; i++)
        fti_rs_destroy(rs[i]);
}

static int isal_built_in(void)
{
    fti_rs *rs = fti_rs_create(2, 1, FTI_RS_ENGINE_ISAL, NULL);
    fti_rs_destroy(rs);
    return rs != NULL;
}

/* ---- reference arithmetic: GF(2^8) with polynomial 0x11d ------------------ */

static unsigned ref_mul(unsigned a, unsigned b)
{
    unsigned r = 0;
    while (b) {
        if (b & 1)
            r ^= a;
        a <<= 1;
        if (a & 0x100)
            a ^= 0x11d;
        b >>= 1;
    }
    return r;
}

static void ref_encode(const fti_rs *rs, const chunks *c, unsigned char **parity)
{
    for (int r = 0; r < c->m; r++)
        for (size_t b = 0; b < c->len; b++) {
            unsigned v = 0;
            for (int d = 0; d < c->k; d++)
                v ^= ref_mul((unsigned)fti_rs_coefficient(rs, r, d), c->p[d][b]);
            parity[r][b] = (unsigned char)v;
        }
}

/* ---- erasure patterns --------------------------------------------------------- */

static int mask_to_list(unsigned mask, int n, int *list)
{
    int cnt = 0;
    for (int i = 0; i < n; i++)
        if (mask & (1u << i))
            list[cnt++] = i;
    list[cnt] = -1;
    return cnt;
}

/* memcmp first: cmocka's byte-wise comparison dominated the run time, and
 * it is only needed to print where two buffers differ. */
static void assert_same(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) != 0)
        assert_memory_equal(a, b, n);
}

/* restrict lets the compiler vectorize this loop. */
static void complement(unsigned char *restrict dst, const unsigned char *restrict src, size_t n)
{
    for (size_t b = 0; b < n; b++)
        dst[b] = (unsigned char)~src[b];
}

/* Erases the listed chunks (every byte changed), rebuilds, compares. */
static void check_pattern(const fti_rs *rs, chunks *c, const int *list)
{
    for (const int *e = list; *e != -1; e++)
        complement(c->p[*e], c->orig[*e], c->len);
    assert_int_equal(decode(rs, c, list), FTI_RS_OK);
    for (const int *e = list; *e != -1; e++)
        assert_same(c->p[*e], c->orig[*e], c->len);
}

/* Every pattern of 1..m erasures among k+m chunks, for one codec. */
static void all_patterns(const fti_rs *rs, chunks *c)
{
    int n = c->k + c->m, list[MAX_CHUNKS + 1];

    for (unsigned mask = 1; mask < (1u << n); mask++)
        if (mask_to_list(mask, n, list) <= c->m)
            check_pattern(rs, c, list);
}

static void roundtrip(int k, int m, size_t shift)
{
    fti_rs *rs[2];
    int n = make_engines(k, m, rs);

    for (int e = 0; e < n; e++)
        for (size_t l = 0; l < NLENGTHS; l++) {
            chunks c;
            chunks_alloc(&c, k, m, lengths[l], shift);
            assert_int_equal(encode(rs[e], &c), FTI_RS_OK);
            save(&c);
            all_patterns(rs[e], &c);
            for (int i = 0; i < k + m; i++) /* survivors were only read */
                assert_same(c.p[i], c.orig[i], c.len);
            chunks_free(&c);
        }
    free_engines(rs, n);
}

static void test_roundtrip_k4_m2(void **state)
{
    (void)state;
    roundtrip(4, 2, 0);
}

static void test_roundtrip_k4_m4(void **state)
{
    (void)state;
    roundtrip(4, 4, 0);
}

static void test_roundtrip_k3_m1(void **state)
{
    (void)state;
    roundtrip(3, 1, 0);
}

/* Chunk pointers that differ modulo 16 would make gf-complete abort. */
static void test_roundtrip_misaligned(void **state)
{
    (void)state;
    roundtrip(4, 4, 3);
}

/* k+m = 256, every data chunk lost: the largest matrix inversion. */
static void test_widest_code(void **state)
{
    fti_rs *rs[2];
    int n = make_engines(128, 128, rs), list[129];

    (void)state;
    for (int i = 0; i < 128; i++)
        list[i] = i;
    list[128] = -1;
    for (int e = 0; e < n; e++) {
        chunks c;
        chunks_alloc(&c, 128, 128, 100, 0);
        assert_int_equal(encode(rs[e], &c), FTI_RS_OK);
        save(&c);
        check_pattern(rs[e], &c, list);
        chunks_free(&c);
    }
    free_engines(rs, n);
}

static void test_too_many_erasures(void **state)
{
    fti_rs *rs[2];
    int n = make_engines(4, 2, rs);
    const int three[] = {0, 3, 5, -1};

    (void)state;
    for (int e = 0; e < n; e++) {
        chunks c;
        chunks_alloc(&c, 4, 2, 4097, 0);
        assert_int_equal(encode(rs[e], &c), FTI_RS_OK);
        save(&c);
        assert_int_equal(decode(rs[e], &c, three), FTI_RS_ETOOMANY);
        for (int i = 0; i < 6; i++) /* rejected before touching anything */
            assert_same(c.p[i], c.orig[i], c.len);
        chunks_free(&c);
    }
    free_engines(rs, n);
}

static void test_invalid_arguments(void **state)
{
    int err = 0;
    fti_rs *rs = fti_rs_create(4, 2, FTI_RS_ENGINE_JERASURE, &err);
    chunks c;
    const int dup[] = {1, 1, -1}, high[] = {6, -1}, neg[] = {-2, -1}, none[] = {-1};

    (void)state;
    assert_non_null(rs);
    chunks_alloc(&c, 4, 2, 64, 0);
    assert_int_equal(encode(rs, &c), FTI_RS_OK);
    assert_int_equal(decode(rs, &c, dup), FTI_RS_EINVAL);
    assert_int_equal(decode(rs, &c, high), FTI_RS_EINVAL);
    assert_int_equal(decode(rs, &c, neg), FTI_RS_EINVAL);
    assert_int_equal(decode(rs, &c, none), FTI_RS_OK);
    assert_int_equal(fti_rs_decode(rs, c.p, c.p + 4, NULL, 64), FTI_RS_EINVAL);
    assert_int_equal(fti_rs_encode(NULL, (const unsigned char *const *)c.p, c.p + 4, 64),
                     FTI_RS_EINVAL);
    c.p[2] = NULL; /* a missing chunk is an error unless len is 0 */
    assert_int_equal(encode(rs, &c), FTI_RS_EINVAL);
    c.len = 0;
    assert_int_equal(encode(rs, &c), FTI_RS_OK);
    c.p[2] = c.base[2];
    chunks_free(&c);
    fti_rs_destroy(rs);
}

static void test_create_limits(void **state)
{
    int err = 0;
    fti_rs *rs;

    (void)state;
    assert_null(fti_rs_create(0, 2, FTI_RS_ENGINE_AUTO, &err));
    assert_int_equal(err, FTI_RS_EINVAL);
    assert_null(fti_rs_create(4, 0, FTI_RS_ENGINE_AUTO, &err));
    assert_int_equal(err, FTI_RS_EINVAL);
    assert_null(fti_rs_create(200, 57, FTI_RS_ENGINE_AUTO, &err));
    assert_int_equal(err, FTI_RS_EINVAL);
    assert_null(fti_rs_create(4, 2, 7, &err));
    assert_int_equal(err, FTI_RS_EINVAL);
    rs = fti_rs_create(200, 56, FTI_RS_ENGINE_AUTO, &err);
    assert_non_null(rs);
    assert_int_equal(err, FTI_RS_OK);
    assert_int_equal(fti_rs_coefficient(rs, 56, 0), -1);
    assert_int_equal(fti_rs_coefficient(rs, 0, 200), -1);
    assert_int_equal(fti_rs_coefficient(rs, 0, 0), 1);
    fti_rs_destroy(rs);
    fti_rs_destroy(NULL);
}

static void test_engine_names(void **state)
{
    fti_rs *rs = fti_rs_create(4, 2, FTI_RS_ENGINE_AUTO, NULL);

    (void)state;
    assert_non_null(rs);
    assert_string_equal(fti_rs_engine(rs), isal_built_in() ? "isa-l" : "jerasure");
    fti_rs_destroy(rs);
    assert_string_equal(fti_rs_strerror(FTI_RS_ETOOMANY),
                        "more chunks erased than there are parity chunks (m)");
    assert_string_equal(fti_rs_strerror(12345), "unknown Reed-Solomon codec error");
}

/* Both engines against a scalar 0x11d reference: proves the field and the
 * matrix, not just that the two libraries agree with each other. */
static void known_answer(int k, int m, size_t len)
{
    fti_rs *rs[2];
    int n = make_engines(k, m, rs);

    for (int e = 0; e < n; e++) {
        chunks c;
        unsigned char *ref[MAX_CHUNKS];
        chunks_alloc(&c, k, m, len, 0);
        for (int r = 0; r < m; r++)
            ref[r] = malloc(len + 1);
        ref_encode(rs[e], &c, ref);
        assert_int_equal(encode(rs[e], &c), FTI_RS_OK);
        for (int r = 0; r < m; r++) {
            assert_same(c.p[k + r], ref[r], len);
            free(ref[r]);
        }
        chunks_free(&c);
    }
    free_engines(rs, n);
}

static void test_known_answer(void **state)
{
    (void)state;
    known_answer(4, 4, 4099);
    known_answer(12, 20, 1000); /* 240 distinct coefficients */
}

/* ISA-L parity equals jerasure's, and each decodes the other's parity. */
static void cross_check(fti_rs *jer, fti_rs *isal, size_t len)
{
    chunks a, b;
    const int lost[] = {0, 2, 5, -1};

    chunks_alloc(&a, 4, 4, len, 0);
    chunks_alloc(&b, 4, 4, len, 0);
    for (int i = 0; i < 4; i++)
        memcpy(b.p[i], a.p[i], len);
    assert_int_equal(encode(jer, &a), FTI_RS_OK);
    assert_int_equal(encode(isal, &b), FTI_RS_OK);
    for (int r = 4; r < 8; r++)
        assert_same(a.p[r], b.p[r], len);
    save(&a);
    save(&b);
    check_pattern(isal, &a, lost); /* jerasure parity, ISA-L decode */
    check_pattern(jer, &b, lost);  /* ISA-L parity, jerasure decode */
    chunks_free(&a);
    chunks_free(&b);
}

static void test_engines_agree(void **state)
{
    fti_rs *rs[2];
    int n = make_engines(4, 4, rs);

    (void)state;
    if (n < 2) {
        free_engines(rs, n);
        skip(); /* this build has no ISA-L */
    }
    for (size_t l = 0; l < NLENGTHS; l++)
        cross_check(rs[0], rs[1], lengths[l]);
    free_engines(rs, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_k4_m2),
        cmocka_unit_test(test_roundtrip_k4_m4),
        cmocka_unit_test(test_roundtrip_k3_m1),
        cmocka_unit_test(test_roundtrip_misaligned),
        cmocka_unit_test(test_widest_code),
        cmocka_unit_test(test_too_many_erasures),
        cmocka_unit_test(test_invalid_arguments),
        cmocka_unit_test(test_create_limits),
        cmocka_unit_test(test_engine_names),
        cmocka_unit_test(test_known_answer),
        cmocka_unit_test(test_engines_agree),
    };
    return cmocka_run_group_tests_name("rs_codec", tests, NULL, NULL);
}
