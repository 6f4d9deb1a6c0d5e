/*
 * test_ckpt_expect.c - the rules that decide whether a checkpoint file may
 * be restored for a rank (src/format/ckpt_expect.c), shared by recovery and
 * fti-ckpt: a file of another rank, job, level, checkpoint or kind is
 * rejected with FTI_E_CORRUPT and a message naming the file, its role and
 * what it holds; the rank's own file passes; sizes must add up to the
 * commit record's.
 */
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

#include "format/ckpt_expect.h"
#include "base/log.h"
#include "data/registry.h"
#include "scratch.h"

#define SEQ 7
#define ID 42
#define RANK 1
#define EXEC "job-a"
#define NONCE 0x0123456789abcdefull /* the commit's; files get file_nonce */

static char scratch[1024];
static const fti_commit commit = {.valid = 1, .level = 2, .slot = 0, .nranks = 4, .seq = SEQ,
                                  .id = ID, .bytes = 0, .nonce = NONCE};
static uint64_t file_nonce = NONCE; /* written into the files below; tests reset it */

static int group_setup(void **state)
{
    (void)state;
    fti_log_quiet(1); /* expected rejections */
    return fti_test_scratch_make(scratch, sizeof scratch, "exp");
}

static int group_teardown(void **state)
{
    (void)state;
    fti_log_quiet(0);
    return fti_test_scratch_remove(scratch);
}

/* A data file as the library writes it: rank's two variables of checkpoint
 * (seq, id, level), tagged with exec's tag (NULL: untagged, as written
 * before headers carried the tag) and file_nonce. Returns its size. */
static uint64_t write_file(const char *path, int rank, uint64_t seq, int64_t id, int level,
                           const char *exec)
{
    static int a[300];
    static double b[1000];
    for (int i = 0; i < 300; i++)
        a[i] = rank * 1000 + i;
    for (int i = 0; i < 1000; i++)
        b[i] = rank + i * 0.5;
    fti_registry reg;
    fti_file_header h;
    memset(&h, 0, sizeof h);
    h.seq = seq;
    h.ckpt_id = id;
    h.level = (uint32_t)level;
    h.rank = (uint32_t)rank;
    h.exec_tag = exec != NULL ? fti_exec_tag(exec) : 0;
    h.nonce = file_nonce;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 0, a, 300, 2), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 1, b, 1000, 9), FTI_E_OK);
    assert_int_equal(fti_file_write(path, &reg, &h, 1 << 20), FTI_E_OK);
    uint64_t size = h.file_size;
    fti_file_header_free(&h);
    fti_registry_free(&reg);
    return size;
}

static void path_of(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/%s", scratch, name);
}

static void expect_rank1(fti_expect *x, const char *role)
{
    fti_expect_data(x, &commit, RANK, EXEC, role);
}

/* The file is rejected, and the message names it, the role and `what`. */
static void assert_rejected(const fti_expect *x, const char *path, const char *what)
{
    fti_clear_error();
    assert_int_equal(fti_expect_file(x, path, 1, NULL), FTI_E_CORRUPT);
    const char *msg = fti_last_error();
    if (strstr(msg, path) == NULL || strstr(msg, x->role) == NULL || strstr(msg, what) == NULL)
        fail_msg("message '%s' should name %s, '%s' and '%s'", msg, path, x->role, what);
    assert_int_equal(fti_expect_valid(x, path, NULL), 0);
}

static void test_own_file_accepted(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    fti_file_header h;
    uint64_t size = 0;
    path_of(path, sizeof path, "own.fti");
    uint64_t written = write_file(path, RANK, SEQ, ID, 2, EXEC);
    expect_rank1(&x, "own file");
    assert_int_equal(fti_expect_file(&x, path, 1, &h), FTI_E_OK);
    assert_int_equal(h.rank, RANK);
    assert_int_equal(h.seq, SEQ);
    assert_int_equal(h.nvars, 2);
    fti_file_header_free(&h);
    assert_int_equal(fti_expect_valid(&x, path, &size), 1);
    assert_int_equal(size, written);
}

