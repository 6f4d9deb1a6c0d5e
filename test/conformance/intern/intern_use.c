/*
 * intern_use - an application written against FTI 1.6's internal header:
 * it includes only <fti-intern.h> (not fti.h) and uses what such code takes
 * from it: the API, FTI_BUFS / FTI_WORD, the level constants, the I/O mode
 * and verbosity ids, LOCAL / GLOBAL, MD5_DIGEST_LENGTH, the type-table
 * limits, FTI_ADDRVAL, the FTIT_double bit view, DBG_MSG, and the C headers
 * it brings (printf, memcpy, strrchr, getpid without their own includes).
 * Built by conformance_intern_header against an installed FTI.
 *
 *   intern_use CONFIG   checkpoint an array of FTIT_double at FTI_L1, change
 *                       it, FTI_Recover in place: every byte back. Rank 0
 *                       prints (DBG_MSG) "intern: PASS <bad> <levels>".
 */
#include <fti-intern.h>

/* FTI 1.6's values. */
_Static_assert(FTI_BUFS == 256 && FTI_WORD == 16, "buffer sizes");
_Static_assert(FTI_L1 == 1 && FTI_L2 == 2 && FTI_L3 == 3 && FTI_L4 == 4, "levels");
_Static_assert(FTI_L4_DCP == 8 && FTI_L4_H5_SINGLE == 9, "levels 8, 9");
_Static_assert(FTI_IO_POSIX == 1001 && FTI_IO_MPI == 1002 && FTI_IO_HDF5 == 1005, "I/O ids");
_Static_assert(FTI_DBUG == 1 && FTI_INFO == 2 && FTI_WARN == 3 && FTI_EROR == 4, "verbosity");
_Static_assert(LOCAL == 0 && GLOBAL == 1 && FTI_ENDW == 995, "LOCAL, GLOBAL, FTI_ENDW");
_Static_assert(MD5_DIGEST_LENGTH == 16 && MD5_DIGEST_STRING_LENGTH == 33, "MD5 lengths");
_Static_assert(TYPES_MAX == 64 && TYPES_DIMENSION_MAX == 32 && TYPES_FIELDS_MAX == 128 &&
               MAX_STACK_SIZE == 10, "type limits");
_Static_assert(FTI_DEFAULT_MAX_VAR_ID == 102400 && FTI_LIMIT_MAX_VAR_ID == INT_MAX, "var ids");
_Static_assert(sizeof(FTIT_double) == 8 && sizeof(FTIT_float) == 4, "bit views");
_Static_assert(sizeof(FTI_ADDRVAL) == sizeof(FTI_ADDRPTR), "address types");

#define N 4096

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2 || FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES) {
        fprintf(stderr, "usage: intern_use CONFIG (FTI_Init failed)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    static FTIT_double a[N], want[N];
    for (int i = 0; i < N; i++) {
        a[i].value = rank * 1e6 + i * 0.25;
        a[i].byte[0] ^= (char)(i & 0x7f); /* a bit-level edit through the view */
    }
    memcpy(want, a, sizeof a);
    FTI_Protect(1, a, N, FTI_DBLE);
    long bad = FTI_Checkpoint(1, FTI_L1) != FTI_DONE;
    FTI_ADDRVAL mid = (FTI_ADDRVAL)(FTI_ADDRPTR)a + sizeof a / 2;
    memset((FTI_ADDRPTR)mid, 0xab, sizeof a / 2);
    bad += FTI_Recover() != FTI_SCES;
    for (int i = 0; i < N; i++)
        bad += memcmp(a[i].byte, want[i].byte, sizeof a[i].byte) != 0;
    long total = 0;
    MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, FTI_COMM_WORLD);
    char levels[FTI_BUFS];
    snprintf(levels, sizeof levels, "L%d-L%d pid-ok %d", FTI_L1, FTI_L4, getpid() > 0);
    DBG_MSG("intern: %s %ld %s", 0, total ? "FAIL" : "PASS", total, levels);
    FTI_Finalize();
    MPI_Finalize();
    return total != 0;
}
