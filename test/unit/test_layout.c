/*
 * test_layout.c - layout.c, the one place file names are built and parsed:
 * each builder's name, the temporary name beside a file, and the parsers
 * the cleanup, recovery and dCP use read back exactly what the builders
 * wrote (level, owning rank, layer sequence) and nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "format/layout.h"

static fti_layout lay = {.exec_id = "run1", .local = "/n/run1", .global = "/g/run1"};

/* The file name part of path. */
static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void test_builders(void **state)
{
    (void)state;
    char p[FTI_PATH_MAX];
    fti_path_dcp_layer(p, "/g/run1", 3, 17);
    assert_string_equal(p, "/g/run1/l4-dcp-rank3-17.fti");
    fti_path_temp(p, "/g/run1/l4-s0-rank2.fti", "tmp");
    assert_string_equal(p, "/g/run1/l4-s0-rank2.tmp.fti");
    fti_path_temp(p, "/g/run1/l4-s1-rank2.h5", "tmp");
    assert_string_equal(p, "/g/run1/l4-s1-rank2.tmp.h5");
    fti_path_temp(p, "/n/run1/l1-s0-rank5.fti", "z");
    assert_string_equal(p, "/n/run1/l1-s0-rank5.z.fti");
    fti_path_temp(p, "/a.b/noext", "tmp"); /* a dot in a folder is no suffix */
    assert_string_equal(p, "/a.b/noext.tmp");
}

/* Every checkpoint file name a builder makes parses back to its level and
 * owner; the temporary names too. */
static void test_ckpt_names_round_trip(void **state)
{
    (void)state;
    char p[FTI_PATH_MAX], t[FTI_PATH_MAX];
    int rank;
    struct {
        void (*build)(const fti_layout *, char *, int, int, int);
        int level;
    } local[] = {{fti_path_local, 1}, {fti_path_local, 2}, {fti_path_rebuilt, 3}};
    for (int i = 0; i < 3; i++) {
        local[i].build(&lay, p, local[i].level, 1, 12);
        assert_int_equal(fti_name_ckpt(base(p), &rank), local[i].level);
        assert_int_equal(rank, 12);
        fti_path_temp(t, p, "tmp");
        assert_int_equal(fti_name_ckpt(base(t), &rank), local[i].level);
        assert_int_equal(rank, 12);
    }
    fti_path_partner(&lay, p, 0, 7); /* rank 7's copy, kept by its partner */
    assert_int_equal(fti_name_ckpt(base(p), &rank), 2);
    assert_int_equal(rank, 7);
    fti_path_parity(&lay, p, 0, 4);
    assert_int_equal(fti_name_ckpt(base(p), &rank), 3);
    assert_int_equal(rank, 4);
    fti_path_global(&lay, p, 1, 30);
    assert_int_equal(fti_name_ckpt(base(p), &rank), 4);
    assert_int_equal(rank, 30);
    fti_path_global_h5(&lay, p, 1, 9);
    assert_int_equal(fti_name_ckpt(base(p), &rank), 4);
    assert_int_equal(rank, 9);
    fti_path_global_shared(&lay, p, 0); /* every rank's: no owner */
    assert_int_equal(fti_name_ckpt(base(p), &rank), 4);
    assert_int_equal(rank, -1);
    fti_path_global_h5single(&lay, p, 0);
    assert_int_equal(fti_name_ckpt(base(p), &rank), 4);
    assert_int_equal(rank, -1);
    fti_path_dcp_layer(p, lay.global, 6, 99); /* a layer: its stem ends in the sequence */
    assert_int_equal(fti_name_ckpt(base(p), &rank), 4);
    assert_int_equal(rank, -1);
}

static void test_not_ours(void **state)
{
    (void)state;
    int rank = 0;
    const char *names[] = {"l5-s0-rank1.fti", "l4_archive", "lx-s0-rank1.fti", "l1-s0-rank1.txt",
                           "commit", "l1", "Ckpt3-Rank1.fti", "l1-s0-rank1.fti.bak", "", NULL};
    for (int i = 0; names[i]; i++)
        if (fti_name_ckpt(names[i], &rank) != 0)
            fail_msg("'%s' taken for a checkpoint file", names[i]);
    assert_int_equal(rank, -1);
}

