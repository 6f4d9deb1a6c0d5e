/*
 * rs_codec.c - Reed-Solomon over GF(2^8) with jerasure's Vandermonde-derived
 * coding matrix, computed by jerasure or by ISA-L.
 *
 * Every operation is one linear map: `nout` output chunks, each a GF(2^8)
 * combination of `nin` (= k) input chunks. Encoding maps the data chunks to
 * the parity chunks with the coding matrix; decoding maps k surviving chunks
 * to the lost ones with rows derived from the inverse of the survivors'
 * generator rows. Both engines apply such a map; only the field arithmetic
 * used to build decode rows and the region kernels differ.
 */
#include "rs_codec.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jerasure.h>
#include <jerasure/reed_sol.h>
#ifdef FTI_HAVE_ISAL
#include <isa-l.h>
#endif

/* Granule of the jerasure kernels: gf-complete works in 16-byte vectors and
 * jerasure's XOR in longs, so direct calls get multiples of this and the
 * last few bytes go through a zero-padded scratch. */
#define RS_ALIGN 64
/* gf-complete aborts (assert) unless every source and destination pointer
 * of a region multiply agree modulo this; we check and bounce instead. */
#define RS_GF_VECTOR 16
/* One pass over a strip of all chunks should stay in a core's L2 (512 KiB
 * here): measured for k=4 m=4 on 64 MiB chunks, 32 KiB strips lift jerasure
 * from 2.9 to 3.5 GB/s; ISA-L does all rows in one pass and is indifferent. */
#define RS_STRIP_BUDGET (256u * 1024u)
#define RS_STRIP_MIN (4u * 1024u)
#define RS_STRIP_MAX (64u * 1024u)

struct fti_rs {
    int k, m;
    int engine;             /* FTI_RS_ENGINE_JERASURE or FTI_RS_ENGINE_ISAL */
    size_t strip;           /* bytes per cache-blocked pass, multiple of RS_ALIGN */
    int *coding;            /* m x k coding matrix, allocated by jerasure */
    unsigned char *tables;  /* ISA-L expanded coding matrix (32*k*m), or NULL */
};

/* A linear map from nin input chunks to nout output chunks. */
typedef struct rs_map {
    int nin, nout;
    int *coef;             /* nout x nin coefficients (jerasure's form) */
    unsigned char *tables; /* the same, expanded for ISA-L; NULL for jerasure */
} rs_map;

/* ---- jerasure's global field -------------------------------------------- */

static pthread_once_t field_once = PTHREAD_ONCE_INIT;
static int field_status = -1;

/* jerasure builds its GF(2^8) field lazily on first use, unsynchronized;
 * building it once here, before any codec exists, makes later concurrent
 * use read-only. An application that set its own field keeps it. */
static void field_init(void)
{
    if (galois_get_field_ptr(8) != NULL) {
        field_status = 0;
        return;
    }
    field_status = galois_init_default_field(8);
}

static int field_ready(void)
{
    if (pthread_once(&field_once, field_init) != 0)
        return 0;
    return field_status == 0;
}

/* ---- creation ------------------------------------------------------------ */

static size_t strip_bytes(int k, int m)
{
    size_t s = RS_STRIP_BUDGET / (size_t)(k + m);
    if (s < RS_STRIP_MIN)
        s = RS_STRIP_MIN;
    if (s > RS_STRIP_MAX)
        s = RS_STRIP_MAX;
    return s - s % RS_ALIGN;
}

static int pick_engine(int engine, int *out)
{
    if (engine == FTI_RS_ENGINE_AUTO) {
#ifdef FTI_HAVE_ISAL
        engine = FTI_RS_ENGINE_ISAL;
#else
        engine = FTI_RS_ENGINE_JERASURE;
#endif
    }
    if (engine != FTI_RS_ENGINE_JERASURE && engine != FTI_RS_ENGINE_ISAL)
        return FTI_RS_EINVAL;
#ifndef FTI_HAVE_ISAL
    if (engine == FTI_RS_ENGINE_ISAL)
        return FTI_RS_ENOENGINE;
#endif
    *out = engine;
    return FTI_RS_OK;
}

