#include "plan.h"

#include "levels/gf_region.h"
#include "levels/rs_codec.h"

int fti_group_size_fit(int group_size, int given, int nnodes)
{
    while (!given && group_size > 1 && nnodes % group_size != 0)
        group_size--;
    return group_size;
}

int fti_plan_node(const fti_shape *s, int rank)
{
    return rank / s->app_per_node;
}

int fti_plan_group_pos(const fti_shape *s, int rank)
{
    return fti_plan_node(s, rank) % s->group_size;
}

int fti_plan_rank_at(const fti_shape *s, int node, int pos)
{
    return node * s->app_per_node + pos;
}

int fti_plan_member(const fti_shape *s, int rank, int j)
{
    int first = fti_plan_node(s, rank) / s->group_size * s->group_size;
    return fti_plan_rank_at(s, first + j, rank % s->app_per_node);
}

int fti_plan_partner_holder(const fti_shape *s, int rank)
{
    return fti_plan_member(s, rank, (fti_plan_group_pos(s, rank) + 1) % s->group_size);
}

int fti_l3_coding_matrix(int G, int coef[][FTI_GROUP_MAX])
{
    int err = 0;
    fti_rs *rs = fti_rs_create(G, G, FTI_RS_ENGINE_AUTO, &err);
    if (rs == NULL)
        return err;
    for (int row = 0; row < G; row++)
        for (int col = 0; col < G; col++)
            coef[row][col] = fti_rs_coefficient(rs, row, col);
    fti_rs_destroy(rs);
    return 0;
}

/* G surviving chunks, data first, into pick; how many there were (<= G). */
static int pick_survivors(int G, const int *own, const int *par, int *pick)
{
    int n = 0;
    for (int i = 0; i < G && n < G; i++)
        if (own[i])
            pick[n++] = i;
    for (int i = 0; i < G && n < G; i++)
        if (par[i])
            pick[n++] = G + i;
    return n;
}

int fti_l3_plan_decode(int G, const int *own, const int *par, const int coef[][FTI_GROUP_MAX],
                       int *pick, int *inv)
{
    int A[FTI_GROUP_MAX * FTI_GROUP_MAX];
    if (pick_survivors(G, own, par, pick) < G)
        return -1;
    for (int r = 0; r < G; r++)
        for (int col = 0; col < G; col++)
            A[r * G + col] = pick[r] < G ? (pick[r] == col) : coef[pick[r] - G][col];
    return fti_gf_invert(A, inv, G) == 0 ? 0 : -1;
}
