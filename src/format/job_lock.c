#include "format/job_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fio.h"
#include "base/log.h"
#include "base/safe_fs.h"

typedef struct holder {
    char host[256];
    long pid;
} holder;

static void this_job(holder *h)
{
    memset(h, 0, sizeof *h);
    if (gethostname(h->host, sizeof h->host - 1) != 0)
        snprintf(h->host, sizeof h->host, "unknown-host");
    h->pid = (long)getpid();
}

/* The holder named in the lock file; 0 when it names none. */
static int read_holder(int fd, holder *h)
{
    char buf[320] = "";
    memset(h, 0, sizeof *h);
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return sscanf(buf, "host=%255s pid=%ld", h->host, &h->pid) == 2;
}

static int write_holder(int fd)
{
    holder me;
    char buf[320];
    this_job(&me);
    int n = snprintf(buf, sizeof buf, "host=%s pid=%ld\n", me.host, me.pid);
    return ftruncate(fd, 0) == 0 && fti_pwrite_record(fd, buf, (size_t)n, 0) == 0 ? 0 : -1;
}

/* Without flock: is the holder named in the file (maybe) still running? */
static int holder_alive(const holder *h)
{
    holder me;
    this_job(&me);
    if (strcmp(h->host, me.host) != 0)
        return 1; /* another host: cannot tell, so assume it runs */
    return h->pid != me.pid && (kill((pid_t)h->pid, 0) == 0 || errno == EPERM);
}

/* by_content: no flock here, the file named a job that may be alive. */
static fti_err in_use(const fti_job_lock *l, int fd, int by_content)
{
    holder h;
    if (!read_holder(fd, &h))
        snprintf(h.host, sizeof h.host, "unknown"), h.pid = -1;
    return fti_fail(FTI_E_STATE, "checkpoint set in use by another job (host %s, pid %ld; lock file "
                    "%s): two jobs with the same exec_id and directories would overwrite each "
                    "other's checkpoints. Stop that job, or give this one another [restart] "
                    "exec_id%s", h.host, h.pid, l->path,
                    by_content ? " (this file system has no flock: if that job is gone, remove the "
                                 "lock file)" : "");
}

/* Opens the lock file and locks it. 1: locked (or no flock here and the
 * file names no live job); 0: locked by another job; 2: no flock here and
 * the file names a job that may be alive; -1: error. Retries when
 * the file was replaced between open and flock (a job releasing it). */
static int lock_file(fti_job_lock *l, int *fd_out)
{
    for (int tries = 0; tries < 5; tries++) {
        int fd = fti_open_rdwr(l->path); /* a regular file of this user, or new */
        if (fd < 0)
            return -1;
        holder h;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            int busy = errno == EWOULDBLOCK;
            if (busy || (read_holder(fd, &h) && holder_alive(&h))) {
                *fd_out = fd;
                return busy ? 0 : 2;
            }
            *fd_out = fd; /* no flock here (ENOLCK, ENOTSUP): the file names no live job */
            return 1;
        }
        struct stat a, b;
        if (fstat(fd, &a) == 0 && stat(l->path, &b) == 0 && a.st_ino == b.st_ino && a.st_dev == b.st_dev) {
            *fd_out = fd;
            return 1;
        }
        close(fd);
    }
    errno = EAGAIN;
    return -1;
}

fti_err fti_job_lock_take(fti_job_lock *l, const char *dir)
{
    memset(l, 0, sizeof *l);
    snprintf(l->path, sizeof l->path, "%s/lock", dir);
    int fd = -1;
    int got = lock_file(l, &fd);
    if (got < 0) {
        l->err = errno;
        return fti_fail(FTI_E_IO, "lock file %s: cannot open: %s", l->path, fti_fs_strerror(errno));
    }
    fti_err e = got == 1 ? FTI_E_OK : in_use(l, fd, got == 2);
    if (e == FTI_E_OK && write_holder(fd) != 0) {
        l->err = errno != 0 ? errno : EIO;
        e = fti_fail(FTI_E_IO, "lock file %s: cannot write: %s", l->path, fti_fs_strerror(l->err));
    }
    if (e != FTI_E_OK) {
        close(fd);
        return e;
    }
    l->fd = fd;
    l->held = 1;
    return FTI_E_OK;
}

void fti_job_lock_release(fti_job_lock *l)
{
    if (!l->held)
        return;
    unlink(l->path); /* before close: no other job can hold it yet */
    close(l->fd);
    l->held = 0;
}
