/*
 * bench_util.h - helpers shared by the benchmarks in bench/: timing across
 * ranks, medians, the machine's own write ceilings, scratch directories.
 * Benchmarks are tools, not library code: on an I/O error they report the
 * file and errno and stop the whole job.
 */
#ifndef FTI_BENCH_UTIL_H
#define FTI_BENCH_UTIL_H

#include <mpi.h>
#include <stddef.h>

/* Median of n values (n >= 1); sorts `v` in place. */
/* argv[1] is -h or --help: prints usage to stdout and returns 1 (the
 * bench then exits 0, before MPI_Init); else 0. */
int bench_answered_help(int argc, char **argv, const char *usage);

double bench_median(double *v, int n);

/* Collective. The largest of every rank's `t` (on all ranks). */
double bench_max(double t, MPI_Comm comm);

/* Fills `len` bytes with a cheap pseudo-random pattern (no zero pages, so
 * no storage layer can take a shortcut). */
void bench_fill(void *buf, size_t len, unsigned seed);

/* Allocates `len` bytes aligned to 4 KiB, filled by bench_fill; aborts the
 * job when out of memory. */
void *bench_alloc(size_t len, unsigned seed);

/* open(flags) + write all of buf + fsync + close. Aborts the job on error,
 * naming the file. `flags` picks a fresh file (O_CREAT|O_EXCL) or an
 * overwrite in place (no O_TRUNC). */
void bench_write_file(const char *path, int flags, const void *buf, size_t len);

/* Collective. Rank 0 creates a fresh directory `base`/`prefix`XXXXXX and
 * every rank gets its path in `out` (size `cap`). Aborts on error. */
void bench_mkdtemp(const char *base, const char *prefix, char *out, size_t cap, MPI_Comm comm);

/* Removes `path` and everything below it; 0 or -1 (errno set). */
int bench_rmtree(const char *path);

/* Collective. Times `fn(arg)` on every rank between two barriers and
 * returns the slowest rank's seconds. */
double bench_timed(void (*fn)(void *), void *arg, MPI_Comm comm);

/* The 1-minute load average (/proc/loadavg), -1 when unknown: printed
 * beside timings so a loaded machine is visible in the result. */
double bench_loadavg(void);

/* The three load averages as text ("unknown" when unreadable), for the
 * benches that print them at the start and the end of a run. */
void bench_loadavg_text(char *out, size_t cap);

#endif /* FTI_BENCH_UTIL_H */
