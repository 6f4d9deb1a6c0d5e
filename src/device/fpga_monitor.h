/*
 * fpga_monitor.h - the host side of in-kernel partial checkpointing (the
 * public calls are FTI_Fpga* in fti_device.h). Internals exposed here are
 * for the protocol's unit tests: they replace how a monitor agrees with the
 * other ranks and takes a checkpoint, replace its clock, and inject protocol
 * faults.
 */
#ifndef FTI_FPGA_MONITOR_H
#define FTI_FPGA_MONITOR_H

#include <stdint.h>

#include "fti_device.h"

/* Votes exchanged by the ranks each round, combined with MAX. */
enum {
    FTI_FPGA_VOTE_WANT,      /* new state to checkpoint */
    FTI_FPGA_VOTE_NOT_READY, /* blocking: the kernel is not waiting on us yet */
    FTI_FPGA_VOTE_BUSY,      /* the kernel is not done, or state is pending */
    FTI_FPGA_VOTE_ERROR,     /* rank + 1 of a rank that failed, else 0 */
    FTI_FPGA_VOTE_MOVED,     /* a kernel showed progress since the last round */
    FTI_FPGA_NVOTES
};

typedef struct fti_fpga_hooks {
    /* Combines every rank's votes (element-wise MAX) into out; 0 or -1. */
    int (*agree)(void *arg, const int64_t *in, int64_t *out);
    /* Takes checkpoint `id` at `level`; FTI_DONE on success. */
    int (*checkpoint)(void *arg, int id, int level);
    void *arg;
} fti_fpga_hooks;

/* Replaces the default (MPI_Iallreduce over FTI_COMM_WORLD, FTI_Checkpoint). */
void fti_fpga_set_hooks(FTI_FpgaMonitor *m, const fti_fpga_hooks *h);

/* The monitor's clock: seconds since any fixed origin, and a pause. */
typedef struct fti_fpga_clock {
    double (*now)(void *arg);
    void (*sleep_ns)(void *arg, long ns);
    void *arg;
} fti_fpga_clock;

/* Replaces the real clock (CLOCK_MONOTONIC, nanosleep) with a simulated
 * one: test/fpga/axi_model.c runs the monitor in simulated time. */
void fti_fpga_set_clock(FTI_FpgaMonitor *m, const fti_fpga_clock *c);

/* Fault injection: the flagB writes acknowledging blocks >= from_block are
 * lost, `count` of them (the kernel must re-raise and the host re-send). */
void fti_fpga_drop_acks(FTI_FpgaMonitor *m, int64_t from_block, int count);

/* Fault injection: take slot copies without checking their sequence
 * numbers, so a test can show that it sees torn copies when unprotected. */
void fti_fpga_trust_slots(FTI_FpgaMonitor *m, int on);

#endif /* FTI_FPGA_MONITOR_H */
