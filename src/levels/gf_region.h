/*
 * gf_region.h - GF(2^8) arithmetic on whole buffers (polynomial 0x11d, the
 * field of jerasure and ISA-L): the multiply-accumulate that distributed
 * Reed-Solomon encoding and decoding are made of. ISA-L when built in,
 * jerasure/gf-complete otherwise; both give the same bytes.
 */
#ifndef FTI_GF_REGION_H
#define FTI_GF_REGION_H

#include <stddef.h>

#define FTI_GF_ALIGN 64

/* dst = coef * src (add = 0) or dst ^= coef * src (add = 1), over len bytes.
 * Buffers come from fti_gf_alloc and len is a multiple of FTI_GF_ALIGN. */
void fti_gf_mad(unsigned char *dst, const unsigned char *src, int coef, size_t len, int add);

/* dst = sum over i < n of coefs[i] * srcs[i], over len bytes, in one pass
 * over the inputs where the engine allows (ISA-L's dot product). Same
 * buffer rules as fti_gf_mad. */
void fti_gf_dot(unsigned char *dst, unsigned char *const *srcs, const int *coefs, int n, size_t len);

/* 64-byte aligned allocation (free with free()); NULL when out of memory. */
unsigned char *fti_gf_alloc(size_t n);

/* Rounds n up to a multiple of FTI_GF_ALIGN. */
size_t fti_gf_round(size_t n);

#endif /* FTI_GF_REGION_H */
