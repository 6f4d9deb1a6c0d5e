#include "plan.h"

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
