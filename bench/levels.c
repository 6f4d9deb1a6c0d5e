/*
 * bench_levels - checkpoint time and bandwidth of each level, against the
 * machine's ceilings measured in the same run.
 *
 *   mpiexec -n 4 -bind-to none bench_levels [DIR] [MIB[,MIB...]] [REPS]
 *   defaults: /dev/shm  64,256  3
 *   BENCH_BLOCK_KIB=N in the environment sets [advanced] block_size (KiB).
 *
 * Ceilings: raw write (write+fsync of the same bytes per rank, fresh file
 * and overwrite), MPI ring bandwidth (each rank sends its bytes to the next
 * while receiving from the previous: the L2 pattern), and the Reed-Solomon
 * encode rate of jerasure, k=4 m=4, on one core. Library numbers: the time
 * of FTI_Checkpoint at each level, slowest rank, median of REPS; the post-
 * processing bandwidth of level L is bytes per rank / (t_L - t_L1). With
 * inline_l4 = 0 the application waits only for the local write: that wait
 * is reported against the L1 time. Prints JSON lines, then a table.
 */
#include <fti.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>

#include "bench_util.h"
#include "rs_ceiling.h"

#define MAX_REPS 16

typedef struct ceilings {
    double write_new, write_over, mpi_ring, rs_jerasure, rs_isal; /* bytes/s */
} ceilings;

typedef struct result {
    double t[6]; /* [1..4]: levels; [5]: L4 with inline_l4 = 0, application wait */
} result;

static int rank, nranks;

static void write_config(const char *path, const char *dir, int inline_l4)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fprintf(f, "[basic]\nnode_size = 1\ngroup_size = %d\nckpt_dir = %s/local\nglbl_dir = %s/global\n"
               "meta_dir = %s/meta\ninline_l4 = %d\nkeep_last_ckpt = 0\nverbosity = 3\n"
               "[restart]\nexec_id = bench\n[advanced]\nlocal_test = 1\n",
            nranks < 4 ? nranks : 4, dir, dir, dir, inline_l4);
    const char *block_kib = getenv("BENCH_BLOCK_KIB"); /* [advanced] block_size, KiB */
    if (block_kib != NULL)
        fprintf(f, "block_size = %s\n", block_kib);
    fclose(f);
}

/* ---- ceilings ------------------------------------------------------------ */

