/*
 * xxh.c - xxHash's implementation, from its header, as fti_XXH* (xxh.h),
 * built for the target's baseline (SSE2 on x86-64, NEON on aarch64), and the
 * run-time choice of a wider variant.
 */
#define XXH_IMPLEMENTATION
#include "base/xxh.h"

/* Whether the build has the variant and the CPU runs it (`isa`: "avx2",
 * "avx512f"). __builtin_cpu_supports also checks that the OS saves the wide
 * registers; it takes only a literal, hence the macro. */
#if defined(FTI_HAVE_XXH_SIMD)
#define CPU_HAS(isa) (__builtin_cpu_supports(isa) != 0)
#else
#define CPU_HAS(isa) 0
#endif

static int use_avx512(void)
{
    return CPU_HAS("avx512f");
}

static int use_avx2(void)
{
    return CPU_HAS("avx2");
}

const char *fti_xxh3_variant(void)
{
    return use_avx512() ? "avx512" : use_avx2() ? "avx2" : "baseline";
}

uint64_t fti_xxh3(const void *data, size_t n)
{
#if defined(FTI_HAVE_XXH_SIMD)
    if (use_avx512())
        return fti_xxh3_avx512(data, n);
    if (use_avx2())
        return fti_xxh3_avx2(data, n);
#endif
    return XXH3_64bits(data, n);
}

int fti_xxh3_update(XXH3_state_t *state, const void *data, size_t n)
{
    if (state == NULL)
        return -1;
#if defined(FTI_HAVE_XXH_SIMD)
    if (use_avx512())
        return fti_xxh3_update_avx512(state, data, n);
    if (use_avx2())
        return fti_xxh3_update_avx2(state, data, n);
#endif
    return XXH3_64bits_update(state, data, n) == XXH_OK ? 0 : -1;
}
