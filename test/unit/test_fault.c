/*
 * test_fault.c - FTI_FAULT: every accepted point injects. A flip or truncate
 * is accepted only at a phase that writes a file, damages exactly the file
 * (and the region) that phase reports, on the Nth time, on the selected
 * ranks; a spec that could never inject is rejected at parse time. Also the
 * node-local directory of local_test = 1 (layout.c), the rule fti-ckpt shares.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/config.h"
#include "base/fault.h"
#include "format/layout.h"
#include "base/log.h"

#define SIZE 64

static char scratch[512];

static int setup(void **state)
{
    (void)state;
    const char *base = getenv("FTI_TEST_DIR");
    snprintf(scratch, sizeof scratch, "%s/f.bin", base ? base : "/tmp");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", base ? base : "/tmp");
    assert_int_equal(system(cmd), 0);
    fti_log_setup(0, FTI_LOG_ERROR);
    return 0;
}

/* FTI_FAULT=spec on `rank` of a job of 4 ranks. */
static int init_with(const char *spec, int rank)
{
    setenv("FTI_FAULT", spec, 1);
    return fti_fault_init(rank, 4);
}

/* A file of SIZE bytes 0..SIZE-1. */
static void make_file(void)
{
    unsigned char b[SIZE];
    for (int i = 0; i < SIZE; i++)
        b[i] = (unsigned char)i;
    FILE *f = fopen(scratch, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, SIZE, f), SIZE);
    fclose(f);
}

/* Reads the file back: its size, and the byte positions that changed. */
static long read_file(int *changed, int *nchanged)
{
    unsigned char b[SIZE * 2];
    FILE *f = fopen(scratch, "rb");
    assert_non_null(f);
    long n = (long)fread(b, 1, sizeof b, f);
    fclose(f);
    *nchanged = 0;
    for (long i = 0; i < n; i++)
        if (b[i] != (unsigned char)i)
            changed[(*nchanged)++] = (int)i;
    return n;
}

static void test_rejects_points_that_cannot_inject(void **state)
{
    (void)state;
    /* No file is written at these phases; a typo names no phase at all; @R
     * names a rank the job (4 ranks) does not have, so the point never fires. */
    const char *bad[] = {"flip:before_commit", "truncate:after_commit", "flip:recovery",
                         "crash:l2_sned", "flip:nowhere:2", "crash:l4_flush:0", "write:0",
                         "write:1:EPERM", "flip", "crash:after_commit:1@17", "flip:l2_send@1+4",
                         "write:2@-1", "crash:before_commit@x", NULL};
    for (int i = 0; bad[i]; i++) {
        fti_clear_error();
        if (init_with(bad[i], 0) != -1)
            fail_msg("FTI_FAULT=%s accepted", bad[i]);
        assert_int_equal(fti_fault_enabled, 0);
        assert_non_null(strstr(fti_last_error(), bad[i]));
    }
    /* The refusal names the misspelt phase and lists the valid ones. */
    assert_int_equal(init_with("crash:l2_sned", 0), -1);
    assert_non_null(strstr(fti_last_error(), "unknown phase 'l2_sned' (phases: after_local_write, "
                                             "l2_send, l3_encode, l4_flush, dcp_layer, h5_write, "
                                             "before_commit, after_commit, recovery, staged, "
                                             "repair, rejoin)"));
    assert_int_equal(init_with("flip:before_commit", 0), -1);
    assert_non_null(strstr(fti_last_error(), "flip and truncate need a phase that writes a file, "
                                             "not 'before_commit': after_local_write, l2_send, "
                                             "l3_encode, l4_flush, dcp_layer, h5_write"));
    const char *good[] = {"flip:l2_send", "truncate:l3_encode:2", "flip:l4_flush@1+3",
                          "truncate:after_local_write", "crash:recovery", "crash:before_commit@0",
                          "write:3:ENOSPC", "crash:after_commit@3", "flip:l2_send@0+3", NULL};
    for (int i = 0; good[i]; i++)
        if (init_with(good[i], 1) != 0)
            fail_msg("FTI_FAULT=%s rejected", good[i]);
}

static void test_flip_damages_the_written_file(void **state)
{
    (void)state;
    int changed[SIZE * 2], n;
    for (const fti_phase *ph = (const fti_phase[]){FTI_PHASE_L2_SEND, FTI_PHASE_L3_ENCODE,
                                                   FTI_PHASE_L4_FLUSH, FTI_PHASE_AFTER_LOCAL_WRITE,
                                                   FTI_PHASE_DCP_LAYER, FTI_PHASE_H5_WRITE,
                                                   FTI_PHASE_COUNT};
         *ph != FTI_PHASE_COUNT; ph++) {
        char spec[64];
        snprintf(spec, sizeof spec, "flip:%s", fti_fault_phase_name(*ph));
        assert_int_equal(init_with(spec, 0), 0);
        make_file();
        fti_fault_wrote(*ph == FTI_PHASE_L2_SEND ? FTI_PHASE_L3_ENCODE : FTI_PHASE_L2_SEND, scratch, 0, 0);
        assert_int_equal(read_file(changed, &n), SIZE);
        assert_int_equal(n, 0);
        fti_fault_wrote(*ph, scratch, 0, 0);
        assert_int_equal(read_file(changed, &n), SIZE);
        assert_int_equal(n, 1);
        assert_int_equal(changed[0], SIZE - 1);
    }
}

