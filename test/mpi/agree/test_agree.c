/*
 * test_agree.c - the one "agree or fail" helper (collective.h, fti_agree)
 * on the ranks of one job (test/mpi/l1_agree.sh runs it on 4): when every
 * rank succeeds all return FTI_E_OK and no error is recorded; when one rank
 * fails it keeps its own code and message while every other rank fails with
 * the code and message "... on another rank" given to the helper.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "runtime/collective.h"
#include "base/log.h"
#include "../check.h"

static int rank, failures;

/* Every rank succeeds: OK everywhere, nothing recorded. */
static void all_succeed(void)
{
    fti_clear_error();
    fti_err e = fti_agree(MPI_COMM_WORLD, FTI_E_OK, FTI_E_IO, "step %d failed on another rank", 1);
    CHECK(e == FTI_E_OK, "all ok: got %s", fti_err_name(e));
    CHECK(fti_last_error()[0] == '\0', "all ok: an error was recorded");
}

/* Rank `bad` fails with its own error; the others get the helper's. */
static void one_fails(int bad)
{
    fti_clear_error();
    fti_err mine = FTI_E_OK;
    if (rank == bad)
        mine = fti_fail(FTI_E_CORRUPT, "rank %d: own reason", rank);
    fti_err e = fti_agree(MPI_COMM_WORLD, mine, FTI_E_CONFIG, "step on rank %d failed on another rank", bad);
    char want[64];
    if (rank == bad) {
        snprintf(want, sizeof want, "rank %d: own reason", rank);
        CHECK(e == FTI_E_CORRUPT, "failing rank: got %s, want its own CORRUPT", fti_err_name(e));
    } else {
        snprintf(want, sizeof want, "step on rank %d failed on another rank", bad);
        CHECK(e == FTI_E_CONFIG, "other rank: got %s, want CONFIG", fti_err_name(e));
    }
    CHECK(strcmp(fti_last_error(), want) == 0, "message '%s', want '%s'", fti_last_error(), want);
    CHECK(fti_last_error_code() == e, "recorded code %s differs from the returned %s",
          fti_err_name(fti_last_error_code()), fti_err_name(e));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    fti_log_setup(rank, 1);
    all_succeed();
    one_fails(0);
    one_fails(n - 1);
    all_succeed(); /* a failure leaves nothing behind for the next step */
    int all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("PASS: fti_agree on %d ranks: the failing rank keeps its error, the others say another rank failed\n", n);
    MPI_Finalize();
    return all != 0;
}
