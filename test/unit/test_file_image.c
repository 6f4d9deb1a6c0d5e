/*
 * test_file_image.c - a checkpoint file's image in memory (file_image.c):
 * every range it serves from the application's buffers equals the written
 * file's bytes at that offset (swept over the whole file with message
 * lengths of 1 byte to more than a variable), each variable's own range is
 * served, and the header, the padding and ranges across two variables are
 * not (the caller reads the file there); an image stands only for a file
 * of its size.
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
#include "data/registry.h"
#include "format/ckpt_file.h"
#include "format/file_image.h"
#include "scratch.h"

#define NVARS 6

/* ids, predefined types and counts: packed small ones, aligned big ones, an empty one */
static const struct { int id; int type; int64_t count; } spec[NVARS] = {
    {0, 2, 1}, {1, 9, 3000}, {2, 9, 0}, {3, 0, 4097}, {7, 0, 5}, {40, 0, 70000},
};

static char scratch[1024], path[1200];

static int group_setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(scratch, sizeof scratch, "fimg") != 0)
        return -1;
    snprintf(path, sizeof path, "%s/f.fti", scratch);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    return fti_test_scratch_remove(scratch);
}

typedef struct fixture {
    fti_registry reg;
    unsigned char *buf[NVARS];
    fti_file_header hdr;
    unsigned char *file;
    size_t len;
} fixture;

static void make(fixture *f)
{
    memset(f, 0, sizeof *f);
    assert_int_equal(fti_registry_init(&f->reg), FTI_E_OK);
    for (int i = 0; i < NVARS; i++) {
        size_t n = (size_t)spec[i].count * fti_registry_type(&f->reg, spec[i].type)->size;
        f->buf[i] = n ? malloc(n) : NULL;
        for (size_t b = 0; b < n; b++)
            f->buf[i][b] = (unsigned char)((b * 131u + (unsigned)i * 17u) >> 3);
        assert_int_equal(fti_registry_protect(&f->reg, spec[i].id, f->buf[i], spec[i].count,
                                              spec[i].type), FTI_E_OK);
    }
    f->hdr.seq = 3;
    f->hdr.ckpt_id = 3;
    f->hdr.level = 2;
    unlink(path);
    assert_int_equal(fti_file_write(path, &f->reg, &f->hdr, 1 << 20), FTI_E_OK);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    f->len = (size_t)st.st_size;
    f->file = malloc(f->len);
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(f->file, 1, f->len, fp), f->len);
    fclose(fp);
}

static void drop(fixture *f)
{
    fti_file_header_free(&f->hdr);
    fti_registry_free(&f->reg);
    for (int i = 0; i < NVARS; i++)
        free(f->buf[i]);
    free(f->file);
}

static void served_ranges_equal_the_file(void **state)
{
    (void)state;
    fixture f;
    make(&f);
    fti_file_image img;
    assert_int_equal(fti_file_image_of(&f.reg, &img), FTI_E_OK);
    assert_int_equal(img.file_size, f.len);
    static const size_t lens[] = {1, 7, 4096, 10001, 24000, 65536, 80000};
    size_t served = 0, asked = 0;
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
        for (size_t off = 0; off + lens[li] <= f.len; off += 997) {
            const char *m = fti_file_image_at(&img, off, lens[li]);
            asked++;
            if (m != NULL) {
                served++;
                assert_memory_equal(m, f.file + off, lens[li]);
            }
        }
    assert_true(served > 0 && served < asked); /* both ways taken */
    drop(&f);
    fti_file_image_free(&img);
}

static void each_variable_served_and_nothing_across(void **state)
{
    (void)state;
    fixture f;
    make(&f);
    fti_file_image img;
    assert_int_equal(fti_file_image_of(&f.reg, &img), FTI_E_OK);
    for (uint32_t i = 0; i < f.hdr.nvars; i++) {
        const fti_file_entry *e = &f.hdr.vars[i];
        if (e->nbytes == 0)
            continue;
        assert_ptr_equal(fti_file_image_at(&img, e->offset, e->nbytes), (const char *)f.buf[i]);
        assert_null(fti_file_image_at(&img, e->offset, e->nbytes + 1)); /* padding or the next */
        if (e->offset > 0)
            assert_null(fti_file_image_at(&img, e->offset - 1, 2)); /* from the gap before */
    }
    assert_null(fti_file_image_at(&img, 0, 8));                  /* the header */
    assert_null(fti_file_image_at(&img, f.hdr.vars[1].offset, 0)); /* nothing asked */
    assert_null(fti_file_image_at(NULL, f.hdr.vars[1].offset, 8)); /* no image */
    assert_ptr_equal(fti_file_image_for(&img, f.len), &img);    /* the file it describes */
    assert_null(fti_file_image_for(&img, f.len + 1));           /* another file */
    assert_null(fti_file_image_for(NULL, f.len));
    drop(&f);
    fti_file_image_free(&img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(served_ranges_equal_the_file),
        cmocka_unit_test(each_variable_served_and_nothing_across),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
