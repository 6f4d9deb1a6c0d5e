/*
 * test_rs_codec.c - L3's Reed-Solomon code, driven as L3 drives it: each
 * member's parity row with fti_rs_parity, each survivor's share of a lost
 * chunk with fti_rs_share, summed by XOR as L3's reduction does. Every
 * loss pattern of small groups, the widest group, a known-answer check
 * against a scalar GF(2^8) (polynomial 0x11d) reference, and the byte-wise
 * property that lets L3 cut files anywhere (parity of pieces = parity of
 * the whole).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "levels/gf_region.h"
#include "levels/rs_codec.h"

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
        cmocka_unit_test(test_every_pattern_g2_g3_g4),
        cmocka_unit_test(test_widest_group),
        cmocka_unit_test(test_cut_anywhere),
        cmocka_unit_test(test_code_limits),
    };
    return cmocka_run_group_tests_name("rs_codec", tests, NULL, NULL);
}
