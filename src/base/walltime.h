/*
 * walltime.h - the library's clock: wall-clock seconds, for the timings of
 * checkpoints and restores (metrics, the watchdog's yardstick, log lines).
 */
#ifndef FTI_WALLTIME_H
#define FTI_WALLTIME_H

/* Seconds since the epoch, with microseconds. Local, thread-safe. */
double fti_now(void);

#endif /* FTI_WALLTIME_H */
