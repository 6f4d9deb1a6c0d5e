/*
 * test_ckpt_file.c - the checkpoint file format: a round trip restores the
 * exact bytes at the documented offsets (4 KiB-aligned from 4 KiB, else
 * packed at 8 bytes; version 1 files, all 4 KiB-aligned, still read); every
 * kind of damage (magic, version,
 * truncation, extension, data and header bit flips, stale sequence number)
 * is rejected with FTI_E_CORRUPT, an absent file with FTI_E_MISSING; and an
 * in-place overwrite of a bigger file equals a fresh write byte for byte.
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

#include "format/ckpt_file.h"
#include "base/integrity.h"
#include "base/log.h"
#include "data/registry.h"
#include "scratch.h"

#define NVARS 6
#define SEQ 5

/* Variables of the test checkpoint: ids, types (predefined ids) and counts. */
static const struct { int id; int type; int64_t count; } spec[NVARS] = {
    {0, 2, 1},        /* one int */
    {1, 9, 1000},     /* 8000 bytes of doubles: spans two 4 KiB blocks */
    {2, 9, 0},        /* empty */
    {3, 0, 4097},     /* odd size */
    {7, 0, 1},        /* one byte */
    {40, 10, 3},      /* long double */
};

typedef struct fixture {
    fti_registry reg;
    unsigned char *buf[NVARS];
    uint64_t size[NVARS];
    fti_file_header hdr;
    unsigned char *file; /* the good file's bytes */
    size_t file_len;
} fixture;

static char scratch[1024];
static char good_path[1200], bad_path[1200];

/* ---- helpers ------------------------------------------------------------ */

static int group_setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(scratch, sizeof scratch, "ckf") != 0)
        return -1;
    snprintf(good_path, sizeof good_path, "%s/good.fti", scratch);
    snprintf(bad_path, sizeof bad_path, "%s/bad.fti", scratch);
    fti_log_quiet(1); /* hundreds of expected rejections */
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    fti_log_quiet(0);
    return fti_test_scratch_remove(scratch);
}

static unsigned char pattern(int var, uint64_t i)
{
    uint64_t x = ((uint64_t)var << 32 | i) * 0x9E3779B97F4A7C15ull;
    return (unsigned char)(x >> 56);
}

static unsigned char *read_all(const char *path, size_t *len)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    unsigned char *b = malloc((size_t)st.st_size + 1);
    FILE *f = fopen(path, "rb");
    assert_non_null(b);
    assert_non_null(f);
    assert_int_equal(fread(b, 1, (size_t)st.st_size, f), (size_t)st.st_size);
    fclose(f);
    *len = (size_t)st.st_size;
    return b;
}

