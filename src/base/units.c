#include "base/units.h"

#include <stdio.h>

/* value with three significant digits (no decimals at 100 and above). */
static const char *three_digits(char out[FTI_UNITS_LEN], double v, const char *unit)
{
    int decimals = v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
    snprintf(out, FTI_UNITS_LEN, "%.*f %s", decimals, v, unit);
    return out;
}

static const char *scaled(char out[FTI_UNITS_LEN], double v, double base, const char *const *units,
                          int nunits)
{
    int u = 0;
    while (v >= base * 0.9995 && u < nunits - 1) { /* 1023.9 KiB reads "1.00 MiB" */
        v /= base;
        u++;
    }
    if (u == 0 && v == (double)(long long)v) {
        snprintf(out, FTI_UNITS_LEN, "%lld %s", (long long)v, units[0]);
        return out;
    }
    return three_digits(out, v, units[u]);
}

const char *fti_format_bytes(char out[FTI_UNITS_LEN], double bytes)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    return scaled(out, bytes, 1024.0, units, 5);
}

const char *fti_format_rate(char out[FTI_UNITS_LEN], double bytes, double secs)
{
    static const char *const units[] = {"B/s", "kB/s", "MB/s", "GB/s", "TB/s"};
    if (secs <= 0) {
        snprintf(out, FTI_UNITS_LEN, "-");
        return out;
    }
    return scaled(out, bytes / secs, 1000.0, units, 5);
}
