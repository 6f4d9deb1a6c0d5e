#include "base/integrity.h"

/* xxHash compiled into the library (xxh.h): fti_xxh3 and fti_xxh3_update
 * pick the widest SIMD variant at run time; the values are the same. */
#include "base/xxh.h"

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
