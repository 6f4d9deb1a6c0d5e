/*
 * l4_codec.h - the compressed form of an L4 global copy, and the byte movers
 * L4 shares between its POSIX and MPI-IO paths. A compressed copy describes
 * itself: header (magic, codec, original size, XXH3-64 of the original
 * bytes), a chunk table, then chunks compressed independently, so memory
 * stays bounded and decoding verifies every chunk. Format in docs/L4.md.
 */
#ifndef FTI_L4_CODEC_H
#define FTI_L4_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

#define FTI_L4Z_MAGIC "FTIL4Z\0\0"
#define FTI_L4Z_VERSION 1
#define FTI_L4Z_HEADER 64
#define FTI_L4Z_ENTRY 24
#define FTI_L4Z_CHUNK ((size_t)4 << 20)
#define FTI_L4Z_MAX_CHUNK ((size_t)256 << 20) /* decoder's bound: never trust a huge size */

/* Random-access byte source or sink. Both return 0, or -1 with errno set. */
typedef struct fti_l4_io {
    int (*read)(void *arg, void *buf, size_t n, uint64_t off);
    int (*write)(void *arg, const void *buf, size_t n, uint64_t off);
    void *arg;
} fti_l4_io;

/* A file descriptor as an fti_l4_io (fti_pread_full / fti_pwrite_full, so
 * fault injection applies). `fd` must outlive `io`. */
void fti_l4_io_fd(fti_l4_io *io, int *fd);

/* A range of the original bytes holding floating-point numbers of `stride`
 * bytes (4 or 8): chunks mostly made of them are byte-shuffled before zstd. */
typedef struct fti_l4_span {
    uint64_t offset, nbytes;
    uint32_t stride;
} fti_l4_span;

typedef struct fti_l4_encoding {
    int codec;      /* FTI_CODEC_ZLIB or FTI_CODEC_ZSTD */
    int level;
    size_t chunk;   /* 0: FTI_L4Z_CHUNK */
    const fti_l4_span *floats; /* may be NULL; used by zstd only */
    int nfloats;
} fti_l4_encoding;

/* Names used in messages: `who` (e.g. "L4 rank 3") and the two files. */
typedef struct fti_l4_names {
    const char *who, *src, *dst;
} fti_l4_names;

/* Compresses `size` bytes of src into dst (from offset 0). *out_size: bytes
 * written. Errors name the file and the cause. Not collective. */
fti_err fti_l4_encode(const fti_l4_io *src, uint64_t size, const fti_l4_io *dst,
                      const fti_l4_encoding *enc, const fti_l4_names *nm, uint64_t *out_size);

/* Decompresses the stream src (exactly `avail` bytes) into dst, verifying
 * the header, the chunk table, every chunk and the whole. *out_size: the
 * original size. FTI_E_CORRUPT names the source file and what is wrong. */
fti_err fti_l4_decode(const fti_l4_io *src, uint64_t avail, const fti_l4_io *dst,
                      const fti_l4_names *nm, uint64_t *out_size);

/* Copies `size` bytes from src to dst in pieces of `chunk` bytes. */
fti_err fti_l4_copy(const fti_l4_io *src, uint64_t size, const fti_l4_io *dst, size_t chunk,
                    const fti_l4_names *nm);

/* 1 when the stream starting with these bytes (>= 8) is a compressed copy. */
int fti_l4_is_compressed(const unsigned char *first8);

/* The byte-shuffle filter: plane j of the output holds byte j of every
 * `stride`-byte element; the n % stride tail bytes are copied unchanged. */
void fti_l4_shuffle(const unsigned char *in, unsigned char *out, size_t n, unsigned stride);
void fti_l4_unshuffle(const unsigned char *in, unsigned char *out, size_t n, unsigned stride);

#endif /* FTI_L4_CODEC_H */
