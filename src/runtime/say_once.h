/*
 * say_once.h - a message that many ranks would print alike, printed once by
 * rank 0 with the ranks it concerns ("... (on ranks 0-31)", "... (on 3
 * ranks: 7, 19, 22)"), so that a job's log does not grow with its size.
 * Only for points that are collective anyway (a failed agreement), never
 * on the path of a successful checkpoint.
 */
#ifndef FTI_SAY_ONCE_H
#define FTI_SAY_ONCE_H

#include <mpi.h>
#include <stddef.h>

/* Collective over comm: each rank passes its message (NULL or "": none);
 * rank 0 prints each distinct message once, at `level`, followed by the
 * ranks that said it. A message only one rank of several says names that
 * rank. Not thread-safe (the calling thread's collective). */
void fti_say_once(MPI_Comm comm, int level, const char *msg);

/* "ranks 0-3, 7" / "rank 5" / "3 ranks: 7, 19, 22" for the `n` ascending
 * ranks in `r`, into buf (truncated with "..."). Local. */
void fti_ranks_phrase(const int *r, int n, char *buf, size_t len);

#endif /* FTI_SAY_ONCE_H */
