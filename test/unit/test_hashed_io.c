/* hashed_io.c: the bytes written and read back are the buffer's, at the
 * file offset asked, and the hash taken piece by piece equals the one-shot
 * hash of the whole buffer, for sizes around the piece boundaries; no hash
 * asked (NULL) moves the same bytes; a failed write or read returns -1
 * with errno. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fill.h"
#include "base/hashed_io.h"

static int scratch_file(void)
{
    char path[] = "/tmp/fti-test-hashed-io-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    return fd;
}

static void round_trip(size_t n, off_t off)
{
    unsigned char *src = malloc(n + 1), *back = malloc(n + 1);
    assert_non_null(src);
    assert_non_null(back);
    fti_test_fill(src, n, (unsigned)n);
    int fd = scratch_file();
    fti_hash wh, rh;
    assert_int_equal(fti_hash_init(&wh), 0);
    assert_int_equal(fti_hash_init(&rh), 0);
    assert_int_equal(fti_pwrite_hashed(fd, src, n, off, &wh), 0);
    assert_int_equal(lseek(fd, 0, SEEK_END), n ? off + (off_t)n : 0); /* nothing past the range */
    memset(back, 0, n + 1);
    assert_int_equal(fti_pread_hashed(fd, back, n, off, &rh), 0);
    assert_memory_equal(back, src, n);
    uint64_t whole = fti_hash_buffer(src, n);
    assert_true(fti_hash_final(&wh) == whole);
    assert_true(fti_hash_final(&rh) == whole);
    memset(back, 0, n + 1);
    assert_int_equal(fti_pread_hashed(fd, back, n, off, NULL), 0);
    assert_memory_equal(back, src, n);
    fti_hash_free(&wh);
    fti_hash_free(&rh);
    close(fd);
    free(src);
    free(back);
}

static void test_sizes_around_pieces(void **state)
{
    (void)state;
    const size_t p = FTI_HASH_PIECE;
    const size_t sizes[] = {0, 1, 4095, p - 1, p, p + 1, 3 * p + 7};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        round_trip(sizes[i], 0);
        round_trip(sizes[i], 4096 + 13); /* an offset inside the file */
    }
}

static void test_errors_return_minus_one(void **state)
{
    (void)state;
    char buf[64] = {0};
    fti_hash h;
    assert_int_equal(fti_hash_init(&h), 0);
    errno = 0;
    assert_int_equal(fti_pwrite_hashed(-1, buf, sizeof buf, 0, &h), -1);
    assert_int_equal(errno, EBADF);
    int fd = scratch_file(); /* empty: a read past its end fails */
    errno = 0;
    assert_int_equal(fti_pread_hashed(fd, buf, sizeof buf, 0, &h), -1);
    assert_int_equal(errno, EIO);
    close(fd);
    fti_hash_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes_around_pieces),
        cmocka_unit_test(test_errors_return_minus_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
