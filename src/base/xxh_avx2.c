/* xxh_avx2.c - XXH3-64 with AVX2 (compiled with -mavx2: see xxh_simd.h). */
#define FTI_XXH_SIMD_NAME avx2
#if defined(__AVX2__)
#define FTI_XXH_SIMD_ON 1
#else
#define FTI_XXH_SIMD_ON 0
#endif
#include "base/xxh_simd.h"