#ifdef FTI_HAVE_ISAL
/* Expands an nrows x k coefficient matrix into ISA-L's lookup tables. */
static unsigned char *isal_tables(const int *coef, int nrows, int k)
{
    size_t n = (size_t)nrows * (size_t)k;
    unsigned char *bytes = malloc(n);
    unsigned char *tables = malloc(32 * n);
    if (bytes != NULL && tables != NULL) {
        for (size_t i = 0; i < n; i++)
            bytes[i] = (unsigned char)coef[i];
        ec_init_tables(k, nrows, bytes, tables);
    } else {
        free(tables);
        tables = NULL;
    }
    free(bytes);
    return tables;
}
#endif

static int build_engine_state(fti_rs *rs)
{
    rs->coding = reed_sol_vandermonde_coding_matrix(rs->k, rs->m, 8);
    if (rs->coding == NULL)
        return FTI_RS_ENOMEM;
#ifdef FTI_HAVE_ISAL
    if (rs->engine == FTI_RS_ENGINE_ISAL) {
        rs->tables = isal_tables(rs->coding, rs->m, rs->k);
        if (rs->tables == NULL)
            return FTI_RS_ENOMEM;
    }
#endif
    return FTI_RS_OK;
}

fti_rs *fti_rs_create(int k, int m, int engine, int *err)
{
    int rc = FTI_RS_OK;
    fti_rs *rs = NULL;

    if (k < 1 || m < 1 || k > FTI_RS_MAX_CHUNKS - m)
        rc = FTI_RS_EINVAL;
    if (rc == FTI_RS_OK)
        rc = pick_engine(engine, &engine);
    if (rc == FTI_RS_OK && !field_ready())
        rc = FTI_RS_ENOMEM;
    if (rc == FTI_RS_OK && (rs = calloc(1, sizeof(*rs))) == NULL)
        rc = FTI_RS_ENOMEM;
    if (rc == FTI_RS_OK) {
        rs->k = k;
        rs->m = m;
        rs->engine = engine;
        rs->strip = strip_bytes(k, m);
        rc = build_engine_state(rs);
    }
    if (rc != FTI_RS_OK) {
        fti_rs_destroy(rs);
        rs = NULL;
    }
    if (err != NULL)
        *err = rc;
    return rs;
}

void fti_rs_destroy(fti_rs *rs)
{
    if (rs == NULL)
        return;
    free(rs->tables);
    free(rs->coding);
    free(rs);
}

/* ---- applying a map: jerasure ---------------------------------------------- */

/* Direct jerasure call on [off, off+n), n a multiple of RS_ALIGN, in strips.
 * Every row of our maps has a nonzero coefficient (coding rows, rows of an
 * inverse, and products of those), so jerasure writes every output byte. */
static void jer_direct(const fti_rs *rs, const rs_map *map, unsigned char *const *in,
                       unsigned char *const *out, size_t off, size_t n)
{
    char *ip[FTI_RS_MAX_CHUNKS], *op[FTI_RS_MAX_CHUNKS];

    for (size_t done = 0; done < n; done += rs->strip) {
        size_t len = n - done < rs->strip ? n - done : rs->strip;
        for (int i = 0; i < map->nin; i++)
            ip[i] = (char *)in[i] + off + done;
        for (int i = 0; i < map->nout; i++)
            op[i] = (char *)out[i] + off + done;
        jerasure_matrix_encode(map->nin, map->nout, 8, map->coef, ip, op, (int)len);
    }
}

/* Copies [off, off+n) of each chunk through aligned scratch, zero-padded to
 * a multiple of RS_ALIGN: for the tail, and for chunks whose pointers
 * gf-complete would refuse. */
