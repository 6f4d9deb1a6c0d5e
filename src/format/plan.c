#include "format/plan.h"

int fti_group_size_fit(int group_size, int given, int nnodes)
{
    while (!given && group_size > 1 && nnodes % group_size != 0)
        group_size--;
    return group_size;
}

int fti_plan_node_size(const fti_shape *s)
{
    return s->app_per_node + (s->heads ? 1 : 0);
}

int fti_plan_global_node(const fti_shape *s, int g)
{
    return g / fti_plan_node_size(s);
}

int fti_plan_global_pos(const fti_shape *s, int g)
{
    int local = g % fti_plan_node_size(s);
    return s->heads ? local - 1 : local; /* the head, local 0, gets -1 */
}

int fti_plan_head(const fti_shape *s, int node)
{
    return s->heads ? node * fti_plan_node_size(s) : -1;
}

int fti_plan_global_at(const fti_shape *s, int node, int pos)
{
    return node * fti_plan_node_size(s) + (s->heads ? 1 : 0) + pos;
}

int fti_plan_node(const fti_shape *s, int rank)
{
    return rank / s->app_per_node;
}

int fti_plan_rank_at(const fti_shape *s, int node, int pos)
{
    return node * s->app_per_node + pos;
}

int fti_plan_groups(const fti_shape *s, int nnodes)
{
    return nnodes / s->group_size;
}

int fti_plan_node_group(const fti_shape *s, int node)
{
    return node / s->group_size;
}

int fti_plan_node_group_pos(const fti_shape *s, int node)
{
    return node % s->group_size;
}

int fti_plan_group_pos(const fti_shape *s, int rank)
{
    return fti_plan_node_group_pos(s, fti_plan_node(s, rank));
}

int fti_plan_ring(const fti_shape *s, int rank)
{
    return fti_plan_node_group(s, fti_plan_node(s, rank)) * s->app_per_node + rank % s->app_per_node;
}

int fti_plan_ring_next(const fti_shape *s, int pos)
{
    return (pos + 1) % s->group_size;
}

int fti_plan_ring_prev(const fti_shape *s, int pos)
{
    return (pos + s->group_size - 1) % s->group_size;
}

int fti_plan_member(const fti_shape *s, int rank, int j)
{
    int first = fti_plan_node_group(s, fti_plan_node(s, rank)) * s->group_size;
    return fti_plan_rank_at(s, first + j, rank % s->app_per_node);
}

int fti_plan_partner_holder(const fti_shape *s, int rank)
{
    return fti_plan_member(s, rank, fti_plan_ring_next(s, fti_plan_group_pos(s, rank)));
}
