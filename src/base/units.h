/*
 * units.h - sizes and rates for people: three significant digits and a unit
 * that keeps the number at 1 or above ("4.00 KiB", "85.3 MB/s", "1.25 GB/s"),
 * so a small checkpoint never reads "0.00 GB/s".
 */
#ifndef FTI_UNITS_H
#define FTI_UNITS_H

#include <stddef.h>

#define FTI_UNITS_LEN 24

/* Bytes in binary units: B, KiB, MiB, GiB, TiB. Returns out. */
const char *fti_format_bytes(char out[FTI_UNITS_LEN], double bytes);

/* A rate in decimal units: B/s, kB/s, MB/s, GB/s, TB/s ("-" when secs <= 0). Returns out. */
const char *fti_format_rate(char out[FTI_UNITS_LEN], double bytes, double secs);

#endif /* FTI_UNITS_H */
