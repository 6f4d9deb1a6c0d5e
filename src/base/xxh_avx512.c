/* xxh_avx512.c - XXH3-64 with AVX-512 (compiled with -mavx512f: see xxh_simd.h). */
#define FTI_XXH_SIMD_NAME avx512
#if defined(__AVX512F__)
#define FTI_XXH_SIMD_ON 1
#else
#define FTI_XXH_SIMD_ON 0
#endif
#include "base/xxh_simd.h"
