/*
 * xxh_simd.h - the body of one SIMD variant of XXH3-64 (xxh_avx2.c,
 * xxh_avx512.c): each includes it once, compiled with its -m flag, and gets
 * a private, inlined copy of xxHash that uses those instructions. Without
 * the flag (a compiler or target without it) the file defines nothing and
 * xxh.c never calls it.
 */
#ifndef FTI_XXH_SIMD_NAME
#error "define FTI_XXH_SIMD_NAME (avx2, avx512) and FTI_XXH_SIMD_ON first"
#endif

#if FTI_XXH_SIMD_ON
#define XXH_INLINE_ALL /* static copies: no symbol clashes with xxh.c */
#include <xxhash.h>

#include "base/xxh_variants.h"

#define FTI_XXH_CAT2(a, b) a##b
#define FTI_XXH_CAT(a, b) FTI_XXH_CAT2(a, b)

uint64_t FTI_XXH_CAT(fti_xxh3_, FTI_XXH_SIMD_NAME)(const void *data, size_t n)
{
    return XXH3_64bits(data, n);
}

/* The state was made by xxh.c's copy: the same struct, another name here. */
int FTI_XXH_CAT(fti_xxh3_update_, FTI_XXH_SIMD_NAME)(void *state, const void *data, size_t n)
{
    return XXH3_64bits_update((XXH3_state_t *)state, data, n) == XXH_OK ? 0 : -1;
}
#else
typedef int fti_xxh_simd_absent; /* an empty file is not ISO C */
#endif
