/*
 * rs_codec.c - level 3's Reed-Solomon code: the coding matrix and the
 * small inverses over gf_region's field, gf_region's kernels (ISA-L or our
 * own) for the bytes.
 */
#include "format/rs_codec.h"

#include <string.h>

#include "format/gf_region.h"

/* ---- the coding matrix -------------------------------------------------
 * The matrix FTI's parity files were always made with (jerasure's
 * "Vandermonde coding matrix", w = 8), built here by the same steps so the
 * parity stays byte-identical without that library: a systematic form of
 * an extended Vandermonde matrix, normalised so the first parity row and
 * the first column are all ones (parity row 0 is then the XOR of the data).
 * test_rs_codec holds each group size's matrix checksum as jerasure built
 * it. n = 2g rows, g columns, row-major in v. */

/* Row 0 is e_0, row n-1 is e_(g-1), row r in between is r^0, r^1, ... */
static void extended_vandermonde(int *v, int n, int g)
{
    memset(v, 0, sizeof(int) * (size_t)(n * g));
    v[0] = 1;
    v[(n - 1) * g + g - 1] = 1;
    for (int r = 1; r < n - 1; r++) {
        unsigned p = 1;
        for (int c = 0; c < g; c++, p = fti_gf_mul(p, (unsigned)r))
            v[r * g + c] = (int)p;
    }
}

static void swap_rows(int *v, int g, int a, int b)
{
    for (int c = 0; c < g; c++) {
        int t = v[a * g + c];
        v[a * g + c] = v[b * g + c];
        v[b * g + c] = t;
    }
}

/* The first row from `from` on (of `rows`, g columns) whose element in
 * column col is non-zero: the pivot of an elimination step; rows if none. */
static int pivot_row(const int *m, int from, int rows, int g, int col)
{
    int r = from;
    while (r < rows && m[r * g + col] == 0)
        r++;
    return r;
}

/* Column operations (they keep every g rows independent) that turn the
 * top g x g block into the identity, column by column from the second;
 * row swaps bring a non-zero pivot up. -1 when no pivot (cannot happen). */
static int make_systematic(int *v, int n, int g)
{
    for (int i = 1; i < g; i++) {
        int j = pivot_row(v, i, n, g, i);
        if (j == n)
            return -1;
        if (j != i)
            swap_rows(v, g, i, j);
        unsigned s = fti_gf_inv((unsigned)v[i * g + i]);
        for (int r = 0; r < n && s != 1; r++)
            v[r * g + i] = (int)fti_gf_mul(s, (unsigned)v[r * g + i]);
        for (int c = 0; c < g; c++) {
            unsigned e = (unsigned)v[i * g + c];
            if (c == i || e == 0)
                continue;
            for (int r = 0; r < n; r++) /* column c -= e * column i */
                v[r * g + c] ^= (int)fti_gf_mul(e, (unsigned)v[r * g + i]);
        }
    }
    return 0;
}

/* Scales the parity columns so parity row 0 is all ones, then each later
 * parity row so its first element is one. */
static void normalise_parity(int *v, int n, int g)
{
    for (int c = 0; c < g; c++) {
        unsigned s = fti_gf_inv((unsigned)v[g * g + c]);
        for (int r = g; r < n && s != 1; r++)
            v[r * g + c] = (int)fti_gf_mul(s, (unsigned)v[r * g + c]);
    }
    for (int r = g + 1; r < n; r++) {
        unsigned s = fti_gf_inv((unsigned)v[r * g]);
        for (int c = 0; c < g && s != 1; c++)
            v[r * g + c] = (int)fti_gf_mul((unsigned)v[r * g + c], s);
    }
}

int fti_rs_code_init(fti_rs_code *code, int g)
{
    int m[2 * FTI_RS_MAX_G * FTI_RS_MAX_G]; /* 8 KiB on the stack: thread-safe */
    memset(code, 0, sizeof *code);
    if (g < 2 || g > FTI_RS_MAX_G)
        return -1;
    extended_vandermonde(m, 2 * g, g);
    if (make_systematic(m, 2 * g, g) != 0)
        return -1;
    normalise_parity(m, 2 * g, g);
    code->g = g;
    for (int row = 0; row < g; row++)
        for (int col = 0; col < g; col++)
            code->coef[row][col] = m[(g + row) * g + col];
    return 0;
}

void fti_rs_parity(const fti_rs_code *code, int row, unsigned char *const *data, unsigned char *out,
                   size_t len)
{
    fti_gf_dot(out, data, code->coef[row], code->g, len);
}

