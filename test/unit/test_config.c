/*
 * test_config.c - the INI config: every key parsed into its field (FTI keys
 * and ours), the defaults and derived values, case-insensitive keys, and each
 * error case returning FTI_E_CONFIG with a message naming file, key, value.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "log.h"

static char scratch[1024]; /* this run's private directory */
static char cfg_path[1200];
static char ckpt_dir[1200], glbl_dir[1200];

/* ---- helpers ------------------------------------------------------------ */

static int rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

static int group_setup(void **state)
{
    (void)state;
    const char *base = getenv("FTI_TEST_DIR");
    base = base ? base : "/tmp";
    mkdir(base, 0700); /* ctest gives a path that may not exist yet */
    snprintf(scratch, sizeof scratch, "%s/cfgXXXXXX", base);
    if (mkdtemp(scratch) == NULL)
        return -1;
    snprintf(cfg_path, sizeof cfg_path, "%s/test.fti", scratch);
    snprintf(ckpt_dir, sizeof ckpt_dir, "%s/local", scratch);
    snprintf(glbl_dir, sizeof glbl_dir, "%s/global", scratch);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return nftw(scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* Writes cfg_path: [basic] with both directories, `basic` lines, then `rest`. */
static void write_cfg(const char *basic, const char *rest)
{
    char text[8192];
    snprintf(text, sizeof text, "[basic]\nckpt_dir = %s\nglbl_dir = %s\n%s\n%s\n", ckpt_dir,
             glbl_dir, basic, rest);
    write_text(cfg_path, text);
}

static void load_ok(const char *basic, const char *rest, fti_config *cfg)
{
    write_cfg(basic, rest);
    fti_err e = fti_config_load(cfg, cfg_path);
    if (e != FTI_E_OK)
        fail_msg("config load failed: %s: %s", fti_err_name(e), fti_last_error());
}

static void assert_error_names(const char *needle)
{
    const char *msg = fti_last_error();
    if (needle != NULL && strstr(msg, needle) == NULL)
        fail_msg("error message '%s' does not name '%s'", msg, needle);
}

/* The config `basic`+`rest` is rejected; the message names file, key, value. */
static void expect_reject(const char *basic, const char *rest, const char *key, const char *value)
{
    fti_config cfg;
    write_cfg(basic, rest);
    fti_clear_error();
    assert_int_equal(fti_config_load(&cfg, cfg_path), FTI_E_CONFIG);
    assert_int_equal(fti_last_error_code(), FTI_E_CONFIG);
    assert_error_names(cfg_path);
    assert_error_names(key);
    assert_error_names(value);
}

/* ---- every key -------------------------------------------------------------- */

static const char *all_basic =
    "head = 1\nnode_size = 2\nmeta_dir = /m/dir\n"
    "ckpt_l1 = 1\nckpt_l2 = 2\nckpt_l3 = 3\nckpt_l4 = 4\n"
    "inline_l2 = 0\ninline_l3 = 0\ninline_l4 = 0\n"
    "keep_last_ckpt = 1\nkeep_l4_ckpt = 1\nkeep_heads_alive = 1\ngroup_size = 8\n"
    "max_sync_intv = 64\nckpt_io = 2\nenable_staging = 1\nenable_dcp = 1\ndcp_mode = 3\n"
    "dcp_block_size = 16384\nverbosity = 3\ntransfer_size = 8192\ngpu_host_bufsize = 65536\n"
    "ckpt_l1_sec = 11\nckpt_l2_sec = 12\nckpt_l3_sec = 13\nckpt_l4_sec = 14\n"
    "ckpt_l1_iter = 21\nckpt_l2_iter = 22\nckpt_l3_iter = 23\nckpt_l4_iter = 24\n"
    "restart = required\nl4_compression = zstd:5\nmetrics_file = /m/metrics.json\n";
static const char *all_rest = "[restart]\nfailure = 1\nexec_id = run-42_a.b\n"
                              "[advanced]\nblock_size = 64\nmpi_tag = 77\nlocal_test = 1\n";

static void test_fti_basic_keys(void **state)
{
    (void)state;
    fti_config c;
    load_ok(all_basic, all_rest, &c);
    assert_string_equal(c.file, cfg_path);
    assert_int_equal(c.head, 1);
    assert_int_equal(c.node_size, 2);
    assert_string_equal(c.ckpt_dir, ckpt_dir);
    assert_string_equal(c.glbl_dir, glbl_dir);
    assert_string_equal(c.meta_dir, "/m/dir");
    for (int l = 1; l <= 4; l++)
        assert_int_equal(c.ckpt_min[l], l);
    for (int l = 2; l <= 4; l++)
        assert_int_equal(c.inline_l[l], 0);
    assert_int_equal(c.keep_last_ckpt, 1);
    assert_int_equal(c.keep_l4_ckpt, 1);
    assert_int_equal(c.keep_heads_alive, 1);
    assert_int_equal(c.group_size, 8);
    assert_int_equal(c.group_size_given, 1);
    assert_int_equal(c.max_sync_intv, 64);
    assert_int_equal(c.ckpt_io, 2);
    assert_int_equal(c.enable_staging, 1);
    assert_int_equal(c.enable_dcp, 1);
    assert_int_equal(c.dcp_mode, 3);
    assert_int_equal(c.dcp_block_size, 16384);
    assert_int_equal(c.verbosity, 3);
    assert_int_equal(c.transfer_size, 8192);
    assert_int_equal(c.gpu_host_bufsize, 65536);
}

static void test_our_keys(void **state)
{
    (void)state;
    fti_config c;
    load_ok(all_basic, all_rest, &c);
    for (int l = 1; l <= 4; l++) {
        assert_int_equal(c.ckpt_sec[l], 10 + l);
        assert_int_equal(c.ckpt_iter[l], 20 + l);
    }
    assert_int_equal(c.restart, FTI_RESTART_REQUIRED);
    assert_int_equal(c.l4_codec, FTI_CODEC_ZSTD);
    assert_int_equal(c.l4_codec_level, 5);
    assert_string_equal(c.metrics_file, "/m/metrics.json");
}

static void test_restart_and_advanced_sections(void **state)
{
    (void)state;
    fti_config c;
    load_ok(all_basic, all_rest, &c);
    assert_int_equal(c.failure, 1);
    assert_string_equal(c.exec_id, "run-42_a.b");
    assert_int_equal(c.exec_id_given, 1);
    assert_int_equal(c.block_size, 64 * 1024); /* KiB in the file, bytes in the struct */
    assert_int_equal(c.mpi_tag, 77);
    assert_int_equal(c.local_test, 1);
}

static void test_keys_case_insensitive(void **state)
{
    (void)state;
    char text[4096];
    fti_config c;
    snprintf(text, sizeof text,
             "[BASIC]\nCKPT_DIR = %s\nGlbl_Dir = %s\nCkpt_L1_Iter = 5\nGROUP_SIZE = 2\n"
             "[Restart]\nExec_ID = Mixed\n[ADVANCED]\nBlock_Size = 2\n", ckpt_dir, glbl_dir);
    write_text(cfg_path, text);
    assert_int_equal(fti_config_load(&c, cfg_path), FTI_E_OK);
    assert_string_equal(c.ckpt_dir, ckpt_dir);
    assert_string_equal(c.glbl_dir, glbl_dir);
    assert_int_equal(c.ckpt_iter[1], 5);
    assert_int_equal(c.group_size, 2);
    assert_string_equal(c.exec_id, "Mixed"); /* values keep their case */
    assert_int_equal(c.block_size, 2048);
}

/* ---- enumerations ----------------------------------------------------------- */

static void test_restart_values(void **state)
{
    (void)state;
    static const struct { const char *text; fti_restart_mode mode; } cases[] = {
        {"restart = auto", FTI_RESTART_AUTO},
        {"restart = never", FTI_RESTART_NEVER},
        {"restart = required", FTI_RESTART_REQUIRED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fti_config c;
        load_ok(cases[i].text, "", &c);
        assert_int_equal(c.restart, cases[i].mode);
    }
}

static void test_codec_values(void **state)
{
    (void)state;
    static const struct { const char *text; fti_codec codec; int level; } cases[] = {
        {"l4_compression = none", FTI_CODEC_NONE, 0},
        {"l4_compression = zlib", FTI_CODEC_ZLIB, 1},
        {"l4_compression = zlib:0", FTI_CODEC_ZLIB, 0},
        {"l4_compression = zlib:9", FTI_CODEC_ZLIB, 9},
        {"l4_compression = zstd", FTI_CODEC_ZSTD, 1},
        {"l4_compression = zstd:1", FTI_CODEC_ZSTD, 1},
        {"l4_compression = zstd:19", FTI_CODEC_ZSTD, 19},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fti_config c;
        load_ok(cases[i].text, "", &c);
        assert_int_equal(c.l4_codec, cases[i].codec);
        assert_int_equal(c.l4_codec_level, cases[i].level);
    }
}

/* ---- defaults and derived values ------------------------------------------ */

static void test_defaults(void **state)
{
    (void)state;
    fti_config c;
    load_ok("", "", &c);
    assert_int_equal(c.head, 0);
    assert_int_equal(c.node_size, 0);
    for (int l = 1; l <= 4; l++) {
        assert_int_equal(c.ckpt_min[l], 0);
        assert_int_equal(c.ckpt_sec[l], 0);
        assert_int_equal(c.ckpt_iter[l], 0);
    }
    for (int l = 2; l <= 4; l++)
        assert_int_equal(c.inline_l[l], 1);
    assert_int_equal(c.keep_last_ckpt, 0);
    assert_int_equal(c.keep_heads_alive, 0);
    assert_int_equal(c.group_size, 4);
    assert_int_equal(c.group_size_given, 0); /* topology may shrink it to fit */
    assert_int_equal(c.max_sync_intv, 512);
    assert_int_equal(c.ckpt_io, 1);
    assert_int_equal(c.verbosity, 2);
    assert_int_equal(c.transfer_size, 16 << 20);
    assert_int_equal(c.gpu_host_bufsize, 32 << 20);
    assert_int_equal(c.restart, FTI_RESTART_AUTO);
    assert_int_equal(c.l4_codec, FTI_CODEC_NONE);
    assert_string_equal(c.metrics_file, "");
    assert_int_equal(c.failure, 0);
    assert_int_equal(c.exec_id_given, 0);
    assert_int_equal(c.block_size, 8 << 20);
    assert_int_equal(c.mpi_tag, 2612);
    assert_int_equal(c.local_test, 0);
}

static void test_derived_values(void **state)
{
    (void)state;
    fti_config c;
    char meta[1300];
    load_ok("", "", &c);
    snprintf(meta, sizeof meta, "%s/meta", glbl_dir);
    assert_string_equal(c.meta_dir, meta);  /* meta_dir defaults under glbl_dir */
    load_ok("ckpt_io = 3", "", &c);         /* FTI-FF: our files are self-describing */
    assert_int_equal(c.ckpt_io, 1);
    load_ok("max_sync_intv = 0", "", &c);
    assert_int_equal(c.max_sync_intv, 512);
}

static void test_unknown_key_warns(void **state)
{
    (void)state;
    char log[1300], *text = NULL;
    fti_config c;
    snprintf(log, sizeof log, "%s/stderr.txt", scratch);
    write_cfg("ckpt_l9 = 3", "[advanced]\nno_such_thing = x\n");
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    fti_log_setup(0, FTI_LOG_INFO);
    fti_err e = fti_config_load(&c, cfg_path);
    fflush(stderr);
    dup2(saved, 2);
    close(fd);
    close(saved);
    assert_int_equal(e, FTI_E_OK);
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    text = calloc(1, 4096);
    assert_true(fread(text, 1, 4095, f) > 0);
    fclose(f);
    assert_non_null(strstr(text, "unknown key 'basic:ckpt_l9'"));
    assert_non_null(strstr(text, "unknown key 'advanced:no_such_thing'"));
    assert_non_null(strstr(text, cfg_path));
    free(text);
}

/* ---- errors ------------------------------------------------------------------ */

static void test_missing_file(void **state)
{
    (void)state;
    fti_config c;
    char path[1300];
    snprintf(path, sizeof path, "%s/does-not-exist.fti", scratch);
    assert_int_equal(fti_config_load(&c, path), FTI_E_CONFIG);
    assert_error_names(path);
    assert_error_names("No such file");
    assert_int_equal(fti_config_load(&c, ""), FTI_E_CONFIG);
    assert_int_equal(fti_config_load(&c, NULL), FTI_E_CONFIG);
}

static void test_not_ini(void **state)
{
    (void)state;
    fti_config c;
    write_text(cfg_path, "[basic\nthis is not an ini file\n");
    assert_int_equal(fti_config_load(&c, cfg_path), FTI_E_CONFIG);
    assert_error_names(cfg_path);
}

static void test_not_a_number(void **state)
{
    (void)state;
    expect_reject("ckpt_l1 = abc", "", "ckpt_l1", "abc");
    expect_reject("ckpt_l2 = 12abc", "", "ckpt_l2", "12abc");
    expect_reject("group_size = 1.5", "", "group_size", "1.5");
    expect_reject("ckpt_l3_iter = 0x10", "", "ckpt_l3_iter", "0x10");
    expect_reject("ckpt_l1 = 99999999999999999999", "", "ckpt_l1", "99999999999999999999");
    expect_reject("", "[advanced]\nmpi_tag = many\n", "mpi_tag", "many");
}

static void test_negative_interval(void **state)
{
    (void)state;
    expect_reject("ckpt_l2 = -5", "", "ckpt_l2", "-5");
    expect_reject("ckpt_l1_sec = -1", "", "ckpt_l1_sec", "-1");
    expect_reject("ckpt_l4_iter = -7", "", "ckpt_l4_iter", "-7");
}

static void test_out_of_range(void **state)
{
    (void)state;
    expect_reject("group_size = 99", "", "group_size", "99");
    expect_reject("group_size = 0", "", "group_size", "= 0");
    expect_reject("verbosity = 0", "", "verbosity", "= 0");
    expect_reject("verbosity = 5", "", "verbosity", "= 5");
    expect_reject("head = 2", "", "head", "= 2");
    expect_reject("node_size = -1", "", "node_size", "-1");
    expect_reject("ckpt_l1 = 3000000000", "", "ckpt_l1", "3000000000");
    expect_reject("transfer_size = 100", "", "transfer_size", "100");
    expect_reject("ckpt_io = 6", "", "ckpt_io", "= 6");
    expect_reject("", "[restart]\nfailure = 4\n", "failure", "= 4");
    expect_reject("", "[advanced]\nblock_size = 0\n", "block_size", "= 0");
    expect_reject("", "[advanced]\nmpi_tag = 40000\n", "mpi_tag", "40000");
    /* the message gives the range */
    expect_reject("group_size = 99", "", "group_size", "[1, 32]");
}

static void test_unsupported_io(void **state)
{
    (void)state;
    expect_reject("ckpt_io = 4", "", "ckpt_io", "= 4");
#ifdef FTI_HAVE_HDF5 /* HDF5 checkpoints exist in this build */
    fti_config c;
    load_ok("ckpt_io = 5", "", &c);
    assert_int_equal(c.ckpt_io, 5);
#else
    expect_reject("ckpt_io = 5", "", "ckpt_io", "HDF5");
#endif
}

static void test_bad_enum(void **state)
{
    (void)state;
    expect_reject("restart = sometimes", "", "restart", "sometimes");
    expect_reject("restart = AUTO", "", "restart", "AUTO");
    expect_reject("l4_compression = lz4", "", "l4_compression", "lz4");
    expect_reject("l4_compression = zlib:10", "", "l4_compression", "zlib:10");
    expect_reject("l4_compression = zstd:20", "", "l4_compression", "zstd:20");
    expect_reject("l4_compression = none:3", "", "l4_compression", "none:3");
}

/* Malformed codec levels must not be accepted as some other level. */
static void test_bad_codec_level(void **state)
{
    (void)state;
    expect_reject("l4_compression = zlib:-3", "", "l4_compression", "zlib:-3");
    expect_reject("l4_compression = zlib:abc", "", "l4_compression", "zlib:abc");
    expect_reject("l4_compression = zstd:3x", "", "l4_compression", "zstd:3x");
    expect_reject("l4_compression = zstd:0", "", "l4_compression", "zstd:0");
}

static void test_unsafe_exec_id(void **state)
{
    (void)state;
    expect_reject("", "[restart]\nexec_id = ../x\n", "exec_id", "../x");
    expect_reject("", "[restart]\nexec_id = a/b\n", "exec_id", "a/b");
    expect_reject("", "[restart]\nexec_id = ..\n", "exec_id", "..");
    expect_reject("", "[restart]\nexec_id = .\n", "exec_id", "= '.'");
    expect_reject("", "[restart]\nexec_id = a b\n", "exec_id", "a b");
}

static void test_missing_dirs(void **state)
{
    (void)state;
    fti_config c;
    char text[2048];
    snprintf(text, sizeof text, "[basic]\nglbl_dir = %s\nckpt_l1 = 1\n", glbl_dir);
    write_text(cfg_path, text);
    assert_int_equal(fti_config_load(&c, cfg_path), FTI_E_CONFIG);
    assert_error_names(cfg_path);
    assert_error_names("ckpt_dir is missing");
    snprintf(text, sizeof text, "[basic]\nckpt_dir = %s\n", ckpt_dir);
    write_text(cfg_path, text);
    assert_int_equal(fti_config_load(&c, cfg_path), FTI_E_CONFIG);
    assert_error_names("glbl_dir is missing");
    snprintf(text, sizeof text, "[basic]\nckpt_dir =\nglbl_dir = %s\n", glbl_dir);
    write_text(cfg_path, text);
    assert_int_equal(fti_config_load(&c, cfg_path), FTI_E_CONFIG);
    assert_error_names("ckpt_dir");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fti_basic_keys),
        cmocka_unit_test(test_our_keys),
        cmocka_unit_test(test_restart_and_advanced_sections),
        cmocka_unit_test(test_keys_case_insensitive),
        cmocka_unit_test(test_restart_values),
        cmocka_unit_test(test_codec_values),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_derived_values),
        cmocka_unit_test(test_unknown_key_warns),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_ini),
        cmocka_unit_test(test_not_a_number),
        cmocka_unit_test(test_negative_interval),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_unsupported_io),
        cmocka_unit_test(test_bad_enum),
        cmocka_unit_test(test_bad_codec_level),
        cmocka_unit_test(test_unsafe_exec_id),
        cmocka_unit_test(test_missing_dirs),
    };
    return cmocka_run_group_tests_name("config", tests, group_setup, group_teardown);
}
