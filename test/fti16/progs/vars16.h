/*
 * vars16.h - the variables of the FTI 1.6 import test, shared by write16.c
 * (built against FTI 1.6 to make the test data) and read16.c (built against
 * us to restart from the import). Each byte is a function of rank, variable
 * and position, so a restored buffer is checked without a copy of the data.
 * Include it after fti.h (FTI 1.6's or ours: both name the same calls).
 */
#ifndef FTI16_VARS_H
#define FTI16_VARS_H

#include <stddef.h>
#include <stdint.h>

enum { V16_NI = 37, V16_ND = 100, V16_NC = 13, V16_NS = 5 };

typedef struct v16_pair {
    int32_t a;
    double b;
} v16_pair;

typedef struct v16_vars {
    int32_t ints[V16_NI];     /* id 0, FTI_INTG */
    double dbls[V16_ND];      /* id 1, FTI_DBLE */
    char chars[V16_NC];       /* id 2, FTI_CHAR */
    int64_t step;             /* id 7, FTI_LONG (a gap in the ids) */
    v16_pair pairs[V16_NS];   /* id 9, a type of FTI_InitType(sizeof) */
} v16_vars;

static inline void v16_fill(v16_vars *v, int rank)
{
    for (int i = 0; i < V16_NI; i++)
        v->ints[i] = rank * 1000 + i * 7 - 5;
    for (int i = 0; i < V16_ND; i++)
        v->dbls[i] = rank + i * 0.25 + 1.0 / 3.0;
    for (int i = 0; i < V16_NC; i++)
        v->chars[i] = (char)('a' + (rank * 3 + i) % 26);
    v->step = 4200000000LL + rank;
    for (int i = 0; i < V16_NS; i++) {
        v->pairs[i].a = -rank - i;
        v->pairs[i].b = rank * 0.5 - i * 1.5;
    }
}

/* The writer's and the reader's registration: the same ids, counts and
 * types on both sides, or the import would not match. */
static inline void v16_protect(v16_vars *v)
{
    fti_id_t pair_t;
    FTI_InitType(&pair_t, sizeof(v16_pair));
    FTI_Protect(0, v->ints, V16_NI, FTI_INTG);
    FTI_Protect(1, v->dbls, V16_ND, FTI_DBLE);
    FTI_Protect(2, v->chars, V16_NC, FTI_CHAR);
    FTI_Protect(7, &v->step, 1, FTI_LONG);
    FTI_Protect(9, v->pairs, V16_NS, pair_t);
}

#endif
