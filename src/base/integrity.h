/*
 * integrity.h - checksums of checkpoint data: XXH3-64, computed while the
 * data is hot (chunk by chunk as it is written), never in a second pass.
 */
#ifndef FTI_INTEGRITY_H
#define FTI_INTEGRITY_H

#include <stddef.h>
#include <stdint.h>

typedef struct fti_hash {
    void *state; /* XXH3_state_t, heap-allocated (it needs 64-byte alignment) */
} fti_hash;

/* 0 on success, -1 when out of memory. */
int fti_hash_init(fti_hash *h);
void fti_hash_update(fti_hash *h, const void *data, size_t n);
uint64_t fti_hash_final(const fti_hash *h);
void fti_hash_free(fti_hash *h);

/* One-shot checksum of a buffer. */
uint64_t fti_hash_buffer(const void *data, size_t n);

#endif /* FTI_INTEGRITY_H */