static void test_other_rank_rejected(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    path_of(path, sizeof path, "rank2.fti");
    write_file(path, 2, SEQ, ID, 2, EXEC); /* valid in every checksum */
    expect_rank1(&x, "L2 partner copy");
    assert_rejected(&x, path, "rank 2");
    assert_non_null(strstr(fti_last_error(), "rank 1's"));
}

static void test_other_job_rejected(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    path_of(path, sizeof path, "jobb.fti");
    write_file(path, RANK, SEQ, ID, 2, "job-b");
    expect_rank1(&x, "own file");
    assert_rejected(&x, path, "another job");
}

static void test_untagged_file_accepted(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    path_of(path, sizeof path, "untagged.fti");
    write_file(path, RANK, SEQ, ID, 2, NULL);
    expect_rank1(&x, "own file");
    assert_int_equal(fti_expect_file(&x, path, 1, NULL), FTI_E_OK);
}

static void test_other_level_seq_id_rejected(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    expect_rank1(&x, "L4 copy");
    path_of(path, sizeof path, "level.fti");
    write_file(path, RANK, SEQ, ID, 4, EXEC);
    assert_rejected(&x, path, "level 4");
    path_of(path, sizeof path, "stale.fti");
    write_file(path, RANK, SEQ - 2, ID, 2, EXEC);
    assert_rejected(&x, path, "stale");
    path_of(path, sizeof path, "id.fti");
    write_file(path, RANK, SEQ, ID + 1, 2, EXEC);
    assert_rejected(&x, path, "id 43");
}

static void test_identity_checked_before_sequence(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    path_of(path, sizeof path, "rank3-old.fti");
    write_file(path, 3, SEQ - 1, ID, 2, EXEC);
    expect_rank1(&x, "own file");
    assert_rejected(&x, path, "rank 3"); /* says whose file, not merely "stale" */
}

static void test_damaged_and_missing(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    expect_rank1(&x, "own file");
    path_of(path, sizeof path, "absent.fti");
    assert_int_equal(fti_expect_file(&x, path, 1, NULL), FTI_E_MISSING);
    path_of(path, sizeof path, "flipped.fti");
    uint64_t size = write_file(path, RANK, SEQ, ID, 2, EXEC);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, (long)size - 5, SEEK_SET);
    fputc(0x5A, f);
    fclose(f);
    assert_int_equal(fti_expect_file(&x, path, 1, NULL), FTI_E_CORRUPT);
    assert_int_equal(fti_expect_file(&x, path, 0, NULL), FTI_E_OK); /* header only */
}

static void test_tag_stored_in_header(void **state)
{
    (void)state;
    char path[1200];
    unsigned char b[80];
    path_of(path, sizeof path, "tag.fti");
    write_file(path, RANK, SEQ, ID, 2, EXEC);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(b, 1, sizeof b, f), sizeof b);
    fclose(f);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | b[72 + i];
    assert_int_equal(v, fti_exec_tag(EXEC));
    assert_true(fti_exec_tag(EXEC) != 0);
    assert_true(fti_exec_tag("job-a") != fti_exec_tag("job-b"));
}

/* The same checkpoint (rank, level, seq, id, job) written by another job
 * sharing the folders, or by another run: refused, naming file and nonces. */
static void test_other_nonce_rejected(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    path_of(path, sizeof path, "nonce-b.fti");
    file_nonce = 0xfedcba9876543210ull;
    write_file(path, RANK, SEQ, ID, 2, EXEC);
    file_nonce = NONCE;
    expect_rank1(&x, "own file");
    assert_rejected(&x, path, "holds another job's checkpoint (nonce fedcba9876543210, expected "
                    "0123456789abcdef)");
}

