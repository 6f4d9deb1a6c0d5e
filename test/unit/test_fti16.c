/*
 * test_fti16.c - reading FTI 1.6's checkpoints (src/format/fti16.c): MD5
 * against RFC 1321's test suite, a job of FTI 1.6's shape (config,
 * sector/group metadata, per-rank L4 files, an L1 checkpoint on a simulated
 * node) made here, the newest level chosen, and each damage refused with
 * the file or key named: a flipped byte (md5), a variable outside its file,
 * a rank missing, no metadata at all.
 */
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

#include "base/log.h"
#include "format/fti16.h"
#include "scratch.h"

static char scratch[1024];
static char job[1200]; /* the current test's FTI 1.6 job folder */
static char cfg[1300];

static int group_setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(scratch, sizeof scratch, "fti16") != 0)
        return -1;
    fti_log_quiet(1);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    fti_log_quiet(0);
    return fti_test_scratch_remove(scratch);
}

/* ---- an FTI 1.6 job of our making ------------------------------------------ */

static void put(const char *path, const void *data, size_t n)
{
    char dir[1500];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static void fill(unsigned char *b, size_t n, int rank)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(rank * 31 + i * 7);
}

/* Level `level` checkpoint `id` of world ranks 0..nranks-1 (rank r left
 * out when bit r of `skip` is set: a head, or a rank missing), two variables each: id 4 (3 ints) and id 8 (5 doubles),
 * 52 bytes; var 8's recorded size is `size8`. */
static void make_level(int level, int id, int nranks, unsigned skip, int size8)
{
    char meta[4096] = "[ckpt_info]\nckpt_type = full\n", path[1500];
    snprintf(meta + strlen(meta), 64, "ckpt_id = %d\n", id);
    for (int r = 0, k = 0; r < nranks; r++) {
        if (skip >> r & 1u)
            continue;
        unsigned char b[52];
        char sum[33];
        fill(b, sizeof b, r);
        fti16_md5_hex(b, sizeof b, sum);
        if (level == 4)
            snprintf(path, sizeof path, "%s/global/exec1/l4/Ckpt%d-Rank%d.fti", job, id, r);
        else
            snprintf(path, sizeof path, "%s/local/node%d/exec1/l1/Ckpt%d-Rank%d.fti", job, r, id,
                     r);
        put(path, b, sizeof b);
        snprintf(meta + strlen(meta), 900,
                 "[%d]\nckpt_file_name = Ckpt%d-Rank%d.fti\nckpt_file_size = 52\n"
                 "ckpt_checksum = %s\n"
                 "var0_id = 4\nvar0_typeid = 2\nvar0_typesize = 4\nvar0_size = 12\nvar0_pos = 0\n"
                 "var1_id = 8\nvar1_typeid = 9\nvar1_typesize = 8\nvar1_size = %d\nvar1_pos = 12\n",
                 k, id, r, sum, size8);
        k++;
    }
    snprintf(path, sizeof path, "%s/meta/exec1/l%d/sector0-group0.fti", job, level);
    put(path, meta, strlen(meta));
}

static void new_job_heads(const char *name, int head, int node_size)
{
    snprintf(job, sizeof job, "%s/%s", scratch, name);
    snprintf(cfg, sizeof cfg, "%s/config.fti", job);
    char text[512];
    snprintf(text, sizeof text,
             "[basic]\nhead = %d\nnode_size = %d\nckpt_dir = ./local\nglbl_dir = ./global\n"
             "meta_dir = ./meta\n[restart]\nexec_id = exec1\n[advanced]\nlocal_test = 1\n",
             head, node_size);
    put(cfg, text, strlen(text));
}

static void new_job(const char *name)
{
    new_job_heads(name, 0, 1);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_md5_rfc1321(void **state)
{
    (void)state;
    static const char *const v[][2] = {
        {"", "d41d8cd98f00b204e9800998ecf8427e"},
        {"a", "0cc175b9c0f1b6a831c399e269772661"},
        {"abc", "900150983cd24fb0d6963f7d28e17f72"},
        {"message digest", "f96b697d7cb7938d525a2f31aaf161d0"},
        {"abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"},
        {"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
         "d174ab98d277d9f5a5611c2c9f419d9f"},
        {"1234567890123456789012345678901234567890123456789012345678901234567890123456"
         "7890",
         "57edf4a22be3c955ac49da2e2107b67a"}};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char out[33];
        fti16_md5_hex(v[i][0], strlen(v[i][0]), out);
        assert_string_equal(out, v[i][1]);
    }
}

