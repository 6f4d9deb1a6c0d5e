/*
 * safe_fs.h - the one place that opens the job's files and judges its
 * folders, so that a link, FIFO, device or file planted by another user
 * where a checkpoint, lock, commit record or log belongs is refused, never
 * followed, written through or waited on. MPI-free (used by fti-ckpt).
 *
 * Rules (docs/FORMAT.md, "Files and folders"):
 *  - a file the job creates is new: O_CREAT|O_EXCL|O_NOFOLLOW, mode 0600;
 *  - a file the job reuses (a slot overwritten in place, the lock, a log)
 *    must be a regular file owned by this user with one link; its mode is
 *    set back to 0600;
 *  - a file the job reads must be a regular file, checked before the first
 *    read (opened O_NONBLOCK, so a FIFO never blocks the open);
 *  - a folder the job makes for itself (exec_id, node<K>, l4_archive, ...)
 *    is created 0700; one that exists already must be a real directory,
 *    owned by this user and not writable by others ([advanced]
 *    group_shared_dirs = 1 also accepts one of the user's groups').
 */
#ifndef FTI_SAFE_FS_H
#define FTI_SAFE_FS_H

#include <stddef.h>
#include <stdio.h>

#define FTI_DIR_MODE 0700  /* every folder the library creates */
#define FTI_FILE_MODE 0600 /* every file it creates */

/* errno values of these functions beyond the system's, named by
 * fti_fs_strerror (which names the system's too). */
enum {
    FTI_FS_ENOTREG = 0x4600, /* a FIFO, socket or device (a folder: EISDIR) */
    FTI_FS_ESYMLINK,         /* a symbolic link: never followed */
    FTI_FS_EFOREIGN,         /* owned by another user */
    FTI_FS_ELINKED,          /* has more than one name (hard links) */
};

/* strerror(err), with the texts of the FTI_FS_* codes above. */
const char *fti_fs_strerror(int err);

/* A new file, write-only, mode 0600. A regular file of this user already at
 * `path` (left by a crashed run) is removed first; anything else there (a
 * link, a FIFO, another user's file) is refused. fd, or -1 (errno). */
int fti_open_new(const char *path);
int fti_open_new_rdwr(const char *path); /* the same, read-write */

/* The file at `path` for writing in place (no O_TRUNC): an existing one must
 * be a regular file of this user with one link (mode reset to 0600); a
 * missing one is created as fti_open_new does. fd, or -1 (errno). */
int fti_open_existing_for_write(const char *path);

/* As fti_open_existing_for_write, read-write (the lock file). */
int fti_open_rdwr(const char *path);

/* As fti_open_existing_for_write, appending (the metrics and status logs). */
int fti_open_append(const char *path);

/* `path` for reading, refused unless a regular file (a symlink is not
 * followed, a FIFO not waited on). fd, or -1 (errno). */
int fti_open_read(const char *path);

/* For files that HDF5 or MPI-IO open by name: 0 when `path` is a regular
 * file (a link is not followed, a FIFO not waited on), -1 (errno) if not. */
int fti_check_regular(const char *path);

/* 0 when `path` is a regular file of this user with one link (not a link
 * itself), -1 (errno) if not: a file created through fti_open_new, checked
 * again after a library re-created it by name (H5Fcreate). */
int fti_check_own_file(const char *path);

/* fti_open_read as a stdio stream ("r"). NULL (errno) when refused. */
FILE *fti_fopen_read(const char *path);

/* mkdir -p with FTI_DIR_MODE, not judging the folders (the user's own
 * root; fti_job_mkdirs judges the job's). 0 or -1 (errno). */
int fti_mkdirs(const char *path);

/* Creates the folder `dir` for the job: the part of it up to `root` (a
 * folder the user configured, e.g. /tmp or a scratch area) with mkdir -p
 * and not judged; each folder below `root` (`dir` must start with `root/`,
 * or equal it) created 0700, or, when it exists already, used only if a
 * real directory owned by this user and not writable by group or others.
 * group_shared != 0 ([advanced] group_shared_dirs) also accepts a folder
 * that is writable by its group, or owned by another user of one of this
 * user's groups, when not writable by every user. 0, or -1 with errno set
 * and `why` (n bytes) saying which folder, its owner and mode, and what to
 * do. */
int fti_job_mkdirs(const char *root, const char *dir, int group_shared, char *why, size_t n);

/* The judgement of fti_job_mkdirs on one existing folder. 0, or -1 (errno,
 * `why`). */
int fti_job_dir_check(const char *dir, int group_shared, char *why, size_t n);

#endif /* FTI_SAFE_FS_H */
