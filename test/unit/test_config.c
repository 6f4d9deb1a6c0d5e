/*
 * test_config.c - the INI config: every key parsed into its field (FTI keys
 * and ours), the defaults and derived values, case-insensitive keys, and each
 * error case returning FTI_E_CONFIG with a message naming file, key, value.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "format/config.h"
#include "format/config_scan.h"
#include "base/log.h"
#include "scratch.h"

static char scratch[1024]; /* this run's private directory */
static char cfg_path[1200];
static char ckpt_dir[1200], glbl_dir[1200];

/* ---- helpers ------------------------------------------------------------ */

static int group_setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(scratch, sizeof scratch, "cfg") != 0)
        return -1;
    snprintf(cfg_path, sizeof cfg_path, "%s/test.fti", scratch);
    snprintf(ckpt_dir, sizeof ckpt_dir, "%s/local", scratch);
    snprintf(glbl_dir, sizeof glbl_dir, "%s/global", scratch);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return fti_test_scratch_remove(scratch);
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
    "restart = required\nl4_compression = zlib:5\nmetrics_file = /m/metrics.json\n";
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
    assert_int_equal(c.l4_codec, FTI_CODEC_ZLIB);
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

/* [advanced] log_style: fti by default (FTI's lines, what FTI's scripts
 * grep), libfti or both; anything else named with file, key and value. */
static void test_log_style_values(void **state)
{
    (void)state;
    static const struct { const char *text; int style; } cases[] = {
        {"", FTI_LOG_STYLE_FTI},
        {"[advanced]\nlog_style = fti", FTI_LOG_STYLE_FTI},
        {"[advanced]\nlog_style = libfti", FTI_LOG_STYLE_OURS},
        {"[advanced]\nlog_style = both", FTI_LOG_STYLE_BOTH},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fti_config c;
        load_ok("", cases[i].text, &c);
        assert_int_equal(c.log_style, cases[i].style);
    }
    expect_reject("", "[advanced]\nlog_style = loud", "[advanced] log_style", "'loud'");
    assert_error_names("is not one of fti, libfti, both");
    expect_reject("", "[advanced]\nlog_style =", "[advanced] log_style", "''");
}

static void test_codec_values(void **state)
{
    (void)state;
    static const struct { const char *text; fti_codec codec; int level; } cases[] = {
        {"l4_compression = none", FTI_CODEC_NONE, 0},
        {"l4_compression = zlib", FTI_CODEC_ZLIB, 1},
        {"l4_compression = zlib:0", FTI_CODEC_ZLIB, 0},
        {"l4_compression = zlib:9", FTI_CODEC_ZLIB, 9},
#ifdef FTI_HAVE_ZSTD
        {"l4_compression = zstd", FTI_CODEC_ZSTD, 1},
        {"l4_compression = zstd:1", FTI_CODEC_ZSTD, 1},
        {"l4_compression = zstd:19", FTI_CODEC_ZSTD, 19},
#endif
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fti_config c;
        load_ok(cases[i].text, "", &c);
        assert_int_equal(c.l4_codec, cases[i].codec);
        assert_int_equal(c.l4_codec_level, cases[i].level);
    }
}

/* Built without libzstd, asking for zstd is refused naming the key and
 * what to use instead (not silently another codec). */
