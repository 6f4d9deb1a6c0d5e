/*
 * fio.h - file I/O wrappers: whole reads and writes (retrying EINTR and
 * short transfers), private modes (dirs 0700, files 0600), atomic replace.
 * Every checkpoint byte goes through here, so faults can be injected here.
 * Built on safe_fs.h (its opens; fti_mkdirs and the modes are there), never
 * called by it.
 */
#ifndef FTI_FIO_H
#define FTI_FIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 0, or -1 with errno set (EIO for a read past the end of the file). */
int fti_pwrite_full(int fd, const void *buf, size_t n, off_t off);
int fti_pread_full(int fd, void *buf, size_t n, off_t off);

/* fti_pwrite_full for the job's own records (lock file, commit record):
 * FTI_FAULT=write:N counts checkpoint data writes only (docs/FAULTS.md). */
int fti_pwrite_record(int fd, const void *buf, size_t n, off_t off);

/* A buffer for pread to fill, page-aligned: malloc's large blocks start 16
 * bytes past a page, and the kernel filled such a buffer at a quarter of
 * the speed (AMD EPYC; 32-byte alignment is enough there). Freed with
 * free(); NULL when out of memory. */
void *fti_io_alloc(size_t n);
int fti_fsync(int fd);

/* fsync of a directory, so a rename in it is durable. */
int fti_fsync_dir(const char *dir);

/* "<path>.tmp.<pid>.<16 random hex digits>": a temporary name no other
 * user can plant a link at in advance (created with O_EXCL besides). */
int fti_temp_name(char *out, size_t n, const char *path);

/* Writes `n` bytes to `path` atomically: temp file (fti_temp_name, created
 * by fti_open_new), fsync, rename, fsync dir. For records (the commit
 * record): no write:N fault point counts it. */
int fti_write_atomic(const char *path, const void *data, size_t n);

/* Removes the temporary files fti_write_atomic(path, ...) leaves when its
 * writer is killed (regular files only); the caller makes sure no writer of
 * path is running (it holds the lock of path's folder). Returns how many. */
int fti_write_atomic_remove_stale(const char *path);

/* Makes the written file tmp durable under the name path, in directory dir:
 * fsync, rename, fsync of dir; *size gets its size. 0, or -1 (errno). */
int fti_publish_file(const char *tmp, const char *path, const char *dir, uint64_t *size);

/* Reads a whole small file into a malloc'd NUL-terminated buffer; the file
 * must be a regular file, not a link (fti_open_read). */
int fti_read_small(const char *path, char **out, size_t *n);

/* Copies a file with fsync into a new file (fti_open_new); 0 or -1 (errno). */
int fti_copy_file(const char *src, const char *dst);

/* 1 when fd's file lives in memory (tmpfs, ramfs): its pages can be sent
 * or read where they are, no copy needed. */
int fti_in_memory_fs(int fd);


#endif /* FTI_FIO_H */
