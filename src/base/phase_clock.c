#include "base/phase_clock.h"

#include <string.h>

#include "base/walltime.h"

const char *const fti_post_phase_name[FTI_PP_N] = {"read",   "send",   "recv",   "write", "sync",
                                                   "verify", "gather", "encode", "agree"};

/* Per thread: a head or the helper thread posts beside the application. */
static _Thread_local double clock_s[FTI_PP_N];

void fti_phase_reset(void)
{
    memset(clock_s, 0, sizeof clock_s);
}

void fti_phase_add(fti_post_phase p, double secs)
{
    clock_s[p] += secs;
}

double fti_phase_since(fti_post_phase p, double t0)
{
    double now = fti_now();
    clock_s[p] += now - t0;
    return now;
}

void fti_phase_read(double out[FTI_PP_N])
{
    memcpy(out, clock_s, sizeof clock_s);
}