static void test_zstd_in_this_build(void **state)
{
    (void)state;
#ifdef FTI_HAVE_ZSTD
    fti_config c;
    load_ok("l4_compression = zstd:3", "", &c);
    assert_int_equal(c.l4_codec, FTI_CODEC_ZSTD);
    assert_int_equal(c.l4_codec_level, 3);
#else
    expect_reject("l4_compression = zstd:3", "", "[basic] l4_compression = 'zstd:3'",
                  "this build has no zstd (configured without libzstd); use zlib:<0-9> or none");
#endif
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
    assert_int_equal(c.l4_files_per_dir, 1024); /* FTI_L4_FILES_PER_DIR, USER_GUIDE */
    load_ok("", "[advanced]\nl4_files_per_dir = 0\n", &c); /* 0: the flat layout */
    assert_int_equal(c.l4_files_per_dir, 0);
    load_ok("", "[advanced]\nl4_files_per_dir = 2\n", &c);
    assert_int_equal(c.l4_files_per_dir, 2);
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

/* Loads the config `basic`+`rest` as rank `rank` would; returns what it
 * printed on stderr (malloc'd) and stores the result code in *e. */
static char *load_capture(const char *basic, const char *rest, int rank, fti_err *e)
{
    char log[1300];
    fti_config c;
    snprintf(log, sizeof log, "%s/stderr.txt", scratch);
    write_cfg(basic, rest);
    fflush(stderr);
    int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    fti_log_setup(rank, FTI_LOG_INFO);
    *e = fti_config_load(&c, cfg_path);
    fflush(stderr);
    dup2(saved, 2);
    close(fd);
    close(saved);
    fti_log_setup(0, FTI_LOG_INFO);
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char *text = calloc(1, 8192);
    assert_non_null(text);
    size_t n = fread(text, 1, 8191, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

static int count_lines_with(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

static void test_unknown_key_warns(void **state)
{
    (void)state;
    fti_err e;
    char *text = load_capture("ckpt_l1 = 1\nckpt_l9 = 3", "[advanced]\nno_such_thing = x\n", 0, &e);
    assert_int_equal(e, FTI_E_OK);
    assert_non_null(strstr(text, "unknown key 'basic:ckpt_l9'"));
    assert_non_null(strstr(text, "unknown key 'advanced:no_such_thing' ignored\n"));
    assert_non_null(strstr(text, cfg_path));
    free(text);
}

/* A near-miss names the key meant: a typo, or the right key in the wrong section. */
static void test_did_you_mean(void **state)
{
    (void)state;
    fti_err e;
    char *text = load_capture("ckpt_l1 = 1\nglbl_dri = x\nkeep_last_ckp = 1",
                              "[advanced]\nckpt_l2 = 5\n[restart]\nexecid = a\n", 0, &e);
    assert_int_equal(e, FTI_E_OK);
    assert_non_null(strstr(text, "'basic:glbl_dri' ignored; did you mean [basic] glbl_dir?"));
    assert_non_null(strstr(text, "'basic:keep_last_ckp' ignored; did you mean [basic] keep_last_ckpt?"));
    assert_non_null(strstr(text, "'advanced:ckpt_l2' ignored; did you mean [basic] ckpt_l2?"));
    assert_non_null(strstr(text, "'restart:execid' ignored; did you mean [restart] exec_id?"));
    free(text);
}

/* What every rank would say alike is said by rank 0 only. */
static void test_warnings_rank0_only(void **state)
{
    (void)state;
    fti_err e;
    char *text = load_capture("glbl_dri = x", "", 0, &e);
    assert_int_equal(e, FTI_E_OK);
    assert_int_equal(count_lines_with(text, "warning:"), 2); /* the key, no level scheduled */
    assert_int_equal(count_lines_with(text, "no checkpoint level is scheduled"), 1);
    free(text);
    text = load_capture("glbl_dri = x", "", 3, &e);
    assert_int_equal(e, FTI_E_OK);
    assert_string_equal(text, "");
    free(text);
    text = load_capture("ckpt_l4_iter = 10", "", 0, &e); /* a level is scheduled */
    assert_int_equal(count_lines_with(text, "warning:"), 0);
    free(text);
}

/* FTI's own files carry keys for features we do not have: no warning. */
static void test_fti_file_keys_quiet(void **state)
{
    (void)state;
    fti_err e;
    char *text = load_capture(
        "ckpt_l1 = 1\nDcp_L4 = 0\ndcp_stack_size = 5\nh5_single_file_prefix =\n"
        "h5_single_file_keep = 0\nmax_var_id = 10\nfast_forward = 1\nTransfer_size = 16",
        "[Injection]\nrank = 0\nnumber = 0\nposition = 0\nfrequency = 0\n"
        "[Advanced]\nlustre_striping_unit = 4194304\nlustre_stiping_factor = -1\n"
        "general_tag = 2612\nckpt_tag = 711\nstage_tag = 406\nfinal_tag = 3107\n"
        "fast_forward = 1\ngpu_host_bufsize = 8192\n", 0, &e);
    assert_int_equal(e, FTI_E_OK);
    assert_int_equal(count_lines_with(text, "warning:"), 0);
    assert_int_equal(count_lines_with(text, "[basic] transfer_size = 16 ignored, as FTI does"), 1);
    free(text);
}

static void test_fti_advanced_and_injection(void **state)
{
    (void)state;
    fti_config c;
    load_ok("transfer_size = 8",
            "[advanced]\ntransfer_size = 16\ngeneral_tag = 100\nckpt_tag = 101\n"
            "stage_tag = 102\nfinal_tag = 103\nfast_forward = 2\ngpu_host_bufsize = 8192\n"
            "[injection]\nrank = 2\nindex = 5\nposition = 7\nnumber = 0\nfrequency = -1\n", &c);
    assert_int_equal(c.transfer_size, 16 << 20); /* MiB in [advanced], as FTI */
    assert_int_equal(c.mpi_tag, 100);
    assert_int_equal(c.ckpt_tag, 101);
    assert_int_equal(c.stage_tag, 102);
    assert_int_equal(c.final_tag, 103);
    assert_int_equal(c.fast_forward, 2);
    assert_int_equal(c.gpu_host_bufsize, 8192);
    assert_int_equal(c.inj_rank, 2);
    assert_int_equal(c.inj_index, 5);
    assert_int_equal(c.inj_position, 7);
    assert_int_equal(c.inj_frequency, -1);
    load_ok("transfer_size = 8", "", &c);
    assert_int_equal(c.transfer_size, 16 << 20); /* FTI's [basic] MiB form: ignored */
    load_ok("transfer_size = 8192", "", &c);
    assert_int_equal(c.transfer_size, 8192); /* ours, bytes */
    expect_reject("", "[advanced]\ntransfer_size = 2000\n", "transfer_size", "2000");
    expect_reject("", "[advanced]\nfast_forward = 11\n", "fast_forward", "11");
    expect_reject("", "[advanced]\nckpt_tag = x\n", "ckpt_tag", "'x'");
    expect_reject("", "[injection]\nnumber = many\n", "number", "many");
}

static void test_exec_id_placeholder(void **state)
{
    (void)state;
    fti_config c;
    load_ok("", "[Restart]\nExec_ID = XXXX-XX-XX_XX-XX-XX\n", &c);
    assert_int_equal(c.exec_id_given, 0);
    load_ok("", "[restart]\nexec_id = NULL\n", &c);
    assert_int_equal(c.exec_id_given, 0);
    load_ok("", "[restart]\nexec_id = 2021-03-04_05-06-07\n", &c);
    assert_int_equal(c.exec_id_given, 1);
    assert_string_equal(c.exec_id, "2021-03-04_05-06-07");
}

static void test_dcp_block_size_while_off(void **state)
{
    (void)state;
    fti_config c;
    load_ok("enable_dcp = 0\ndcp_block_size = -1", "", &c);
    assert_int_equal(c.dcp_block_size, -1);
    expect_reject("enable_dcp = 1\ndcp_block_size = -1", "", "dcp_block_size", "-1");
}

/* online_recovery and spare_ranks (ours): parsed; spares without online
 * recovery, heads, staging or a level post-processed off the application's
 * path are refused naming the key. Whether the MPI has ULFM is FTI_Init's
 * question (runtime/ulfm.c), not the file's. */
static void test_online_recovery_keys(void **state)
{
    (void)state;
    fti_config c;
    load_ok("", "", &c);
    assert_int_equal(c.online_recovery, 0);
    assert_int_equal(c.spare_ranks, 0);
    load_ok("online_recovery = 1\nspare_ranks = 3", "", &c);
    assert_int_equal(c.online_recovery, 1);
    assert_int_equal(c.spare_ranks, 3);
    expect_reject("spare_ranks = 2", "", "spare_ranks = 2 needs online_recovery = 1", "");
    expect_reject("online_recovery = 2", "", "online_recovery", "out of range [0, 1]");
    expect_reject("online_recovery = 1\nspare_ranks = -1", "", "spare_ranks", "-1");
    expect_reject("online_recovery = 1\nhead = 1", "", "online_recovery = 1 with head = 1", "");
    expect_reject("online_recovery = 1\nstaging_mib = 8", "", "staging_mib = 8", "");
    expect_reject("online_recovery = 1\ninline_l3 = 0", "", "online_recovery = 1 needs", "inline_l3");
    expect_reject("online_recovery = 1", "[advanced]\ncow_checkpoint = 1", "online_recovery = 1 with cow_checkpoint = 1", "");
}

/* 0, the documented default, and an absent key mean FTI_DCP_DEFAULT_BLOCK
 * (applied by dcp.c); 1-511 and more than 2^30 are refused by name. */
static void test_dcp_block_size_default(void **state)
{
    (void)state;
    fti_config c;
    load_ok("enable_dcp = 1\ndcp_block_size = 0", "", &c);
    assert_int_equal(c.dcp_block_size, 0);
    load_ok("enable_dcp = 1", "", &c);
    assert_int_equal(c.dcp_block_size, 0);
    load_ok("enable_dcp = 1\ndcp_block_size = 512", "", &c);
    assert_int_equal(c.dcp_block_size, 512);
    expect_reject("enable_dcp = 1\ndcp_block_size = 511", "", "dcp_block_size", "511");
    expect_reject("enable_dcp = 1\ndcp_block_size = 1073741825", "", "dcp_block_size", "1073741825");
}

/* FTI's dcp_l4 (minutes) and ours in seconds or iterations schedule level
 * 8; without enable_dcp FTI ignores the interval, and so do we. */
static void test_dcp_l4_interval(void **state)
{
    (void)state;
    fti_config c;
    load_ok("enable_dcp = 1\ndcp_block_size = 4096\ndcp_l4 = 3\ndcp_l4_sec = 20\ndcp_l4_iter = 7", "", &c);
    assert_int_equal(c.dcp_l4_min, 3);
    assert_int_equal(c.dcp_l4_sec, 20);
    assert_int_equal(c.dcp_l4_iter, 7);
    load_ok("enable_dcp = 0\ndcp_l4 = 3\ndcp_l4_iter = 7", "", &c);
    assert_int_equal(c.dcp_l4_min, 0);
    assert_int_equal(c.dcp_l4_iter, 0);
    expect_reject("enable_dcp = 1\ndcp_block_size = 4096\ndcp_l4_iter = -1", "", "dcp_l4_iter", "-1");
}

static void test_key_given_twice(void **state)
{
    (void)state;
    expect_reject("ckpt_l1 = 1\nverbosity = 2\nckpt_l1 = 2", "", "[basic] ckpt_l1", "given twice");
    assert_error_names("lines 4 and 6");
    /* the same key spelt differently is the same key, as iniparser reads it */
    expect_reject("Ckpt_L1 = 1", "[BASIC]\nckpt_l1 = 2\n", "[basic] ckpt_l1", "given twice");
    /* a key name in two sections is two keys; comments are not keys */
    fti_config c;
    load_ok("# ckpt_l1 = 9\n; ckpt_l1 = 8\nckpt_l1 = 1",
            "[advanced]\nblock_size = 4\n[injection]\nrank = 1\n", &c);
    assert_int_equal(c.ckpt_min[1], 1);
}

static void test_edit_distance(void **state)
{
    (void)state;
    assert_int_equal(fti_edit_distance("basic:ckpt_l1", "basic:ckpt_l1", 4), 0);
    assert_int_equal(fti_edit_distance("basic:glbl_dri", "basic:glbl_dir", 4), 2);
    assert_int_equal(fti_edit_distance("kitten", "sitting", 9), 3);
    assert_int_equal(fti_edit_distance("", "abc", 9), 3);
    assert_int_equal(fti_edit_distance("abcdefgh", "zzzzzzzz", 4), 4); /* capped */
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

/* Binary garbage: a clean error naming the file and where, and not one of
 * its bytes on the terminal (stderr is captured and searched). */
static void test_binary_garbage(void **state)
{
    (void)state;
    static const unsigned char junk[] = "[basic]\nckpt_dir = /tmp\n\x1b]0;pwned\x07\x1b[2J=\x00\xff\x01";
    char err_path[1300];
    FILE *f = fopen(cfg_path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(junk, 1, sizeof junk - 1, f), sizeof junk - 1);
    assert_int_equal(fclose(f), 0);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", scratch);
    fflush(stderr);
    int saved = dup(2), fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    fti_config c;
    fti_err e = fti_config_load(&c, cfg_path);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    assert_int_equal(e, FTI_E_CONFIG);
    assert_error_names(cfg_path);
    assert_error_names("not a text INI file (byte 0x1b at line 3, column 1)");
    f = fopen(err_path, "rb");
    assert_non_null(f);
    for (int ch; (ch = fgetc(f)) != EOF;)
        if (ch != '\n' && (ch < 0x20 || ch == 0x7f || ch >= 0x80))
            fail_msg("stderr holds the raw byte 0x%02x of the config", ch);
    fclose(f);
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
    expect_reject("transfer_size = -5", "", "transfer_size", "-5");
    expect_reject("ckpt_io = 6", "", "ckpt_io", "= 6");
    expect_reject("", "[restart]\nfailure = 4\n", "failure", "= 4");
    expect_reject("", "[advanced]\nblock_size = 0\n", "block_size", "= 0");
    expect_reject("", "[advanced]\nmpi_tag = 40000\n", "mpi_tag", "40000");
    expect_reject("", "[advanced]\nl4_files_per_dir = -1\n", "l4_files_per_dir", "-1");
    expect_reject("", "[advanced]\nl4_files_per_dir = 3000000000\n", "l4_files_per_dir",
                  "3000000000");
    expect_reject("", "[advanced]\nl4_files_per_dir = many\n", "l4_files_per_dir", "many");
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
        cmocka_unit_test(test_log_style_values),
        cmocka_unit_test(test_zstd_in_this_build),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_derived_values),
        cmocka_unit_test(test_unknown_key_warns),
        cmocka_unit_test(test_did_you_mean),
        cmocka_unit_test(test_warnings_rank0_only),
        cmocka_unit_test(test_fti_file_keys_quiet),
        cmocka_unit_test(test_fti_advanced_and_injection),
        cmocka_unit_test(test_exec_id_placeholder),
        cmocka_unit_test(test_dcp_block_size_while_off),
        cmocka_unit_test(test_dcp_block_size_default),
        cmocka_unit_test(test_dcp_l4_interval),
        cmocka_unit_test(test_key_given_twice),
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_not_ini),
        cmocka_unit_test(test_binary_garbage),
        cmocka_unit_test(test_not_a_number),
        cmocka_unit_test(test_negative_interval),
        cmocka_unit_test(test_out_of_range),
        cmocka_unit_test(test_unsupported_io),
        cmocka_unit_test(test_bad_enum),
        cmocka_unit_test(test_bad_codec_level),
        cmocka_unit_test(test_unsafe_exec_id),
        cmocka_unit_test(test_missing_dirs),
        cmocka_unit_test(test_online_recovery_keys),
    };
    return cmocka_run_group_tests_name("config", tests, group_setup, group_teardown);
}