static int jer_bounced(const fti_rs *rs, const rs_map *map, unsigned char *const *in,
                       unsigned char *const *out, size_t off, size_t n)
{
    size_t slot = n < rs->strip ? n + (RS_ALIGN - n % RS_ALIGN) % RS_ALIGN : rs->strip;
    size_t nchunks = (size_t)(map->nin + map->nout);
    unsigned char *scratch = aligned_alloc(RS_ALIGN, nchunks * slot);
    unsigned char *si[FTI_RS_MAX_CHUNKS], *so[FTI_RS_MAX_CHUNKS];

    if (scratch == NULL)
        return FTI_RS_ENOMEM;
    for (int i = 0; i < map->nin; i++)
        si[i] = scratch + (size_t)i * slot;
    for (int i = 0; i < map->nout; i++)
        so[i] = scratch + (size_t)(map->nin + i) * slot;
    for (size_t done = 0; done < n; done += slot) {
        size_t len = n - done < slot ? n - done : slot;
        size_t padded = len + (RS_ALIGN - len % RS_ALIGN) % RS_ALIGN;
        /* The pad only feeds output bytes that are dropped; zeroing it
         * keeps the computation deterministic and free of reads of
         * uninitialized memory. */
        for (int i = 0; i < map->nin; i++) {
            memcpy(si[i], in[i] + off + done, len);
            memset(si[i] + len, 0, padded - len);
        }
        jer_direct(rs, map, si, so, 0, padded);
        for (int i = 0; i < map->nout; i++)
            memcpy(out[i] + off + done, so[i], len);
    }
    free(scratch);
    return FTI_RS_OK;
}

static int same_vector_offset(unsigned char *const *in, int nin, unsigned char *const *out,
                              int nout)
{
    uintptr_t phase = (uintptr_t)in[0] % RS_GF_VECTOR;
    for (int i = 1; i < nin; i++)
        if ((uintptr_t)in[i] % RS_GF_VECTOR != phase)
            return 0;
    for (int i = 0; i < nout; i++)
        if ((uintptr_t)out[i] % RS_GF_VECTOR != phase)
            return 0;
    return 1;
}

static int jer_apply(const fti_rs *rs, const rs_map *map, unsigned char *const *in,
                     unsigned char *const *out, size_t len)
{
    size_t bulk = len - len % RS_ALIGN;

    if (!same_vector_offset(in, map->nin, out, map->nout))
        return jer_bounced(rs, map, in, out, 0, len);
    jer_direct(rs, map, in, out, 0, bulk);
    if (bulk == len)
        return FTI_RS_OK;
    return jer_bounced(rs, map, in, out, bulk, len - bulk);
}

/* ---- applying a map: ISA-L ------------------------------------------------- */

#ifdef FTI_HAVE_ISAL
/* ISA-L takes any length and alignment; strips only keep each call's int
 * length in range and the working set cache-sized. */
static int isal_apply(const fti_rs *rs, const rs_map *map, unsigned char *const *in,
                      unsigned char *const *out, size_t len)
{
    unsigned char *ip[FTI_RS_MAX_CHUNKS], *op[FTI_RS_MAX_CHUNKS];

    for (size_t done = 0; done < len; done += rs->strip) {
        size_t n = len - done < rs->strip ? len - done : rs->strip;
        for (int i = 0; i < map->nin; i++)
            ip[i] = in[i] + done;
        for (int i = 0; i < map->nout; i++)
            op[i] = out[i] + done;
        ec_encode_data((int)n, map->nin, map->nout, map->tables, ip, op);
    }
    return FTI_RS_OK;
}
#endif

static int apply_map(const fti_rs *rs, const rs_map *map, unsigned char *const *in,
                     unsigned char *const *out, size_t len)
{
    if (len == 0)
        return FTI_RS_OK;
#ifdef FTI_HAVE_ISAL
    if (rs->engine == FTI_RS_ENGINE_ISAL)
        return isal_apply(rs, map, in, out, len);
#endif
    return jer_apply(rs, map, in, out, len);
}

