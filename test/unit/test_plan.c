/*
 * test_plan.c - the placement rules of src/format/plan.c, which the library's
 * topology and rings and fti-ckpt all use: for topologies FTI accepts
 * (with and without heads; node_size and group_size combinations that
 * divide), every global rank maps to its node, its head or its position,
 * and back; application ranks are the global ones in order without the
 * heads (what MPI_Comm_split makes of them); the rings hold one rank per
 * node of a group in node order; each rank's L2 copy is on the next node
 * of its ring; group_size is fitted to the nodes unless given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "format/plan.h"

/* A job: its shape and how many nodes. */
typedef struct job {
    fti_shape s;
    int nnodes;
} job;

static const job jobs[] = {
    {{1, 4, 0}, 8},  /* one rank per node, two groups of 4 */
    {{3, 2, 1}, 4},  /* node_size 4 with a head, two groups of 2 */
    {{2, 3, 0}, 6},  /* two rank per node, groups of 3 */
    {{1, 2, 1}, 4},  /* node_size 2 with a head: one application rank per node */
    {{4, 1, 0}, 2},  /* groups of one node (L1/L4 only) */
    {{2, 4, 1}, 4},  /* node_size 3 with a head, one group */
};
#define NJOBS (sizeof jobs / sizeof jobs[0])

static void test_group_size_fit(void **state)
{
    (void)state;
    assert_int_equal(fti_group_size_fit(4, 0, 8), 4);
    assert_int_equal(fti_group_size_fit(4, 0, 6), 3); /* default shrunk to divide */
    assert_int_equal(fti_group_size_fit(4, 0, 7), 1);
    assert_int_equal(fti_group_size_fit(4, 1, 6), 4); /* given: kept (topology refuses it) */
    assert_int_equal(fti_group_size_fit(2, 1, 2), 2);
}

/* The split of the global ranks: heads out, application ranks in global
 * order, so rank = node * app_per_node + position. */
static void test_global_ranks(void **state)
{
    (void)state;
    for (size_t k = 0; k < NJOBS; k++) {
        const fti_shape *s = &jobs[k].s;
        int app = 0, nglobal = jobs[k].nnodes * fti_plan_node_size(s);
        assert_int_equal(fti_plan_node_size(s), s->app_per_node + s->heads);
        for (int g = 0; g < nglobal; g++) {
            int node = fti_plan_global_node(s, g), pos = fti_plan_global_pos(s, g);
            assert_int_equal(node, g / fti_plan_node_size(s));
            if (s->heads && g % fti_plan_node_size(s) == 0) { /* the node's first rank */
                assert_int_equal(pos, -1);
                assert_int_equal(fti_plan_head(s, node), g);
                continue;
            }
            assert_in_range(pos, 0, s->app_per_node - 1);
            assert_int_equal(fti_plan_rank_at(s, node, pos), app);
            assert_int_equal(fti_plan_node(s, app), node);
            assert_int_equal(fti_plan_global_at(s, node, pos), g);
            app++;
        }
        assert_int_equal(app, jobs[k].nnodes * s->app_per_node);
        if (!s->heads)
            assert_int_equal(fti_plan_head(s, 0), -1);
    }
}

/* Every ring: the ranks with one ring number, by group position, are the
 * members fti_plan_member names; one per node of the group, in node order. */
static void test_rings(void **state)
{
    (void)state;
    for (size_t k = 0; k < NJOBS; k++) {
        const fti_shape *s = &jobs[k].s;
        int napp = jobs[k].nnodes * s->app_per_node, G = s->group_size;
        assert_int_equal(fti_plan_groups(s, jobs[k].nnodes), jobs[k].nnodes / G);
        for (int r = 0; r < napp; r++) {
            int node = fti_plan_node(s, r), ring = fti_plan_ring(s, r);
            assert_int_equal(fti_plan_node_group(s, node), node / G);
            assert_int_equal(fti_plan_group_pos(s, r), fti_plan_node_group_pos(s, node));
            assert_in_range(ring, 0, fti_plan_groups(s, jobs[k].nnodes) * s->app_per_node - 1);
            for (int j = 0; j < G; j++) {
                int m = fti_plan_member(s, r, j);
                assert_int_equal(fti_plan_ring(s, m), ring);
                assert_int_equal(fti_plan_group_pos(s, m), j);
                assert_int_equal(fti_plan_node(s, m), fti_plan_node_group(s, node) * G + j);
                assert_int_equal(m % s->app_per_node, r % s->app_per_node);
            }
            assert_int_equal(fti_plan_member(s, r, fti_plan_group_pos(s, r)), r);
            for (int q = 0; q < napp; q++) /* no other rank in r's ring */
                if (fti_plan_ring(s, q) == ring)
                    assert_int_equal(fti_plan_member(s, r, fti_plan_group_pos(s, q)), q);
        }
    }
}

/* The L2 copy of a rank lives on the next node of its ring (another node
 * whenever the group has two), and the ring wraps. */
static void test_partner(void **state)
{
    (void)state;
    for (size_t k = 0; k < NJOBS; k++) {
        const fti_shape *s = &jobs[k].s;
        int G = s->group_size;
        for (int p = 0; p < G; p++) {
            assert_int_equal(fti_plan_ring_next(s, p), (p + 1) % G);
            assert_int_equal(fti_plan_ring_prev(s, fti_plan_ring_next(s, p)), p);
        }
        for (int r = 0; r < jobs[k].nnodes * s->app_per_node; r++) {
            int h = fti_plan_partner_holder(s, r);
            assert_int_equal(fti_plan_ring(s, h), fti_plan_ring(s, r));
            assert_int_equal(fti_plan_group_pos(s, h), fti_plan_ring_next(s, fti_plan_group_pos(s, r)));
            if (G >= 2)
                assert_int_not_equal(fti_plan_node(s, h), fti_plan_node(s, r));
        }
    }
}

/* One job worked by hand: node_size 4 with a head, groups of 2 nodes. */
static void test_example_with_heads(void **state)
{
    (void)state;
    const fti_shape s = {3, 2, 1};
    assert_int_equal(fti_plan_node(&s, 7), 2);
    assert_int_equal(fti_plan_global_at(&s, 2, 1), 10); /* app rank 7 */
    assert_int_equal(fti_plan_head(&s, 2), 8);
    assert_int_equal(fti_plan_global_pos(&s, 8), -1);
    assert_int_equal(fti_plan_global_pos(&s, 11), 2);
    assert_int_equal(fti_plan_group_pos(&s, 7), 0);
    assert_int_equal(fti_plan_ring(&s, 7), 4); /* group 1, position 1 */
    assert_int_equal(fti_plan_member(&s, 7, 1), 10);
    assert_int_equal(fti_plan_partner_holder(&s, 7), 10);
    assert_int_equal(fti_plan_partner_holder(&s, 10), 7); /* wraps */
    assert_int_equal(fti_plan_partner_holder(&s, 0), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_group_size_fit),
        cmocka_unit_test(test_global_ranks),
        cmocka_unit_test(test_rings),
        cmocka_unit_test(test_partner),
        cmocka_unit_test(test_example_with_heads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