static double ring_bandwidth(const char *buf, size_t len, int reps)
{
    char *in = malloc(len);
    double best[MAX_REPS];
    size_t chunk = 16u << 20;
    int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
    for (int r = 0; r < reps; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (size_t off = 0; off < len; off += chunk) {
            int n = (int)(len - off < chunk ? len - off : chunk);
            MPI_Sendrecv(buf + off, n, MPI_BYTE, right, 7, in + off, n, MPI_BYTE, left, 7,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        best[r] = bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
    }
    free(in);
    return (double)len / bench_median(best, reps);
}

static double write_bandwidth(const char *dir, const char *buf, size_t len, int reps, int fresh)
{
    char path[4200];
    double t[MAX_REPS];
    snprintf(path, sizeof path, "%s/raw-%d", dir, rank);
    bench_write_file(path, O_CREAT | O_WRONLY | O_TRUNC, buf, len); /* exists for overwrites */
    for (int r = 0; r < reps; r++) {
        if (fresh)
            remove(path);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        bench_write_file(path, fresh ? O_CREAT | O_EXCL | O_WRONLY : O_WRONLY, buf, len);
        t[r] = bench_max(MPI_Wtime() - t0, MPI_COMM_WORLD);
    }
    remove(path);
    return (double)len / bench_median(t, reps);
}

/* The other ranks wait without spinning, so rank 0 has a core to itself. */
static void quiet_wait(void)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    while (!done) {
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
}

/* One core encodes 4 data chunks into 4 parity chunks; bytes of data per second. */
static double rs_rate(int engine, size_t len)
{
    double rate = 0;
    if (rank == 0) {
        if (bench_rs_engine_name(engine) != NULL) {
            unsigned char *d[4], *p[4];
            for (int i = 0; i < 4; i++) {
                d[i] = bench_alloc(len, 10 + i);
                p[i] = bench_alloc(len, 20 + i);
            }
            double t[3];
            for (int r = 0; r < 3; r++) {
                double t0 = MPI_Wtime();
                bench_rs_encode(engine, 4, 4, d, p, len);
                t[r] = MPI_Wtime() - t0;
            }
            rate = 4.0 * (double)len / bench_median(t, 3);
            for (int i = 0; i < 4; i++) {
                free(d[i]);
                free(p[i]);
            }
        }
    }
    quiet_wait();
    MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return rate;
}

/* ---- the library ----------------------------------------------------------- */

static double checkpoint_time(int level, int id)
{
    MPI_Barrier(FTI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = FTI_Checkpoint(id, level);
    double t = MPI_Wtime() - t0;
    if (rc != FTI_DONE) {
        fprintf(stderr, "bench_levels: FTI_Checkpoint(level %d) failed\n", level);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    return bench_max(t, FTI_COMM_WORLD);
}

static void run_levels(const char *dir, void *data, size_t len, int reps, int inline_l4, result *res)
{
    char cfg[4200];
    snprintf(cfg, sizeof cfg, "%s/bench.fti", dir);
    if (rank == 0)
        write_config(cfg, dir, inline_l4);
    MPI_Barrier(MPI_COMM_WORLD);
    FTI_Init(cfg, MPI_COMM_WORLD);
    FTI_Protect(0, data, (int64_t)len, FTI_CHAR);
    int id = 1;
    for (int level = 1; level <= 4; level++) {
        if (!inline_l4 && level != 4)
            continue;
        double t[MAX_REPS];
        checkpoint_time(level, id++); /* warm-up: both slots exist afterwards */
        checkpoint_time(level, id++);
        for (int r = 0; r < reps; r++) {
            t[r] = checkpoint_time(level, id++);
            if (!inline_l4) { /* let the background flush finish, as computation would */
                struct timespec ts = {0, 0};
                double wait = 4 * t[r] + 0.2;
                ts.tv_sec = (time_t)wait;
                ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
                nanosleep(&ts, NULL);
            }
        }
        res->t[inline_l4 ? level : 5] = bench_median(t, reps);
    }
    FTI_Finalize();
}

static void report(const char *dir, int mib, const ceilings *c, const result *r)
{
    double bytes = (double)mib * (1 << 20), agg = bytes * nranks;
    double l1 = r->t[1];
    double post[5];
    for (int l = 2; l <= 4; l++)
        post[l] = r->t[l] > l1 ? bytes / (r->t[l] - l1) : 0;
    double l2_ceiling = c->write_over < c->mpi_ring ? c->write_over : c->mpi_ring;
    printf("{\"bench\":\"levels\",\"dir\":\"%s\",\"ranks\":%d,\"mib_per_rank\":%d,"
           "\"raw_write_new_gbps\":%.3f,\"raw_write_overwrite_gbps\":%.3f,\"mpi_ring_gbps_per_rank\":%.3f,"
           "\"rs_jerasure_gbps\":%.3f,\"rs_isal_gbps\":%.3f,"
           "\"t_l1\":%.4f,\"t_l2\":%.4f,\"t_l3\":%.4f,\"t_l4\":%.4f,\"t_l4_async_wait\":%.4f,"
           "\"l1_gbps\":%.3f,\"l2_post_gbps_per_rank\":%.3f,\"l3_post_gbps_per_rank\":%.3f,"
           "\"l1_ratio_vs_new_write\":%.3f,\"l2_ratio\":%.3f,\"l3_ratio\":%.3f,\"l4_async_wait_vs_l1\":%.3f}\n",
           dir, nranks, mib, c->write_new * nranks / 1e9, c->write_over * nranks / 1e9,
           c->mpi_ring / 1e9, c->rs_jerasure / 1e9, c->rs_isal / 1e9, r->t[1], r->t[2], r->t[3],
           r->t[4], r->t[5], agg / l1 / 1e9, post[2] / 1e9, post[3] / 1e9,
           agg / l1 / (c->write_new * nranks), post[2] / l2_ceiling, post[3] / c->rs_jerasure,
           r->t[5] / l1);
    printf("%d ranks x %d MiB in %s\n", nranks, mib, dir);
    printf("  ceilings: write %.2f GB/s new, %.2f GB/s overwrite (all ranks); MPI ring %.2f GB/s "
           "per rank; RS k=4 m=4 one core: jerasure %.2f, ISA-L %.2f GB/s\n",
           c->write_new * nranks / 1e9, c->write_over * nranks / 1e9, c->mpi_ring / 1e9,
           c->rs_jerasure / 1e9, c->rs_isal / 1e9);
    printf("  L1 %.3f s (%.2f GB/s, %.2f of new-file write) | L2 %.3f s (post %.2f GB/s/rank, "
           "%.2f of min(write,MPI)) | L3 %.3f s (post %.2f GB/s/rank, %.2f of jerasure) | L4 %.3f s "
           "| L4 async wait %.3f s (%.2f x L1)\n",
           l1, agg / l1 / 1e9, agg / l1 / (c->write_new * nranks), r->t[2], post[2] / 1e9,
           post[2] / l2_ceiling, r->t[3], post[3] / 1e9, post[3] / c->rs_jerasure, r->t[4], r->t[5],
           r->t[5] / l1);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const char *base = argc > 1 ? argv[1] : "/dev/shm";
    char sizes[256];
    snprintf(sizes, sizeof sizes, "%s", argc > 2 ? argv[2] : "64,256");
    int reps = argc > 3 ? atoi(argv[3]) : 3;
    if (reps < 1 || reps > MAX_REPS)
        reps = 3;
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        int mib = atoi(tok);
        size_t len = (size_t)mib << 20;
        char dir[4096];
        bench_mkdtemp(base, "fti-bench-levels-", dir, sizeof dir, MPI_COMM_WORLD);
        char *data = bench_alloc(len, 1 + (unsigned)rank);
        ceilings c;
        c.write_new = write_bandwidth(dir, data, len, reps, 1);
        c.write_over = write_bandwidth(dir, data, len, reps, 0);
        c.mpi_ring = ring_bandwidth(data, len, reps);
        c.rs_jerasure = rs_rate(BENCH_RS_JERASURE, len / 4);
        c.rs_isal = rs_rate(BENCH_RS_ISAL, len / 4);
        result r;
        memset(&r, 0, sizeof r);
        run_levels(dir, data, len, reps, 1, &r);
        run_levels(dir, data, len, reps, 0, &r);
        if (rank == 0)
            report(dir, mib, &c, &r);
        free(data);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            bench_rmtree(dir);
    }
    MPI_Finalize();
    return 0;
}
