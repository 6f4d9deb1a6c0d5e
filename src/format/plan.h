/*
 * plan.h - the MPI-free rules of where a checkpoint's pieces live: global
 * rank -> node -> head or application rank, application rank -> node ->
 * group -> ring member, the holder of a rank's L2 copy, and the group size
 * a job really uses (the L3 rebuild plan is rs_codec.h's). The library
 * places its ranks with these (topology.c, and levels/ring.c, l2_partner.c,
 * l3_rs.c for the members and nodes of a ring) and fti-ckpt (tools/
 * ckpt_store.c) finds files with them, so a tool's verdict and a restart
 * can never disagree.
 *
 * A node is app_per_node + heads consecutive global ranks; with heads the
 * first is the node's head. Application ranks keep the global order with
 * the heads left out, so application rank = node * app_per_node + position
 * on the node. A group is group_size consecutive nodes; a ring is the
 * ranks of one position on the nodes of one group, ordered by node.
 */
#ifndef FTI_PLAN_H
#define FTI_PLAN_H

#include "format/config.h"

/* The job's shape: enough to place any rank. */
typedef struct fti_shape {
    int app_per_node; /* application ranks per node (heads excluded), > 0 */
    int group_size;   /* nodes per group, as fti_group_size_fit decided, > 0 */
    int heads;        /* 1: the first rank of each node is its head; 0: none */
} fti_shape;

/* The group size of a job of nnodes nodes: [basic] group_size when the key
 * was given (it may then not divide nnodes: the caller says so), else the
 * default shrunk to the largest size that divides nnodes. */
int fti_group_size_fit(int group_size, int given, int nnodes);

/* ---- global ranks (heads included) ---- */

/* Ranks per node, the head included. */
int fti_plan_node_size(const fti_shape *s);

/* The node of global rank g. */
int fti_plan_global_node(const fti_shape *s, int g);

/* The position of global rank g among its node's application ranks
 * (0..app_per_node-1); -1 when g is its node's head. */
int fti_plan_global_pos(const fti_shape *s, int g);

/* The global rank of node's head; -1 without heads. */
int fti_plan_head(const fti_shape *s, int node);

/* The global rank of the application rank at position pos of node. */
int fti_plan_global_at(const fti_shape *s, int node, int pos);

/* ---- application ranks ---- */

/* The node of application rank `rank`. */
int fti_plan_node(const fti_shape *s, int rank);

/* The application rank at position `pos` of node `node`. */
int fti_plan_rank_at(const fti_shape *s, int node, int pos);

/* The groups of a job of nnodes nodes (group_size divides nnodes). */
int fti_plan_groups(const fti_shape *s, int nnodes);

/* The group of node `node`, and the node's position in it (0..group_size-1). */
int fti_plan_node_group(const fti_shape *s, int node);
int fti_plan_node_group_pos(const fti_shape *s, int node);

/* The position of rank's node in its group (0..group_size-1): rank's
 * position in its ring. */
int fti_plan_group_pos(const fti_shape *s, int rank);

/* The ring of rank, numbered group by group, position by position (the
 * same number for every member, distinct between rings). */
int fti_plan_ring(const fti_shape *s, int rank);

/* Ring positions: the next and the previous of pos (wrapping). */
int fti_plan_ring_next(const fti_shape *s, int pos);
int fti_plan_ring_prev(const fti_shape *s, int pos);

/* The member j of rank's ring: the rank with rank's position on its node,
 * on node j of rank's group. */
int fti_plan_member(const fti_shape *s, int rank, int j);

/* The rank holding rank's L2 partner copy: the next member of its ring. */
int fti_plan_partner_holder(const fti_shape *s, int rank);

#endif /* FTI_PLAN_H */
