/*
 * test_rs_codec.c - L3's Reed-Solomon code, driven as L3 drives it: each
 * member's parity row with fti_rs_parity, each survivor's share of a lost
 * chunk with fti_rs_share, summed by XOR as L3's reduction does. Every
 * loss pattern of small groups, the widest group, a known-answer check
 * against a scalar GF(2^8) (polynomial 0x11d) reference, and the byte-wise
 * property that lets L3 cut files anywhere (parity of pieces = parity of
 * the whole). The on-disk parity does not depend on the kernel: every
 * group size's coding matrix and the parity of fixed data are checked
 * against what jerasure 2.0 produced (FTI's parity files), and ISA-L's
 * kernel, when built in, against our own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/gf_region.h"
#include "format/rs_codec.h"

#define G_MAX FTI_RS_MAX_G

/* A group's chunks: data 0..g-1, parity g..2g-1 (chunk ids of rs_codec.h). */
typedef struct group {
    int g;
    size_t len; /* a multiple of FTI_GF_ALIGN, as L3 rounds its messages */
    fti_rs_code code;
    unsigned char *chunk[2 * G_MAX];
} group;

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static unsigned char next_byte(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned char)(rng_state >> 24);
}

/* memcmp first: cmocka's byte-wise comparison is only needed to show where. */
static void assert_same(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) != 0)
        assert_memory_equal(a, b, n);
}

/* Random data; parity computed by each "member" for its own row. */
static void group_init(group *gr, int g, size_t len)
{
    gr->g = g;
    gr->len = len;
    assert_int_equal(fti_rs_code_init(&gr->code, g), 0);
    for (int i = 0; i < 2 * g; i++) {
        gr->chunk[i] = fti_gf_alloc(len);
        assert_non_null(gr->chunk[i]);
    }
    for (int i = 0; i < g; i++)
        for (size_t b = 0; b < len; b++)
            gr->chunk[i][b] = next_byte();
    for (int row = 0; row < g; row++)
        fti_rs_parity(&gr->code, row, gr->chunk, gr->chunk[g + row], len);
}

static void group_free(group *gr)
{
    for (int i = 0; i < 2 * gr->g; i++)
        free(gr->chunk[i]);
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

static void known_answer(int g, size_t len)
{
    group gr;
    group_init(&gr, g, len);
    for (int row = 0; row < g; row++)
        for (size_t b = 0; b < len; b++) {
            unsigned v = 0;
            for (int d = 0; d < g; d++)
                v ^= ref_mul((unsigned)gr.code.coef[row][d], gr.chunk[d][b]);
            if (gr.chunk[g + row][b] != v)
                fail_msg("g=%d parity row %d byte %zu: %u, reference %u", g, row, b,
                         gr.chunk[g + row][b], v);
        }
    group_free(&gr);
}

static void test_known_answer(void **state)
{
    (void)state;
    known_answer(4, 4096 + 64);
    known_answer(G_MAX, 1024);
    fti_rs_code code;
    assert_int_equal(fti_rs_code_init(&code, 4), 0);
    for (int col = 0; col < 4; col++) /* jerasure's matrix: a first row of ones (XOR parity) */
        assert_int_equal(code.coef[0][col], 1);
}

/* ---- the on-disk parity, whichever kernel --------------------------------- */

static uint32_t fnv1a(uint32_t h, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* FNV-1a over the coding matrix's g*g coefficients (row-major, one byte
 * each) as jerasure 2.0's reed_sol_vandermonde_coding_matrix(g, g, 8)
 * returned them, for g = 2..32: the parity files FTI and we wrote. */
static const uint32_t jerasure_matrix_fnv[G_MAX + 1] = {
    [2] = 0x9f4ec9b7,  [3] = 0xdb6f7ea6,  [4] = 0xacfd0a45,  [5] = 0x1bcf4ed6,  [6] = 0x5e6c5d9e,
    [7] = 0x8afc4551,  [8] = 0x1e9cbbde,  [9] = 0x298d6471,  [10] = 0x24d63be6, [11] = 0xf8e8a098,
    [12] = 0xfef8a42c, [13] = 0x0b7b0d02, [14] = 0x665203d1, [15] = 0x211a64e1, [16] = 0x6688a9fa,
    [17] = 0xd77b7773, [18] = 0x609cc1e0, [19] = 0xb2c9767b, [20] = 0xd65f2de5, [21] = 0xd7c32b3e,
    [22] = 0xb29cdc23, [23] = 0x1abab999, [24] = 0x92b39a5c, [25] = 0x7f94d53c, [26] = 0xaea357bd,
    [27] = 0x13d0e877, [28] = 0x6ac3048a, [29] = 0xf2ef9e02, [30] = 0x5176d3d0, [31] = 0x79971dcc,
    [32] = 0x498f45d4,
};

static void test_matrix_is_jerasures(void **state)
{
    (void)state;
    static const int g4[4][4] = {
        {1, 1, 1, 1}, {1, 217, 92, 172}, {1, 92, 70, 123}, {1, 70, 143, 200}};
    fti_rs_code code;
    assert_int_equal(fti_rs_code_init(&code, 4), 0);
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++)
            assert_int_equal(code.coef[r][c], g4[r][c]);
    for (int g = 2; g <= G_MAX; g++) {
        assert_int_equal(fti_rs_code_init(&code, g), 0);
        uint32_t h = 2166136261u;
        for (int r = 0; r < g; r++)
            for (int c = 0; c < g; c++) {
                unsigned char b = (unsigned char)code.coef[r][c];
                h = fnv1a(h, &b, 1);
            }
        if (h != jerasure_matrix_fnv[g])
            fail_msg("g=%d: coding matrix checksum 0x%08x, jerasure's 0x%08x", g, h,
                     jerasure_matrix_fnv[g]);
    }
}

