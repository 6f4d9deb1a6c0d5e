/*
 * test_safe_fs.c - the job's opens and folders (src/base/safe_fs.c): a symbolic
 * link where a file is written or read is refused and its target unchanged;
 * a FIFO is refused at once (never waited on); a file reused in place keeps
 * its bytes but not a planted mode; a hard-linked slot is replaced, not
 * written through; folders are made 0700 and an existing one is refused
 * when it is a link, writable by others, or (as root) another user's.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
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

#include "base/fio.h"
#include "base/safe_fs.h"
#include "scratch.h"

static char dir[1024];
static char path[1200], victim[1200];

static int setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(dir, sizeof dir, "safe") != 0)
        return -1;
    snprintf(path, sizeof path, "%s/file", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    alarm(20); /* a FIFO that blocks an open fails the test, not the suite */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    alarm(0);
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *p, const char *text, mode_t mode)
{
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    fchmod(fd, mode);
    close(fd);
}

static void assert_content(const char *p, const char *text)
{
    char buf[256] = "";
    int fd = open(p, O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    assert_true(n >= 0);
    buf[n] = '\0';
    assert_string_equal(buf, text);
}

static mode_t mode_of(const char *p)
{
    struct stat st;
    assert_int_equal(lstat(p, &st), 0);
    return st.st_mode & 07777;
}

static void plant_link(void)
{
    put(victim, "victim bytes", 0600);
    assert_int_equal(symlink(victim, path), 0);
}

static void test_new_refuses_link(void **state)
{
    (void)state;
    plant_link();
    errno = 0;
    assert_int_equal(fti_open_new(path), -1);
    assert_int_equal(errno, FTI_FS_ESYMLINK);
    assert_non_null(strstr(fti_fs_strerror(errno), "symbolic link"));
    assert_content(victim, "victim bytes");
}

static void test_new_replaces_own_leftover(void **state)
{
    (void)state;
    put(path, "crashed run", 0644);
    int fd = fti_open_new(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "new", 3), 3);
    close(fd);
    assert_content(path, "new");
    assert_int_equal(mode_of(path), 0600);
}

static void test_new_refuses_fifo(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(fti_open_new(path), -1);
    assert_int_equal(errno, FTI_FS_ENOTREG);
}

static void test_overwrite_refuses_link(void **state)
{
    (void)state;
    plant_link();
    assert_int_equal(fti_open_existing_for_write(path), -1);
    assert_int_equal(errno, FTI_FS_ESYMLINK);
    assert_content(victim, "victim bytes");
    assert_int_equal(fti_open_rdwr(path), -1);
    assert_int_equal(errno, FTI_FS_ESYMLINK);
    assert_int_equal(fti_open_append(path), -1);
    assert_int_equal(errno, FTI_FS_ESYMLINK);
    assert_content(victim, "victim bytes");
}

static void test_overwrite_refuses_fifo(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(fti_open_existing_for_write(path), -1);
    assert_int_equal(errno, FTI_FS_ENOTREG);
    assert_int_equal(fti_open_rdwr(path), -1); /* O_RDWR opens a FIFO: fstat refuses it */
    assert_int_equal(errno, FTI_FS_ENOTREG);
}

/* In place: the old bytes stay (no truncation), the planted mode does not. */
static void test_overwrite_in_place_resets_mode(void **state)
{
    (void)state;
    put(path, "0123456789", 0666);
    int fd = fti_open_existing_for_write(path);
    assert_true(fd >= 0);
    assert_int_equal(pwrite(fd, "ab", 2, 0), 2);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    close(fd);
    assert_content(path, "ab23456789");
    assert_int_equal(mode_of(path), 0600);
}

static void test_overwrite_creates_missing(void **state)
{
    (void)state;
    int fd = fti_open_existing_for_write(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(mode_of(path), 0600);
}

/* A slot with a second name is replaced: the other name keeps its bytes. */
static void test_overwrite_replaces_hard_link(void **state)
{
    (void)state;
    put(victim, "victim bytes", 0600);
    assert_int_equal(link(victim, path), 0);
    int fd = fti_open_existing_for_write(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "slot", 4), 4);
    close(fd);
    assert_content(victim, "victim bytes");
    assert_content(path, "slot");
    unlink(path);
    assert_int_equal(link(victim, path), 0);
    assert_int_equal(fti_open_rdwr(path), -1); /* the lock never has two names */
    assert_int_equal(errno, FTI_FS_ELINKED);
}

