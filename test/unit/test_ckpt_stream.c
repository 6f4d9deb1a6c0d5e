/*
 * test_ckpt_stream.c - checking a checkpoint file as its bytes go by
 * (src/format/ckpt_stream.c, used for files received from a partner or decoded
 * from parity): a file fed whole, in any piece sizes, passes with its
 * header; a changed data byte, a changed header byte, a missing or an extra
 * byte are rejected with FTI_E_CORRUPT naming the file; the zero gaps,
 * which no checksum covers, are not checked (as fti_file_verify does not).
 * A watcher (fti-ckpt's verdicts and extraction) gets every variable's
 * bytes and a verdict for each, also after a mismatch.
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

#include "format/ckpt_stream.h"
#include "base/log.h"
#include "data/registry.h"

static unsigned char *image; /* a whole checkpoint file */
static size_t image_len;
static uint64_t var_off[3];

/* Writes a file of three variables (one empty) and loads its bytes. */
static int group_setup(void **state)
{
    (void)state;
    static int a[3000];
    static double b[1000];
    static char empty[1];
    for (int i = 0; i < 3000; i++)
        a[i] = i * 7;
    for (int i = 0; i < 1000; i++)
        b[i] = i * 0.25;
    char path[512];
    const char *base = getenv("FTI_TEST_DIR");
    if (base != NULL)
        mkdir(base, 0700);
    snprintf(path, sizeof path, "%s/stream-%d.fti", base ? base : "/tmp", (int)getpid());
    fti_registry reg;
    fti_file_header h = {.seq = 5, .ckpt_id = 50, .level = 2, .rank = 3};
    if (fti_registry_init(&reg) != FTI_E_OK || fti_registry_protect(&reg, 0, a, 3000, 2) != FTI_E_OK ||
        fti_registry_protect(&reg, 1, empty, 0, 0) != FTI_E_OK ||
        fti_registry_protect(&reg, 2, b, 1000, 9) != FTI_E_OK ||
        fti_file_write(path, &reg, &h, 1 << 20) != FTI_E_OK)
        return -1;
    for (int i = 0; i < 3; i++)
        var_off[i] = h.vars[i].offset;
    image_len = (size_t)h.file_size;
    fti_file_header_free(&h);
    fti_registry_free(&reg);
    image = malloc(image_len);
    FILE *f = fopen(path, "rb");
    size_t got = f && image ? fread(image, 1, image_len, f) : 0;
    if (f)
        fclose(f);
    unlink(path);
    fti_log_quiet(1); /* expected rejections */
    return got == image_len ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    free(image);
    fti_log_quiet(0);
    return 0;
}

/* Feeds buf[0..len) in pieces of `piece` bytes; returns the verdict. */
static fti_err feed(const unsigned char *buf, size_t len, size_t piece, fti_file_header *hdr)
{
    fti_file_stream s;
    fti_clear_error();
    assert_int_equal(fti_file_stream_init(&s, "peer/l2-s0-rank3.rebuilt.fti"), FTI_E_OK);
    for (size_t off = 0; off < len; off += piece)
        fti_file_stream_feed(&s, buf + off, len - off < piece ? len - off : piece);
    return fti_file_stream_finish(&s, hdr);
}

static void assert_corrupt(const unsigned char *buf, size_t len, const char *what)
{
    assert_int_equal(feed(buf, len, 4096, NULL), FTI_E_CORRUPT);
    const char *msg = fti_last_error();
    if (strstr(msg, "l2-s0-rank3.rebuilt.fti") == NULL || strstr(msg, what) == NULL)
        fail_msg("message '%s' should name the file and '%s'", msg, what);
}

static void test_whole_file_in_any_pieces(void **state)
{
    (void)state;
    const size_t pieces[] = {1, 7, 100, 4096, 5000, 1 << 20};
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
        fti_file_header h;
        assert_int_equal(feed(image, image_len, pieces[i], &h), FTI_E_OK);
        assert_int_equal(h.rank, 3);
        assert_int_equal(h.seq, 5);
        assert_int_equal(h.nvars, 3);
        assert_int_equal(h.vars[1].nbytes, 0);
        assert_int_equal(h.file_size, image_len);
        fti_file_header_free(&h);
    }
}

static void test_changed_data_rejected(void **state)
{
    (void)state;
    unsigned char *copy = malloc(image_len);
    const uint64_t at[] = {var_off[0], var_off[0] + 5000, var_off[2] + 7999}; /* first, middle, last byte */
    for (size_t i = 0; i < 3; i++) {
        memcpy(copy, image, image_len);
        copy[at[i]] ^= 0x10;
        assert_corrupt(copy, image_len, i < 2 ? "variable 0: data checksum mismatch" :
                                                "variable 2: data checksum mismatch");
    }
    free(copy);
}