/* Row `id` of the 2G x G generator: identity on top, coding below. */
static int generator(const fti_rs_code *code, int id, int col)
{
    return id < code->g ? id == col : code->coef[id - code->g][col];
}

static int pick_survivors(const fti_rs_code *code, const int *have_data, const int *have_parity,
                          fti_rs_plan *plan)
{
    int n = 0, g = code->g;
    plan->g = g;
    plan->nlost = 0;
    for (int i = 0; i < g && n < g; i++)
        if (have_data[i])
            plan->pick[n++] = i;
    for (int i = 0; i < g && n < g; i++)
        if (have_parity[i])
            plan->pick[n++] = g + i;
    for (int id = 0; id < 2 * g; id++)
        if (!(id < g ? have_data[id] : have_parity[id - g]))
            plan->lost[plan->nlost++] = id;
    return n == g ? 0 : -1;
}

/* row[t] = generator row of lost[t] times inv (the inverse of the picked
 * survivors' generator rows): the lost chunk over the picked ones. */
static void lost_rows(const fti_rs_code *code, const int *inv, fti_rs_plan *plan)
{
    int g = code->g;
    for (int t = 0; t < plan->nlost; t++)
        for (int col = 0; col < g; col++) {
            int v = 0;
            for (int k = 0; k < g; k++)
                v ^= (int)fti_gf_mul((unsigned)generator(code, plan->lost[t], k), (unsigned)inv[k * g + col]);
            plan->row[t][col] = v;
        }
}

/* inv = a^-1 (g x g, row-major) by Gauss-Jordan; a is consumed. The
 * inverse is unique, so the plan's rows do not depend on how it is found.
 * -1 when a is singular. */
static int invert(int *a, int *inv, int g)
{
    for (int r = 0; r < g; r++)
        for (int c = 0; c < g; c++)
            inv[r * g + c] = r == c;
    for (int i = 0; i < g; i++) {
        int p = pivot_row(a, i, g, g, i);
        if (p == g)
            return -1;
        if (p != i) {
            swap_rows(a, g, i, p);
            swap_rows(inv, g, i, p);
        }
        unsigned s = fti_gf_inv((unsigned)a[i * g + i]);
        for (int c = 0; c < g; c++) {
            a[i * g + c] = (int)fti_gf_mul(s, (unsigned)a[i * g + c]);
            inv[i * g + c] = (int)fti_gf_mul(s, (unsigned)inv[i * g + c]);
        }
        for (int r = 0; r < g; r++) {
            unsigned e = (unsigned)a[r * g + i];
            if (r == i || e == 0)
                continue;
            for (int c = 0; c < g; c++) { /* row r -= e * row i */
                a[r * g + c] ^= (int)fti_gf_mul(e, (unsigned)a[i * g + c]);
                inv[r * g + c] ^= (int)fti_gf_mul(e, (unsigned)inv[i * g + c]);
            }
        }
    }
    return 0;
}

int fti_rs_plan_rebuild(const fti_rs_code *code, const int *have_data, const int *have_parity,
                        fti_rs_plan *plan)
{
    int g = code->g, A[FTI_RS_MAX_G * FTI_RS_MAX_G], inv[FTI_RS_MAX_G * FTI_RS_MAX_G];
    if (pick_survivors(code, have_data, have_parity, plan) != 0)
        return -1;
    for (int r = 0; r < g; r++)
        for (int col = 0; col < g; col++)
            A[r * g + col] = generator(code, plan->pick[r], col);
    if (invert(A, inv, g) != 0)
        return -1; /* cannot happen with this code: any G rows are independent */
    lost_rows(code, inv, plan);
    return 0;
}

int fti_rs_picked(const fti_rs_plan *plan, int id)
{
    for (int col = 0; col < plan->g; col++)
        if (plan->pick[col] == id)
            return 1;
    return 0;
}

int fti_rs_planned(const fti_rs_plan *plan, int id)
{
    for (int t = 0; t < plan->nlost; t++)
        if (plan->lost[t] == id)
            return 1;
    return 0;
}

void fti_rs_plan_drop_parity(fti_rs_plan *plan)
{
    int n = 0;
    while (n < plan->nlost && plan->lost[n] < plan->g) /* data ids come first */
        n++;
    plan->nlost = n;
}

void fti_rs_share(const fti_rs_plan *plan, int t, int id, const unsigned char *src,
                  unsigned char *acc, size_t len)
{
    for (int col = 0; col < plan->g; col++)
        if (plan->pick[col] == id)
            fti_gf_mad(acc, src, plan->row[t][col], len, 1);
}
