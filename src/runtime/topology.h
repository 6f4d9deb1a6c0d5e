/*
 * topology.h - ranks -> nodes -> groups. A node is node_size consecutive
 * ranks of the global communicator (or the ranks sharing memory, when
 * node_size = 0). With head=1 the first rank of each node is its head and
 * FTI_COMM_WORLD holds the other (application) ranks. Groups are group_size
 * consecutive nodes; a node's partner for L2 is the next node in its group's
 * ring. The rules are plan.h's; this module applies them to this rank and
 * builds the communicators. All ids below are in application-rank terms
 * unless said otherwise.
 */
#ifndef FTI_TOPOLOGY_H
#define FTI_TOPOLOGY_H

#include <mpi.h>

#include "format/config.h"
#include "base/error.h"
#include "format/plan.h"

typedef struct fti_topology {
    MPI_Comm global;     /* dup of the communicator given to FTI_Init */
    MPI_Comm app;        /* FTI_COMM_WORLD: global minus heads */
    int global_rank, global_size;
    int app_rank, app_size; /* -1 / size on heads */
    int node_size;       /* ranks per node, head included */
    int app_per_node;    /* application ranks per node */
    int nnodes;
    int node;            /* my node id */
    int node_pos;        /* my index among my node's application ranks; -1 on a head */
    int is_head;
    int head_global;     /* global rank of my node's head; -1 without heads */
    int group_size;      /* nodes per group */
    int ngroups;
    int group;           /* my group id */
    int group_pos;       /* my node's index in its group */
    fti_shape shape;     /* the job's shape: plan.h places any rank with it */
    MPI_Comm group_comm; /* the application ranks with my node_pos in my group, ordered by node;
                          * its ring neighbours: levels/ring.c (fti_ring_of, from plan.c) */
    MPI_Comm head_comm;  /* on heads: the heads of my group, ordered by node */
    MPI_Comm heads;      /* on heads: every head, ordered by node */
    MPI_Comm flush;      /* dup of app for L4 MPI-IO, which may run in the helper thread */
} fti_topology;

/* Collective over `comm`. Builds the topology from the config; errors name
 * the key (node_size, group_size, head) and the numbers that do not fit. */
fti_err fti_topology_build(fti_topology *t, const fti_config *cfg, MPI_Comm comm);
void fti_topology_free(fti_topology *t);
/* No communicators, nothing else set: what fti_topology_free accepts before
 * (or without) a build. A zeroed struct is not that: MPI_COMM_NULL is not 0. */
void fti_topology_reset(fti_topology *t);

/* The application rank holding position `pos` of node `node`. */
int fti_topology_app_rank(const fti_topology *t, int node, int pos);

#endif /* FTI_TOPOLOGY_H */
