#include "collective.h"

#include <limits.h>

#include "watchdog.h"

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