/* Fixed data: member i's byte b. */
static unsigned char fixed_byte(int i, size_t b)
{
    return (unsigned char)((unsigned)i * 131u + b * 7u + (b >> 8) * 29u + 1u);
}

typedef void dot_fn(unsigned char *, unsigned char *const *, const int *, int, size_t);

/* Parity of the fixed data through `dot`; its FNV-1a over rows 0..g-1. */
static uint32_t fixed_parity(int g, size_t len, dot_fn *dot, unsigned char **parity)
{
    fti_rs_code code;
    unsigned char *data[G_MAX];
    assert_int_equal(fti_rs_code_init(&code, g), 0);
    for (int i = 0; i < g; i++) {
        data[i] = fti_gf_alloc(len);
        assert_non_null(data[i]);
        for (size_t b = 0; b < len; b++)
            data[i][b] = fixed_byte(i, b);
    }
    uint32_t h = 2166136261u;
    for (int row = 0; row < g; row++) {
        dot(parity[row], data, code.coef[row], g, len);
        h = fnv1a(h, parity[row], len);
    }
    for (int i = 0; i < g; i++)
        free(data[i]);
    return h;
}

/* Known answers (jerasure_matrix_encode of the same data), and the kernel
 * in use (ISA-L when built in) giving the same bytes as our own. */
static void test_parity_same_bytes_every_kernel(void **state)
{
    (void)state;
    static const struct { int g; uint32_t fnv; } kat[] = {{4, 0xdfdf4e0d}, {G_MAX, 0x2f6591e5}};
    const size_t len = 4096;
    unsigned char *own[G_MAX], *used[G_MAX];
    for (int i = 0; i < G_MAX; i++) {
        own[i] = fti_gf_alloc(len);
        used[i] = fti_gf_alloc(len);
        assert_true(own[i] && used[i]);
    }
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        uint32_t a = fixed_parity(kat[k].g, len, fti_gf_dot_portable, own);
        uint32_t b = fixed_parity(kat[k].g, len, fti_gf_dot, used);
        if (a != kat[k].fnv)
            fail_msg("g=%d: portable parity 0x%08x, jerasure's 0x%08x", kat[k].g, a, kat[k].fnv);
        for (int row = 0; row < kat[k].g; row++)
            assert_same(used[row], own[row], len);
        assert_int_equal(b, a);
    }
    for (int i = 0; i < G_MAX; i++) {
        free(own[i]);
        free(used[i]);
    }
}

