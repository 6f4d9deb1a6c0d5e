/*
 * fill.h - pseudo-random test bytes (an LCG seeded per call), so a test
 * that moves bytes around can tell every byte from its neighbours. Shared by
 * the unit tests of copies, hashed I/O and the hash worker.
 */
#ifndef FTI_TEST_FILL_H
#define FTI_TEST_FILL_H

#include <stddef.h>
#include <stdint.h>

static inline void fti_test_fill(unsigned char *p, size_t n, unsigned seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1664525u + 1013904223u;
        p[i] = (unsigned char)(x >> 24);
    }
}

#endif /* FTI_TEST_FILL_H */
