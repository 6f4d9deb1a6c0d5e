/*
 * fault.h - in-library fault points, off unless the FTI_FAULT environment
 * variable names them (grammar in docs/FAULTS.md). When off, each point is
 * one predictable branch on a global flag.
 */
#ifndef FTI_FAULT_H
#define FTI_FAULT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

extern int fti_fault_enabled;

/* Parses FTI_FAULT for this global rank of a job of nranks. Returns 0, or -1
 * with a message when the variable is malformed (an @R outside the job too). */
int fti_fault_init(int rank, int nranks);

int fti_fault_write_hook(int fd, size_t n, off_t off);
void fti_fault_phase_hook(const char *phase);
void fti_fault_wrote_hook(const char *phase, const char *file, uint64_t off, uint64_t len);

/* Before each checkpoint write: may fail it with an injected errno. */
static inline int fti_fault_on_write(int fd, size_t n, off_t off)
{
    return fti_fault_enabled ? fti_fault_write_hook(fd, n, off) : 0;
}

/* A named phase is reached: a crash point may _exit the process here. */
static inline void fti_fault_phase(const char *phase)
{
    if (fti_fault_enabled)
        fti_fault_phase_hook(phase);
}

/* A phase has written `file` (the local file, the partner copy, the parity
 * file, the global copy): a flip or truncate point damages it here, inside
 * this rank's bytes [off, off + len) of a shared file (len 0: the whole file). */
static inline void fti_fault_wrote(const char *phase, const char *file, uint64_t off, uint64_t len)
{
    if (fti_fault_enabled)
        fti_fault_wrote_hook(phase, file, off, len);
}

#endif /* FTI_FAULT_H */
