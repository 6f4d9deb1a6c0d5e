/*
 * rs_codec.h - the Reed-Solomon erasure codec behind level 3: k data chunks,
 * m parity chunks over GF(2^8) (polynomial 0x11d), using jerasure's
 * Vandermonde-derived coding matrix. Pure computation: no MPI, no files.
 *
 * Two engines compute the same code: jerasure (always built) and Intel ISA-L
 * (built with FTI_HAVE_ISAL). Both use the very same coefficient matrix, so
 * parity written by one is decoded by the other and the bytes are identical.
 *
 * Thread safety: an fti_rs is read-only after creation, so several threads
 * may encode or decode with the same codec at once (as long as their output
 * buffers differ); create and destroy may run concurrently too. One caveat:
 * jerasure bumps unsynchronized global byte counters (statistics only) in
 * every call, which ThreadSanitizer reports for the jerasure engine.
 *
 * Nothing here aborts: gf-complete asserts on source and destination
 * pointers that differ modulo 16, so such calls go through aligned scratch.
 */
#ifndef FTI_RS_CODEC_H
#define FTI_RS_CODEC_H

#include <stddef.h>

/* X(name, value, message): the codec's error codes, all negative. */
#define FTI_RS_ERROR_LIST(X)                                                        \
    X(FTI_RS_OK, 0, "success")                                                      \
    X(FTI_RS_EINVAL, -1,                                                            \
      "invalid argument (k, m, engine, NULL pointer, or erased index out of range " \
      "or listed twice)")                                                           \
    X(FTI_RS_ENOMEM, -2, "out of memory")                                           \
    X(FTI_RS_ETOOMANY, -3, "more chunks erased than there are parity chunks (m)")   \
    X(FTI_RS_ENOENGINE, -4, "ISA-L engine requested but the library was built without ISA-L") \
    X(FTI_RS_ESINGULAR, -5, "decoding matrix is singular (corrupt coding matrix)")

enum fti_rs_error {
#define FTI_RS_ENUM_ENTRY(name, value, msg) name = (value),
    FTI_RS_ERROR_LIST(FTI_RS_ENUM_ENTRY)
#undef FTI_RS_ENUM_ENTRY
};

/* Which engine computes the code. */
enum fti_rs_engine_kind {
    FTI_RS_ENGINE_AUTO = -1,    /* ISA-L when built in, else jerasure */
    FTI_RS_ENGINE_JERASURE = 0, /* always available */
    FTI_RS_ENGINE_ISAL = 1      /* FTI_RS_ENOENGINE when not built in */
};

/* Largest k + m the code supports (GF(2^8) has 256 elements). */
#define FTI_RS_MAX_CHUNKS 256

typedef struct fti_rs fti_rs;

/* Creates a codec for k >= 1 data and m >= 1 parity chunks, k + m <= 256,
 * computed by `engine` (an fti_rs_engine_kind). Returns NULL on failure and,
 * when err is not NULL, stores the reason there (FTI_RS_EINVAL, FTI_RS_ENOMEM,
 * FTI_RS_ENOENGINE); on success *err is FTI_RS_OK. */
fti_rs *fti_rs_create(int k, int m, int engine, int *err);

/* Frees the codec; accepts NULL. */
void fti_rs_destroy(fti_rs *rs);

/* Computes the m parity chunks of k data chunks, each len bytes (any len,
 * 0 included; callers pad shorter chunks with zeros logically). data[0..k-1]
 * are read, parity[0..m-1] are written; no output may overlap an input.
 * Pointers need no particular alignment, but speed does: give every chunk
 * 64-byte alignment and a different offset modulo 4096 (say 256 * index);
 * chunks all at the same page offset alias in the L1 cache and ISA-L drops
 * from about 9.5 to 5.6 GB/s (bench/rs_encode.c). Returns FTI_RS_OK,
 * FTI_RS_EINVAL or FTI_RS_ENOMEM (the outputs are then unspecified). */
int fti_rs_encode(const fti_rs *rs, const unsigned char *const *data, unsigned char *const *parity,
                  size_t len);

/* Rebuilds lost chunks in place. `erased` lists the lost chunk indices
 * (0..k-1 data, k..k+m-1 parity) and ends with -1; at most m of them. Every
 * pointer in data[0..k-1] and parity[0..m-1] must be valid for len bytes:
 * the erased ones are written, the others read. Returns FTI_RS_OK, or
 * FTI_RS_ETOOMANY (more than m erased: nothing is written), FTI_RS_EINVAL,
 * FTI_RS_ENOMEM, FTI_RS_ESINGULAR. */
int fti_rs_decode(const fti_rs *rs, unsigned char *const *data, unsigned char *const *parity,
                  const int *erased, size_t len);

/* "isa-l" or "jerasure": the engine this codec computes with. */
const char *fti_rs_engine(const fti_rs *rs);

/* Coefficient (row, col) of the m x k coding matrix: parity chunk `row` is
 * the GF(2^8) sum over col of coef(row, col) * data chunk col. -1 when out of
 * range. For tests and diagnostics. */
int fti_rs_coefficient(const fti_rs *rs, int row, int col);

/* Message for an fti_rs_error code; never NULL. */
const char *fti_rs_strerror(int code);

#endif /* FTI_RS_CODEC_H */
