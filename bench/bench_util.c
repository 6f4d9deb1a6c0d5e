/* bench_util.c - see bench_util.h. */
#define _GNU_SOURCE
#include "bench_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double bench_max(double t, MPI_Comm comm)
{
    double m = 0.0;
    MPI_Allreduce(&t, &m, 1, MPI_DOUBLE, MPI_MAX, comm);
    return m;
}

void bench_fill(void *buf, size_t len, unsigned seed)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ seed, *w = buf;
    for (size_t i = 0; i < len / 8; i++) {
        x ^= x << 13; /* xorshift64 */
        x ^= x >> 7;
        x ^= x << 17;
        w[i] = x;
    }
    memset((char *)buf + len / 8 * 8, 0x5a, len % 8);
}

void *bench_alloc(size_t len, unsigned seed)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, len ? len : 1) != 0) {
        fprintf(stderr, "bench: cannot allocate %zu bytes\n", len);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    bench_fill(p, len, seed);
    return p;
}

static void io_fail(const char *what, const char *path)
{
    fprintf(stderr, "bench: %s '%s': %s\n", what, path, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, 1);
}

void bench_write_file(const char *path, int flags, const void *buf, size_t len)
{
    int fd = open(path, O_WRONLY | flags, 0644);
    if (fd < 0)
        io_fail("open", path);
    for (size_t done = 0; done < len;) {
        ssize_t n = write(fd, (const char *)buf + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            io_fail("write", path);
        done += (size_t)n;
    }
    if (fsync(fd) != 0)
        io_fail("fsync", path);
    if (close(fd) != 0)
        io_fail("close", path);
}

void bench_mkdtemp(const char *base, const char *prefix, char *out, size_t cap, MPI_Comm comm)
{
    int rank, ok = 1;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        snprintf(out, cap, "%s/%sXXXXXX", base, prefix);
        if (!mkdtemp(out)) {
            fprintf(stderr, "bench: cannot create a directory in '%s': %s\n", base,
                    strerror(errno));
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (!ok)
        MPI_Abort(comm, 1);
    MPI_Bcast(out, (int)cap, MPI_CHAR, 0, comm);
}

static int rm_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb, (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

int bench_rmtree(const char *path)
{
    return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

double bench_timed(void (*fn)(void *), void *arg, MPI_Comm comm)
{
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    fn(arg);
    double t = MPI_Wtime() - t0;
    MPI_Barrier(comm);
    return bench_max(t, comm);
}

void bench_loadavg_text(char *out, size_t cap)
{
    FILE *f = fopen("/proc/loadavg", "r");
    double a = 0, b = 0, c = 0;
    if (f == NULL || fscanf(f, "%lf %lf %lf", &a, &b, &c) != 3)
        snprintf(out, cap, "unknown");
    else
        snprintf(out, cap, "%.2f %.2f %.2f", a, b, c);
    if (f != NULL)
        fclose(f);
}

double bench_loadavg(void)
{
    double l = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f != NULL) {
        if (fscanf(f, "%lf", &l) != 1)
            l = -1;
        fclose(f);
    }
    return l;
}

int bench_answered_help(int argc, char **argv, const char *usage)
{
    if (argc < 2 || (strcmp(argv[1], "-h") != 0 && strcmp(argv[1], "--help") != 0))
        return 0;
    fputs(usage, stdout);
    return 1;
}
