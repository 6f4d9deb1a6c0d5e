/*
 * le_field.h - the little-endian integer fields of the on-disk formats
 * (checkpoint data files, L4 images and shared files): one byte-order rule
 * for every writer and reader, whatever the host's own order.
 */
#ifndef FTI_LE_FIELD_H
#define FTI_LE_FIELD_H

#include <stdint.h>

/* The low `bytes` bytes of v at p, least significant first. */
static inline void fti_le_put(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t fti_le_get(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static inline void fti_le_put32(unsigned char *p, uint32_t v) { fti_le_put(p, v, 4); }
static inline void fti_le_put64(unsigned char *p, uint64_t v) { fti_le_put(p, v, 8); }
static inline uint32_t fti_le_get32(const unsigned char *p) { return (uint32_t)fti_le_get(p, 4); }
static inline uint64_t fti_le_get64(const unsigned char *p) { return fti_le_get(p, 8); }

#endif /* FTI_LE_FIELD_H */
