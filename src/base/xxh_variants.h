/*
 * xxh_variants.h - the SIMD variants of XXH3-64 (xxh_simd.h, one file per
 * instruction set), called by xxh.c only where the CPU has the instructions.
 * Apart from xxh.h because a variant file includes its own, private copy of
 * xxHash. `state` is an XXH3_state_t made by xxh.c.
 */
#ifndef FTI_BASE_XXH_VARIANTS_H
#define FTI_BASE_XXH_VARIANTS_H

#include <stddef.h>
#include <stdint.h>

uint64_t fti_xxh3_avx2(const void *data, size_t n);
int fti_xxh3_update_avx2(void *state, const void *data, size_t n);
uint64_t fti_xxh3_avx512(const void *data, size_t n);
int fti_xxh3_update_avx512(void *state, const void *data, size_t n);

#endif
