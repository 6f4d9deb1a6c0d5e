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
#include <stdint.h>

#include "base/error.h"

/* Collective: every rank says whether it succeeded; 1 when all did. */
int fti_all_ok(MPI_Comm comm, int ok);

/* Collective: ends a step in which this rank's part returned `mine` (its
 * message already recorded where it failed). Every rank returns FTI_E_OK
 * when all succeeded; otherwise a rank that failed returns its own error
 * and the others fail with `code` and the message formatted from fmt, which
 * says what failed "on another rank". The one "agree or fail" rule: no rank
 * goes on alone into a later collective. */
fti_err fti_agree(MPI_Comm comm, fti_err mine, fti_err code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Collective: the lowest rank that failed, or -1 when every rank succeeded. */
int fti_first_failed(MPI_Comm comm, int ok);

/* What the ranks of a checkpoint agree on after writing it, in one
 * reduction: the total size, the first rank that failed, and whether they
 * all passed the same checkpoint id (else the lowest and highest id, each
 * with the lowest rank that passed it). */
typedef struct fti_ckpt_vote {
    uint64_t bytes;   /* sum over the ranks */
    int first_failed; /* -1: none */
    int64_t id_lo, id_hi;
    int rank_lo, rank_hi;
} fti_ckpt_vote;

/* Collective over comm: this rank wrote `bytes`, succeeded (ok) and was
 * asked for checkpoint `id`. Returns MPI's code; the vote in *v. */
int fti_ckpt_vote_cast(MPI_Comm comm, uint64_t bytes, int ok, int64_t id, fti_ckpt_vote *v);

#endif /* FTI_COLLECTIVE_H */