static void test_dcp_layer_names(void **state)
{
    (void)state;
    char p[FTI_PATH_MAX], t[FTI_PATH_MAX];
    uint64_t seq = 0;
    int tmp = -1;
    fti_path_dcp_layer(p, "/g", 3, 12345678901ULL);
    assert_int_equal(fti_name_dcp_layer(base(p), 3, &seq, &tmp), 1);
    assert_true(seq == 12345678901ULL);
    assert_int_equal(tmp, 0);
    fti_path_temp(t, p, "tmp");
    assert_int_equal(fti_name_dcp_layer(base(t), 3, &seq, &tmp), 1);
    assert_int_equal(tmp, 1);
    assert_int_equal(fti_name_dcp_layer(base(p), 31, &seq, &tmp), 0); /* another rank's */
    assert_int_equal(fti_name_dcp_layer(base(p), 0, &seq, &tmp), 0);
    const char *bad[] = {"l4-dcp-rank3-.fti", "l4-dcp-rank3-x.fti", "l4-dcp-rank3-5.fti.old",
                         "l4-dcp-rank3-5.z.fti", "l4-dcp-rank3-5", NULL};
    for (int i = 0; bad[i]; i++)
        if (fti_name_dcp_layer(bad[i], 3, &seq, &tmp))
            fail_msg("'%s' taken for a layer of rank 3", bad[i]);
}

/* [advanced] l4_files_per_dir = N: ranks below N in the global folder (the
 * flat layout of small jobs), rank r >= N in l4-ranks<A>-<A+N-1>; the
 * archive fans out alike; the folder's name parses back and is no file. */
static void test_fanout(void **state)
{
    (void)state;
    fti_layout f = lay;
    char p[FTI_PATH_MAX];
    f.l4_files_per_dir = 0; /* flat: every rank in the global folder */
    fti_path_global(&f, p, 1, 100000);
    assert_string_equal(p, "/g/run1/l4-s1-rank100000.fti");
    f.l4_files_per_dir = 2;
    fti_path_global(&f, p, 0, 1);
    assert_string_equal(p, "/g/run1/l4-s0-rank1.fti");
    fti_path_global(&f, p, 0, 2);
    assert_string_equal(p, "/g/run1/l4-ranks2-3/l4-s0-rank2.fti");
    fti_path_global(&f, p, 1, 7);
    assert_string_equal(p, "/g/run1/l4-ranks6-7/l4-s1-rank7.fti");
    fti_path_global_h5(&f, p, 1, 5);
    assert_string_equal(p, "/g/run1/l4-ranks4-5/l4-s1-rank5.h5");
    fti_path_archive(&f, p, 9, 3);
    assert_string_equal(p, "/g/run1/l4_archive/l4-ranks2-3/Ckpt9-Rank3.fti");
    fti_path_archive(&f, p, 9, -1); /* the MPI-IO shared file: one file, no fan-out */
    assert_string_equal(p, "/g/run1/l4_archive/Ckpt9-mpiio.fti");
    f.l4_files_per_dir = 1024; /* the default: 100,000 ranks, 98 folders of 1024 */
    fti_path_global(&f, p, 0, 99999);
    assert_string_equal(p, "/g/run1/l4-ranks99328-100351/l4-s0-rank99999.fti");
    f.l4_files_per_dir = 1000000000; /* A + N - 1 past INT_MAX is still written right */
    fti_path_global(&f, p, 0, 2000000000);
    assert_string_equal(p, "/g/run1/l4-ranks2000000000-2999999999/l4-s0-rank2000000000.fti");
    int rank;
    fti_name_info n;
    assert_true(fti_name_fanout_dir("l4-ranks2-3"));
    assert_int_equal(fti_name_parse("l4-ranks1024-2047", &n), 1);
    assert_int_equal(n.kind, FTI_NAME_FANOUT);
    assert_int_equal(n.rank, 1024);
    assert_string_equal(fti_name_kind_str(n.kind), "fanout");
    assert_int_equal(fti_name_ckpt("l4-ranks2-3", &rank), 0); /* a folder, never unlinked */
    assert_false(fti_name_fanout_dir("l4-ranks3-2"));
    assert_false(fti_name_fanout_dir("l4-ranks2-3.fti"));
    assert_false(fti_name_fanout_dir("l3-ranks2-3"));
    assert_false(fti_name_fanout_dir("l4-ranks2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builders),
        cmocka_unit_test(test_ckpt_names_round_trip),
        cmocka_unit_test(test_not_ours),
        cmocka_unit_test(test_dcp_layer_names),
        cmocka_unit_test(test_fanout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
