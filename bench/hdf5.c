/*
 * hdf5 - L4 checkpoint time, POSIX files (ckpt_io = 1) against HDF5 files
 * (ckpt_io = 5), the same data in the same run.
 *
 *   mpiexec -n 4 -bind-to none bench_hdf5 [--dir D] [--mib S] [--vars V] [--reps K]
 *
 * Every rank protects V (default 4) arrays of doubles, S MiB (default 512)
 * in all. The library is initialised with a POSIX config, K level-4
 * checkpoints are timed, it is finalised, then the same with an HDF5
 * config, into scratch directories under D (default /dev/shm). Slowest
 * rank, median of K. Prints a table and a JSON line with hdf5 / posix
 * (target, issue 15: at most 1.5) and the load average.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_util.h"

#include <fti.h>
#include <mpi.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 50
#define MAX_VARS 64

struct opts {
    const char *dir;
    long mib;
    int vars, reps;
};

static int parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){"/dev/shm", 512, 4, 3};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--dir") == 0) o->dir = argv[i + 1];
        else if (strcmp(argv[i], "--mib") == 0) o->mib = atol(argv[i + 1]);
        else if (strcmp(argv[i], "--vars") == 0) o->vars = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--reps") == 0) o->reps = atoi(argv[i + 1]);
        else return -1;
    }
    return argc % 2 == 0 || o->mib < 1 || o->vars < 1 || o->vars > MAX_VARS || o->reps < 1 ||
           o->reps > MAX_REPS ? -1 : 0;
}

static void write_config(const char *tmp, int io, char *cfg, size_t cap)
{
    snprintf(cfg, cap, "%s/io%d.fti", tmp, io);
    FILE *f = fopen(cfg, "w");
    if (f == NULL) {
        perror(cfg);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fprintf(f, "[basic]\nhead = 0\nnode_size = 0\ngroup_size = 1\nckpt_dir = %s/local%d\n"
               "glbl_dir = %s/global%d\nmeta_dir = %s/meta%d\nckpt_l1 = 0\nckpt_l2 = 0\n"
               "ckpt_l3 = 0\nckpt_l4 = 0\ninline_l4 = 1\nkeep_last_ckpt = 0\nckpt_io = %d\n"
               "verbosity = 3\n[restart]\nexec_id = bench-hdf5-%d\n",
            tmp, io, tmp, io, tmp, io, io, io);
    fclose(f);
}

/* Median seconds of reps level-4 checkpoints with config `cfg`. */
static double timed(const char *cfg, double **vars, size_t n, const struct opts *o)
{
    double t[MAX_REPS];
    if (FTI_Init(cfg, MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int v = 0; v < o->vars; v++)
        FTI_Protect(v, vars[v], (int64_t)n, FTI_DBLE);
    for (int r = 0; r < o->reps; r++) {
        MPI_Barrier(FTI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (FTI_Checkpoint(r + 1, 4) != FTI_DONE)
            MPI_Abort(MPI_COMM_WORLD, 1);
        t[r] = bench_max(MPI_Wtime() - t0, FTI_COMM_WORLD);
    }
    FTI_Finalize();
    return bench_median(t, o->reps);
}

static const char usage[] =
    "usage: mpiexec -n 4 bench_hdf5 [--dir D] [--mib S] [--vars V<=64] [--reps K]\n"
    "HDF5 checkpoints (ckpt_io = 5) against a raw HDF5 write of the same data\n";

int main(int argc, char **argv)
{
    if (bench_answered_help(argc, argv, usage))
        return 0;
    MPI_Init(&argc, &argv);
    struct opts o;
    int rank, nranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (parse(argc, argv, &o) != 0) {
        if (rank == 0)
            fprintf(stderr, "usage: bench_hdf5 [--dir D] [--mib S] [--vars V<=64] [--reps K]\n");
        MPI_Finalize();
        return 2;
    }
    char tmp[PATH_MAX - 64], posix[PATH_MAX], h5[PATH_MAX];
    bench_mkdtemp(o.dir, "bench-hdf5-", tmp, sizeof tmp, MPI_COMM_WORLD);
    if (rank == 0) {
        write_config(tmp, 1, posix, sizeof posix);
        write_config(tmp, 5, h5, sizeof h5);
    }
    MPI_Bcast(posix, sizeof posix, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(h5, sizeof h5, MPI_CHAR, 0, MPI_COMM_WORLD);
    size_t n = (size_t)o.mib * 1024 * 1024 / sizeof(double) / (size_t)o.vars;
    double *vars[MAX_VARS];
    for (int v = 0; v < o.vars; v++)
        vars[v] = bench_alloc(n * sizeof(double), (unsigned)(rank * MAX_VARS + v + 1));
    double tp = timed(posix, vars, n, &o), th = timed(h5, vars, n, &o);
    if (rank == 0) {
        printf("%-12s %10s\n", "L4 io", "seconds");
        printf("%-12s %10.4f\nHDF5         %10.4f  (%.3f x POSIX)\n", "POSIX", tp, th, th / tp);
        double load = bench_loadavg();
        printf("%d ranks x %ld MiB in %d variables; target: HDF5 <= 1.5 x POSIX (%s); "
               "load average %.2f\n", nranks, o.mib, o.vars, th / tp <= 1.5 ? "met" : "MISSED", load);
        printf("{\"bench\":\"hdf5\",\"ranks\":%d,\"mib\":%ld,\"vars\":%d,\"posix_s\":%.6f,"
               "\"hdf5_s\":%.6f,\"ratio\":%.4f,\"loadavg\":%.2f}\n", nranks, o.mib, o.vars, tp, th,
               th / tp, load);
    }
    for (int v = 0; v < o.vars; v++)
        free(vars[v]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        bench_rmtree(tmp);
    MPI_Finalize();
    return 0;
}
