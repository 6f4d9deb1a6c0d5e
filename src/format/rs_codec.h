/*
 * rs_codec.h - the Reed-Solomon code of level 3, and the only one in the
 * library: a group of G members, G data chunks (the members' local files)
 * and G parity chunks over GF(2^8) (polynomial 0x11d) with jerasure's
 * Vandermonde-derived G x G coding matrix. No MPI and no files: the
 * arithmetic each member applies to its own chunks, which L3 runs on
 * pieces of the files as they stream through the group, tools use to plan
 * a rebuild, and unit tests drive with every member in one process.
 *
 * The code is byte-wise: byte x of a parity chunk depends only on byte x of
 * the data chunks, so any piece size gives the same parity.
 *
 * Buffers passed here come from fti_gf_alloc and lengths are multiples of
 * FTI_GF_ALIGN (gf_region.h). Thread safety: a code and a plan are
 * read-only once built; building them is safe from any thread.
 */
#ifndef FTI_RS_CODEC_H
#define FTI_RS_CODEC_H

#include <stddef.h>

#include "format/config.h" /* FTI_GROUP_MAX */

/* Largest group (the topology's bound on group_size). */
#define FTI_RS_MAX_G FTI_GROUP_MAX /* config.h: [basic] group_size bound */

/* Chunk ids: data chunk of member i is i, its parity chunk is G + i. */
typedef struct fti_rs_code {
    int g;
    int coef[FTI_RS_MAX_G][FTI_RS_MAX_G]; /* parity row j, data column i */
} fti_rs_code;

/* How to rebuild lost chunks from G survivors: chunk lost[t] is the sum
 * over col of row[t][col] * chunk pick[col]. lost[] is in id order, so
 * lost data chunks come first. */
typedef struct fti_rs_plan {
    int g, nlost;
    int pick[FTI_RS_MAX_G];
    int lost[2 * FTI_RS_MAX_G];
    int row[2 * FTI_RS_MAX_G][FTI_RS_MAX_G];
} fti_rs_plan;

/* Builds the code of a group of g members, 2 <= g <= FTI_RS_MAX_G.
 * 0, or -1 when g is out of range or memory ran out. */
int fti_rs_code_init(fti_rs_code *code, int g);

/* Parity chunk `row` of the group, over len bytes: out = sum over i of
 * coef[row][i] * data[i]. What L3's member `row` computes. */
void fti_rs_parity(const fti_rs_code *code, int row, unsigned char *const *data, unsigned char *out,
                   size_t len);

/* Plans the rebuild of every chunk not present (have_data[i] == 0: data
 * chunk i lost; have_parity[i] == 0: parity chunk i lost) from G present
 * chunks, data first. 0, or -1 when fewer than G chunks are left. */
int fti_rs_plan_rebuild(const fti_rs_code *code, const int *have_data, const int *have_parity,
                        fti_rs_plan *plan);

/* Adds present chunk `id`'s share of lost chunk t (0 <= t < nlost) into
 * acc: acc ^= row[t][col] * src for the col where pick[col] == id; nothing
 * when id is not one of the picked survivors. Summing the shares of all
 * survivors (XOR) gives the lost chunk. */
void fti_rs_share(const fti_rs_plan *plan, int t, int id, const unsigned char *src,
                  unsigned char *acc, size_t len);

/* Whether chunk id is one of the picked survivors (it has shares to give). */
int fti_rs_picked(const fti_rs_plan *plan, int id);

/* Whether chunk id is one the plan re-creates. */
int fti_rs_planned(const fti_rs_plan *plan, int id);

/* Keeps only the lost data chunks in the plan (the application's bytes):
 * lost parity is then re-created by a later plan, once the data is back. */
void fti_rs_plan_drop_parity(fti_rs_plan *plan);

#endif /* FTI_RS_CODEC_H */