/* ---- encode ---------------------------------------------------------------- */

static int chunks_valid(const void *const *p, int n, size_t len)
{
    if (p == NULL)
        return 0;
    for (int i = 0; len > 0 && i < n; i++)
        if (p[i] == NULL)
            return 0;
    return 1;
}

int fti_rs_encode(const fti_rs *rs, const unsigned char *const *data, unsigned char *const *parity,
                  size_t len)
{
    rs_map map;

    if (rs == NULL || !chunks_valid((const void *const *)data, rs->k, len) ||
        !chunks_valid((const void *const *)parity, rs->m, len))
        return FTI_RS_EINVAL;
    map.nin = rs->k;
    map.nout = rs->m;
    map.coef = rs->coding;
    map.tables = rs->tables;
    /* Inputs are only read; the engines' prototypes just lack const. */
    return apply_map(rs, &map, (unsigned char *const *)data, parity, len);
}

/* ---- decode ---------------------------------------------------------------- */

typedef struct decode_plan {
    int nlost;
    int lost[FTI_RS_MAX_CHUNKS];     /* erased chunk indices, as listed */
    int survivor[FTI_RS_MAX_CHUNKS]; /* the k lowest intact chunk indices */
    int *mem;                        /* survivors' rows, their inverse, decode rows */
    rs_map map;
} decode_plan;

/* Reads the -1 terminated list; it never reads past m+1 valid entries. */
static int parse_erasures(const fti_rs *rs, const int *erased, decode_plan *p)
{
    unsigned char gone[FTI_RS_MAX_CHUNKS] = {0};
    int n = rs->k + rs->m;

    p->nlost = 0;
    for (const int *e = erased; *e != -1; e++) {
        if (*e < 0 || *e >= n || gone[*e])
            return FTI_RS_EINVAL;
        if (p->nlost == rs->m)
            return FTI_RS_ETOOMANY;
        gone[*e] = 1;
        p->lost[p->nlost++] = *e;
    }
    for (int i = 0, s = 0; s < rs->k; i++)
        if (!gone[i])
            p->survivor[s++] = i;
    return FTI_RS_OK;
}

/* Row `row` of the (k+m) x k generator: identity on top, coding below. */
static int generator(const fti_rs *rs, int row, int col)
{
    if (row < rs->k)
        return row == col;
    return rs->coding[(row - rs->k) * rs->k + col];
}

static int field_mul(const fti_rs *rs, int a, int b)
{
#ifdef FTI_HAVE_ISAL
    if (rs->engine == FTI_RS_ENGINE_ISAL)
        return gf_mul((unsigned char)a, (unsigned char)b);
#endif
    (void)rs;
    return galois_single_multiply(a, b, 8);
}

/* Inverts the n x n matrix `mat` (destroyed) into `inv`; 0 on success. */
static int field_invert(const fti_rs *rs, int *mat, int *inv, int n)
{
#ifdef FTI_HAVE_ISAL
    if (rs->engine == FTI_RS_ENGINE_ISAL) {
        size_t nn = (size_t)n * (size_t)n;
        unsigned char *a = malloc(2 * nn);
        int rc = -1;
        if (a == NULL)
            return -1;
        for (size_t i = 0; i < nn; i++)
            a[i] = (unsigned char)mat[i];
        rc = gf_invert_matrix(a, a + nn, n);
        for (size_t i = 0; rc == 0 && i < nn; i++)
            inv[i] = a[nn + i];
        free(a);
        return rc;
    }
#endif
    (void)rs;
    return jerasure_invert_matrix(mat, inv, n, 8);
}

/* Decode row for lost chunk e: its generator row times the inverse of the
 * survivors' generator rows, so that row . survivors = chunk e. */
static void decode_row(const fti_rs *rs, int e, const int *inv, int *row)
{
    int k = rs->k;
    for (int c = 0; c < k; c++) {
        int v = 0;
        for (int t = 0; t < k; t++)
            v ^= field_mul(rs, generator(rs, e, t), inv[t * k + c]);
        row[c] = v;
    }
}

