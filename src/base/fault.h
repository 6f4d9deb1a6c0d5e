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

/* X(ID, name, writes): every point of the library a crash, delay, flip or
 * truncate may name, the one table of their names (FTI_FAULT, docs/FAULTS.md,
 * tools/fti-fault's PHASE_NEEDS, checked by test_fault). `writes`: the phase
 * has just written a file that a flip or truncate may damage. A call site
 * names its phase by enum, so a misspelt one does not compile. */
#define FTI_FAULT_PHASES(X)                                                     \
    X(AFTER_LOCAL_WRITE, "after_local_write", 1)                                \
    X(L2_SEND, "l2_send", 1)                                                    \
    X(L3_ENCODE, "l3_encode", 1)                                                \
    X(L4_FLUSH, "l4_flush", 1)                                                  \
    X(DCP_LAYER, "dcp_layer", 1)                                                \
    X(H5_WRITE, "h5_write", 1)                                                  \
    X(BEFORE_COMMIT, "before_commit", 0)                                        \
    X(AFTER_COMMIT, "after_commit", 0)                                          \
    X(RECOVERY, "recovery", 0)                                                  \
    X(STAGED, "staged", 0)                                                      \
    X(REPAIR, "repair", 0)                                                      \
    X(REJOIN, "rejoin", 0)

typedef enum fti_phase {
#define FTI_PHASE_ENUM(id, name, writes) FTI_PHASE_##id,
    FTI_FAULT_PHASES(FTI_PHASE_ENUM)
#undef FTI_PHASE_ENUM
    FTI_PHASE_COUNT
} fti_phase;

/* The phase's name in FTI_FAULT ("?" outside the table). */
const char *fti_fault_phase_name(fti_phase phase);

/* The phase named `name`, or -1 when the table has no such name. */
int fti_fault_phase_by_name(const char *name);

/* Writes the table's names, comma-separated, into buf (those that write a
 * file only, when files_only): for the messages that list them. */
void fti_fault_phase_list(char *buf, size_t size, int files_only);

/* Parses FTI_FAULT for this global rank of a job of nranks. Returns 0, or -1
 * with a message when the variable is malformed (an @R outside the job too). */
int fti_fault_init(int rank, int nranks);

int fti_fault_write_hook(int fd, size_t n, off_t off);
void fti_fault_phase_hook(fti_phase phase);
void fti_fault_wrote_hook(fti_phase phase, const char *file, uint64_t off, uint64_t len);

/* Before each checkpoint write: may fail it with an injected errno. */
static inline int fti_fault_on_write(int fd, size_t n, off_t off)
{
    return fti_fault_enabled ? fti_fault_write_hook(fd, n, off) : 0;
}

/* A named phase is reached: a crash point may _exit the process here. */
static inline void fti_fault_phase(fti_phase phase)
{
    if (fti_fault_enabled)
        fti_fault_phase_hook(phase);
}

/* A phase has written `file` (the local file, the partner copy, the parity
 * file, the global copy): a flip or truncate point damages it here, inside
 * this rank's bytes [off, off + len) of a shared file (len 0: the whole file). */
static inline void fti_fault_wrote(fti_phase phase, const char *file, uint64_t off, uint64_t len)
{
    if (fti_fault_enabled)
        fti_fault_wrote_hook(phase, file, off, len);
}

#endif /* FTI_FAULT_H */
