#include "gf_region.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jerasure/galois.h>
#ifdef FTI_HAVE_ISAL
#include <isa-l/erasure_code.h>
#endif

size_t fti_gf_round(size_t n)
{
    return (n + FTI_GF_ALIGN - 1) & ~(size_t)(FTI_GF_ALIGN - 1);
}

unsigned char *fti_gf_alloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, FTI_GF_ALIGN, n ? fti_gf_round(n) : FTI_GF_ALIGN) != 0)
        return NULL;
    return p;
}

static void xor_into(unsigned char *dst, const unsigned char *src, size_t len)
{
    uint64_t *d = (uint64_t *)dst;
    const uint64_t *s = (const uint64_t *)src;
    for (size_t i = 0; i < len / 8; i++)
        d[i] ^= s[i];
}

/* One piece of at most INT_MAX bytes (the engines take int lengths). */
static void mad_piece(unsigned char *dst, const unsigned char *src, int coef, int len, int add)
{
#ifdef FTI_HAVE_ISAL
    unsigned char c = (unsigned char)coef, tbl[32];
    ec_init_tables(1, 1, &c, tbl);
    if (!add)
        memset(dst, 0, (size_t)len);
    gf_vect_mad(len, 1, 0, tbl, (unsigned char *)src, dst);
#else
    galois_w08_region_multiply((char *)src, coef, len, (char *)dst, add);
#endif
}

void fti_gf_mad(unsigned char *dst, const unsigned char *src, int coef, size_t len, int add)
{
    if (coef == 0) {
        if (!add)
            memset(dst, 0, len);
        return;
    }
    if (coef == 1) {
        if (add)
            xor_into(dst, src, len);
        else
            memcpy(dst, src, len);
        return;
    }
    const size_t max = (size_t)INT_MAX & ~(size_t)(FTI_GF_ALIGN - 1);
    for (size_t off = 0; off < len; off += max) {
        size_t n = len - off < max ? len - off : max;
        mad_piece(dst + off, src + off, coef, (int)n, add);
    }
}

void fti_gf_dot(unsigned char *dst, unsigned char *const *srcs, const int *coefs, int n, size_t len)
{
#ifdef FTI_HAVE_ISAL
    unsigned char c[256], tbls[32 * 256];
    for (int i = 0; i < n; i++)
        c[i] = (unsigned char)coefs[i];
    ec_init_tables(n, 1, c, tbls);
    const size_t max = (size_t)INT_MAX & ~(size_t)(FTI_GF_ALIGN - 1);
    for (size_t off = 0; off < len; off += max) {
        unsigned char *in[256], *out = dst + off;
        for (int i = 0; i < n; i++)
            in[i] = srcs[i] + off;
        ec_encode_data((int)(len - off < max ? len - off : max), n, 1, tbls, in, &out);
    }
#else
    for (int i = 0; i < n; i++)
        fti_gf_mad(dst, srcs[i], coefs[i], len, i > 0);
#endif
}
