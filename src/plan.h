/*
 * plan.h - the MPI-free rules of where a checkpoint's pieces live and what
 * can rebuild them: application rank -> node -> group -> ring member, the
 * holder of a rank's L2 copy, and the group size a job really uses (the L3
 * rebuild plan is rs_codec.h's). The library (topology, levels) and fti-ckpt (tools/) both
 * call these, so a tool's verdict and a restart can never disagree.
 */
#ifndef FTI_PLAN_H
#define FTI_PLAN_H

#include "config.h"

/* The job's shape: enough to place any application rank. */
typedef struct fti_shape {
    int app_per_node; /* application ranks per node (heads excluded), > 0 */
    int group_size;   /* nodes per group, as fti_group_size_fit decided */
} fti_shape;

/* The group size of a job of nnodes nodes: [basic] group_size when the key
 * was given (it may then not divide nnodes: the caller says so), else the
 * default shrunk to the largest size that divides nnodes. */
int fti_group_size_fit(int group_size, int given, int nnodes);

/* The node of application rank `rank`. */
int fti_plan_node(const fti_shape *s, int rank);

/* The position of rank's node in its group (0..group_size-1). */
int fti_plan_group_pos(const fti_shape *s, int rank);

/* The application rank at position `pos` of node `node`. */
int fti_plan_rank_at(const fti_shape *s, int node, int pos);

/* The member j of rank's group ring: the rank with rank's position on its
 * node, on node j of rank's group. */
int fti_plan_member(const fti_shape *s, int rank, int j);

/* The rank holding rank's L2 partner copy: the next member of its ring. */
int fti_plan_partner_holder(const fti_shape *s, int rank);

#endif /* FTI_PLAN_H */
