#include "base/safe_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *fti_fs_strerror(int err)
{
    switch (err) {
    case FTI_FS_ENOTREG:
        return "not a regular file (a FIFO, socket or device is never opened as a "
               "checkpoint, lock, commit record or log)";
    case FTI_FS_ESYMLINK:
        return "a symbolic link (never followed: remove it)";
    case FTI_FS_EFOREIGN:
        return "owned by another user (never written or reused: remove it)";
    case FTI_FS_ELINKED:
        return "has other hard links (never written through: remove it)";
    default:
        return strerror(err);
    }
}

/* The error for a name that is no regular file: "Is a directory" says it
 * best for a folder. */
static int not_regular(const struct stat *st)
{
    return S_ISDIR(st->st_mode) ? EISDIR : FTI_FS_ENOTREG;
}

/* Why an open of `path` failed, as the FTI_FS_* code when the name holds a
 * link (O_NOFOLLOW's ELOOP), a FIFO without a reader (ENXIO), a folder or
 * (own != 0) another user's file; else err itself. */
static int classify(const char *path, int err, int own)
{
    struct stat st;
    if (err == ENOENT || lstat(path, &st) != 0)
        return err;
    if (S_ISLNK(st.st_mode))
        return FTI_FS_ESYMLINK;
    if (!S_ISREG(st.st_mode))
        return not_regular(&st);
    if (own && st.st_uid != geteuid())
        return FTI_FS_EFOREIGN;
    return err;
}

static int fail_fd(int fd, int err)
{
    if (fd >= 0)
        close(fd);
    errno = err;
    return -1;
}

/* O_NONBLOCK kept a FIFO from blocking the open; a regular file's reads and
 * writes then run as any other. */
static int clear_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
}

/* A name the job creates anew: a regular file of this user there (a
 * crashed run's) is removed; anything else is refused. 0, or the error. */
static int remove_leftover(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : errno;
    if (S_ISLNK(st.st_mode))
        return FTI_FS_ESYMLINK;
    if (!S_ISREG(st.st_mode))
        return not_regular(&st);
    if (st.st_uid != geteuid())
        return FTI_FS_EFOREIGN;
    return unlink(path) == 0 || errno == ENOENT ? 0 : errno;
}

static int create_excl(const char *path, int flags)
{
    return open(path, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, FTI_FILE_MODE);
}

static int open_new(const char *path, int flags)
{
    int fd = create_excl(path, flags);
    if (fd >= 0 || errno != EEXIST)
        return fd;
    int err = remove_leftover(path);
    if (err != 0)
        return fail_fd(-1, err);
    return create_excl(path, flags); /* once: a second clash is not a leftover */
}

int fti_open_new(const char *path)
{
    return open_new(path, O_WRONLY);
}

int fti_open_new_rdwr(const char *path)
{
    return open_new(path, O_RDWR);
}

/* What makes an existing file unfit to be written in place: 0 when it is a
 * regular file of this user with one name. */
static int judge_own(const struct stat *st)
{
    if (!S_ISREG(st->st_mode))
        return not_regular(st);
    if (st->st_uid != geteuid())
        return FTI_FS_EFOREIGN;
    return st->st_nlink == 1 ? 0 : FTI_FS_ELINKED;
}

/* The file of this user at `path`, opened with `flags`, or created when
 * missing. replace_linked: a file of this user with other hard links is
 * replaced by a new one (a slot's bytes never reach another name), else
 * refused. */
