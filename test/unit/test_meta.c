/*
 * test_meta.c - the commit record: its exact text, store/load round trip,
 * commit bookkeeping (current/previous per level), candidates newest first,
 * damaged records rejected with FTI_E_CORRUPT naming the file, and an absent
 * record meaning a fresh start.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
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

#include "base/integrity.h"
#include "base/log.h"
#include "format/meta.h"
#include "scratch.h"

static char scratch[1024];
static char rec_path[1200];

static int group_setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(scratch, sizeof scratch, "meta") != 0)
        return -1;
    snprintf(rec_path, sizeof rec_path, "%s/commit", scratch);
    fti_log_quiet(1);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    fti_log_quiet(0);
    return fti_test_scratch_remove(scratch);
}

/* ---- helpers ------------------------------------------------------------------ */

static fti_commit commit_of(int level, uint64_t seq, int slot)
{
    fti_commit c;
    memset(&c, 0, sizeof c);
    c.valid = 1;
    c.level = level;
    c.seq = seq;
    c.slot = slot;
    c.id = (int64_t)seq * 10;
    c.nranks = 4;
    c.time = 1700000000.25 + (double)seq;
    c.bytes = 1000 * seq + 7;
    c.codec = level == 4 ? 2 : 0;
    c.io = level == 4 ? 1 : 0;
    return c;
}

/* last_seq 7; level 1: cur #7 slot 1, prev #5 slot 0 (nonces, one with
 * leading zeros); level 4: cur #6, written before nonces (none). */
static fti_meta sample(void)
{
    fti_meta m;
    memset(&m, 0, sizeof m);
    m.last_seq = 7;
    m.cur[1] = commit_of(1, 7, 1);
    m.cur[1].nonce = 0x0123456789abcdefull;
    m.prev[1] = commit_of(1, 5, 0);
    m.prev[1].nonce = 0xa5;
    m.cur[4] = commit_of(4, 6, 0);
    return m;
}

static const char *sample_text =
    "FTI-COMMIT 1\n"
    "last_seq=7\n"
    "cur level=1 seq=7 id=70 slot=1 nranks=4 time=1700000007.250 bytes=7007 codec=0 io=0 "
    "nonce=0123456789abcdef\n"
    "prev level=1 seq=5 id=50 slot=0 nranks=4 time=1700000005.250 bytes=5007 codec=0 io=0 "
    "nonce=00000000000000a5\n"
    "cur level=4 seq=6 id=60 slot=0 nranks=4 time=1700000006.250 bytes=6007 codec=2 io=1\n";

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *t = calloc(1, 8192);
    size_t n = fread(t, 1, 8191, f);
    fclose(f);
    t[n] = '\0';
    return t;
}

