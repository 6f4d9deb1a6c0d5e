/*
 * bench_l4_codec - compression ratio and speed of the L4 codecs on smooth
 * double-precision fields, through the library's own encoder and decoder
 * (4 MiB chunks, in memory: no storage in the measurement). One thread.
 *
 *   bench_l4_codec [MIB]     field size (default 64)
 *
 * Fields: "heat" = a 2-D temperature field of several diffusing heat
 * sources over a warm background (smooth, every value non-zero, full
 * mantissas); "jacobi" = heatdis's grid after 500 Jacobi sweeps from a hot
 * top edge (mostly zeros far from the source). Speeds are per CPU second of
 * this process (GB/s = 1e9 bytes of the original per second). Prints JSON
 * lines on stdout and a table on stderr.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zlib.h>
#include <zstd.h>

#include "format/config.h"
#include "format/l4_codec.h"
#include "bench_util.h"

typedef struct membuf {
    unsigned char *p;
    size_t len, cap;
} membuf;

static int mem_read(void *arg, void *buf, size_t n, uint64_t off)
{
    membuf *m = arg;
    if (off + n > m->len)
        return -1;
    memcpy(buf, m->p + off, n);
    return 0;
}

static int mem_write(void *arg, const void *buf, size_t n, uint64_t off)
{
    membuf *m = arg;
    if (off + n > m->cap)
        return -1; /* sized up front: no realloc inside the timing */
    memcpy(m->p + off, buf, n);
    if (off + n > m->len)
        m->len = (size_t)(off + n);
    return 0;
}

/* CPU seconds of this (single-threaded) process: on a shared 2-core
 * machine, wall time measures the neighbours as much as the codec. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void heat_field(double *g, size_t rows, size_t cols)
{
    const double src[4][3] = {{0.2, 0.3, 0.010}, {0.7, 0.6, 0.020}, {0.4, 0.8, 0.005}, {0.9, 0.1, 0.015}};
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++) {
            double x = (double)j / (double)cols, y = (double)i / (double)rows, t = 20.0 + 5.0 * y;
            for (int k = 0; k < 4; k++) {
                double dx = x - src[k][0], dy = y - src[k][1], s = src[k][2];
                t += 80.0 * exp(-(dx * dx + dy * dy) / (4.0 * s)) / (1.0 + 10.0 * s);
            }
            g[i * cols + j] = t;
        }
}

static void jacobi_field(double *g, size_t rows, size_t cols)
{
    double *b = calloc(rows * cols, sizeof *b);
    memset(g, 0, rows * cols * sizeof *g);
    for (size_t j = cols / 3; j < 2 * cols / 3; j++)
        g[j] = b[j] = 100.0;
    for (int it = 0; it < 500; it++) {
        double *from = it % 2 ? b : g, *to = it % 2 ? g : b;
        for (size_t i = 1; i + 1 < rows; i++)
            for (size_t j = 1; j + 1 < cols; j++)
                to[i * cols + j] = 0.25 * (from[(i - 1) * cols + j] + from[(i + 1) * cols + j] +
                                           from[i * cols + j - 1] + from[i * cols + j + 1]);
    }
    free(b);
}

static void run(const char *field, const unsigned char *data, size_t n, int codec, int level,
                int shuffle)
{
    membuf src = {(unsigned char *)data, n, n};
    membuf z = {malloc(n + n / 8 + (1 << 20)), 0, n + n / 8 + (1 << 20)};
    membuf back = {malloc(n), 0, n};
    memset(z.p, 0, z.cap); /* fault the pages in: a file sink would not pay for them */
    memset(back.p, 0, back.cap);
    fti_l4_io s = {mem_read, mem_write, &src}, zi = {mem_read, mem_write, &z};
    fti_l4_io bi = {mem_read, mem_write, &back};
    fti_l4_span span = {0, n, 8};
    fti_l4_encoding enc = {codec, level, 0, shuffle ? &span : NULL, shuffle};
    fti_l4_names nm = {"bench", "field", "copy"};
    uint64_t zsize = 0, size = 0;
    /* A first round trip on 1 MiB: the one-time costs (codec contexts, the
     * first touch of the 4 MiB chunk buffers) are not per byte. */
    membuf warm = {z.p, 0, z.cap}, wback = {back.p, 0, back.cap};
    fti_l4_io wz = {mem_read, mem_write, &warm}, wb = {mem_read, mem_write, &wback};
    fti_l4_encode(&s, n < (1u << 20) ? n : 1u << 20, &wz, &enc, &nm, &zsize);
    fti_l4_decode(&wz, zsize, &wb, &nm, &size);
    double t0 = now();
    if (fti_l4_encode(&s, n, &zi, &enc, &nm, &zsize) != FTI_E_OK)
        exit(1);
    double t1 = now();
    if (fti_l4_decode(&zi, zsize, &bi, &nm, &size) != FTI_E_OK || memcmp(back.p, data, n) != 0)
        exit(1);
    double t2 = now();
    const char *name = codec == FTI_CODEC_ZLIB ? "zlib" : "zstd";
    printf("{\"bench\":\"l4_codec\",\"field\":\"%s\",\"mib\":%zu,\"codec\":\"%s\",\"level\":%d,"
           "\"shuffle\":%d,\"ratio\":%.3f,\"compress_gbs\":%.3f,\"decompress_gbs\":%.3f}\n",
           field, n >> 20, name, level, shuffle, (double)n / (double)zsize, n / (t1 - t0) / 1e9,
           n / (t2 - t1) / 1e9);
    fprintf(stderr, "%-7s %s:%d%-9s ratio %6.2fx  compress %6.3f GB/s  decompress %6.3f GB/s\n",
            field, name, level, shuffle ? "+shuffle" : "", (double)n / (double)zsize,
            n / (t1 - t0) / 1e9, n / (t2 - t1) / 1e9);
    free(z.p);
    free(back.p);
}

