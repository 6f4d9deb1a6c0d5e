/*
 * hashed_io.h - file I/O that hashes what it moves, a piece at a time, so
 * each piece is hashed while it is in cache: one pass over memory where a
 * hash of the whole buffer and then one write (or read) of it would make
 * two. The L1 writer (ckpt_file.c) and the device capture pipeline
 * (data/capture.c) move their bytes through here.
 */
#ifndef FTI_HASHED_IO_H
#define FTI_HASHED_IO_H

#include <stddef.h>
#include <sys/types.h>

#include "base/integrity.h"

/* Bytes hashed and moved at a time: well inside a core's L2 cache. */
#define FTI_HASH_PIECE ((size_t)1 << 20)

/* Hashes n bytes of buf into h (NULL: no hash) and writes them at off,
 * piece by piece. 0, or -1 with errno set (fti_pwrite_full). */
int fti_pwrite_hashed(int fd, const void *buf, size_t n, off_t off, fti_hash *h);

/* Reads n bytes at off into buf and hashes them into h (NULL: no hash),
 * piece by piece. 0, or -1 with errno set (fti_pread_full). */
int fti_pread_hashed(int fd, void *buf, size_t n, off_t off, fti_hash *h);

#endif /* FTI_HASHED_IO_H */