static void write_bytes(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* `body` followed by its own correct checksum line. */
static void write_signed(const char *path, const char *body)
{
    char text[8192];
    size_t n = (size_t)snprintf(text, sizeof text, "%schecksum=%016" PRIx64 "\n", body,
                                fti_hash_buffer(body, strlen(body)));
    write_bytes(path, text, n);
}

static void assert_commit_equal(const fti_commit *a, const fti_commit *b)
{
    assert_int_equal(a->valid, b->valid);
    assert_int_equal(a->level, b->level);
    assert_int_equal(a->seq, b->seq);
    assert_int_equal(a->id, b->id);
    assert_int_equal(a->slot, b->slot);
    assert_int_equal(a->nranks, b->nranks);
    assert_true(a->time == b->time); /* x.250 survives the 3 decimals */
    assert_int_equal(a->bytes, b->bytes);
    assert_int_equal(a->codec, b->codec);
    assert_int_equal(a->io, b->io);
    assert_int_equal(a->nonce, b->nonce);
}

static void expect_corrupt(const char *path, const char *why)
{
    fti_meta m;
    int found = 7;
    fti_err e = fti_meta_load(path, &m, &found);
    if (e != FTI_E_CORRUPT)
        fail_msg("%s: load returned %s, expected FTI_E_CORRUPT", why, fti_err_name(e));
    assert_int_equal(found, 0);
    assert_int_equal(m.last_seq, 0);
    assert_int_equal(m.cur[1].valid, 0);
    if (strstr(fti_last_error(), path) == NULL)
        fail_msg("%s: message '%s' does not name %s", why, fti_last_error(), path);
}

/* ---- store and load ---------------------------------------------------------- */

static void test_exact_text(void **state)
{
    (void)state;
    fti_meta m = sample();
    char expect[4096];
    assert_int_equal(fti_meta_store(rec_path, &m), FTI_E_OK);
    snprintf(expect, sizeof expect, "%schecksum=%016" PRIx64 "\n", sample_text,
             fti_hash_buffer(sample_text, strlen(sample_text)));
    char *t = read_text(rec_path);
    assert_string_equal(t, expect);
    free(t);
}

static void test_no_temp_file_left(void **state)
{
    (void)state;
    fti_meta m = sample();
    assert_int_equal(fti_meta_store(rec_path, &m), FTI_E_OK);
    DIR *d = opendir(scratch);
    struct dirent *de;
    assert_non_null(d);
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, "commit.", 7) == 0)
            fail_msg("temporary file %s left behind", de->d_name);
    closedir(d);
    struct stat st;
    assert_int_equal(stat(rec_path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
}

static void test_roundtrip(void **state)
{
    (void)state;
    fti_meta m = sample(), back;
    int found = 0;
    assert_int_equal(fti_meta_store(rec_path, &m), FTI_E_OK);
    assert_int_equal(fti_meta_load(rec_path, &back, &found), FTI_E_OK);
    assert_int_equal(found, 1);
    assert_int_equal(back.last_seq, 7);
    for (int l = 1; l <= 4; l++) {
        assert_commit_equal(&back.cur[l], &m.cur[l]);
        assert_commit_equal(&back.prev[l], &m.prev[l]);
    }
}

static void test_empty_record(void **state)
{
    (void)state;
    fti_meta m, back;
    int found = 0;
    memset(&m, 0, sizeof m);
    assert_int_equal(fti_meta_store(rec_path, &m), FTI_E_OK);
    assert_int_equal(fti_meta_load(rec_path, &back, &found), FTI_E_OK);
    assert_int_equal(found, 1);
    fti_commit out[8];
    assert_int_equal(fti_meta_candidates(&back, out), 0);
}

static void test_absent(void **state)
{
    (void)state;
    char path[1300];
    fti_meta m;
    int found = 1;
    snprintf(path, sizeof path, "%s/none", scratch);
    assert_int_equal(fti_meta_load(path, &m, &found), FTI_E_OK);
    assert_int_equal(found, 0);
    snprintf(path, sizeof path, "%s/no-dir/commit", scratch);
    found = 1;
    assert_int_equal(fti_meta_load(path, &m, &found), FTI_E_OK);
    assert_int_equal(found, 0);
    assert_int_equal(m.last_seq, 0);
}

static void test_store_error(void **state)
{
    (void)state;
    char path[1300];
    fti_meta m = sample();
    snprintf(path, sizeof path, "%s/no-dir/commit", scratch);
    assert_int_equal(fti_meta_store(path, &m), FTI_E_IO);
    assert_non_null(strstr(fti_last_error(), path));
}

/* Lines a newer writer might add are skipped; what we know still loads. */
static void test_unknown_lines_ignored(void **state)
{
    (void)state;
    char body[4096];
    fti_meta m;
    int found = 0;
    snprintf(body, sizeof body, "%sfuture_field=1\n", sample_text);
    write_signed(rec_path, body);
    assert_int_equal(fti_meta_load(rec_path, &m, &found), FTI_E_OK);
    assert_int_equal(found, 1);
    assert_int_equal(m.cur[1].seq, 7);
}

/* ---- commit bookkeeping ---------------------------------------------------------- */

static void test_commit_moves_cur_to_prev(void **state)
{
    (void)state;
    fti_meta m;
    memset(&m, 0, sizeof m);
    fti_commit c = commit_of(2, 3, 0);
    c.valid = 0; /* commit marks it valid */
    fti_meta_commit(&m, &c);
    assert_int_equal(m.cur[2].valid, 1);
    assert_int_equal(m.prev[2].valid, 0);
    assert_int_equal(m.last_seq, 3);
    c = commit_of(2, 4, 1);
    fti_meta_commit(&m, &c);
    assert_int_equal(m.cur[2].seq, 4);
    assert_int_equal(m.prev[2].seq, 3);
    assert_int_equal(m.prev[2].slot, 0);
    assert_int_equal(m.last_seq, 4);
    assert_int_equal(m.cur[1].valid, 0); /* other levels untouched */
}

static void test_candidates_newest_first(void **state)
{
    (void)state;
    fti_meta m;
    memset(&m, 0, sizeof m);
    static const int levels[] = {1, 2, 1, 4, 1, 3}; /* seq 1..6 */
    for (int i = 0; i < 6; i++) {
        fti_commit c = commit_of(levels[i], (uint64_t)i + 1, i % 2);
        fti_meta_commit(&m, &c);
    }
    fti_commit out[8];
    int n = fti_meta_candidates(&m, out);
    /* level 1 keeps #5 (cur) and #3 (prev); #1 is gone. */
    static const uint64_t seqs[] = {6, 5, 4, 3, 2};
    static const int lv[] = {3, 1, 4, 1, 2};
    assert_int_equal(n, 5);
    for (int i = 0; i < n; i++) {
        assert_int_equal(out[i].seq, seqs[i]);
        assert_int_equal(out[i].level, lv[i]);
        assert_int_equal(out[i].valid, 1);
    }
    assert_int_equal(m.cur[1].seq, 5);
    assert_int_equal(m.prev[1].seq, 3);
}

static void test_candidates_full(void **state)
{
    (void)state;
    fti_meta m;
    memset(&m, 0, sizeof m);
    for (uint64_t s = 1; s <= 8; s++) { /* two per level, interleaved */
        fti_commit c = commit_of((int)((s - 1) % 4) + 1, s, (int)(s > 4));
        fti_meta_commit(&m, &c);
    }
    fti_commit out[8];
    assert_int_equal(fti_meta_candidates(&m, out), 8);
    for (int i = 0; i < 8; i++)
        assert_int_equal(out[i].seq, 8 - (uint64_t)i);
}

/* ---- damage ------------------------------------------------------------------- */

static void test_flipped_char(void **state)
{
    (void)state;
    fti_meta m = sample();
    assert_int_equal(fti_meta_store(rec_path, &m), FTI_E_OK);
    char *good = read_text(rec_path);
    size_t len = strlen(good);
    const char *targets[] = {"bytes=7007", "seq=5", "last_seq=7", "slot=1", "checksum="};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        char *t = strdup(good);
        char *p = strstr(t, targets[i]) + strlen(targets[i]) + (i == 4 ? 3 : -1);
        *p ^= 0x01;
        write_bytes(rec_path, t, len);
        expect_corrupt(rec_path, targets[i]);
        free(t);
    }
    free(good);
}