/* A record with a nonce refuses a file without one (0), and a record
 * written before nonces (0) refuses a file with one: it cannot be its own. */
static void test_nonce_absent_on_either_side(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    path_of(path, sizeof path, "nonce-0.fti");
    file_nonce = 0;
    write_file(path, RANK, SEQ, ID, 2, EXEC);
    file_nonce = NONCE;
    expect_rank1(&x, "own file");
    assert_rejected(&x, path, "(nonce 0000000000000000, expected 0123456789abcdef)");
    fti_commit old = commit;
    old.nonce = 0;
    fti_expect_data(&x, &old, RANK, EXEC, "own file");
    assert_int_equal(fti_expect_file(&x, path, 1, NULL), FTI_E_OK); /* old record, old file */
    path_of(path, sizeof path, "nonce-new.fti");
    write_file(path, RANK, SEQ, ID, 2, EXEC);
    assert_rejected(&x, path, "(nonce 0123456789abcdef, expected 0000000000000000)");
}

/* A file of another seq and nonce is called stale, not another job's: after
 * a crash that is the likely story, and the probe stays quiet about it. */
static void test_stale_before_nonce(void **state)
{
    (void)state;
    char path[1200];
    fti_expect x;
    path_of(path, sizeof path, "nonce-stale.fti");
    file_nonce = 0x77;
    write_file(path, RANK, SEQ + 1, ID, 2, EXEC);
    file_nonce = NONCE;
    expect_rank1(&x, "own file");
    assert_rejected(&x, path, "stale file");
}

static void test_nonce_stored_in_header(void **state)
{
    (void)state;
    char path[1200];
    unsigned char b[128];
    path_of(path, sizeof path, "nonce-hdr.fti");
    fti_file_header h;
    fti_expect_data_header(&h, &commit, RANK, EXEC);
    assert_int_equal(h.nonce, NONCE); /* the writers take it from the commit */
    write_file(path, RANK, SEQ, ID, 2, EXEC);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(b, 1, sizeof b, f), sizeof b);
    fclose(f);
    static const unsigned char want[8] = {0xef, 0xcd, 0xab, 0x89, 0x67, 0x45, 0x23, 0x01};
    assert_memory_equal(b + 80, want, 8); /* little-endian u64 at offset 80 */
    for (int i = 88; i < 128; i++)
        assert_int_equal(b[i], 0);
}

/* Parity headers, in memory: kind, holder and group size. */
static void parity_header(fti_file_header *h, fti_file_entry e[2], uint32_t holder, uint64_t group)
{
    memset(h, 0, sizeof *h);
    memset(e, 0, 2 * sizeof *e);
    h->kind = FTI_KIND_PARITY;
    h->seq = SEQ;
    h->ckpt_id = ID;
    h->level = 3;
    h->rank = holder;
    h->exec_tag = fti_exec_tag(EXEC);
    h->nonce = NONCE;
    h->nvars = 2;
    h->vars = e;
    e[0] = (fti_file_entry){.id = -1, .elem_size = 8, .count = group};
    e[1] = (fti_file_entry){.id = -2, .elem_size = 1};
}

static void test_parity_rules(void **state)
{
    (void)state;
    fti_commit c3 = commit;
    c3.level = 3;
    fti_expect x;
    fti_file_header h;
    fti_file_entry e[2];
    fti_expect_parity(&x, &c3, 1, 4, EXEC);
    parity_header(&h, e, 1, 4);
    assert_int_equal(fti_expect_header(&x, &h, "p1"), FTI_E_OK);
    parity_header(&h, e, 5, 4); /* the same position in another group */
    assert_int_equal(fti_expect_header(&x, &h, "p5"), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "parity of rank 5"));
    parity_header(&h, e, 1, 2);
    assert_int_equal(fti_expect_header(&x, &h, "p-g2"), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "group of 4"));
    parity_header(&h, e, 1, 4);
    h.kind = FTI_KIND_DATA; /* a data file where parity belongs */
    assert_int_equal(fti_expect_header(&x, &h, "pd"), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "L3 parity file pd: holds data"));
    parity_header(&h, e, 1, 4);
    h.nonce = NONCE + 1; /* another job's parity */
    assert_int_equal(fti_expect_header(&x, &h, "pn"), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "L3 parity file pn: holds another job's checkpoint"));
}

