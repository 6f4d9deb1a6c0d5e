#include "runtime/collective.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "base/log.h"
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

fti_err fti_agree(MPI_Comm comm, fti_err mine, fti_err code, const char *fmt, ...)
{
    if (fti_all_ok(comm, mine == FTI_E_OK))
        return FTI_E_OK;
    if (mine != FTI_E_OK)
        return mine; /* this rank's own message stays the last error */
    char msg[1024]; /* as long as the last error message */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fti_fail(code, "%s", msg);
}