static void test_reads_l4(void **state)
{
    (void)state;
    new_job("l4");
    make_level(4, 5, 3, 0, 40);
    fti16_ckpt c;
    assert_int_equal(fti16_open(cfg, &c), FTI_E_OK);
    assert_int_equal(c.level, 4);
    assert_int_equal(c.id, 5);
    assert_int_equal(c.shared, 0);
    assert_int_equal(c.nranks, 3);
    for (int i = 0; i < 3; i++) {
        const fti16_rank *r = &c.ranks[i];
        assert_int_equal(r->rank, i);
        assert_int_equal(r->nvars, 2);
        assert_int_equal(r->vars[1].id, 8);
        assert_int_equal(r->vars[1].type, 9);
        assert_int_equal(r->vars[1].typesize, 8);
        assert_int_equal(r->vars[1].size, 40);
        assert_int_equal(r->vars[1].pos, 12);
        unsigned char *b = NULL, want[52];
        assert_int_equal(fti16_read_rank(&c, i, &b), FTI_E_OK);
        fill(want, sizeof want, i);
        assert_memory_equal(b, want, sizeof want);
        free(b);
    }
    fti16_free(&c);
}

static void test_newest_level(void **state)
{
    (void)state;
    new_job("newest");
    make_level(4, 5, 2, 0, 40);
    make_level(1, 6, 2, 0, 40);
    fti16_ckpt c;
    assert_int_equal(fti16_open(cfg, &c), FTI_E_OK);
    assert_int_equal(c.level, 1);
    assert_int_equal(c.id, 6);
    assert_non_null(strstr(c.ranks[1].file, "/local/node1/exec1/l1/Ckpt6-Rank1.fti"));
    unsigned char *b = NULL;
    assert_int_equal(fti16_read_rank(&c, 1, &b), FTI_E_OK);
    free(b);
    fti16_free(&c);
}

static void test_flipped_byte_refused(void **state)
{
    (void)state;
    new_job("flip");
    make_level(4, 5, 2, 0, 40);
    char path[1500];
    snprintf(path, sizeof path, "%s/global/exec1/l4/Ckpt5-Rank1.fti", job);
    unsigned char b[52];
    fill(b, sizeof b, 1);
    b[20] ^= 0x01;
    put(path, b, sizeof b);
    fti16_ckpt c;
    assert_int_equal(fti16_open(cfg, &c), FTI_E_OK);
    unsigned char *got = NULL;
    assert_int_equal(fti16_read_rank(&c, 0, &got), FTI_E_OK);
    free(got);
    assert_int_equal(fti16_read_rank(&c, 1, &got), FTI_E_CORRUPT);
    assert_null(got);
    assert_non_null(strstr(fti_last_error(), "Ckpt5-Rank1.fti: md5 "));
    assert_non_null(strstr(fti_last_error(), "sector0-group0.fti records"));
    fti16_free(&c);
}

static void test_var_outside_file(void **state)
{
    (void)state;
    new_job("outside");
    make_level(4, 5, 2, 0, 48); /* 12 + 48 > 52 */
    fti16_ckpt c;
    assert_int_equal(fti16_open(cfg, &c), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "sector0-group0.fti: variable 8 of Ckpt5-Rank0.fti"));
    assert_non_null(strstr(fti_last_error(), "does not fit its 52-byte file"));
}

static void test_rank_missing(void **state)
{
    (void)state;
    new_job("missing");
    make_level(4, 5, 3, 1u << 1, 40);
    fti16_ckpt c;
    assert_int_equal(fti16_open(cfg, &c), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(),
                           "application rank 1's file is Ckpt5-Rank2.fti, expected Ckpt5-Rank1.fti"));
}

/* head = 1, node_size = 3: world ranks 0 and 3 were heads, the files of
 * world ranks 1, 2, 4, 5 are application ranks 0..3 in that order. */