/* What fti_expect_probe printed on stderr for path (captured). */
static void probe_output(const fti_expect *x, const char *path, fti_err want, char *out, size_t n)
{
    char err_path[1200];
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", scratch);
    fflush(stderr);
    int saved = dup(2), fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, 2);
    fti_err e = fti_expect_probe(x, path, NULL);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    assert_int_equal(e, want);
    FILE *f = fopen(err_path, "r");
    assert_non_null(f);
    size_t len = fread(out, 1, n - 1, f);
    out[len] = '\0';
    fclose(f);
}

/* A probe names a foreign file on stderr; a stale or lost one stays quiet
 * (after a crash that is normal, and the level reports it). */
static void test_probe_warns_foreign_only(void **state)
{
    (void)state;
    char path[1200], out[2048];
    fti_expect x;
    expect_rank1(&x, "own file");
    path_of(path, sizeof path, "probe-foreign.fti");
    write_file(path, 3, SEQ, ID, 2, EXEC);
    probe_output(&x, path, FTI_E_CORRUPT, out, sizeof out);
    if (strstr(out, "refused: own file") == NULL || strstr(out, path) == NULL)
        fail_msg("no warning naming %s: '%s'", path, out);
    path_of(path, sizeof path, "probe-nonce.fti");
    file_nonce = NONCE ^ 1;
    write_file(path, RANK, SEQ, ID, 2, EXEC);
    file_nonce = NONCE;
    probe_output(&x, path, FTI_E_CORRUPT, out, sizeof out);
    if (strstr(out, "refused: own file") == NULL || strstr(out, "holds another job's checkpoint") == NULL)
        fail_msg("no warning naming another job's checkpoint %s: '%s'", path, out);
    path_of(path, sizeof path, "probe-stale.fti");
    write_file(path, RANK, SEQ - 1, ID, 2, EXEC);
    probe_output(&x, path, FTI_E_CORRUPT, out, sizeof out);
    assert_string_equal(out, "");
    path_of(path, sizeof path, "probe-absent.fti");
    probe_output(&x, path, FTI_E_MISSING, out, sizeof out);
    assert_string_equal(out, "");
}

static void test_total_size(void **state)
{
    (void)state;
    fti_commit c = commit;
    c.bytes = 4 * 12288;
    assert_int_equal(fti_expect_total(&c, 4 * 12288), FTI_E_OK);
    assert_int_equal(fti_expect_total(&c, 4 * 12288 + 4096), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "commit record says 49152"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_file_accepted),
        cmocka_unit_test(test_other_rank_rejected),
        cmocka_unit_test(test_other_job_rejected),
        cmocka_unit_test(test_untagged_file_accepted),
        cmocka_unit_test(test_other_level_seq_id_rejected),
        cmocka_unit_test(test_identity_checked_before_sequence),
        cmocka_unit_test(test_damaged_and_missing),
        cmocka_unit_test(test_tag_stored_in_header),
        cmocka_unit_test(test_other_nonce_rejected),
        cmocka_unit_test(test_nonce_absent_on_either_side),
        cmocka_unit_test(test_stale_before_nonce),
        cmocka_unit_test(test_nonce_stored_in_header),
        cmocka_unit_test(test_parity_rules),
        cmocka_unit_test(test_probe_warns_foreign_only),
        cmocka_unit_test(test_total_size),
    };
    return cmocka_run_group_tests_name("ckpt_expect", tests, group_setup, group_teardown);
}