static int open_own(const char *path, int flags, int replace_linked)
{
    for (int tries = 0; tries < 3; tries++) {
        int fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) {
            fd = create_excl(path, flags);
            if (fd >= 0)
                return fd;
            if (errno == EEXIST)
                continue; /* made meanwhile (another job's lock): judge that one */
        }
        if (fd < 0)
            return fail_fd(-1, classify(path, errno, 1));
        struct stat st;
        int err = fstat(fd, &st) != 0 ? errno : judge_own(&st);
        if (err == FTI_FS_ELINKED && replace_linked) {
            close(fd);
            return fti_open_new(path);
        }
        /* a mode planted on the name (0666) must not survive on our file */
        if (err == 0 && (st.st_mode & 07777) != FTI_FILE_MODE && fchmod(fd, FTI_FILE_MODE) != 0)
            err = errno;
        if (err == 0 && clear_nonblock(fd) != 0)
            err = errno;
        if (err != 0)
            return fail_fd(fd, err);
        return fd;
    }
    return fail_fd(-1, EAGAIN);
}

int fti_open_existing_for_write(const char *path)
{
    return open_own(path, O_WRONLY, 1);
}

int fti_open_rdwr(const char *path)
{
    return open_own(path, O_RDWR, 0);
}

int fti_open_append(const char *path)
{
    return open_own(path, O_WRONLY | O_APPEND, 0);
}

int fti_open_read(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return fail_fd(-1, classify(path, errno, 0));
    struct stat st;
    int err = fstat(fd, &st) != 0 ? errno : S_ISREG(st.st_mode) ? 0 : not_regular(&st);
    if (err == 0 && clear_nonblock(fd) != 0)
        err = errno;
    return err != 0 ? fail_fd(fd, err) : fd;
}

int fti_check_regular(const char *path)
{
    int fd = fti_open_read(path);
    return fd < 0 ? -1 : close(fd);
}

int fti_check_own_file(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    int err = S_ISLNK(st.st_mode) ? FTI_FS_ESYMLINK : judge_own(&st);
    return err != 0 ? fail_fd(-1, err) : 0;
}

FILE *fti_fopen_read(const char *path)
{
    int fd = fti_open_read(path);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (f == NULL && fd >= 0)
        fail_fd(fd, errno);
    return f;
}

/* ---- folders ---------------------------------------------------------------- */

enum id_kind { ID_USER, ID_GROUP };

/* A folder's owner or group as `id` names it: "alice (uid 1000)", or
 * "uid 1000" when the number has no name here. */
static void id_name(enum id_kind kind, unsigned id, char *out, size_t n)
{
    char buf[1024];
    const char *name = NULL;
    if (kind == ID_USER) {
        struct passwd pw, *res = NULL;
        if (getpwuid_r((uid_t)id, &pw, buf, sizeof buf, &res) == 0 && res != NULL)
            name = res->pw_name;
    } else {
        struct group gr, *res = NULL;
        if (getgrgid_r((gid_t)id, &gr, buf, sizeof buf, &res) == 0 && res != NULL)
            name = res->gr_name;
    }
    const char *what = kind == ID_USER ? "uid" : "gid";
    if (name != NULL)
        snprintf(out, n, "%s (%s %u)", name, what, id);
    else
        snprintf(out, n, "%s %u", what, id);
}

static int in_my_groups(gid_t gid)
{
    if (gid == getegid())
        return 1;
    gid_t groups[NGROUPS_MAX];
    int n = getgroups(NGROUPS_MAX, groups);
    for (int i = 0; i < n; i++)
        if (groups[i] == gid)
            return 1;
    return 0;
}

/* Fills `why` and sets errno: -1 for the caller to return. */
__attribute__((format(printf, 4, 5))) static int dir_fail(int err, char *why, size_t n, const char *fmt, ...)
{
    if (why != NULL && n > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, n, fmt, ap);
        va_end(ap);
    }
    errno = err;
    return -1;
}

#define RELAX_KEY "[advanced] group_shared_dirs = 1"

/* An existing folder that is ours by type; owner and mode judged here,
 * another user's first (its mode is not ours to change). */
