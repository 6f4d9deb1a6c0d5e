/*
 * ulfm.h - online recovery ([basic] online_recovery = 1): with an MPI that
 * has the fault-tolerance extensions (ULFM: MPIX_Comm_revoke, _shrink,
 * _agree), a failed rank of FTI_COMM_WORLD is replaced by a spare rank
 * while the job runs. This module owns the MPI side: whether the MPI can,
 * the spares, and the repair of the communicator; core/online.c drives the
 * rollback. Built without ULFM (FTI_HAVE_ULFM undefined), a config asking
 * for it is refused by fti_ulfm_check.
 */
#ifndef FTI_ULFM_H
#define FTI_ULFM_H

#include <mpi.h>
#include <stddef.h>

#include "base/error.h"
#include "format/config.h"

/* 1 when this library was built against an MPI with ULFM. */
int fti_ulfm_built(void);

/* The MPI library's name and version, on one line (MPI_Get_library_version's
 * first line, spaces collapsed), for messages. */
void fti_ulfm_mpi_name(char *out, size_t n);

/* Not collective (every rank reads the same config and the same MPI):
 * FTI_E_CONFIG naming the file and the key when online_recovery = 1 cannot
 * be served here (no ULFM in this MPI, or spare_ranks leaving no rank to
 * run the application on `comm_size` ranks). */
fti_err fti_ulfm_check(const fti_config *cfg, int comm_size);

#endif /* FTI_ULFM_H */