static int build_decode_map(const fti_rs *rs, decode_plan *p)
{
    size_t kk = (size_t)rs->k * (size_t)rs->k;
    int *sub, *inv, *rows;

    p->mem = malloc(sizeof(int) * (2 * kk + (size_t)p->nlost * (size_t)rs->k));
    if (p->mem == NULL)
        return FTI_RS_ENOMEM;
    sub = p->mem;
    inv = sub + kk;
    rows = inv + kk;
    for (int r = 0; r < rs->k; r++)
        for (int c = 0; c < rs->k; c++)
            sub[r * rs->k + c] = generator(rs, p->survivor[r], c);
    if (field_invert(rs, sub, inv, rs->k) != 0)
        return FTI_RS_ESINGULAR;
    for (int i = 0; i < p->nlost; i++)
        decode_row(rs, p->lost[i], inv, rows + (size_t)i * (size_t)rs->k);
    p->map.nin = rs->k;
    p->map.nout = p->nlost;
    p->map.coef = rows;
    p->map.tables = NULL;
#ifdef FTI_HAVE_ISAL
    if (rs->engine == FTI_RS_ENGINE_ISAL) {
        p->map.tables = isal_tables(rows, p->nlost, rs->k);
        if (p->map.tables == NULL)
            return FTI_RS_ENOMEM;
    }
#endif
    return FTI_RS_OK;
}

static unsigned char *chunk(const fti_rs *rs, unsigned char *const *data,
                            unsigned char *const *parity, int index)
{
    return index < rs->k ? data[index] : parity[index - rs->k];
}

static int run_decode(const fti_rs *rs, unsigned char *const *data, unsigned char *const *parity,
                      decode_plan *p, size_t len)
{
    unsigned char *in[FTI_RS_MAX_CHUNKS], *out[FTI_RS_MAX_CHUNKS];
    int rc = build_decode_map(rs, p);

    if (rc != FTI_RS_OK)
        return rc;
    for (int i = 0; i < rs->k; i++)
        in[i] = chunk(rs, data, parity, p->survivor[i]);
    for (int i = 0; i < p->nlost; i++)
        out[i] = chunk(rs, data, parity, p->lost[i]);
    return apply_map(rs, &p->map, in, out, len);
}

int fti_rs_decode(const fti_rs *rs, unsigned char *const *data, unsigned char *const *parity,
                  const int *erased, size_t len)
{
    decode_plan plan;
    int rc;

    if (rs == NULL || erased == NULL || !chunks_valid((const void *const *)data, rs->k, len) ||
        !chunks_valid((const void *const *)parity, rs->m, len))
        return FTI_RS_EINVAL;
    rc = parse_erasures(rs, erased, &plan);
    if (rc != FTI_RS_OK || plan.nlost == 0)
        return rc;
    plan.mem = NULL;
    plan.map.tables = NULL;
    rc = run_decode(rs, data, parity, &plan, len);
    free(plan.map.tables);
    free(plan.mem);
    return rc;
}

/* ---- introspection --------------------------------------------------------- */

const char *fti_rs_engine(const fti_rs *rs)
{
    if (rs == NULL)
        return "none";
    return rs->engine == FTI_RS_ENGINE_ISAL ? "isa-l" : "jerasure";
}

int fti_rs_coefficient(const fti_rs *rs, int row, int col)
{
    if (rs == NULL || row < 0 || row >= rs->m || col < 0 || col >= rs->k)
        return -1;
    return rs->coding[row * rs->k + col];
}

const char *fti_rs_strerror(int code)
{
    switch (code) {
#define FTI_RS_MSG_CASE(name, value, msg) \
    case value:                           \
        return msg;
        FTI_RS_ERROR_LIST(FTI_RS_MSG_CASE)
#undef FTI_RS_MSG_CASE
    }
    return "unknown Reed-Solomon codec error";
}