static void test_heads_skipped(void **state)
{
    (void)state;
    new_job_heads("heads", 1, 3);
    make_level(4, 5, 6, 1u << 0 | 1u << 3, 40);
    fti16_ckpt c;
    assert_int_equal(fti16_open(cfg, &c), FTI_E_OK);
    assert_int_equal(c.nranks, 4);
    static const int world[4] = {1, 2, 4, 5};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(c.ranks[i].rank, i);
        assert_int_equal(c.ranks[i].world, world[i]);
        unsigned char *b = NULL, want[52];
        assert_int_equal(fti16_read_rank(&c, i, &b), FTI_E_OK);
        fill(want, sizeof want, world[i]);
        assert_memory_equal(b, want, sizeof want);
        free(b);
    }
    fti16_free(&c);
    /* A file of world rank 3, which was a head, does not fit the topology. */
    new_job_heads("heads-bad", 1, 3);
    make_level(4, 5, 6, 1u << 0, 40);
    assert_int_equal(fti16_open(cfg, &c), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "application rank 2's file is Ckpt5-Rank3.fti, "
                                             "expected Ckpt5-Rank4.fti (head = 1, node_size = 3)"));
}

/* Reads variable j of the source through its ops, len bytes from off. */
static int source_read(fti16_source *s, int j, size_t off, unsigned char *dst, size_t len)
{
    return fti16_source_ops()->to_host(NULL, dst, fti16_source_var(s, j), off, len);
}

/* The import's streaming source: the bytes it hands out are the file's,
 * and its close checks what went by against FTI's md5: in file order (by
 * pieces), out of order (the rank is hashed again), and after the file
 * changed since it was checked (a byte flipped: refused naming the file). */
static void test_source_checks_md5(void **state)
{
    (void)state;
    new_job("source");
    make_level(4, 5, 2, 0, 40);
    fti16_ckpt c;
    assert_int_equal(fti16_open(cfg, &c), FTI_E_OK);
    assert_int_equal(fti16_check_rank(&c, 1), FTI_E_OK);
    unsigned char got[52], want[52];
    fill(want, sizeof want, 1);
    fti16_source *s = NULL;
    assert_int_equal(fti16_source_open(&c, 1, &s), FTI_E_OK);
    assert_int_equal(source_read(s, 0, 0, got, 5), 0);
    assert_int_equal(source_read(s, 0, 5, got + 5, 7), 0);
    assert_int_equal(source_read(s, 1, 0, got + 12, 40), 0);
    assert_memory_equal(got, want, sizeof want);
    assert_int_equal(fti16_source_close(s), FTI_E_OK);
    assert_int_equal(fti16_source_open(&c, 1, &s), FTI_E_OK);
    assert_int_equal(source_read(s, 1, 0, got + 12, 40), 0); /* variable 8 first */
    assert_int_equal(source_read(s, 0, 0, got, 12), 0);
    assert_memory_equal(got, want, sizeof want);
    assert_int_equal(fti16_source_close(s), FTI_E_OK);
    char path[1500];
    snprintf(path, sizeof path, "%s/global/exec1/l4/Ckpt5-Rank1.fti", job);
    want[30] ^= 0x10;
    put(path, want, sizeof want); /* after the check, before the write */
    assert_int_equal(fti16_source_open(&c, 1, &s), FTI_E_OK);
    assert_int_equal(source_read(s, 0, 0, got, 12), 0);
    assert_int_equal(source_read(s, 1, 0, got + 12, 40), 0);
    assert_int_equal(fti16_source_close(s), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "Ckpt5-Rank1.fti: md5 "));
    assert_int_equal(fti16_check_rank(&c, 1), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "sector0-group0.fti records"));
    fti16_free(&c);
}

static void test_no_metadata(void **state)
{
    (void)state;
    new_job("none");
    fti16_ckpt c;
    assert_int_equal(fti16_open(cfg, &c), FTI_E_MISSING);
    assert_non_null(strstr(fti_last_error(), "no FTI 1.6 checkpoint metadata in"));
    assert_non_null(strstr(fti_last_error(), "/meta/exec1/l4"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_md5_rfc1321),
        cmocka_unit_test(test_reads_l4),
        cmocka_unit_test(test_newest_level),
        cmocka_unit_test(test_flipped_byte_refused),
        cmocka_unit_test(test_var_outside_file),
        cmocka_unit_test(test_rank_missing),
        cmocka_unit_test(test_heads_skipped),
        cmocka_unit_test(test_no_metadata),
        cmocka_unit_test(test_source_checks_md5),
    };
    return cmocka_run_group_tests_name("fti16", tests, group_setup, group_teardown);
}
