/*
 * test_l4_image.c - the image L4 writes from memory (no local copy) is the
 * checkpoint file fti_file_write makes, byte for byte, however it is read:
 * whole, or in pieces that straddle the header, the variables and the zero
 * gaps between them; reading past its end fails with EIO; its table carries
 * the same checksums; the float spans name the double variables.
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

#include "format/ckpt_expect.h"
#include "format/ckpt_file.h"
#include "stores/l4_image.h"
#include "data/registry.h"

#define NVARS 5

static const struct { int id; int type; int64_t count; } spec[NVARS] = {
    {0, 2, 1},     /* one int */
    {1, 9, 1000},  /* 8000 bytes of doubles */
    {2, 9, 0},     /* empty */
    {3, 0, 4097},  /* odd size: a gap follows */
    {7, 0, 1},     /* one byte */
};

typedef struct fixture {
    fti_ctx ctx;
    unsigned char *buf[NVARS];
    unsigned char *file;
    size_t file_len;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    assert_int_equal(fti_registry_init(&f->ctx.reg), FTI_E_OK);
    for (int i = 0; i < NVARS; i++) {
        size_t n = (size_t)spec[i].count * (spec[i].type == 9 ? 8 : spec[i].type == 2 ? 4 : 1);
        f->buf[i] = malloc(n + 1);
        for (size_t k = 0; k < n; k++)
            f->buf[i][k] = (unsigned char)(k * 31 + (size_t)i * 7 + 1);
        assert_int_equal(fti_registry_protect(&f->ctx.reg, spec[i].id, f->buf[i], spec[i].count,
                                              spec[i].type), FTI_E_OK);
    }
    f->ctx.topo.app_rank = 3;
    snprintf(f->ctx.dirs.exec_id, sizeof f->ctx.dirs.exec_id, "unit-l4-image");
    /* the file the local writer makes, as the reference */
    const char *dir = getenv("FTI_TEST_DIR");
    char path[1024];
    mkdir(dir != NULL ? dir : "/tmp", 0700);
    snprintf(path, sizeof path, "%s/ref-%d.fti", dir != NULL ? dir : "/tmp", (int)getpid());
    fti_commit c = {.seq = 9, .id = 4, .level = 4};
    fti_file_header hdr;
    fti_expect_data_header(&hdr, &c, f->ctx.topo.app_rank, f->ctx.dirs.exec_id);
    assert_int_equal(fti_file_write(path, &f->ctx.reg, &hdr, 0), FTI_E_OK);
    f->file_len = hdr.file_size;
    fti_file_header_free(&hdr);
    f->file = malloc(f->file_len);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, f->file, f->file_len, 0), (ssize_t)f->file_len);
    close(fd);
    unlink(path);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    fti_registry_free(&f->ctx.reg);
    for (int i = 0; i < NVARS; i++)
        free(f->buf[i]);
    free(f->file);
    free(f);
    return 0;
}

static void open_image(fixture *f, fti_l4_image *im, fti_l4_io *io)
{
    fti_commit c = {.seq = 9, .id = 4, .level = 4};
    assert_int_equal(fti_l4_image_open(im, &f->ctx, &c), FTI_E_OK);
    fti_l4_image_io(im, io);
}

static void image_equals_file(void **state)
{
    fixture *f = *state;
    fti_l4_image im;
    fti_l4_io io;
    open_image(f, &im, &io);
    assert_int_equal(im.hdr.file_size, f->file_len);
    unsigned char *got = malloc(f->file_len);
    assert_int_equal(io.read(io.arg, got, f->file_len, 0), 0);
    assert_memory_equal(got, f->file, f->file_len);
    free(got);
    fti_l4_image_close(&im);
}

static void pieces_straddle_boundaries(void **state)
{
    fixture *f = *state;
    fti_l4_image im;
    fti_l4_io io;
    open_image(f, &im, &io);
    static const size_t steps[] = {1, 777, 4096, 5000};
    for (size_t s = 0; s < sizeof steps / sizeof *steps; s++) {
        unsigned char piece[5000];
        for (size_t off = 0; off < f->file_len; off += steps[s]) {
            size_t n = f->file_len - off < steps[s] ? f->file_len - off : steps[s];
            assert_int_equal(io.read(io.arg, piece, n, off), 0);
            assert_memory_equal(piece, f->file + off, n);
        }
    }
    unsigned char b[2];
    errno = 0;
    assert_int_equal(io.read(io.arg, b, 2, f->file_len - 1), -1);
    assert_int_equal(errno, EIO);
    fti_l4_image_close(&im);
}

static void table_and_spans(void **state)
{
    fixture *f = *state;
    fti_l4_image im;
    fti_l4_io io;
    open_image(f, &im, &io);
    fti_file_header ref;
    assert_int_equal(fti_file_header_decode(f->file, im.hdr.data_offset, "ref", &ref), FTI_E_OK);
    for (uint32_t i = 0; i < ref.nvars; i++)
        assert_int_equal(im.hdr.vars[i].checksum, ref.vars[i].checksum);
    fti_l4_span *spans = NULL;
    int n = fti_l4_float_spans(&im.hdr, &spans);
    assert_int_equal(n, 1); /* the empty double variable has no span */
    assert_int_equal(spans[0].nbytes, 8000);
    assert_int_equal(spans[0].stride, 8);
    free(spans);
    fti_file_header taken;
    fti_l4_image_take_header(&im, &taken);
    assert_null(im.hdr.vars);
    assert_int_equal(taken.seq, 9);
    assert_int_equal(taken.rank, 3);
    fti_file_header_free(&taken);
    fti_file_header_free(&ref);
    fti_l4_image_close(&im);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(image_equals_file),
        cmocka_unit_test(pieces_straddle_boundaries),
        cmocka_unit_test(table_and_spans),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
