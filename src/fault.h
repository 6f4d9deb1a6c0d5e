/*
 * fault.h - in-library fault points, off unless the FTI_FAULT environment
 * variable names them (grammar in docs/FAULTS.md). When off, each point is
 * one predictable branch on a global flag.
 */
#ifndef FTI_FAULT_H
#define FTI_FAULT_H

#include <stddef.h>
#include <sys/types.h>

extern int fti_fault_enabled;

/* Parses FTI_FAULT for this (application or global) rank. Returns 0, or -1
 * with a message when the variable is malformed. */
int fti_fault_init(int rank);

int fti_fault_write_hook(int fd, size_t n, off_t off);
void fti_fault_phase_hook(const char *phase, const char *file);

/* Before each checkpoint write: may fail it with an injected errno. */
static inline int fti_fault_on_write(int fd, size_t n, off_t off)
{
    return fti_fault_enabled ? fti_fault_write_hook(fd, n, off) : 0;
}

/* At a named phase: may _exit the process, or damage `file` (may be NULL). */
static inline void fti_fault_phase(const char *phase, const char *file)
{
    if (fti_fault_enabled)
        fti_fault_phase_hook(phase, file);
}

#endif /* FTI_FAULT_H */