static int judge_dir_owner(const char *dir, const struct stat *st, int group_shared, char *why,
                           size_t n)
{
    char owner[160], group[160];
    unsigned mode = (unsigned)(st->st_mode & 07777);
    id_name(ID_USER, (unsigned)st->st_uid, owner, sizeof owner);
    id_name(ID_GROUP, (unsigned)st->st_gid, group, sizeof group);
    if (st->st_uid != geteuid() && !group_shared)
        return dir_fail(FTI_FS_EFOREIGN, why, n, "folder %s is owned by %s (group %s, mode %04o), "
                        "not by this user: a job uses only folders it owns; remove it, or set "
                        RELAX_KEY " to share folders within a group", dir, owner, group, mode);
    if (st->st_mode & S_IWOTH)
        return dir_fail(EPERM, why, n, "folder %s (owner %s, group %s, mode %04o) can be written "
                        "by every user, who could plant links or files in it: chmod o-w it or "
                        "remove it (never accepted, not even with " RELAX_KEY ")",
                        dir, owner, group, mode);
    if (st->st_uid != geteuid() && !in_my_groups(st->st_gid))
        return dir_fail(FTI_FS_EFOREIGN, why, n, "folder %s is owned by %s and group %s (mode "
                        "%04o): neither this user nor one of its groups (" RELAX_KEY " accepts "
                        "only those)", dir, owner, group, mode);
    if ((st->st_mode & S_IWGRP) && !group_shared)
        return dir_fail(EPERM, why, n, "folder %s (owner %s, group %s, mode %04o) can be written "
                        "by its group: chmod g-w it, or set " RELAX_KEY " to share it with the "
                        "group", dir, owner, group, mode);
    return 0;
}

int fti_job_dir_check(const char *dir, int group_shared, char *why, size_t n)
{
    struct stat st;
    if (lstat(dir, &st) != 0) {
        int err = errno;
        return dir_fail(err, why, n, "folder %s: %s", dir, strerror(err));
    }
    if (S_ISLNK(st.st_mode)) {
        char to[PATH_MAX];
        ssize_t len = readlink(dir, to, sizeof to - 1);
        to[len > 0 ? len : 0] = '\0';
        return dir_fail(FTI_FS_ESYMLINK, why, n, "folder %s is a symbolic link (to %s): the "
                        "job's own folders are never links; remove it", dir, to);
    }
    if (!S_ISDIR(st.st_mode))
        return dir_fail(ENOTDIR, why, n, "%s is not a folder", dir);
    return judge_dir_owner(dir, &st, group_shared, why, n);
}

int fti_mkdirs(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; ; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, FTI_DIR_MODE) != 0 && errno != EEXIST)
                return -1;
            *p = c;
            if (c == '\0')
                break;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Length of root without trailing slashes ("/" stays "/"). */
static size_t trimmed_len(const char *root)
{
    size_t len = strlen(root);
    while (len > 1 && root[len - 1] == '/')
        len--;
    return len;
}

int fti_job_mkdirs(const char *root, const char *dir, int group_shared, char *why, size_t n)
{
    size_t rl = trimmed_len(root);
    if (strncmp(dir, root, rl) != 0 || (dir[rl] != '/' && dir[rl] != '\0'))
        return dir_fail(EINVAL, why, n, "folder %s is not below %s", dir, root);
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
        return dir_fail(ENAMETOOLONG, why, n, "folder %s: %s", dir, strerror(ENAMETOOLONG));
    buf[rl] = '\0';
    if (fti_mkdirs(buf) != 0) { /* the user's folder: made if missing, not judged */
        int err = errno;
        return dir_fail(err, why, n, "cannot create directory %s: %s", dir, strerror(err));
    }
    buf[rl] = dir[rl];
    for (char *p = buf + rl; *p != '\0';) {
        while (*p == '/')
            p++;
        if (*p == '\0')
            break;
        while (*p != '/' && *p != '\0')
            p++;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, FTI_DIR_MODE) != 0 && errno != EEXIST) {
            int err = errno;
            return dir_fail(err, why, n, "cannot create directory %s: %s", buf, strerror(err));
        }
        if (fti_job_dir_check(buf, group_shared, why, n) != 0)
            return -1;
        *p = c;
    }
    return 0;
}
