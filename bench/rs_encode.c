/*
 * rs_encode.c - Reed-Solomon encode rate of the L3 codec, one JSON line per
 * engine (jerasure always, ISA-L when built in), on one thread, then a table.
 *
 *   rs_encode [chunk_bytes [bytes_per_data_chunk [k [m [reps [stagger]]]]]]
 *   defaults:  4 MiB        64 MiB                 4  4  5     256
 *
 * Each data chunk stream (bytes_per_data_chunk long) is cut into chunks of
 * chunk_bytes, as L3 cuts a checkpoint file, and every set of k chunks is
 * encoded into its own m parity chunks. The streams are far larger than the
 * caches, so the data comes from memory, like a checkpoint just written.
 * gbps = data bytes encoded per second (1e9 bytes), median of `reps` passes.
 *
 * Stream i starts `stagger` * i bytes past a page boundary. Streams that
 * all start at the same page offset collide in the L1 sets and in the
 * CPU's 4 KiB store-to-load alias check. Measured here (k=4 m=4, 4 MiB
 * chunks), ISA-L runs at about 9.8 GB/s with stagger 256, 6.9 with stagger 0,
 * and 5.6 with plain malloc'd streams (same offset, and 16 bytes off a cache
 * line); jerasure stays near 3.5. L3 should lay out its chunk buffers so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"
#include "levels/rs_codec.h"

typedef struct bench_cfg {
    size_t chunk, total, stagger;
    int k, m, reps;
} bench_cfg;

/* One engine's result, for the closing table. */
typedef struct bench_row {
    const char *engine; /* NULL when not measured */
    double median, min, max;
} bench_row;

#define PAGE 4096u

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int parse_args(int argc, char **argv, bench_cfg *c)
{
    c->chunk = argc > 1 ? strtoull(argv[1], NULL, 0) : 4u << 20;
    c->total = argc > 2 ? strtoull(argv[2], NULL, 0) : 64u << 20;
    c->k = argc > 3 ? atoi(argv[3]) : 4;
    c->m = argc > 4 ? atoi(argv[4]) : 4;
    c->reps = argc > 5 ? atoi(argv[5]) : 5;
    c->stagger = argc > 6 ? strtoull(argv[6], NULL, 0) : 256;
    if (c->chunk == 0 || c->total < c->chunk || c->k < 1 || c->m < 1 ||
        c->k + c->m > FTI_RS_MAX_CHUNKS || c->reps < 1 || c->reps > 64 || c->stagger > PAGE ||
        c->stagger % 64 != 0) {
        fprintf(stderr,
                "usage: %s [chunk_bytes [bytes_per_data_chunk [k [m [reps [stagger]]]]]]\n"
                "  need chunk_bytes <= bytes_per_data_chunk, k,m >= 1, k+m <= %d, reps <= 64, "
                "stagger a multiple of 64 and <= %u\n",
                argv[0], FTI_RS_MAX_CHUNKS, PAGE);
        return -1;
    }
    c->total -= c->total % c->chunk;
    return 0;
}

/* One pass: every chunk set of the streams, encoded once. */
static int encode_pass(const fti_rs *rs, const bench_cfg *c, unsigned char **data,
                       unsigned char **parity)
{
    const unsigned char *in[FTI_RS_MAX_CHUNKS];
    unsigned char *out[FTI_RS_MAX_CHUNKS];

    for (size_t off = 0; off < c->total; off += c->chunk) {
        for (int i = 0; i < c->k; i++)
            in[i] = data[i] + off;
        for (int i = 0; i < c->m; i++)
            out[i] = parity[i] + off;
        int rc = fti_rs_encode(rs, in, out, c->chunk);
        if (rc != FTI_RS_OK) {
            fprintf(stderr, "rs_encode: encode failed: %s\n", fti_rs_strerror(rc));
            return -1;
        }
    }
    return 0;
}

