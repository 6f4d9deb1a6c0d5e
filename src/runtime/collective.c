#include "runtime/collective.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"
#include "runtime/say_once.h"
#include "runtime/watchdog.h"

int fti_all_ok(MPI_Comm comm, int ok)
{
    int all = 0;
    fti_watched_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm, "agreement of all ranks");
    return all;
}

int fti_first_failed(MPI_Comm comm, int ok)
{
    int rank, first;
    MPI_Comm_rank(comm, &rank);
    int mine = ok ? INT_MAX : rank;
    fti_watched_allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, "checkpoint agreement");
    return first == INT_MAX ? -1 : first;
}

/* The vote on the wire: one element of six int64 (a derived type, so a
 * reduction never splits an element). */
enum { V_BYTES, V_FAILED, V_ID_LO, V_RANK_LO, V_ID_HI, V_RANK_HI, V_N };

/* Lexicographic (id, rank) order; `hi` ranks higher ids first. */
static int before(const int64_t *a, const int64_t *b, int hi)
{
    if (a[0] != b[0])
        return hi ? a[0] > b[0] : a[0] < b[0];
    return a[1] < b[1];
}

static void vote_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const int64_t *a = in;
    int64_t *b = inout;
    for (int i = 0; i < *len; i++, a += V_N, b += V_N) {
        b[V_BYTES] += a[V_BYTES];
        if (a[V_FAILED] < b[V_FAILED])
            b[V_FAILED] = a[V_FAILED];
        if (before(a + V_ID_LO, b + V_ID_LO, 0))
            b[V_ID_LO] = a[V_ID_LO], b[V_RANK_LO] = a[V_RANK_LO];
        if (before(a + V_ID_HI, b + V_ID_HI, 1))
            b[V_ID_HI] = a[V_ID_HI], b[V_RANK_HI] = a[V_RANK_HI];
    }
}

int fti_ckpt_vote_cast(MPI_Comm comm, uint64_t bytes, int ok, int64_t id, fti_ckpt_vote *v)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    int64_t mine[V_N] = {(int64_t)bytes, ok ? INT_MAX : rank, id, rank, id, rank}, all[V_N];
    /* The type and op are made and freed here (local calls): no state kept
     * between checkpoints. */
    MPI_Datatype type;
    MPI_Op op;
    MPI_Type_contiguous(V_N, MPI_INT64_T, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(vote_op, 1, &op);
    int rc = fti_watched_allreduce(mine, all, 1, type, op, comm, "checkpoint's agreement (size, "
                                   "success, id)");
    MPI_Op_free(&op);
    MPI_Type_free(&type);
    if (rc != MPI_SUCCESS) { /* no agreement reached: this rank's own part, failed */
        memcpy(all, mine, sizeof all);
        all[V_FAILED] = rank;
    }
    v->bytes = (uint64_t)all[V_BYTES];
    v->first_failed = all[V_FAILED] == INT_MAX ? -1 : (int)all[V_FAILED];
    v->id_lo = all[V_ID_LO], v->rank_lo = (int)all[V_RANK_LO];
    v->id_hi = all[V_ID_HI], v->rank_hi = (int)all[V_RANK_HI];
    return rc;
}

fti_err fti_agree(MPI_Comm comm, fti_err mine, fti_err code, const char *fmt, ...)
{
    if (fti_all_ok(comm, mine == FTI_E_OK))
        return FTI_E_OK;
    /* Failure only, so no collective on the path of success: the errors kept
     * unsaid (fti_log_defer) are printed once, by rank 0, with their ranks.
     * An error said already (not deferred) was said by its own rank. */
    fti_say_once(comm, FTI_LOG_ERROR, mine != FTI_E_OK ? fti_log_take_unsaid() : NULL);
    if (mine != FTI_E_OK)
        return mine; /* this rank's own message stays the last error */
    char msg[1024]; /* as long as the last error message */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* Recorded as this rank's last error, not printed: the failing ranks'
     * own messages above say what failed, once. */
    fti_log_quiet(1);
    fti_err e = fti_fail(code, "%s", msg);
    fti_log_quiet(0);
    return e;
}
