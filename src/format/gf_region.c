#include "format/gf_region.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef FTI_HAVE_ISAL
#include <isa-l/erasure_code.h>
#endif

#define GF_POLY 0x11d

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

/* ---- single elements -------------------------------------------------------
 * Shift-and-add: only the code's small matrices use these (at most 32^3
 * products per plan), so no global tables and nothing to initialise. */

unsigned fti_gf_mul(unsigned a, unsigned b)
{
    unsigned r = 0;
    a &= 0xff;
    for (b &= 0xff; b != 0; b >>= 1) {
        if (b & 1)
            r ^= a;
        a <<= 1;
        if (a & 0x100)
            a ^= GF_POLY;
    }
    return r;
}

/* a^254 = a^-1: the multiplicative group has order 255. */
unsigned fti_gf_inv(unsigned a)
{
    unsigned r = 1, p = a & 0xff;
    for (unsigned e = 254; e != 0; e >>= 1) {
        if (e & 1)
            r = fti_gf_mul(r, p);
        p = fti_gf_mul(p, p);
    }
    return a & 0xff ? r : 0;
}

/* ---- our own region kernel ---------------------------------------------- */

/* tbl[x] = coef * x, built by doubling: 2x is x shifted and reduced, 2x+1
 * adds coef. 256 steps, nothing beside a region of kilobytes. */
static void mul_table(unsigned char tbl[256], unsigned coef)
{
    tbl[0] = 0;
    for (unsigned x = 1; x < 256; x++) {
        unsigned d = (unsigned)tbl[x >> 1] << 1;
        if (d & 0x100)
            d ^= GF_POLY;
        tbl[x] = (unsigned char)(d ^ (x & 1 ? coef : 0));
    }
}

static void xor_into(unsigned char *dst, const unsigned char *src, size_t len)
{
    uint64_t *d = (uint64_t *)dst;
    const uint64_t *s = (const uint64_t *)src;
    for (size_t i = 0; i < len / 8; i++)
        d[i] ^= s[i];
}

void fti_gf_mad_portable(unsigned char *dst, const unsigned char *src, int coef, size_t len,
                         int add)
{
    coef &= 0xff;
    if (coef == 0) {
        if (!add)
            memset(dst, 0, len);
    } else if (coef == 1) {
        if (add)
            xor_into(dst, src, len);
        else
            memcpy(dst, src, len);
    } else {
        unsigned char tbl[256];
        mul_table(tbl, (unsigned)coef);
        if (add)
            for (size_t i = 0; i < len; i++)
                dst[i] ^= tbl[src[i]];
        else
            for (size_t i = 0; i < len; i++)
                dst[i] = tbl[src[i]];
    }
}

void fti_gf_dot_portable(unsigned char *dst, unsigned char *const *srcs, const int *coefs, int n,
                         size_t len)
{
    if (n <= 0)
        memset(dst, 0, len);
    for (int i = 0; i < n; i++)
        fti_gf_mad_portable(dst, srcs[i], coefs[i], len, i > 0);
}

/* ---- the kernel in use ---------------------------------------------------- */

#ifdef FTI_HAVE_ISAL
/* ISA-L takes int lengths: pieces of at most this many bytes. */
#define ISAL_PIECE ((size_t)INT_MAX & ~(size_t)(FTI_GF_ALIGN - 1))

const char *fti_gf_kernel(void)
{
    return "isa-l";
}

void fti_gf_mad(unsigned char *dst, const unsigned char *src, int coef, size_t len, int add)
{
    if ((coef & 0xff) < 2) { /* zero, copy and XOR need no tables */
        fti_gf_mad_portable(dst, src, coef, len, add);
        return;
    }
    unsigned char c = (unsigned char)coef, tbl[32];
    ec_init_tables(1, 1, &c, tbl);
    if (!add)
        memset(dst, 0, len);
    for (size_t off = 0; off < len; off += ISAL_PIECE) {
        size_t n = len - off < ISAL_PIECE ? len - off : ISAL_PIECE;
        gf_vect_mad((int)n, 1, 0, tbl, (unsigned char *)src + off, dst + off);
    }
}

void fti_gf_dot(unsigned char *dst, unsigned char *const *srcs, const int *coefs, int n, size_t len)
{
    unsigned char c[256], tbls[32 * 256];
    if (n <= 0 || n > 256) {
        fti_gf_dot_portable(dst, srcs, coefs, n, len);
        return;
    }
    for (int i = 0; i < n; i++)
        c[i] = (unsigned char)coefs[i];
    ec_init_tables(n, 1, c, tbls);
    for (size_t off = 0; off < len; off += ISAL_PIECE) {
        unsigned char *in[256], *out = dst + off;
        for (int i = 0; i < n; i++)
            in[i] = srcs[i] + off;
        ec_encode_data((int)(len - off < ISAL_PIECE ? len - off : ISAL_PIECE), n, 1, tbls, in, &out);
    }
}
#else
const char *fti_gf_kernel(void)
{
    return "portable";
}

void fti_gf_mad(unsigned char *dst, const unsigned char *src, int coef, size_t len, int add)
{
    fti_gf_mad_portable(dst, src, coef, len, add);
}

void fti_gf_dot(unsigned char *dst, unsigned char *const *srcs, const int *coefs, int n, size_t len)
{
    fti_gf_dot_portable(dst, srcs, coefs, n, len);
}
#endif
