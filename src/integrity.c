#include "integrity.h"

#include <xxhash.h>
/* The *_dispatch entry points pick the widest SIMD (AVX2/AVX-512) at run
 * time; the hash values are the same as the portable ones. */
#include <xxh_x86dispatch.h>

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
        XXH3_64bits_update_dispatch((XXH3_state_t *)h->state, data, n);
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
    return XXH3_64bits_dispatch(data, n);
}