static void test_read_refuses_fifo_and_link(void **state)
{
    (void)state;
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(fti_open_read(path), -1);
    assert_int_equal(errno, FTI_FS_ENOTREG);
    assert_non_null(strstr(fti_fs_strerror(errno), "not a regular file"));
    assert_null(fti_fopen_read(path));
    assert_int_equal(errno, FTI_FS_ENOTREG);
    unlink(path);
    plant_link();
    assert_int_equal(fti_open_read(path), -1);
    assert_int_equal(errno, FTI_FS_ESYMLINK);
    assert_int_equal(fti_open_read(dir), -1);
    assert_int_equal(errno, EISDIR);
    assert_int_equal(fti_open_existing_for_write(dir), -1);
    assert_int_equal(errno, EISDIR);
}

static void test_read_regular(void **state)
{
    (void)state;
    put(path, "text", 0644);
    int fd = fti_open_read(path);
    assert_true(fd >= 0);
    assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
    close(fd);
    assert_int_equal(fti_open_read(victim), -1);
    assert_int_equal(errno, ENOENT);
}

static void test_mkdirs_creates_private(void **state)
{
    (void)state;
    char d[1300], why[512] = "";
    snprintf(d, sizeof d, "%s/root/node3/exec", dir);
    assert_int_equal(fti_job_mkdirs(path, d, 0, why, sizeof why), -1); /* not below root */
    assert_int_equal(errno, EINVAL);
    char root[1300];
    snprintf(root, sizeof root, "%s/root/", dir);
    assert_int_equal(fti_job_mkdirs(root, d, 0, why, sizeof why), 0);
    assert_int_equal(mode_of(d), 0700);
    snprintf(d, sizeof d, "%s/root/node3", dir);
    assert_int_equal(mode_of(d), 0700);
    assert_int_equal(fti_job_mkdirs(root, d, 0, why, sizeof why), 0); /* again: ours */
}

static void test_mkdirs_refuses_link(void **state)
{
    (void)state;
    char root[1300], d[1400], why[512] = "", elsewhere[1300];
    snprintf(root, sizeof root, "%s/root", dir);
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", dir);
    snprintf(d, sizeof d, "%s/exec", root);
    mkdir(root, 0755);
    mkdir(elsewhere, 0700);
    assert_int_equal(symlink(elsewhere, d), 0);
    assert_int_equal(fti_job_mkdirs(root, d, 1, why, sizeof why), -1);
    assert_int_equal(errno, FTI_FS_ESYMLINK);
    assert_non_null(strstr(why, d));
    assert_non_null(strstr(why, "is a symbolic link"));
}

static void test_mkdirs_refuses_writable(void **state)
{
    (void)state;
    char d[1300], why[512] = "";
    snprintf(d, sizeof d, "%s/exec", dir);
    mkdir(d, 0700);
    chmod(d, 0777);
    assert_int_equal(fti_job_mkdirs(dir, d, 1, why, sizeof why), -1);
    assert_non_null(strstr(why, d));
    assert_non_null(strstr(why, "mode 0777"));
    assert_non_null(strstr(why, "can be written by every user"));
    /* The owner and group by name and number, as `id` shows them (the
     * number alone for an id without a name here). */
    char owner[300], group[300], who[640];
    struct passwd *pw = getpwuid(geteuid());
    struct group *gr = getgrgid(getegid());
    if (pw != NULL)
        snprintf(owner, sizeof owner, "%s (uid %u)", pw->pw_name, (unsigned)geteuid());
    else
        snprintf(owner, sizeof owner, "uid %u", (unsigned)geteuid());
    if (gr != NULL)
        snprintf(group, sizeof group, "%s (gid %u)", gr->gr_name, (unsigned)getegid());
    else
        snprintf(group, sizeof group, "gid %u", (unsigned)getegid());
    snprintf(who, sizeof who, "(owner %s, group %s, mode 0777)", owner, group);
    if (strstr(why, who) == NULL)
        fail_msg("'%s' does not name '%s'", why, who);
    chmod(d, 0770);
    assert_int_equal(fti_job_mkdirs(dir, d, 0, why, sizeof why), -1);
    assert_non_null(strstr(why, "can be written by its group"));
    assert_non_null(strstr(why, "group_shared_dirs"));
    assert_int_equal(fti_job_mkdirs(dir, d, 1, why, sizeof why), 0);
    chmod(d, 0755);
    assert_int_equal(fti_job_mkdirs(dir, d, 0, why, sizeof why), 0);
}