/* Members 0 and 2 and parity 1 of a group of 4 lost: rebuilt through our
 * own kernel (what a build without ISA-L runs) from parity the kernel in
 * use wrote. */
static void test_rebuild_portable_kernel(void **state)
{
    (void)state;
    group gr;
    group_init(&gr, 4, 4096);
    int have[8] = {0, 1, 0, 1, 1, 0, 1, 1};
    fti_rs_plan plan;
    assert_int_equal(fti_rs_plan_rebuild(&gr.code, have, have + 4, &plan), 0);
    assert_int_equal(plan.nlost, 3);
    unsigned char *acc = fti_gf_alloc(gr.len);
    assert_non_null(acc);
    for (int t = 0; t < plan.nlost; t++) {
        memset(acc, 0, gr.len);
        for (int col = 0; col < plan.g; col++)
            fti_gf_mad_portable(acc, gr.chunk[plan.pick[col]], plan.row[t][col], gr.len, 1);
        assert_same(acc, gr.chunk[plan.lost[t]], gr.len);
    }
    free(acc);
    group_free(&gr);
}

/* Multiply-accumulate: every coefficient, both kernels, both modes, an odd
 * number of 64-byte blocks. */
static void test_mad_every_coef_both_kernels(void **state)
{
    (void)state;
    const size_t len = 3 * 64;
    unsigned char *src = fti_gf_alloc(len), *a = fti_gf_alloc(len), *b = fti_gf_alloc(len);
    assert_true(src && a && b);
    for (size_t i = 0; i < len; i++)
        src[i] = (unsigned char)(i * 37 + 11);
    for (int coef = 0; coef < 256; coef++)
        for (int add = 0; add < 2; add++) {
            for (size_t i = 0; i < len; i++)
                a[i] = b[i] = (unsigned char)(i ^ 0x5a);
            fti_gf_mad_portable(a, src, coef, len, add);
            fti_gf_mad(b, src, coef, len, add);
            for (size_t i = 0; i < len; i++) {
                unsigned want = ref_mul((unsigned)coef, src[i]) ^ (add ? (unsigned)(i ^ 0x5a) & 0xff : 0);
                if (a[i] != want || b[i] != want)
                    fail_msg("coef %d add %d byte %zu: portable %u, %s %u, reference %u", coef, add,
                             i, a[i], fti_gf_kernel(), b[i], want);
            }
        }
    for (unsigned x = 1; x < 256; x++)
        assert_int_equal(fti_gf_mul(x, fti_gf_inv(x)), 1);
    free(src);
    free(a);
    free(b);
}

/* ---- rebuilds, as L3 does them ------------------------------------------------ */

/* Re-creates each chunk of plan as the XOR of every survivor's share; the
 * result must equal the original. */
static void rebuild_planned(group *gr, const fti_rs_plan *plan, const int *have, unsigned char *acc)
{
    for (int t = 0; t < plan->nlost; t++) {
        int lost = plan->lost[t];
        assert_false(have[lost]);
        memset(acc, 0, gr->len);
        for (int id = 0; id < 2 * gr->g; id++)
            if (have[id])
                fti_rs_share(plan, t, id, gr->chunk[id], acc, gr->len);
            else
                assert_false(fti_rs_picked(plan, id));
        assert_same(acc, gr->chunk[lost], gr->len);
    }
}

/* Loses the chunks of `mask`, plans, and rebuilds every lost chunk; then,
 * as a restart does, only the lost data. */
