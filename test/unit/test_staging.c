/*
 * test_staging.c - FTI_SendFile's requests (staging.c) belong to their
 * context: each context numbers its own from 0 and knows only its own
 * outcomes, and freeing one leaves the other's (issue 28: no state in file
 * statics).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "core/staging.h"
#include "fti.h"
#include "scratch.h"

static char dir[1024], src[1200], dst[1200], missing[1200];

static int setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(dir, sizeof dir, "staging") != 0)
        return -1;
    snprintf(src, sizeof src, "%s/src", dir);
    snprintf(dst, sizeof dst, "%s/dst", dir);
    snprintf(missing, sizeof missing, "%s/missing", dir);
    FILE *f = fopen(src, "w");
    if (f == NULL)
        return -1;
    fputs("staged bytes\n", f);
    return fclose(f);
}

static int teardown(void **state)
{
    (void)state;
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void staging_on(fti_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->cfg.enable_staging = 1;
}

static void test_requests_are_per_context(void **state)
{
    (void)state;
    fti_ctx *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    staging_on(a);
    staging_on(b);
    assert_int_equal(fti_staging_send(a, src, dst), 0);
    assert_int_equal(fti_staging_send(a, missing, dst), 1);
    assert_int_equal(fti_staging_status(a, 0), FTI_SI_SCES);
    assert_int_equal(fti_staging_status(a, 1), FTI_SI_FAIL);
    /* b has sent nothing: a's ids are unknown to it, and its first is 0 */
    assert_int_equal(fti_staging_status(b, 0), FTI_SI_NINI);
    assert_int_equal(fti_staging_send(b, missing, dst), 0);
    assert_int_equal(fti_staging_status(b, 0), FTI_SI_FAIL);
    assert_int_equal(fti_staging_status(a, 0), FTI_SI_SCES);
    /* freeing b (its FTI_Finalize) forgets b's requests only */
    fti_staging_free(b);
    assert_int_equal(fti_staging_status(b, 0), FTI_SI_NINI);
    assert_int_equal(fti_staging_status(a, 1), FTI_SI_FAIL);
    fti_staging_free(a);
    assert_int_equal(fti_staging_status(a, 0), FTI_SI_NINI);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_requests_are_per_context, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
