/*
 * phase_clock.h - where a level's post-processing spends its time. The
 * levels add the seconds of each phase (reading the own file, waiting for
 * messages, writing the received bytes, ...) to a clock of the calling
 * thread; the checkpoint resets it before the post and reads it after, for
 * its metrics line (post_<phase>_s) and bench_levels. Phases may overlap
 * (a writer thread beside the transfer): their sum is not post_s.
 */
#ifndef FTI_PHASE_CLOCK_H
#define FTI_PHASE_CLOCK_H

typedef enum fti_post_phase {
    FTI_PP_READ,   /* reading or mapping the own file to send it */
    FTI_PP_SEND,   /* waiting for sent messages to leave */
    FTI_PP_RECV,   /* waiting for messages to arrive */
    FTI_PP_WRITE,  /* writing received bytes or parity (a writer thread's busy time) */
    FTI_PP_SYNC,   /* fsync, truncate, rename of the written file */
    FTI_PP_VERIFY, /* hashing the written bytes */
    FTI_PP_GATHER, /* L3: waiting for the members' pieces */
    FTI_PP_ENCODE, /* L3: computing the parity */
    FTI_PP_AGREE,  /* agreements between the members */
    FTI_PP_N
} fti_post_phase;

/* "read", "send", ...: the metrics keys are post_<name>_s. */
extern const char *const fti_post_phase_name[FTI_PP_N];

/* This thread's clock back to zero. */
void fti_phase_reset(void);

/* Adds the seconds since t0 (fti_now()) to phase p of this thread's clock;
 * returns now, the start of whatever comes next. */
double fti_phase_since(fti_post_phase p, double t0);

/* Adds secs to phase p (another thread's measured time, handed over). */
void fti_phase_add(fti_post_phase p, double secs);

/* This thread's clock, FTI_PP_N values in seconds. */
void fti_phase_read(double out[FTI_PP_N]);

#endif /* FTI_PHASE_CLOCK_H */
