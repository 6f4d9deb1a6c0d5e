/* units.c: sizes and rates with three significant digits and a unit that
 * keeps the number at 1 or above. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/units.h"

static void test_bytes(void **state)
{
    (void)state;
    char b[FTI_UNITS_LEN];
    assert_string_equal(fti_format_bytes(b, 0), "0 B");
    assert_string_equal(fti_format_bytes(b, 512), "512 B");
    assert_string_equal(fti_format_bytes(b, 4096), "4.00 KiB");
    assert_string_equal(fti_format_bytes(b, 1536.0 * 1024), "1.50 MiB");
    assert_string_equal(fti_format_bytes(b, 300.0 * 1024 * 1024), "300 MiB");
    assert_string_equal(fti_format_bytes(b, 1023.9 * 1024), "1.00 MiB");
    assert_string_equal(fti_format_bytes(b, 12.34 * 1024 * 1024 * 1024), "12.3 GiB");
}

static void test_rates(void **state)
{
    (void)state;
    char b[FTI_UNITS_LEN];
    /* 0.3 MiB in 0.192 s: was "0.00 GB/s" */
    assert_string_equal(fti_format_rate(b, 0.3 * 1048576, 0.192), "1.64 MB/s");
    assert_string_equal(fti_format_rate(b, 2e6, 0.034), "58.8 MB/s");
    assert_string_equal(fti_format_rate(b, 5e9, 2.0), "2.50 GB/s");
    assert_string_equal(fti_format_rate(b, 850e3, 1.0), "850 kB/s");
    assert_string_equal(fti_format_rate(b, 12, 1.0), "12 B/s");
    assert_string_equal(fti_format_rate(b, 1e6, 0.0), "-");
    assert_string_equal(fti_format_rate(b, 3e15, 1.0), "3000 TB/s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_bytes), cmocka_unit_test(test_rates)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
