/*
 * collective.h - the agreement steps that end every collective operation:
 * each rank says whether its part succeeded, and all ranks leave with the
 * same answer (watched by the watchdog, so a rank that never arrives is
 * named instead of hanging silently). Used by the checkpoint orchestrator,
 * recovery and the levels alike.
 */
#ifndef FTI_COLLECTIVE_H
#define FTI_COLLECTIVE_H

#include <mpi.h>

/* Collective: every rank says whether it succeeded; 1 when all did. */
int fti_all_ok(MPI_Comm comm, int ok);

/* Collective: the lowest rank that failed, or -1 when every rank succeeded. */
int fti_first_failed(MPI_Comm comm, int ok);

#endif /* FTI_COLLECTIVE_H */
