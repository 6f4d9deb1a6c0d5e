#include "base/walltime.h"

#include <stddef.h>
#include <sys/time.h>

double fti_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + 1e-6 * (double)tv.tv_usec;
}