/* The codec alone on the same 4 MiB chunks (no shuffle, checksums or
 * copies): the ceiling the library's numbers compare against. */
static void ceiling(const char *field, const unsigned char *data, size_t n, int codec)
{
    size_t chunk = FTI_L4Z_CHUNK, cap = codec == FTI_CODEC_ZLIB ? compressBound(chunk) : ZSTD_compressBound(chunk);
    size_t nch = (n + chunk - 1) / chunk, zsize = 0;
    unsigned char *z = malloc(nch * cap), *back = malloc(chunk);
    size_t *len = calloc(nch, sizeof *len);
    memset(z, 0, nch * cap);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    double t0 = now();
    for (size_t i = 0; i < nch; i++) {
        size_t k = n - i * chunk < chunk ? n - i * chunk : chunk;
        uLongf l = cap;
        if (codec == FTI_CODEC_ZLIB)
            compress2(z + i * cap, &l, data + i * chunk, k, 1);
        else
            l = ZSTD_compressCCtx(cc, z + i * cap, cap, data + i * chunk, k, 1);
        len[i] = l;
        zsize += l;
    }
    double t1 = now();
    for (size_t i = 0; i < nch; i++) {
        uLongf l = chunk;
        if (codec == FTI_CODEC_ZLIB)
            uncompress(back, &l, z + i * cap, len[i]);
        else
            ZSTD_decompressDCtx(dc, back, chunk, z + i * cap, len[i]);
    }
    double t2 = now();
    const char *name = codec == FTI_CODEC_ZLIB ? "zlib" : "zstd";
    printf("{\"bench\":\"l4_codec_ceiling\",\"field\":\"%s\",\"codec\":\"%s\",\"level\":1,"
           "\"ratio\":%.3f,\"compress_gbs\":%.3f,\"decompress_gbs\":%.3f}\n",
           field, name, (double)n / (double)zsize, n / (t1 - t0) / 1e9, n / (t2 - t1) / 1e9);
    fprintf(stderr, "%-7s %s:1 alone     ratio %6.2fx  compress %6.3f GB/s  decompress %6.3f GB/s\n",
            field, name, (double)n / (double)zsize, n / (t1 - t0) / 1e9, n / (t2 - t1) / 1e9);
    ZSTD_freeCCtx(cc);
    ZSTD_freeDCtx(dc);
    free(len);
    free(back);
    free(z);
}

static const char usage[] =
    "usage: bench_l4_codec [MIB]\n"
    "compression ratio and speed of the L4 codecs on smooth double fields of MIB MiB\n"
    "(default 64), in memory, one thread; JSON lines on stdout, a table on stderr\n";

int main(int argc, char **argv)
{
    if (bench_answered_help(argc, argv, usage))
        return 0;
    size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 64, cols = 4096;
    size_t rows = (mib << 20) / sizeof(double) / cols, n = rows * cols * sizeof(double);
    double *g = malloc(n);
    const char *fields[] = {"heat", "jacobi"};
    for (int f = 0; f < 2; f++) {
        if (f == 0)
            heat_field(g, rows, cols);
        else
            jacobi_field(g, rows, cols);
        ceiling(fields[f], (unsigned char *)g, n, FTI_CODEC_ZLIB);
        ceiling(fields[f], (unsigned char *)g, n, FTI_CODEC_ZSTD);
        run(fields[f], (unsigned char *)g, n, FTI_CODEC_ZLIB, 1, 0);
        run(fields[f], (unsigned char *)g, n, FTI_CODEC_ZLIB, 1, 1);
        run(fields[f], (unsigned char *)g, n, FTI_CODEC_ZSTD, 1, 0);
        run(fields[f], (unsigned char *)g, n, FTI_CODEC_ZSTD, 1, 1);
        run(fields[f], (unsigned char *)g, n, FTI_CODEC_ZSTD, 3, 1);
    }
    free(g);
    return 0;
}
