/*
 * gf_region.h - GF(2^8) arithmetic (polynomial 0x11d, the field of ISA-L and
 * of the jerasure library FTI used): single elements for the small matrices
 * of the Reed-Solomon code, and whole buffers for the multiply-accumulate
 * that distributed encoding and decoding are made of. The buffer kernels are
 * ISA-L's when built in and our own table kernel otherwise; both give the
 * same bytes (test_rs_codec compares them).
 */
#ifndef FTI_GF_REGION_H
#define FTI_GF_REGION_H

#include <stddef.h>

#define FTI_GF_ALIGN 64

/* a * b and 1 / a in the field (a != 0; fti_gf_inv(0) is 0). */
unsigned fti_gf_mul(unsigned a, unsigned b);
unsigned fti_gf_inv(unsigned a);

/* dst = coef * src (add = 0) or dst ^= coef * src (add = 1), over len bytes.
 * Buffers come from fti_gf_alloc and len is a multiple of FTI_GF_ALIGN. */
void fti_gf_mad(unsigned char *dst, const unsigned char *src, int coef, size_t len, int add);

/* dst = sum over i < n of coefs[i] * srcs[i], over len bytes, in one pass
 * over the inputs where the engine allows (ISA-L's dot product). Same
 * buffer rules as fti_gf_mad. */
void fti_gf_dot(unsigned char *dst, unsigned char *const *srcs, const int *coefs, int n, size_t len);

/* The same two operations through our own kernel, whatever was built in:
 * what fti_gf_mad/fti_gf_dot run without ISA-L, callable beside ISA-L so
 * tests can prove both give the same parity. */
void fti_gf_mad_portable(unsigned char *dst, const unsigned char *src, int coef, size_t len,
                         int add);
void fti_gf_dot_portable(unsigned char *dst, unsigned char *const *srcs, const int *coefs, int n,
                         size_t len);

/* "isa-l" or "portable": the kernel fti_gf_mad and fti_gf_dot run. */
const char *fti_gf_kernel(void);

/* 64-byte aligned allocation (free with free()); NULL when out of memory. */
unsigned char *fti_gf_alloc(size_t n);

/* Rounds n up to a multiple of FTI_GF_ALIGN. */
size_t fti_gf_round(size_t n);

#endif /* FTI_GF_REGION_H */
