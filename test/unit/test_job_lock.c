/*
 * test_job_lock.c - one job per checkpoint set (src/format/job_lock.c): a second
 * taker (another process) is refused with FTI_E_STATE naming the holder's
 * host, pid and the lock file; after a release, or when the holder died
 * (the file remains, naming a dead process), the lock is taken again.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/job_lock.h"
#include "base/log.h"
#include "scratch.h"

static char dir[1024], lock_path[1200];

static int setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(dir, sizeof dir, "lock") != 0)
        return -1;
    snprintf(lock_path, sizeof lock_path, "%s/lock", dir);
    fti_log_quiet(1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fti_log_quiet(0);
    unlink(lock_path);
    return rmdir(dir);
}

/* In a child process (another job): 0 when the lock is taken, 1 when it is
 * refused with a message naming host, our pid and the file, 2 otherwise. */
static int other_job_takes(void)
{
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0) {
        fti_job_lock l;
        fti_err e = fti_job_lock_take(&l, dir);
        char pid[32], host[256] = "";
        snprintf(pid, sizeof pid, "pid %ld", (long)parent);
        gethostname(host, sizeof host - 1);
        const char *m = fti_last_error();
        if (e == FTI_E_OK)
            _exit(0); /* exits holding it: the kernel drops the flock */
        _exit(e == FTI_E_STATE && l.err == 0 /* in use: no errno */ && strstr(m, pid) && strstr(m, host) && strstr(m, lock_path) ? 1 : 2);
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void test_second_job_refused(void **state)
{
    (void)state;
    fti_job_lock l = {0};
    assert_int_equal(fti_job_lock_take(&l, dir), FTI_E_OK);
    assert_int_equal(l.held, 1);
    assert_int_equal(other_job_takes(), 1);
    assert_int_equal(other_job_takes(), 1); /* the refusal changed nothing */
    fti_job_lock_release(&l);
    assert_int_equal(access(lock_path, F_OK), -1); /* removed */
    assert_int_equal(other_job_takes(), 0);
}

static void test_file_names_holder(void **state)
{
    (void)state;
    fti_job_lock l = {0};
    char buf[400] = "", want[64];
    assert_int_equal(fti_job_lock_take(&l, dir), FTI_E_OK);
    FILE *f = fopen(lock_path, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, sizeof buf, f));
    fclose(f);
    snprintf(want, sizeof want, " pid=%ld\n", (long)getpid());
    assert_non_null(strstr(buf, "host="));
    assert_non_null(strstr(buf, want));
    fti_job_lock_release(&l);
}

/* A job that died holding the lock leaves the file behind, naming it. */
static void test_stale_lock_taken(void **state)
{
    (void)state;
    assert_int_equal(other_job_takes(), 0); /* the child exits without releasing */
    assert_int_equal(access(lock_path, F_OK), 0);
    fti_job_lock l = {0};
    assert_int_equal(fti_job_lock_take(&l, dir), FTI_E_OK);
    assert_int_equal(other_job_takes(), 1); /* and it is ours now */
    fti_job_lock_release(&l);
}

static void test_release_not_held(void **state)
{
    (void)state;
    fti_job_lock l = {0};
    FILE *f = fopen(lock_path, "w");
    assert_non_null(f);
    fclose(f);
    fti_job_lock_release(&l); /* never taken: the file is not ours to remove */
    assert_int_equal(access(lock_path, F_OK), 0);
}

static void test_unwritable_dir(void **state)
{
    (void)state;
    fti_job_lock l = {0};
    char missing[1300];
    snprintf(missing, sizeof missing, "%s/no/such/dir", dir);
    assert_int_equal(fti_job_lock_take(&l, missing), FTI_E_IO);
    assert_non_null(strstr(fti_last_error(), missing));
    assert_non_null(strstr(fti_last_error(), strerror(ENOENT)));
    assert_int_equal(l.held, 0);
    assert_int_equal(l.err, ENOENT); /* what the other ranks report (job_claim.c) */
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_second_job_refused),
        T(test_file_names_holder),
        T(test_stale_lock_taken),
        T(test_release_not_held),
        T(test_unwritable_dir),
    };
#undef T
    return cmocka_run_group_tests_name("job_lock", tests, NULL, NULL);
}
