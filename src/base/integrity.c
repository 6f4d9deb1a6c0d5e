#include "base/integrity.h"

#include <xxhash.h>
/* On x86-64, when libxxhash has its dispatcher (CMake checks), the
 * *_dispatch entry points pick the widest SIMD (AVX2/AVX-512) at run time.
 * Elsewhere the plain ones run with what the library was built for (SSE2 on
 * x86-64, NEON on aarch64). The hash values are the same either way. */
#ifdef FTI_HAVE_XXH_DISPATCH
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#define fti_xxh3 XXH3_64bits_dispatch
#define fti_xxh3_update XXH3_64bits_update_dispatch
#else
#define fti_xxh3 XXH3_64bits
#define fti_xxh3_update XXH3_64bits_update
#endif

int fti_hash_init(fti_hash *h)
{
    h->state = XXH3_createState();
    if (h->state == NULL)
        return -1;
    XXH3_64bits_reset((XXH3_state_t *)h->state);
    return 0;
}

void fti_hash_update(fti_hash *h, const void *data, size_t n)
{
    if (n > 0)
        fti_xxh3_update((XXH3_state_t *)h->state, data, n);
}

uint64_t fti_hash_final(const fti_hash *h)
{
    return XXH3_64bits_digest((const XXH3_state_t *)h->state);
}

void fti_hash_free(fti_hash *h)
{
    if (h->state != NULL)
        XXH3_freeState((XXH3_state_t *)h->state);
    h->state = NULL;
}

uint64_t fti_hash_buffer(const void *data, size_t n)
{
    return fti_xxh3(data, n);
}