static void check_loss(group *gr, uint64_t mask, unsigned char *acc)
{
    int g = gr->g, have[2 * G_MAX], nlost = 0, ndata = 0;
    for (int id = 0; id < 2 * g; id++) {
        have[id] = !(mask >> id & 1);
        nlost += !have[id];
        ndata += id < g && !have[id];
    }
    fti_rs_plan plan;
    int rc = fti_rs_plan_rebuild(&gr->code, have, have + g, &plan);
    if (nlost > g) {
        assert_int_equal(rc, -1);
        return;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(plan.nlost, nlost);
    for (int id = 0; id < 2 * g; id++)
        assert_int_equal(fti_rs_planned(&plan, id), !have[id]);
    rebuild_planned(gr, &plan, have, acc);
    fti_rs_plan_drop_parity(&plan);
    assert_int_equal(plan.nlost, ndata);
    for (int id = 0; id < 2 * g; id++)
        assert_int_equal(fti_rs_planned(&plan, id), id < g && !have[id]);
    rebuild_planned(gr, &plan, have, acc);
}

static void every_pattern(int g, size_t len)
{
    group gr;
    group_init(&gr, g, len);
    unsigned char *acc = fti_gf_alloc(len);
    assert_non_null(acc);
    for (uint64_t mask = 1; mask < (1ull << (2 * g)); mask++)
        check_loss(&gr, mask, acc);
    free(acc);
    group_free(&gr);
}

static void test_every_pattern_g2_g3_g4(void **state)
{
    (void)state;
    every_pattern(2, 64);
    every_pattern(3, 4096 + 192);
    every_pattern(4, (1u << 16) + 64);
}

/* The widest group: half its members lost (data and parity), and one more. */
static void test_widest_group(void **state)
{
    (void)state;
    group gr;
    group_init(&gr, G_MAX, 256);
    unsigned char *acc = fti_gf_alloc(gr.len);
    uint64_t half = 0;
    for (int m = 0; m < G_MAX; m += 2)
        half |= (1ull << m) | (1ull << (G_MAX + m));
    check_loss(&gr, half, acc);
    check_loss(&gr, 0xffffffffull, acc);          /* every data chunk: parity alone */
    check_loss(&gr, half | (1ull << 1), acc);     /* G+1 lost: refused */
    free(acc);
    group_free(&gr);
}

/* L3 cuts files into messages anywhere: parity computed piece by piece,
 * with any cut, equals parity of the whole, and so do rebuild shares. */
static void test_cut_anywhere(void **state)
{
    (void)state;
    const size_t cuts[] = {64, 4096, 3 * 64 * 1024, 1u << 20};
    group gr;
    group_init(&gr, 4, (1u << 20) + 3 * 64);
    unsigned char *out = fti_gf_alloc(gr.len), *in[4];
    for (size_t c = 0; c < sizeof cuts / sizeof cuts[0]; c++)
        for (int row = 0; row < 4; row++) {
            for (size_t off = 0; off < gr.len; off += cuts[c]) {
                size_t n = gr.len - off < cuts[c] ? gr.len - off : cuts[c];
                for (int i = 0; i < 4; i++)
                    in[i] = gr.chunk[i] + off;
                fti_rs_parity(&gr.code, row, in, out + off, n);
            }
            assert_same(out, gr.chunk[4 + row], gr.len);
        }
    free(out);
    group_free(&gr);
}

static void test_code_limits(void **state)
{
    (void)state;
    fti_rs_code code;
    assert_int_equal(fti_rs_code_init(&code, 1), -1);
    assert_int_equal(fti_rs_code_init(&code, G_MAX + 1), -1);
    assert_int_equal(fti_rs_code_init(&code, 2), 0);
    assert_int_equal(code.g, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answer),
        cmocka_unit_test(test_matrix_is_jerasures),
        cmocka_unit_test(test_parity_same_bytes_every_kernel),
        cmocka_unit_test(test_mad_every_coef_both_kernels),
        cmocka_unit_test(test_rebuild_portable_kernel),
        cmocka_unit_test(test_every_pattern_g2_g3_g4),
        cmocka_unit_test(test_widest_group),
        cmocka_unit_test(test_cut_anywhere),
        cmocka_unit_test(test_code_limits),
    };
    return cmocka_run_group_tests_name("rs_codec", tests, NULL, NULL);
}
