/*
 * test_ckpt_copy.c - the copy an asynchronous checkpoint is written from
 * (staging_mib): host and device (emulated) variables copied byte for byte
 * into 64-byte aligned places, independent of later changes to the source,
 * the buffer kept and grown, and a failed device copy reported as
 * FTI_E_DEVICE naming the variable and the backend.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "data/ckpt_copy.h"
#include "emu/emu.h"
#include "base/log.h"

enum { T_CHAR = 0, T_DBLE = 9 };

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31 + seed);
}

static void test_host_variables(void **state)
{
    (void)state;
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    unsigned char a[100], b[7];
    double c[33];
    fill(a, sizeof a, 1);
    fill(b, sizeof b, 2);
    fill((unsigned char *)c, sizeof c, 3);
    assert_int_equal(fti_registry_protect(&reg, 1, a, sizeof a, T_CHAR), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 2, b, sizeof b, T_CHAR), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 3, c, 33, T_DBLE), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 4, NULL, 0, T_DBLE), FTI_E_OK);
    assert_int_equal(fti_ckpt_copy_need(&reg), 128 + 64 + 320 + 0);

    fti_ckpt_copy cp = {0};
    assert_int_equal(fti_ckpt_copy_take(&cp, &reg, NULL, 4096), FTI_E_OK);
    memset(a, 0, sizeof a); /* the application moves on */
    fill(b, sizeof b, 9);
    assert_int_equal(cp.reg.nvars, 4);
    unsigned char want[264];
    fill(want, 100, 1);
    assert_memory_equal(cp.reg.vars[0].ptr, want, 100);
    fill(want, 7, 2);
    assert_memory_equal(cp.reg.vars[1].ptr, want, 7);
    fill(want, 264, 3);
    assert_memory_equal(cp.reg.vars[2].ptr, want, 264);
    for (int i = 0; i < 4; i++) {
        assert_int_equal((uintptr_t)cp.reg.vars[i].ptr % 64, 0);
        assert_int_equal(cp.reg.vars[i].id, reg.vars[i].id);
        assert_int_equal(cp.reg.vars[i].count, reg.vars[i].count);
        assert_null(cp.reg.vars[i].dev);
    }

    /* Kept: the next copy of the same size reuses the buffer. */
    unsigned char *buf = cp.buf;
    assert_int_equal(fti_ckpt_copy_take(&cp, &reg, NULL, 4096), FTI_E_OK);
    assert_ptr_equal(cp.buf, buf);
    assert_memory_equal(cp.reg.vars[0].ptr, a, sizeof a);
    fti_ckpt_copy_free(&cp);
    fti_ckpt_copy_free(&cp); /* empty: a second free is harmless */
    fti_ckpt_copy_free(NULL);
    fti_registry_free(&reg);
}

static void test_device_variable(void **state)
{
    (void)state;
    size_t n = 300000; /* several 64 KiB chunks and a tail */
    unsigned char *host = malloc(n), *dev = fti_emu_malloc(n);
    assert_non_null(host);
    assert_non_null(dev);
    fill(host, n, 5);
    assert_int_equal(fti_emu_write(dev, host, n), 0);
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect_device(&reg, 7, &fti_emu_ops, dev, NULL, (int64_t)n,
                                                 T_CHAR), FTI_E_OK);
    fti_capture_sets sets = {0};
    fti_ckpt_copy cp = {0};
    assert_int_equal(fti_ckpt_copy_take(&cp, &reg, &sets, 65536), FTI_E_OK);
    assert_null(cp.reg.vars[0].dev);
    assert_memory_equal(cp.reg.vars[0].ptr, host, n);

    fti_emu_fail_after(100000);
    fti_log_quiet(1);
    assert_int_equal(fti_ckpt_copy_take(&cp, &reg, &sets, 65536), FTI_E_DEVICE);
    fti_log_quiet(0);
    assert_non_null(strstr(fti_last_error(), "device variable 7"));
    assert_non_null(strstr(fti_last_error(), "emu"));
    assert_int_equal(cp.reg.nvars, 0); /* nothing to write from */
    fti_emu_fail_after((size_t)-1);

    fti_ckpt_copy_free(&cp);
    fti_capture_sets_free(&sets);
    fti_registry_free(&reg);
    fti_emu_free(dev);
    free(host);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_host_variables),
        cmocka_unit_test(test_device_variable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