static void test_changed_header_rejected(void **state)
{
    (void)state;
    unsigned char *copy = malloc(image_len);
    memcpy(copy, image, image_len);
    copy[16] ^= 1; /* seq, covered by the header checksum */
    assert_corrupt(copy, image_len, "header checksum");
    memcpy(copy, image, 8);
    copy[0] = 'X';
    assert_corrupt(copy, image_len, "bad magic");
    free(copy);
}

static void test_length_must_match(void **state)
{
    (void)state;
    assert_corrupt(image, image_len - 1, "truncated or extended");
    assert_corrupt(image, 100, "truncated header");
    assert_corrupt(image, 0, "truncated header");
    unsigned char *longer = calloc(1, image_len + 1);
    memcpy(longer, image, image_len);
    assert_corrupt(longer, image_len + 1, "truncated or extended");
    free(longer);
}

static void test_gaps_not_checked(void **state)
{
    (void)state;
    unsigned char *copy = malloc(image_len);
    memcpy(copy, image, image_len);
    copy[var_off[0] + 3000 * sizeof(int)] = 0xff; /* the zeros after variable 0 */
    assert_int_equal(feed(copy, image_len, 333, NULL), FTI_E_OK);
    free(copy);
}

/* What a watcher saw: the bytes of variable 2 and the verdicts. */
typedef struct seen {
    unsigned char *bytes;
    size_t len;
    int verdict[3];
    int calls;
} seen;

static void seen_data(void *arg, const fti_file_entry *v, const void *buf, size_t n)
{
    seen *w = arg;
    if (v->id != 2)
        return;
    memcpy(w->bytes + w->len, buf, n);
    w->len += n;
}

static void seen_done(void *arg, uint32_t index, int ok)
{
    seen *w = arg;
    assert_true(index < 3);
    w->verdict[index] = ok ? 1 : -1;
    w->calls++;
}

static fti_err feed_watched(const unsigned char *buf, size_t len, size_t piece, seen *w)
{
    fti_file_stream s;
    fti_file_stream_vars vars = {seen_data, seen_done, w};
    fti_clear_error();
    assert_int_equal(fti_file_stream_init(&s, "peer/l2-s0-rank3.rebuilt.fti"), FTI_E_OK);
    fti_file_stream_watch(&s, &vars);
    for (size_t off = 0; off < len; off += piece)
        fti_file_stream_feed(&s, buf + off, len - off < piece ? len - off : piece);
    return fti_file_stream_finish(&s, NULL);
}

static void test_watcher_sees_every_variable(void **state)
{
    (void)state;
    seen w = {.bytes = malloc(8000)};
    assert_int_equal(feed_watched(image, image_len, 777, &w), FTI_E_OK);
    assert_int_equal(w.len, 8000);
    assert_memory_equal(w.bytes, image + var_off[2], 8000);
    assert_int_equal(w.calls, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(w.verdict[i], 1);
    free(w.bytes);
}

/* A mismatch in variable 0 no longer stops the check: variable 2 still
 * gets its (good) verdict and bytes, and the mismatch is the error. */
static void test_watcher_goes_on_after_mismatch(void **state)
{
    (void)state;
    unsigned char *copy = malloc(image_len);
    memcpy(copy, image, image_len);
    copy[var_off[0] + 10] ^= 0x40;
    seen w = {.bytes = malloc(8000)};
    assert_int_equal(feed_watched(copy, image_len, 4096, &w), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "l2-s0-rank3.rebuilt.fti: variable 0: data checksum mismatch"));
    assert_int_equal(w.verdict[0], -1);
    assert_int_equal(w.verdict[1], 1);
    assert_int_equal(w.verdict[2], 1);
    assert_int_equal(w.len, 8000);
    assert_memory_equal(w.bytes, image + var_off[2], 8000);
    free(w.bytes);
    free(copy);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_whole_file_in_any_pieces),
        cmocka_unit_test(test_changed_data_rejected),
        cmocka_unit_test(test_changed_header_rejected),
        cmocka_unit_test(test_length_must_match),
        cmocka_unit_test(test_gaps_not_checked),
        cmocka_unit_test(test_watcher_sees_every_variable),
        cmocka_unit_test(test_watcher_goes_on_after_mismatch),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
