/* xxh.c: the XXH3-64 compiled into libfti gives xxHash's values with every
 * variant it has (baseline, AVX2, AVX-512), in one call and streamed in
 * uneven pieces, for lengths on both sides of XXH3's internal boundaries
 * (16, 128, 240 bytes, the 1 KiB stripe block, the 256-byte internal
 * buffer). A variant the CPU lacks is left out (named in the output). */
#include "base/xxh.h"

#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

static const size_t lengths[] = {0, 1, 3, 16, 17, 128, 129, 240, 241, 255, 256, 257,
                                 1023, 1024, 1025, 4096, 65536 + 13};

static unsigned char *pattern(size_t n)
{
    unsigned char *p = malloc(n + 1);
    assert_non_null(p);
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 2654435761u >> 13);
    return p;
}

/* xxHash documents XXH3-64 of the empty input. */
static void test_known_empty(void **state)
{
    (void)state;
    assert_int_equal(fti_xxh3("", 0), 0x2D06800538D394C2ULL);
    assert_int_equal(XXH3_64bits("", 0), 0x2D06800538D394C2ULL);
}

typedef uint64_t (*oneshot_fn)(const void *, size_t);
typedef int (*update_fn)(void *, const void *, size_t);

static int baseline_update(void *s, const void *d, size_t n)
{
    return XXH3_64bits_update((XXH3_state_t *)s, d, n) == XXH_OK ? 0 : -1;
}

static int dispatched_update(void *s, const void *d, size_t n)
{
    return fti_xxh3_update((XXH3_state_t *)s, d, n);
}

/* One variant against the baseline, one-shot and streamed in pieces of 1,
 * 7, 100, 300, ... bytes (carried across the internal buffer). */
static void check_variant(const char *name, oneshot_fn one, update_fn upd)
{
    for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
        size_t n = lengths[k];
        unsigned char *p = pattern(n);
        uint64_t want = XXH3_64bits(p, n);
        if (one(p, n) != want)
            fail_msg("%s: XXH3-64 of %zu bytes %016llx, baseline %016llx", name, n,
                     (unsigned long long)one(p, n), (unsigned long long)want);
        XXH3_state_t *s = XXH3_createState();
        assert_non_null(s);
        assert_int_equal(XXH3_64bits_reset(s), XXH_OK);
        size_t piece = 1;
        for (size_t at = 0; at < n; at += piece, piece = piece * 3 + 4) {
            size_t len = n - at < piece ? n - at : piece;
            assert_int_equal(upd(s, p + at, len), 0);
        }
        if (XXH3_64bits_digest(s) != want)
            fail_msg("%s: streamed XXH3-64 of %zu bytes %016llx, baseline %016llx", name, n,
                     (unsigned long long)XXH3_64bits_digest(s), (unsigned long long)want);
        XXH3_freeState(s);
        free(p);
    }
}

static void test_dispatched(void **state)
{
    (void)state;
    printf("fti_xxh3 uses the %s variant here\n", fti_xxh3_variant());
    check_variant("fti_xxh3", fti_xxh3, dispatched_update);
    assert_int_equal(fti_xxh3_update(NULL, "x", 1), -1);
}

static void test_variants(void **state)
{
    (void)state;
#if defined(FTI_HAVE_XXH_SIMD)
    if (__builtin_cpu_supports("avx2"))
        check_variant("avx2", fti_xxh3_avx2, fti_xxh3_update_avx2);
    else
        printf("no AVX2 on this CPU: avx2 variant not run\n");
    if (__builtin_cpu_supports("avx512f"))
        check_variant("avx512", fti_xxh3_avx512, fti_xxh3_update_avx512);
    else
        printf("no AVX-512 on this CPU: avx512 variant not run\n");
#else
    printf("this build has no SIMD variants (not x86-64)\n");
#endif
    check_variant("baseline streamed", XXH3_64bits, baseline_update);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_empty),
        cmocka_unit_test(test_dispatched),
        cmocka_unit_test(test_variants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