/* Temporary names (the commit record's): "<path>.tmp.<pid>.<16 hex>", never
 * the same twice, so nobody can plant a link at the next one. */
static void test_temp_name_unguessable(void **state)
{
    (void)state;
    char a[1300], b[1300], prefix[1300];
    assert_int_equal(fti_temp_name(a, sizeof a, path), 0);
    assert_int_equal(fti_temp_name(b, sizeof b, path), 0);
    snprintf(prefix, sizeof prefix, "%s.tmp.%d.", path, (int)getpid());
    assert_int_equal(strncmp(a, prefix, strlen(prefix)), 0);
    assert_int_equal(strlen(a), strlen(prefix) + 16);
    assert_string_not_equal(a, b);
    char tiny[8];
    assert_int_equal(fti_temp_name(tiny, sizeof tiny, path), -1);
    assert_int_equal(errno, ENAMETOOLONG);
}

/* What HDF5 and MPI-IO are given by name is checked first. */
static void test_check_by_name(void **state)
{
    (void)state;
    put(path, "ours", 0600);
    assert_int_equal(fti_check_regular(path), 0);
    assert_int_equal(fti_check_own_file(path), 0);
    assert_int_equal(link(path, victim), 0);
    assert_int_equal(fti_check_own_file(path), -1);
    assert_int_equal(errno, FTI_FS_ELINKED);
    unlink(victim);
    unlink(path);
    plant_link();
    assert_int_equal(fti_check_regular(path), -1);
    assert_int_equal(errno, FTI_FS_ESYMLINK);
    assert_int_equal(fti_check_own_file(path), -1);
    assert_int_equal(errno, FTI_FS_ESYMLINK);
    unlink(path);
    assert_int_equal(mkfifo(path, 0600), 0);
    assert_int_equal(fti_check_regular(path), -1);
    assert_int_equal(errno, FTI_FS_ENOTREG);
}

/* Needs root to give a folder and a file to another user (nobody). */
static void test_foreign_owner(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    char d[1300], why[512] = "";
    snprintf(d, sizeof d, "%s/exec", dir);
    mkdir(d, 0700);
    assert_int_equal(chown(d, 65534, 65534), 0);
    assert_int_equal(fti_job_mkdirs(dir, d, 0, why, sizeof why), -1);
    assert_int_equal(errno, FTI_FS_EFOREIGN);
    assert_non_null(strstr(why, d));
    assert_non_null(strstr(why, "uid 65534"));
    assert_int_equal(fti_job_mkdirs(dir, d, 1, why, sizeof why), -1); /* not our group */
    assert_non_null(strstr(why, "neither this user nor one of its groups"));
    assert_int_equal(chown(d, 65534, getegid()), 0);
    assert_int_equal(fti_job_mkdirs(dir, d, 1, why, sizeof why), 0); /* our group: shared */
    put(path, "planted", 0666);
    assert_int_equal(chown(path, 65534, 65534), 0);
    assert_int_equal(fti_open_existing_for_write(path), -1);
    assert_int_equal(errno, FTI_FS_EFOREIGN);
    assert_int_equal(fti_open_new(path), -1);
    assert_int_equal(errno, FTI_FS_EFOREIGN);
    assert_content(path, "planted");
    assert_int_equal(mode_of(path), 0666);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_new_refuses_link),
        T(test_new_replaces_own_leftover),
        T(test_new_refuses_fifo),
        T(test_overwrite_refuses_link),
        T(test_overwrite_refuses_fifo),
        T(test_overwrite_in_place_resets_mode),
        T(test_overwrite_creates_missing),
        T(test_overwrite_replaces_hard_link),
        T(test_read_refuses_fifo_and_link),
        T(test_read_regular),
        T(test_mkdirs_creates_private),
        T(test_mkdirs_refuses_link),
        T(test_mkdirs_refuses_writable),
        T(test_temp_name_unguessable),
        T(test_check_by_name),
        T(test_foreign_owner),
    };
#undef T
    return cmocka_run_group_tests_name("safe_fs", tests, NULL, NULL);
}