static void test_second_time_and_region(void **state)
{
    (void)state;
    int changed[SIZE * 2], n;
    assert_int_equal(init_with("flip:l4_flush:2", 0), 0);
    make_file();
    fti_fault_wrote(FTI_PHASE_L4_FLUSH, scratch, 16, 16); /* first time: nothing */
    read_file(changed, &n);
    assert_int_equal(n, 0);
    fti_fault_wrote(FTI_PHASE_L4_FLUSH, scratch, 16, 16); /* second: the region's last byte */
    read_file(changed, &n);
    assert_int_equal(n, 1);
    assert_int_equal(changed[0], 31);
    fti_fault_wrote(FTI_PHASE_L4_FLUSH, scratch, 16, 16); /* once only */
    read_file(changed, &n);
    assert_int_equal(n, 1);

    assert_int_equal(init_with("truncate:l3_encode", 0), 0);
    make_file();
    fti_fault_wrote(FTI_PHASE_L3_ENCODE, scratch, 0, 0);
    assert_int_equal(read_file(changed, &n), SIZE / 2);
    assert_int_equal(init_with("truncate:l4_flush", 0), 0);
    make_file();
    fti_fault_wrote(FTI_PHASE_L4_FLUSH, scratch, 32, 16);
    assert_int_equal(read_file(changed, &n), 40);
}

static void test_other_ranks_untouched(void **state)
{
    (void)state;
    int changed[SIZE * 2], n;
    assert_int_equal(init_with("flip:l2_send@1+3", 2), 0);
    assert_int_equal(fti_fault_enabled, 0); /* nothing selected on rank 2 */
    make_file();
    fti_fault_wrote(FTI_PHASE_L2_SEND, scratch, 0, 0);
    read_file(changed, &n);
    assert_int_equal(n, 0);
    assert_int_equal(init_with("flip:l2_send@1+3", 3), 0);
    fti_fault_wrote(FTI_PHASE_L2_SEND, scratch, 0, 0);
    read_file(changed, &n);
    assert_int_equal(n, 1);
}

/* The phase table: every name maps back to its phase, and fti-fault's
 * scenario checker (PHASE_NEEDS) knows exactly these names. */
static void test_phase_table(void **state)
{
    (void)state;
    for (int i = 0; i < FTI_PHASE_COUNT; i++)
        assert_int_equal(fti_fault_phase_by_name(fti_fault_phase_name((fti_phase)i)), i);
    assert_int_equal(fti_fault_phase_by_name("l4_flsh"), -1);
    assert_string_equal(fti_fault_phase_name(FTI_PHASE_COUNT), "?");
    FILE *f = fopen(FTI_SOURCE_DIR "/tools/fti-fault", "r");
    assert_non_null(f);
    char line[512], needs[2048] = "";
    int in = 0;
    while (fgets(line, sizeof line, f)) { /* PHASE_NEEDS = {...}: up to the closing brace */
        in = in || strncmp(line, "PHASE_NEEDS = {", 15) == 0;
        if (in)
            strncat(needs, line, sizeof needs - strlen(needs) - 1);
        if (in && strchr(line, '}'))
            break;
    }
    fclose(f);
    int keys = 0;
    for (const char *q = strchr(needs, '"'); q; q = strchr(q + 1, '"'))
        if (strchr(q + 1, '"') && strchr(q + 1, '"')[1] == ':') { /* a key: "name": */
            char name[64];
            size_t len = (size_t)(strchr(q + 1, '"') - q - 1);
            snprintf(name, sizeof name, "%.*s", (int)len, q + 1);
            if (fti_fault_phase_by_name(name) < 0)
                fail_msg("tools/fti-fault's PHASE_NEEDS has '%s', which the library lacks", name);
            keys++;
            q = strchr(q + 1, '"');
        }
    assert_int_equal(keys, FTI_PHASE_COUNT);
}

static void test_local_test_node_folder(void **state)
{
    (void)state;
    fti_config c;
    fti_config_defaults(&c);
    snprintf(c.ckpt_dir, sizeof c.ckpt_dir, "/scratch/local");
    snprintf(c.exec_id, sizeof c.exec_id, "run1");
    c.exec_id_given = 1;
    fti_layout l;
    fti_layout_init(&l, &c);
    fti_layout_place_node(&l, &c, 3);
    assert_string_equal(l.local, "/scratch/local/run1"); /* local_test = 0: a real node */
    c.local_test = 1;
    fti_layout_init(&l, &c);
    fti_layout_place_node(&l, &c, 3);
    assert_string_equal(l.local, "/scratch/local/node3/run1");
    char path[FTI_PATH_MAX];
    fti_path_partner(&l, path, 1, 2);
    assert_string_equal(path, "/scratch/local/node3/run1/l2-s1-partner-rank2.fti");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rejects_points_that_cannot_inject),
        cmocka_unit_test(test_flip_damages_the_written_file),
        cmocka_unit_test(test_second_time_and_region),
        cmocka_unit_test(test_other_ranks_untouched),
        cmocka_unit_test(test_phase_table),
        cmocka_unit_test(test_local_test_node_folder),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
