/*
 * schedule.h - when FTI_Snapshot checkpoints. Intervals in iterations are
 * exact and need no communication. Intervals in minutes (FTI) or seconds
 * are turned into iteration numbers at sync points, where one reduction
 * gives every rank the same elapsed time; the sync step doubles up to
 * max_sync_intv while it spans little time (a 16th of the shortest
 * interval), so ranks agree on every decision without a collective on
 * every call. As in FTI, sync points fall on multiples of the step, a
 * time-based checkpoint runs at the iteration planned at the last sync
 * (FTI's "Next ckpt. at iter." debug line), and fast_forward divides the
 * time intervals.
 *
 * Slot FTI_SCHED_DCP holds the differential L4 interval (dcp_l4 and its
 * _sec/_iter forms); when due it yields level 8 (FTI_L4_DCP). As in FTI, a
 * full L4 due at the same iteration wins over it, and it wins over L1-L3.
 */
#ifndef FTI_SCHEDULE_H
#define FTI_SCHEDULE_H

#include <mpi.h>
#include <stdint.h>

#include "format/config.h"

#define FTI_SCHED_DCP 5 /* slot of the dCP L4 interval */
#define FTI_SCHED_SLOTS 6

typedef struct fti_schedule {
    uint64_t iter;              /* FTI_Snapshot calls so far */
    double t0;                  /* start, local clock */
    double period[FTI_SCHED_SLOTS];           /* seconds, 0 = no time interval for the level */
    int every[FTI_SCHED_SLOTS];               /* iterations, 0 = none */
    double due[FTI_SCHED_SLOTS];              /* agreed elapsed time at which level is due */
    uint64_t planned[FTI_SCHED_SLOTS];        /* iteration at which a time-based level runs (0 = none) */
    uint64_t next_ckpt;         /* the earliest planned at the last sync; 0 after a checkpoint */
    uint64_t next_sync;         /* iteration of the next sync point, a multiple of step */
    uint64_t step, max_step;
    uint64_t last_sync_iter;
    double last_sync_time;      /* agreed elapsed time at the last sync */
    double iter_len;            /* agreed seconds per iteration */
    double min_period;          /* shortest time interval of any level, seconds */
    int has_time;
} fti_schedule;

void fti_schedule_init(fti_schedule *s, const fti_config *cfg);

/* Collective at sync points (every rank calls it once per FTI_Snapshot).
 * Returns the level due at this iteration (the highest due; 8 for a due
 * dCP checkpoint), or 0. */
int fti_schedule_tick(fti_schedule *s, MPI_Comm comm);

/* A checkpoint of `level` was taken: resets time-based levels <= level
 * (an L4 checkpoint, full or differential, resets the dCP interval too). */
void fti_schedule_taken(fti_schedule *s, int level);

#endif /* FTI_SCHEDULE_H */
