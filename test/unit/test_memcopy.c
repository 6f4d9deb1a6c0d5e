/* memcopy.c: every byte copied, none written outside the destination, for
 * each offset of source and destination within a cache line, sizes below,
 * at and above the streaming threshold, and odd tails. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fill.h"
#include "base/memcopy.h"

#define GUARD 128

/* Copies n bytes from src + so to dst + dof and checks the result and the
 * guard bytes on both sides. */
static void check_copy(size_t n, size_t so, size_t dof)
{
    unsigned char *src = malloc(n + 2 * GUARD), *dst = malloc(n + 2 * GUARD);
    assert_non_null(src);
    assert_non_null(dst);
    fti_test_fill(src, n + 2 * GUARD, (unsigned)(n + so));
    memset(dst, 0xA5, n + 2 * GUARD);
    fti_copy_large(dst + GUARD + dof, src + GUARD + so, n);
    assert_memory_equal(dst + GUARD + dof, src + GUARD + so, n);
    for (size_t i = 0; i < GUARD + dof; i++)
        assert_int_equal(dst[i], 0xA5);
    for (size_t i = GUARD + dof + n; i < n + 2 * GUARD; i++)
        assert_int_equal(dst[i], 0xA5);
    free(src);
    free(dst);
}

static void test_offsets_large(void **state)
{
    (void)state;
    size_t sizes[] = {(size_t)1 << 20, ((size_t)1 << 20) + 1, ((size_t)3 << 20) + 4093};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t so = 0; so < 64; so += 7)
            for (size_t dof = 0; dof < 64; dof += 5)
                check_copy(sizes[s], so, dof);
}

static void test_small_and_empty(void **state)
{
    (void)state;
    size_t sizes[] = {0, 1, 63, 64, 4096, ((size_t)1 << 20) - 1};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t dof = 0; dof < 64; dof += 13)
            check_copy(sizes[s], 3, dof);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_offsets_large),
                                       cmocka_unit_test(test_small_and_empty)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