/* unlink first: ext4 flushes a truncated-then-rewritten file on close */
static void write_all(const char *path, const unsigned char *b, size_t len)
{
    unlink(path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static void protect_all(fixture *f)
{
    assert_int_equal(fti_registry_init(&f->reg), FTI_E_OK);
    for (int i = 0; i < NVARS; i++) {
        const fti_type *t = fti_registry_type(&f->reg, spec[i].type);
        f->size[i] = (uint64_t)spec[i].count * t->size;
        f->buf[i] = f->size[i] ? malloc(f->size[i]) : NULL;
        for (uint64_t b = 0; b < f->size[i]; b++)
            f->buf[i][b] = pattern(spec[i].id, b);
        assert_int_equal(fti_registry_protect(&f->reg, spec[i].id, f->buf[i], spec[i].count,
                                              spec[i].type), FTI_E_OK);
    }
}

static void header_in(fti_file_header *h)
{
    memset(h, 0, sizeof *h);
    h->seq = SEQ;
    h->ckpt_id = 42;
    h->level = 1;
    h->rank = 3;
    h->nonce = 0x0123456789abcdefull;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    protect_all(f);
    header_in(&f->hdr);
    unlink(good_path);
    assert_int_equal(fti_file_write(good_path, &f->reg, &f->hdr, 1 << 20), FTI_E_OK);
    f->file = read_all(good_path, &f->file_len);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    for (int i = 0; i < NVARS; i++)
        free(f->buf[i]);
    fti_file_header_free(&f->hdr);
    fti_registry_free(&f->reg);
    free(f->file);
    free(f);
    return 0;
}

static void assert_error_names(const char *needle)
{
    const char *msg = fti_last_error();
    if (strstr(msg, needle) == NULL)
        fail_msg("error message '%s' does not name '%s'", msg, needle);
}

/* Full verification of `path` returns `code` (and names the file). */
static void expect_verify(const char *path, uint64_t seq, fti_err code)
{
    fti_file_header h;
    memset(&h, 0xA5, sizeof h); /* as uninitialised as a caller's stack */
    fti_err e = fti_file_verify(path, seq, 1, &h);
    if (e != code)
        fail_msg("verify %s: %s, expected %s (%s)", path, fti_err_name(e), fti_err_name(code),
                 fti_last_error());
    if (e == FTI_E_OK)
        fti_file_header_free(&h);
    else
        assert_error_names(path);
    if (e != FTI_E_MISSING)
        assert_null(h.vars); /* freed after success; never left dangling on failure */
}

/* A copy of the good file with byte `at` xor `mask`, verified. */
static fti_err verify_flipped(const fixture *f, size_t at, unsigned char mask)
{
    fti_file_header h;
    memset(&h, 0xA5, sizeof h);
    f->file[at] ^= mask;
    write_all(bad_path, f->file, f->file_len);
    f->file[at] ^= mask;
    fti_err e = fti_file_verify(bad_path, 0, 1, &h);
    if (e == FTI_E_OK)
        fti_file_header_free(&h);
    return e;
}

static uint64_t table_end(uint32_t nvars)
{
    return FTI_FILE_FIXED_HEADER + (uint64_t)nvars * FTI_FILE_ENTRY_SIZE;
}

/* ---- round trip --------------------------------------------------------------- */

static void test_layout(void **state)
{
    fixture *f = *state;
    const fti_file_header *h = &f->hdr;
    assert_int_equal(h->nvars, NVARS);
    assert_int_equal(h->version, FTI_FILE_VERSION);
    assert_int_equal(h->kind, FTI_KIND_DATA);
    assert_int_equal(h->data_offset, 4096);
    assert_int_equal(h->data_offset, fti_file_header_size(NVARS));
    uint64_t end = h->data_offset;
    for (int i = 0; i < NVARS; i++) {
        const fti_file_entry *e = &h->vars[i];
        assert_int_equal(e->id, spec[i].id);
        assert_int_equal(e->type, spec[i].type);
        assert_int_equal(e->count, spec[i].count);
        assert_int_equal(e->nbytes, f->size[i]);
        uint64_t align = f->size[i] >= 4096 ? 4096 : 8; /* version 2 */
        assert_int_equal(e->offset % align, 0);
        assert_true(e->offset >= end);
        assert_true(e->offset < end + align);  /* no gap wider than alignment */
        assert_int_equal(e->checksum, fti_hash_buffer(f->buf[i], f->size[i]));
        end = e->offset + e->nbytes;
    }
    /* docs/FORMAT.md's rule by hand: 4 bytes at H; 8000 at the next page;
     * the empty one at the 8-aligned end, taking no room; 4097 at a page;
     * 1 byte and 48 bytes packed after it. */
    const uint64_t want[NVARS] = {4096, 8192, 16192, 16384, 20488, 20496};
    for (int i = 0; i < NVARS; i++)
        assert_int_equal(h->vars[i].offset, want[i]);
    assert_int_equal(h->file_size, end);
    assert_int_equal(f->file_len, end);
}

static void test_padding_zeroed(void **state)
{
    fixture *f = *state;
    const fti_file_header *h = &f->hdr;
    for (uint64_t b = table_end(NVARS) + 8; b < h->data_offset; b++)
        assert_int_equal(f->file[b], 0);
    for (int i = 0; i + 1 < NVARS; i++)
        for (uint64_t b = h->vars[i].offset + h->vars[i].nbytes; b < h->vars[i + 1].offset; b++)
            assert_int_equal(f->file[b], 0);
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* The byte offsets docs/FORMAT.md gives, read from the raw file. */
static void test_documented_offsets(void **state)
{
    fixture *f = *state;
    const unsigned char *b = f->file;
    assert_memory_equal(b, "FTICKPT\0", 8);
    assert_int_equal(le(b + 8, 4), FTI_FILE_VERSION);
    assert_int_equal(le(b + 12, 4), FTI_KIND_DATA);
    assert_int_equal(le(b + 16, 8), SEQ);
    assert_int_equal(le(b + 24, 8), 42);
    assert_int_equal(le(b + 32, 4), 1);
    assert_int_equal(le(b + 36, 4), 3);
    assert_int_equal(le(b + 40, 4), NVARS);
    assert_int_equal(le(b + 44, 4), 96);
    assert_int_equal(le(b + 48, 8), 4096);
    assert_int_equal(le(b + 56, 8), f->file_len);
    assert_int_equal(le(b + 64, 8), 0);
    assert_int_equal(le(b + 72, 8), 0);                     /* exec_tag: none given */
    assert_int_equal(le(b + 80, 8), 0x0123456789abcdefull); /* nonce */
    for (int i = 88; i < 128; i++)
        assert_int_equal(b[i], 0);
    for (int i = 0; i < NVARS; i++) {
        const unsigned char *e = b + 128 + 96 * i;
        assert_int_equal((int32_t)le(e, 4), spec[i].id);
        assert_int_equal((int32_t)le(e + 4, 4), spec[i].type);
        assert_int_equal(le(e + 8, 8), fti_registry_type(&f->reg, spec[i].type)->size);
        assert_int_equal(le(e + 16, 8), spec[i].count);
        assert_int_equal(le(e + 24, 8), f->hdr.vars[i].offset);
        assert_int_equal(le(e + 32, 8), f->size[i]);
        assert_int_equal(le(e + 40, 8), fti_hash_buffer(f->buf[i], f->size[i]));
        for (int c = 48; c < 96; c++)
            assert_int_equal(e[c], 0); /* no names given */
    }
    uint64_t end = table_end(NVARS);
    assert_int_equal(le(b + end, 8), fti_hash_buffer(b, end));
}

static void test_roundtrip(void **state)
{
    fixture *f = *state;
    fti_file_header h;
    assert_int_equal(fti_file_verify(good_path, SEQ, 1, &h), FTI_E_OK);
    assert_int_equal(h.seq, SEQ);
    assert_int_equal(h.ckpt_id, 42);
    assert_int_equal(h.level, 1);
    assert_int_equal(h.rank, 3);
    assert_int_equal(h.nonce, 0x0123456789abcdefull);
    assert_int_equal(h.nvars, NVARS);
    int fd = open(good_path, O_RDONLY);
    assert_true(fd >= 0);
    for (int i = 0; i < NVARS; i++) {
        fti_var v = *fti_registry_find(&f->reg, spec[i].id);
        unsigned char *out = calloc(1, f->size[i] + 1);
        v.ptr = out;
        const fti_file_entry *e = fti_file_find(&h, spec[i].id);
        assert_non_null(e);
        assert_int_equal(fti_file_read_var(fd, good_path, e, &v, 1 << 20), FTI_E_OK);
        assert_memory_equal(out, f->file + e->offset, f->size[i]);
        if (f->size[i])
            assert_memory_equal(out, f->buf[i], f->size[i]);
        free(out);
    }
    assert_null(fti_file_find(&h, 99));
    close(fd);
    fti_file_header_free(&h);
}

static void test_name_stored(void **state)
{
    (void)state;
    fti_registry r;
    fti_file_header h, back;
    int id = -1;
    double d = 2.5;
    header_in(&h);
    assert_int_equal(fti_registry_init(&r), FTI_E_OK);
    assert_int_equal(fti_registry_set_name(&r, "temperature", &id), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&r, id, &d, 1, 9), FTI_E_OK);
    assert_int_equal(fti_file_write(bad_path, &r, &h, 1 << 20), FTI_E_OK);
    fti_file_header_free(&h);
    assert_int_equal(fti_file_verify(bad_path, SEQ, 1, &back), FTI_E_OK);
    assert_int_equal(back.vars[0].id, id);
    assert_string_equal(back.vars[0].name, "temperature");
    fti_file_header_free(&back);
    size_t len;
    unsigned char *b = read_all(bad_path, &len);
    assert_memory_equal(b + 128 + 48, "temperature\0", 12);
    free(b);
    fti_registry_free(&r);
}

static void test_empty_registry(void **state)
{
    (void)state;
    fti_registry r;
    fti_file_header h;
    header_in(&h);
    assert_int_equal(fti_registry_init(&r), FTI_E_OK);
    assert_int_equal(fti_file_write(bad_path, &r, &h, 1 << 20), FTI_E_OK);
    assert_int_equal(h.file_size, 4096);
    fti_file_header_free(&h);
    expect_verify(bad_path, SEQ, FTI_E_OK);
    fti_registry_free(&r);
}

static void test_write_error(void **state)
{
    fixture *f = *state;
    char path[1300];
    fti_file_header h;
    header_in(&h);
    snprintf(path, sizeof path, "%s/no/such/dir/x.fti", scratch);
    assert_int_equal(fti_file_write(path, &f->reg, &h, 1 << 20), FTI_E_IO);
    assert_error_names(path);
    assert_null(h.vars);
}

/* ---- damage ------------------------------------------------------------------ */

static void test_absent(void **state)
{
    (void)state;
    char path[1300];
    snprintf(path, sizeof path, "%s/absent.fti", scratch);
    expect_verify(path, 0, FTI_E_MISSING);
}

static void test_bad_magic(void **state)
{
    fixture *f = *state;
    f->file[0] = 'X';
    write_all(bad_path, f->file, f->file_len);
    f->file[0] = 'F';
    expect_verify(bad_path, 0, FTI_E_CORRUPT);
    assert_error_names("magic");
}

/* The good file's bytes with the version field set to `version` and the
 * header checksum made right again, written to bad_path. */
static void write_with_version(const fixture *f, unsigned char version)
{
    unsigned char *b = malloc(f->file_len);
    memcpy(b, f->file, f->file_len);
    b[8] = version;
    uint64_t end = table_end(NVARS), sum = fti_hash_buffer(b, end);
    for (int i = 0; i < 8; i++)
        b[end + (uint64_t)i] = (unsigned char)(sum >> (8 * i));
    write_all(bad_path, b, f->file_len);
    free(b);
}

/* Version 3 with a correct header checksum: rejected for the version. */
static void test_wrong_version(void **state)
{
    fixture *f = *state;
    write_with_version(f, 3);
    expect_verify(bad_path, 0, FTI_E_CORRUPT);
    assert_error_names("version 3");
    write_with_version(f, 0);
    expect_verify(bad_path, 0, FTI_E_CORRUPT);
    assert_error_names("version 0");
}

/* Packed offsets are version 2's: the same table claiming version 1 (every
 * variable at a multiple of 4096) is an impossible layout. */
static void test_version1_rule(void **state)
{
    fixture *f = *state;
    write_with_version(f, 1);
    expect_verify(bad_path, 0, FTI_E_CORRUPT);
    assert_error_names("variable 2 has an impossible layout"); /* the empty one, at 16192 */
}

/* A version 1 file, as the library wrote it before version 2 (every
 * variable at the next multiple of 4096), is read as before. */
static void test_version1_read(void **state)
{
    fixture *f = *state;
    fti_file_header h = f->hdr;
    fti_file_entry vars[NVARS];
    memcpy(vars, f->hdr.vars, sizeof vars);
    h.vars = vars;
    h.version = 1;
    uint64_t pos = h.data_offset;
    for (int i = 0; i < NVARS; i++) {
        vars[i].offset = (pos + 4095) / 4096 * 4096;
        pos = vars[i].offset + vars[i].nbytes;
    }
    h.file_size = pos;
    unsigned char *b = calloc(1, (size_t)pos);
    fti_file_header_encode(&h, b);
    for (int i = 0; i < NVARS; i++)
        if (f->size[i])
            memcpy(b + vars[i].offset, f->buf[i], f->size[i]);
    write_all(bad_path, b, (size_t)pos);
    free(b);
    fti_file_header back;
    assert_int_equal(fti_file_verify(bad_path, SEQ, 1, &back), FTI_E_OK);
    assert_int_equal(back.version, 1);
    assert_int_equal(back.vars[4].offset, 24576); /* the byte of id 7: a page of its own */
    int fd = open(bad_path, O_RDONLY);
    assert_true(fd >= 0);
    for (int i = 0; i < NVARS; i++) {
        fti_var v = *fti_registry_find(&f->reg, spec[i].id);
        unsigned char *out = calloc(1, f->size[i] + 1);
        v.ptr = out;
        assert_int_equal(fti_file_read_var(fd, bad_path, &back.vars[i], &v, 1 << 20), FTI_E_OK);
        if (f->size[i])
            assert_memory_equal(out, f->buf[i], f->size[i]);
        free(out);
    }
    close(fd);
    fti_file_header_free(&back);
}

static void test_truncated(void **state)
{
    fixture *f = *state;
    const size_t data1 = (size_t)f->hdr.vars[1].offset;
    const size_t cuts[] = {0, 1, 8, 64, FTI_FILE_FIXED_HEADER - 1, FTI_FILE_FIXED_HEADER,
                           (size_t)table_end(NVARS), (size_t)table_end(NVARS) + 7, 4095, 4096,
                           data1 + 100, data1 + 4096, f->file_len - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_all(bad_path, f->file, cuts[i]);
        expect_verify(bad_path, 0, FTI_E_CORRUPT);
    }
}

static void test_appended_byte(void **state)
{
    fixture *f = *state;
    unsigned char *b = malloc(f->file_len + 1);
    memcpy(b, f->file, f->file_len);
    b[f->file_len] = 0;
    write_all(bad_path, b, f->file_len + 1);
    free(b);
    expect_verify(bad_path, 0, FTI_E_CORRUPT);
    assert_error_names("header says");
}

static void test_flipped_data(void **state)
{
    fixture *f = *state;
    const fti_file_entry *e = &f->hdr.vars[1];
    size_t at = (size_t)e->offset + 5000;
    f->file[at] ^= 0x10;
    write_all(bad_path, f->file, f->file_len);
    f->file[at] ^= 0x10;
    expect_verify(bad_path, SEQ, FTI_E_CORRUPT);
    assert_error_names("variable 1");

    fti_file_header h; /* header-only verification does not read the data */
    assert_int_equal(fti_file_verify(bad_path, SEQ, 0, &h), FTI_E_OK);
    int fd = open(bad_path, O_RDONLY);
    fti_var v = *fti_registry_find(&f->reg, 1);
    v.ptr = malloc(e->nbytes);
    assert_int_equal(fti_file_read_var(fd, bad_path, fti_file_find(&h, 1), &v, 1 << 20),
                     FTI_E_CORRUPT);
    assert_error_names(bad_path);
    assert_error_names("variable 1");
    fti_var other = *fti_registry_find(&f->reg, 3); /* the others still read fine */
    other.ptr = malloc(f->size[3]);
    assert_int_equal(fti_file_read_var(fd, bad_path, fti_file_find(&h, 3), &other, 1 << 20),
                     FTI_E_OK);
    assert_memory_equal(other.ptr, f->buf[3], f->size[3]);
    free(v.ptr);
    free(other.ptr);
    close(fd);
    fti_file_header_free(&h);
}

/* The last byte of each variable: a flip is caught by the full verify. */
static void test_flipped_data_every_var(void **state)
{
    fixture *f = *state;
    for (int i = 0; i < NVARS; i++) {
        const fti_file_entry *e = &f->hdr.vars[i];
        if (e->nbytes == 0)
            continue;
        assert_int_equal(verify_flipped(f, (size_t)(e->offset + e->nbytes - 1), 0x80),
                         FTI_E_CORRUPT);
        assert_int_equal(verify_flipped(f, (size_t)e->offset, 0x01), FTI_E_CORRUPT);
    }
}

/* Every byte of the fixed header, the table and the header checksum, two
 * different bits each: every flip is rejected. */
static void test_flipped_header_bytes(void **state)
{
    fixture *f = *state;
    const size_t covered = (size_t)table_end(NVARS) + 8;
    for (size_t at = 0; at < covered; at++) {
        fti_err e1 = verify_flipped(f, at, 0x01), e2 = verify_flipped(f, at, 0x80);
        if (e1 != FTI_E_CORRUPT || e2 != FTI_E_CORRUPT)
            fail_msg("flip of header byte %zu: %s / %s", at, fti_err_name(e1), fti_err_name(e2));
    }
}

static void test_stale_seq(void **state)
{
    (void)state;
    expect_verify(good_path, SEQ + 1, FTI_E_CORRUPT);
    assert_error_names("stale");
    expect_verify(good_path, SEQ - 1, FTI_E_CORRUPT);
    expect_verify(good_path, SEQ, FTI_E_OK);
    expect_verify(good_path, 0, FTI_E_OK); /* 0: any sequence number */
}

/* ---- in-place overwrite -------------------------------------------------------- */

/* A file with more and bigger variables of 0xAB bytes where the small
 * checkpoint will have padding and nothing. */
static void write_big_file(const char *path)
{
    fti_registry r;
    fti_file_header h;
    size_t n = 3 * 4096 + 77;
    unsigned char *junk = malloc(n);
    memset(junk, 0xAB, n);
    header_in(&h);
    h.seq = 99;
    assert_int_equal(fti_registry_init(&r), FTI_E_OK);
    for (int id = 0; id < 20; id++)
        assert_int_equal(fti_registry_protect(&r, 100 + id, junk, (int64_t)n, 0), FTI_E_OK);
    assert_int_equal(fti_file_write(path, &r, &h, 1 << 20), FTI_E_OK);
    fti_file_header_free(&h);
    fti_registry_free(&r);
    free(junk);
}

static void test_overwrite_in_place(void **state)
{
    fixture *f = *state;
    char path[1300];
    size_t len;
    fti_file_header h;
    snprintf(path, sizeof path, "%s/reused.fti", scratch);
    write_big_file(path);
    header_in(&h);
    assert_int_equal(fti_file_write(path, &f->reg, &h, 1 << 20), FTI_E_OK);
    fti_file_header_free(&h);
    unsigned char *b = read_all(path, &len);
    assert_int_equal(len, f->file_len);
    assert_memory_equal(b, f->file, len);
    free(b);
    expect_verify(path, SEQ, FTI_E_OK);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_layout),
        T(test_padding_zeroed),
        T(test_documented_offsets),
        T(test_roundtrip),
        T(test_name_stored),
        T(test_empty_registry),
        T(test_write_error),
        T(test_absent),
        T(test_bad_magic),
        T(test_wrong_version),
        T(test_version1_rule),
        T(test_version1_read),
        T(test_truncated),
        T(test_appended_byte),
        T(test_flipped_data),
        T(test_flipped_data_every_var),
        T(test_flipped_header_bytes),
        T(test_stale_seq),
        T(test_overwrite_in_place),
    };
#undef T
    return cmocka_run_group_tests_name("ckpt_file", tests, group_setup, group_teardown);
}
