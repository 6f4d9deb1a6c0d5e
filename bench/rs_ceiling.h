/*
 * rs_ceiling.h - one core's Reed-Solomon encode through jerasure's or ISA-L's
 * own whole-matrix call, used directly: the ceiling that L3's encode is
 * measured against, not a second implementation (the library's one code is
 * src/format/rs_codec.c). Same matrix as L3 (jerasure's Vandermonde, from
 * rs_codec). The jerasure engine exists only where the bench's configure
 * found jerasure (the library no longer uses it). k must equal m.
 */
#ifndef FTI_BENCH_RS_CEILING_H
#define FTI_BENCH_RS_CEILING_H

#include <stddef.h>

#define BENCH_RS_JERASURE 0
#define BENCH_RS_ISAL 1

/* "jerasure" or "isa-l"; NULL when this build lacks the engine. */
const char *bench_rs_engine_name(int engine);

/* Encodes k data chunks of len bytes into m parity chunks (16-byte aligned
 * pointers, len a multiple of 64). 0, or -1 (engine not built, no memory). */
int bench_rs_encode(int engine, int k, int m, unsigned char **data, unsigned char **parity,
                    size_t len);

#endif /* FTI_BENCH_RS_CEILING_H */
