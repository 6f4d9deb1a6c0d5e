/* rs_ceiling.c - see rs_ceiling.h. */
#include "rs_ceiling.h"

#include <stdlib.h>

#include "format/rs_codec.h"
#ifdef BENCH_HAVE_JERASURE /* optional: found at configure time, bench only */
#include <jerasure.h>
#endif
#ifdef FTI_HAVE_ISAL
#include <isa-l/erasure_code.h>
#endif

const char *bench_rs_engine_name(int engine)
{
#ifdef FTI_HAVE_ISAL
    if (engine == BENCH_RS_ISAL)
        return "isa-l";
#endif
#ifdef BENCH_HAVE_JERASURE
    if (engine == BENCH_RS_JERASURE)
        return "jerasure";
#endif
    return NULL;
}

#ifdef FTI_HAVE_ISAL
static int isal_encode(const int *matrix, int k, int m, unsigned char **data,
                       unsigned char **parity, size_t len)
{
    unsigned char *coef = malloc((size_t)(k * m)), *tables = malloc((size_t)(32 * k * m));
    int rc = coef && tables ? 0 : -1;
    for (int i = 0; rc == 0 && i < k * m; i++)
        coef[i] = (unsigned char)matrix[i];
    if (rc == 0) {
        ec_init_tables(k, m, coef, tables);
        ec_encode_data((int)len, k, m, tables, data, parity);
    }
    free(coef);
    free(tables);
    return rc;
}
#endif

int bench_rs_encode(int engine, int k, int m, unsigned char **data, unsigned char **parity,
                    size_t len)
{
    if (bench_rs_engine_name(engine) == NULL)
        return -1;
    /* L3's matrix (k = m = the group size), the one test_rs_codec checks */
    fti_rs_code code;
    if (k != m || fti_rs_code_init(&code, k) != 0)
        return -1;
    int *matrix = malloc(sizeof(int) * (size_t)(k * m));
    if (matrix == NULL)
        return -1;
    for (int r = 0; r < m; r++)
        for (int c = 0; c < k; c++)
            matrix[r * k + c] = code.coef[r][c];
    int rc = 0;
#ifdef FTI_HAVE_ISAL
    if (engine == BENCH_RS_ISAL)
        rc = isal_encode(matrix, k, m, data, parity, len);
#endif
#ifdef BENCH_HAVE_JERASURE
    if (engine == BENCH_RS_JERASURE)
        jerasure_matrix_encode(k, m, 8, matrix, (char **)data, (char **)parity, (int)len);
#endif
    free(matrix);
    return rc;
}
