#include "base/fio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "base/fault.h"
#include "base/safe_fs.h"

/* One pread/pwrite result as the loops below need it: the bytes moved
 * (> 0), 0 to call again (EINTR), or -1 with errno set; a call that moved
 * nothing cannot progress, and `stuck` (ENOSPC, EIO) says why. */
static ssize_t progress(ssize_t moved, int stuck)
{
    if (moved < 0)
        return errno == EINTR ? 0 : -1;
    if (moved == 0) {
        errno = stuck;
        return -1;
    }
    return moved;
}

/* counted: a checkpoint data write, where FTI_FAULT=write:N counts and fails. */
static int pwrite_all(int fd, const void *buf, size_t n, off_t off, int counted)
{
    const char *p = buf;
    for (size_t done = 0; done < n;) {
        off_t at = off + (off_t)done;
        if (counted && fti_fault_on_write(fd, n - done, at) != 0)
            return -1;
        ssize_t w = progress(pwrite(fd, p + done, n - done, at), ENOSPC);
        if (w < 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

int fti_pwrite_full(int fd, const void *buf, size_t n, off_t off)
{
    return pwrite_all(fd, buf, n, off, 1);
}

int fti_pwrite_record(int fd, const void *buf, size_t n, off_t off)
{
    return pwrite_all(fd, buf, n, off, 0);
}

void *fti_io_alloc(size_t n)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, n > 0 ? n : 1) == 0 ? p : NULL;
}

int fti_pread_full(int fd, void *buf, size_t n, off_t off)
{
    char *p = buf;
    for (size_t done = 0; done < n;) {
        ssize_t r = progress(pread(fd, p + done, n - done, off + (off_t)done), EIO);
        if (r < 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

int fti_fsync(int fd)
{
    while (fsync(fd) != 0) {
        if (errno != EINTR && errno != EINVAL && errno != EROFS)
            return -1;
        if (errno != EINTR)
            break; /* special files cannot sync: nothing to lose */
    }
    return 0;
}

int fti_fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fti_fsync(fd);
    close(fd);
    return rc;
}

int fti_publish_file(const char *tmp, const char *path, const char *dir, uint64_t *size)
{
    struct stat st;
    int fd = fti_open_read(tmp);
    if (fd < 0)
        return -1;
    int ok = fti_fsync(fd) == 0 && fstat(fd, &st) == 0;
    int saved = errno;
    close(fd);
    errno = saved;
    if (!ok || rename(tmp, path) != 0 || fti_fsync_dir(dir) != 0)
        return -1;
    *size = (uint64_t)st.st_size;
    return 0;
}

/* fti_write_atomic's temporary name: path + TMP_INFIX + the writer's pid
 * and random digits (fti_write_atomic_remove_stale matches the prefix). */
#define TMP_INFIX ".tmp."

int fti_temp_name(char *out, size_t n, const char *path)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) /* still O_EXCL */
        r = (uint64_t)clock() ^ (uint64_t)(uintptr_t)&r;
    if (snprintf(out, n, "%s" TMP_INFIX "%d.%016llx", path, (int)getpid(),
                 (unsigned long long)r) >= (int)n) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int fti_write_atomic(const char *path, const void *data, size_t n)
{
    char tmp[PATH_MAX], dir[PATH_MAX];
    if (fti_temp_name(tmp, sizeof tmp, path) != 0)
        return -1;
    int fd = fti_open_new(tmp);
    if (fd < 0)
        return -1;
    int rc = fti_pwrite_record(fd, data, n, 0);
    if (rc == 0)
        rc = fti_fsync(fd);
    int saved = errno;
    close(fd);
    if (rc == 0)
        rc = rename(tmp, path);
    saved = rc ? errno : saved;
    if (rc != 0) {
        unlink(tmp);
        errno = saved;
        return -1;
    }
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
        fti_fsync_dir(slash == dir ? "/" : dir);
    }
    return 0;
}

int fti_read_small(const char *path, char **out, size_t *n)
{
    int fd = fti_open_read(path);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_size > (64 << 20)) {
        if (errno == 0)
            errno = EFBIG;
        close(fd);
        return -1;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    int rc = fti_pread_full(fd, buf, (size_t)st.st_size, 0);
    int saved = errno;
    close(fd);
    if (rc != 0) {
        free(buf);
        errno = saved;
        return -1;
    }
    buf[st.st_size] = '\0';
    *out = buf;
    *n = (size_t)st.st_size;
    return 0;
}

int fti_copy_file(const char *src, const char *dst)
{
    enum { CHUNK = 4 << 20 };
    int in = fti_open_read(src);
    if (in < 0)
        return -1;
    int outfd = fti_open_new(dst);
    char *buf = fti_io_alloc(CHUNK);
    int rc = (outfd < 0 || buf == NULL) ? -1 : 0;
    off_t off = 0;
    while (rc == 0) {
        ssize_t r = pread(in, buf, CHUNK, off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rc = r < 0 ? -1 : 0;
            break;
        }
        rc = fti_pwrite_full(outfd, buf, (size_t)r, off);
        off += r;
    }
    if (rc == 0)
        rc = fti_fsync(outfd);
    int saved = errno;
    free(buf);
    if (outfd >= 0)
        close(outfd);
    close(in);
    errno = saved;
    return rc;
}

int fti_in_memory_fs(int fd)
{
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC);
}

int fti_write_atomic_remove_stale(const char *path)
{
    char dir[PATH_MAX], prefix[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash != NULL ? slash + 1 : path;
    snprintf(prefix, sizeof prefix, "%s" TMP_INFIX, base);
    if (slash != NULL)
        *slash = '\0';
    DIR *d = opendir(slash == NULL ? "." : slash == dir ? "/" : dir);
    if (d == NULL)
        return 0;
    int removed = 0;
    struct dirent *de;
    struct stat st;
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, prefix, strlen(prefix)) != 0 ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        removed += unlinkat(dirfd(d), de->d_name, 0) == 0;
    }
    closedir(d);
    return removed;
}
