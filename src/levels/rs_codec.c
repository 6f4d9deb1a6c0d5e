/*
 * rs_codec.c - level 3's Reed-Solomon code: jerasure's coding matrix and
 * field for the small matrices (coefficients, inverses), gf_region's
 * kernels (ISA-L or jerasure) for the bytes.
 */
#include "rs_codec.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <jerasure.h>
#include <jerasure/galois.h>
#include <jerasure/reed_sol.h>

#include "gf_region.h"

static pthread_once_t field_once = PTHREAD_ONCE_INIT;
static int field_status = -1;

/* jerasure builds its GF(2^8) field lazily on first use, unsynchronized;
 * building it once here makes later concurrent use read-only. An
 * application that set its own field keeps it. */
static void field_init(void)
{
    field_status = galois_get_field_ptr(8) != NULL ? 0 : galois_init_default_field(8);
}

static int field_ready(void)
{
    return pthread_once(&field_once, field_init) == 0 && field_status == 0;
}

int fti_rs_code_init(fti_rs_code *code, int g)
{
    memset(code, 0, sizeof *code);
    if (g < 2 || g > FTI_RS_MAX_G || !field_ready())
        return -1;
    int *m = reed_sol_vandermonde_coding_matrix(g, g, 8);
    if (m == NULL)
        return -1;
    code->g = g;
    for (int row = 0; row < g; row++)
        for (int col = 0; col < g; col++)
            code->coef[row][col] = m[row * g + col];
    free(m);
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
                v ^= galois_single_multiply(generator(code, plan->lost[t], k), inv[k * g + col], 8);
            plan->row[t][col] = v;
        }
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
    if (jerasure_invert_matrix(A, inv, g, 8) != 0)
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
