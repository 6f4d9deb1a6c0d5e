#include "runtime/topology.h"

#include <string.h>

#include "base/log.h"
#include "format/plan.h"
#include "runtime/watchdog.h"

/* node_size = 0: ask MPI which ranks share memory, and require equal nodes,
 * laid out consecutively (block placement, the common launcher default). */
static fti_err detect_node_size(MPI_Comm comm, const char *file, int *node_size)
{
    MPI_Comm shm;
    int rank, local, size_here, ok = 1, all_ok;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shm);
    MPI_Comm_rank(shm, &local);
    MPI_Comm_size(shm, &size_here);
    MPI_Comm_free(&shm);
    int minmax[2] = {-size_here, size_here};
    MPI_Allreduce(MPI_IN_PLACE, minmax, 2, MPI_INT, MPI_MAX, comm);
    if (-minmax[0] != minmax[1] || rank % size_here != local)
        ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_ok)
        return fti_fail(FTI_E_CONFIG,
                        "config %s: [basic] node_size = 0 (detect) needs the same number of "
                        "ranks on every node, placed consecutively; found %d to %d per node: "
                        "set node_size", file, -minmax[0], minmax[1]);
    *node_size = size_here;
    return FTI_E_OK;
}

static fti_err check_shape(fti_topology *t, const fti_config *cfg)
{
    if (t->global_size % t->node_size != 0)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] node_size = %d does not divide the %d ranks",
                        cfg->file, t->node_size, t->global_size);
    if (cfg->head && t->node_size < 2)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] head = 1 needs node_size >= 2 (one head "
                        "and at least one application rank per node), node_size is %d",
                        cfg->file, t->node_size);
    t->nnodes = t->global_size / t->node_size;
    t->group_size = fti_group_size_fit(cfg->group_size, cfg->group_size_given, t->nnodes);
    if (t->nnodes % t->group_size != 0)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] group_size = %d does not divide the %d "
                        "nodes (%d ranks / node_size %d)", cfg->file, t->group_size, t->nnodes,
                        t->global_size, t->node_size);
    for (int l = 2; l <= 3; l++)
        if ((cfg->ckpt_min[l] || cfg->ckpt_sec[l] || cfg->ckpt_iter[l]) && t->group_size < 2)
            return fti_fail(FTI_E_CONFIG, "config %s: level %d is scheduled (ckpt_l%d...) but "
                            "[basic] group_size = %d: it needs at least 2 nodes per group",
                            cfg->file, l, l, t->group_size);
    return FTI_E_OK;
}

/* Places this rank (plan.h's rules): node, head or application rank,
 * group, position in its ring. */
static void place(fti_topology *t, int head)
{
    int heads = head ? 1 : 0;
    t->app_per_node = t->node_size - heads;
    t->shape = (fti_shape){.app_per_node = t->app_per_node, .group_size = t->group_size,
                           .heads = heads};
    const fti_shape *s = &t->shape;
    t->node = fti_plan_global_node(s, t->global_rank);
    t->node_pos = fti_plan_global_pos(s, t->global_rank);
    t->is_head = t->node_pos < 0;
    t->head_global = fti_plan_head(s, t->node);
    t->ngroups = fti_plan_groups(s, t->nnodes);
    t->group = fti_plan_node_group(s, t->node);
    t->group_pos = fti_plan_node_group_pos(s, t->node);
}

int fti_topology_app_rank(const fti_topology *t, int node, int pos)
{
    return fti_plan_rank_at(&t->shape, node, pos);
}

void fti_topology_reset(fti_topology *t)
{
    memset(t, 0, sizeof *t);
    t->global = MPI_COMM_NULL;
    t->app = MPI_COMM_NULL;
    t->group_comm = MPI_COMM_NULL;
    t->head_comm = MPI_COMM_NULL;
    t->heads = MPI_COMM_NULL;
    t->flush = MPI_COMM_NULL;
}

fti_err fti_topology_build(fti_topology *t, const fti_config *cfg, MPI_Comm comm)
{
    fti_topology_reset(t);
    if (fti_watched_dup(comm, &t->global, "FTI_Init: copy of the communicator") != MPI_SUCCESS)
        return fti_fail(FTI_E_MPI, "MPI_Comm_dup of the communicator given to FTI_Init failed");
    MPI_Comm_rank(t->global, &t->global_rank);
    MPI_Comm_size(t->global, &t->global_size);

    t->node_size = cfg->node_size;
    fti_err e = FTI_E_OK;
    if (t->node_size == 0)
        e = detect_node_size(t->global, cfg->file, &t->node_size);
    if (e == FTI_E_OK)
        e = check_shape(t, cfg);
    if (e != FTI_E_OK)
        return e;
    place(t, cfg->head);

    /* Application ranks keep their global order, so app rank = node * app_per_node + pos
     * (fti_plan_rank_at).
     * Without heads (the same on every rank) that is a copy of global, and the
     * heads' communicators stay null: each split is a collective round that
     * a restart waits for. */
    if (cfg->head) {
        MPI_Comm_split(t->global, t->is_head ? MPI_UNDEFINED : 0, t->global_rank, &t->app);
        MPI_Comm_split(t->global, t->is_head ? t->group : MPI_UNDEFINED, t->group_pos, &t->head_comm);
        MPI_Comm_split(t->global, t->is_head ? 0 : MPI_UNDEFINED, t->global_rank, &t->heads);
    } else {
        fti_watched_dup(t->global, &t->app, "FTI_Init: application communicator");
    }
    t->app_rank = -1;
    t->app_size = t->nnodes * t->app_per_node;
    if (!t->is_head) {
        MPI_Comm_rank(t->app, &t->app_rank);
        fti_watched_dup(t->app, &t->flush, "FTI_Init: flush communicator");
        /* The ranks of the same position on each node of the group form the
         * L2/L3 ring: one rank per node, so each stripe spans distinct nodes. */
        if (t->ngroups == 1 && t->app_per_node == 1) /* one ring of every rank, in order */
            fti_watched_dup(t->app, &t->group_comm, "FTI_Init: group communicator");
        else
            MPI_Comm_split(t->app, fti_plan_ring(&t->shape, t->app_rank), t->group_pos,
                           &t->group_comm);
    }
    return FTI_E_OK;
}

void fti_topology_free(fti_topology *t)
{
    MPI_Comm *comms[] = {&t->head_comm, &t->heads, &t->flush, &t->group_comm, &t->app, &t->global};
    for (size_t i = 0; i < sizeof comms / sizeof comms[0]; i++)
        if (*comms[i] != MPI_COMM_NULL)
            MPI_Comm_free(comms[i]);
    fti_topology_reset(t);
}