/* Times `reps` passes after a warm-up pass (page faults); median rate. */
static int run_engine(int engine, const bench_cfg *c, unsigned char **data, unsigned char **parity,
                      bench_row *row)
{
    int err;
    fti_rs *rs = fti_rs_create(c->k, c->m, engine, &err);
    double rate[64];
    int reps = c->reps, rc = 0;

    if (rs == NULL && err == FTI_RS_ENOENGINE)
        return 0; /* built without ISA-L: nothing to measure */
    if (rs == NULL) {
        fprintf(stderr, "rs_encode: create: %s\n", fti_rs_strerror(err));
        return -1;
    }
    rc = encode_pass(rs, c, data, parity);
    for (int r = 0; rc == 0 && r < reps; r++) {
        double t0 = now_s();
        rc = encode_pass(rs, c, data, parity);
        rate[r] = (double)c->total * c->k / (now_s() - t0) / 1e9;
    }
    if (rc == 0) {
        row->engine = fti_rs_engine(rs); /* a string literal: outlives rs */
        row->median = bench_median(rate, reps); /* sorts rate[] */
        row->min = rate[0];
        row->max = rate[reps - 1];
        printf("{\"bench\":\"rs_encode\",\"engine\":\"%s\",\"k\":%d,\"m\":%d,"
               "\"chunk_bytes\":%zu,\"bytes_per_data_chunk\":%zu,\"stagger_bytes\":%zu,"
               "\"reps\":%d,\"gbps\":%.3f,\"gbps_min\":%.3f,\"gbps_max\":%.3f}\n",
               fti_rs_engine(rs), c->k, c->m, c->chunk, c->total, c->stagger, reps,
               row->median, row->min, row->max);
    }
    fti_rs_destroy(rs);
    return rc;
}

/* Stream i: page-aligned block, used from offset stagger * i mod PAGE. */
static unsigned char *alloc_stream(const bench_cfg *c, int i, unsigned char **base)
{
    size_t shift = (c->stagger * (size_t)i) % PAGE;
    size_t bytes = c->total + shift;

    *base = aligned_alloc(PAGE, bytes + (PAGE - bytes % PAGE) % PAGE);
    return *base == NULL ? NULL : *base + shift;
}

static void print_table(const bench_cfg *c, const bench_row *rows, int n)
{
    printf("\nReed-Solomon encode, k=%d m=%d, %zu-byte chunks, %zu bytes per data stream, "
           "one thread (median of %d)\n",
           c->k, c->m, c->chunk, c->total, c->reps);
    printf("  %-10s %10s %10s %10s\n", "engine", "GB/s", "min", "max");
    for (int i = 0; i < n; i++)
        if (rows[i].engine != NULL)
            printf("  %-10s %10.3f %10.3f %10.3f\n", rows[i].engine, rows[i].median, rows[i].min,
                   rows[i].max);
    if (n == 2 && rows[0].engine != NULL && rows[1].engine != NULL)
        printf("  ratio isa-l/jerasure: %.2f\n", rows[1].median / rows[0].median);
}

int main(int argc, char **argv)
{
    bench_cfg c;
    unsigned char *data[FTI_RS_MAX_CHUNKS] = {0}, *parity[FTI_RS_MAX_CHUNKS] = {0};
    unsigned char *base[FTI_RS_MAX_CHUNKS] = {0};
    bench_row rows[2] = {{0}};
    int rc = 0;

    if (parse_args(argc, argv, &c) != 0)
        return 2;
    for (int i = 0; rc == 0 && i < c.k + c.m; i++) {
        unsigned char **slot = i < c.k ? &data[i] : &parity[i - c.k];
        *slot = alloc_stream(&c, i, &base[i]);
        if (*slot == NULL) {
            fprintf(stderr, "rs_encode: cannot allocate %zu bytes\n", c.total);
            rc = -1;
        } else if (i < c.k) {
            bench_fill(*slot, c.total, (unsigned)i + 1);
        }
    }
    if (rc == 0)
        rc = run_engine(FTI_RS_ENGINE_JERASURE, &c, data, parity, &rows[0]);
    if (rc == 0)
        rc = run_engine(FTI_RS_ENGINE_ISAL, &c, data, parity, &rows[1]);
    if (rc == 0)
        print_table(&c, rows, 2);
    for (int i = 0; i < c.k + c.m; i++)
        free(base[i]);
    return rc == 0 ? 0 : 1;
}