static void test_truncated(void **state)
{
    (void)state;
    fti_meta m = sample();
    assert_int_equal(fti_meta_store(rec_path, &m), FTI_E_OK);
    char *good = read_text(rec_path);
    size_t len = strlen(good), sum_at = (size_t)(strstr(good, "checksum=") - good);
    const size_t cuts[] = {0, 5, len / 2, sum_at, sum_at + 12, len - 3};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_bytes(rec_path, good, cuts[i]);
        expect_corrupt(rec_path, "truncated");
    }
    free(good);
}

static void test_wrong_magic(void **state)
{
    (void)state;
    char body[4096];
    snprintf(body, sizeof body, "FTI-COMMIT 2%s", sample_text + strlen("FTI-COMMIT 1"));
    write_signed(rec_path, body);
    expect_corrupt(rec_path, "magic FTI-COMMIT 2");
    write_signed(rec_path, sample_text + 1);
    expect_corrupt(rec_path, "magic TI-COMMIT 1");
}

/* Checksummed but impossible content: level 7, slot 2, missing fields. */
static void test_malformed_line(void **state)
{
    (void)state;
    static const char *bad[] = {
        "cur level=7 seq=7 id=70 slot=1 nranks=4 time=1.000 bytes=1 codec=0 io=0\n",
        "cur level=1 seq=7 id=70 slot=2 nranks=4 time=1.000 bytes=1 codec=0 io=0\n",
        "cur level=1 seq=7 id=70 slot=1 nranks=0 time=1.000 bytes=1 codec=0 io=0\n",
        "prev level=1 seq=7 id=70\n",
        "cur level=1 seq=x id=70 slot=1 nranks=4 time=1.000 bytes=1 codec=0 io=0\n",
        /* a nonce is 16 lowercase hex digits, never 0 */
        "cur level=1 seq=7 id=70 slot=1 nranks=4 time=1.000 bytes=1 codec=0 io=0 nonce=0000000000000000\n",
        "cur level=1 seq=7 id=70 slot=1 nranks=4 time=1.000 bytes=1 codec=0 io=0 nonce=12345\n",
        "cur level=1 seq=7 id=70 slot=1 nranks=4 time=1.000 bytes=1 codec=0 io=0 nonce=0123456789ABCDEF\n",
        "cur level=1 seq=7 id=70 slot=1 nranks=4 time=1.000 bytes=1 codec=0 io=0 nonce=0123456789abcdef0\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[4096];
        snprintf(body, sizeof body, "FTI-COMMIT 1\nlast_seq=7\n%s", bad[i]);
        write_signed(rec_path, body);
        expect_corrupt(rec_path, bad[i]);
        assert_non_null(strstr(fti_last_error(), "malformed line"));
    }
}

/* A field appended after the nonce by a later version is ignored. */
static void test_appended_after_nonce(void **state)
{
    (void)state;
    write_signed(rec_path, "FTI-COMMIT 1\nlast_seq=7\n"
                 "cur level=1 seq=7 id=70 slot=1 nranks=4 time=1.000 bytes=1 codec=0 io=0 "
                 "nonce=0123456789abcdef future=3\n");
    fti_meta m;
    int found = 0;
    assert_int_equal(fti_meta_load(rec_path, &m, &found), FTI_E_OK);
    assert_int_equal(found, 1);
    assert_int_equal(m.cur[1].nonce, 0x0123456789abcdefull);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_text),
        cmocka_unit_test(test_no_temp_file_left),
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_empty_record),
        cmocka_unit_test(test_absent),
        cmocka_unit_test(test_store_error),
        cmocka_unit_test(test_unknown_lines_ignored),
        cmocka_unit_test(test_commit_moves_cur_to_prev),
        cmocka_unit_test(test_candidates_newest_first),
        cmocka_unit_test(test_candidates_full),
        cmocka_unit_test(test_flipped_char),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_wrong_magic),
        cmocka_unit_test(test_malformed_line),
        cmocka_unit_test(test_appended_after_nonce),
    };
    return cmocka_run_group_tests_name("meta", tests, group_setup, group_teardown);
}
