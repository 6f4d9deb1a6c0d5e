/*
 * rs_encode.c - Reed-Solomon encode rate of L3's kernel, as L3 runs it,
 * against the ceiling of jerasure's and ISA-L's own whole-matrix encode
 * (bench/rs_ceiling.c), one JSON line per engine on one thread, then a
 * table.
 *
 *   rs_encode [chunk_bytes [bytes_per_data_chunk [k [m [reps [stagger]]]]]]
 *   defaults:  4 MiB        64 MiB                 4  4  5     256
 *
 * Each data chunk stream (bytes_per_data_chunk long) is cut into chunks of
 * chunk_bytes, as L3 cuts a checkpoint file into messages, and every set of
 * k chunks is encoded into m parity chunks. "l3" computes each parity row
 * with fti_rs_parity, what each L3 member does for its own row (L3 has
 * k = m = group size; here m rows are computed in turn on one core). The
 * streams are far larger than the caches, so the data comes from memory,
 * like a checkpoint just written. gbps = data bytes encoded per second
 * (1e9 bytes), median of `reps` passes.
 *
 * Stream i starts `stagger` * i bytes past a page boundary. Streams that
 * all start at the same page offset collide in the L1 sets and in the
 * CPU's 4 KiB store-to-load alias check. Measured here (k=4 m=4, 4 MiB
 * chunks), ISA-L runs at about 9.8 GB/s with stagger 256, 6.9 with stagger 0,
 * and 5.6 with plain malloc'd streams; jerasure stays near 3.5. L3 lays out
 * its gathered pieces so (l3_encode.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "format/rs_codec.h"
#include "rs_ceiling.h"

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

static void usage(FILE *f, const char *argv0)
{
    fprintf(f,
            "usage: %s [chunk_bytes [bytes_per_data_chunk [k [m [reps [stagger]]]]]]\n"
            "  need chunk_bytes (a multiple of 64) <= bytes_per_data_chunk, "
            "2 <= k <= %d, 1 <= m <= k, reps <= 64, stagger a multiple of 64 and <= %u\n",
            argv0, FTI_RS_MAX_G, PAGE);
}

static int parse_args(int argc, char **argv, bench_cfg *c)
{
    c->chunk = argc > 1 ? strtoull(argv[1], NULL, 0) : 4u << 20;
    c->total = argc > 2 ? strtoull(argv[2], NULL, 0) : 64u << 20;
    c->k = argc > 3 ? atoi(argv[3]) : 4;
    c->m = argc > 4 ? atoi(argv[4]) : 4;
    c->reps = argc > 5 ? atoi(argv[5]) : 5;
    c->stagger = argc > 6 ? strtoull(argv[6], NULL, 0) : 256;
    if (c->chunk == 0 || c->total < c->chunk || c->k < 2 || c->m < 1 ||
        c->k > FTI_RS_MAX_G || c->m > c->k || c->chunk % 64 != 0 || c->reps < 1 || c->reps > 64 || c->stagger > PAGE ||
        c->stagger % 64 != 0) {
        usage(stderr, argv[0]);
        return -1;
    }
    c->total -= c->total % c->chunk;
    return 0;
}

#define ENGINE_L3 (-1)

static const char *engine_name(int engine)
{
    return engine == ENGINE_L3 ? "l3" : bench_rs_engine_name(engine);
}

/* One pass: every chunk set of the streams, encoded once. */
static int encode_pass(int engine, const fti_rs_code *code, const bench_cfg *c,
                       unsigned char **data, unsigned char **parity)
{
    unsigned char *in[FTI_RS_MAX_G], *out[FTI_RS_MAX_G];

    for (size_t off = 0; off < c->total; off += c->chunk) {
        for (int i = 0; i < c->k; i++)
            in[i] = data[i] + off;
        for (int i = 0; i < c->m; i++)
            out[i] = parity[i] + off;
        if (engine == ENGINE_L3) {
            for (int r = 0; r < c->m; r++)
                fti_rs_parity(code, r, in, out[r], c->chunk);
        } else if (bench_rs_encode(engine, c->k, c->m, in, out, c->chunk) != 0) {
            fprintf(stderr, "rs_encode: %s encode failed\n", engine_name(engine));
            return -1;
        }
    }
    return 0;
}

/* Times `reps` passes after a warm-up pass (page faults); median rate. */
static int run_engine(int engine, const bench_cfg *c, unsigned char **data, unsigned char **parity,
                      bench_row *row)
{
    static fti_rs_code code;
    double rate[64];
    int reps = c->reps, rc = 0;

    if (engine_name(engine) == NULL)
        return 0; /* built without ISA-L: nothing to measure */
    if (fti_rs_code_init(&code, c->k) != 0) {
        fprintf(stderr, "rs_encode: cannot build the code of k=%d\n", c->k);
        return -1;
    }
    rc = encode_pass(engine, &code, c, data, parity);
    for (int r = 0; rc == 0 && r < reps; r++) {
        double t0 = now_s();
        rc = encode_pass(engine, &code, c, data, parity);
        rate[r] = (double)c->total * c->k / (now_s() - t0) / 1e9;
    }
    if (rc == 0) {
        row->engine = engine_name(engine);
        row->median = bench_median(rate, reps); /* sorts rate[] */
        row->min = rate[0];
        row->max = rate[reps - 1];
        printf("{\"bench\":\"rs_encode\",\"engine\":\"%s\",\"k\":%d,\"m\":%d,"
               "\"chunk_bytes\":%zu,\"bytes_per_data_chunk\":%zu,\"stagger_bytes\":%zu,"
               "\"reps\":%d,\"gbps\":%.3f,\"gbps_min\":%.3f,\"gbps_max\":%.3f}\n",
               row->engine, c->k, c->m, c->chunk, c->total, c->stagger, reps, row->median,
               row->min, row->max);
    }
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
    for (int i = 1; i < n; i++)
        if (rows[0].engine != NULL && rows[i].engine != NULL)
            printf("  ratio l3/%s: %.2f\n", rows[i].engine, rows[0].median / rows[i].median);
}

int main(int argc, char **argv)
{
    bench_cfg c;
    unsigned char *data[FTI_RS_MAX_G] = {0}, *parity[FTI_RS_MAX_G] = {0};
    unsigned char *base[2 * FTI_RS_MAX_G] = {0};
    bench_row rows[3] = {{0}};
    int rc = 0;

    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout, argv[0]);
        return 0;
    }
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
        rc = run_engine(ENGINE_L3, &c, data, parity, &rows[0]);
    if (rc == 0)
        rc = run_engine(BENCH_RS_ISAL, &c, data, parity, &rows[1]);
    if (rc == 0)
        rc = run_engine(BENCH_RS_JERASURE, &c, data, parity, &rows[2]);
    if (rc == 0)
        print_table(&c, rows, 3);
    for (int i = 0; i < c.k + c.m; i++)
        free(base[i]);
    return rc == 0 ? 0 : 1;
}
