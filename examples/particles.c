/*
 * particles - charged particles in a periodic box, each rank owning a fixed
 * set, protected by libfti as an array of a composite type.
 *
 * It shows what heatdis does not: FTI_InitCompositeType with scalar and
 * vector fields, ids from FTI_setIDFromString, FTI_Checkpoint called by the
 * application itself every N steps (no config interval), and state that
 * evolves through a global reduction each step (the mean field), so a
 * restart that restored any rank wrongly would change every rank's result.
 *
 *   mpiexec -n 4 particles [--count N] [--steps S] [--every K] [--level L]
 *                          [--config FILE] [--output FILE]
 *                          [--crash-at STEP --crash-rank R]
 *
 * The output file holds a digest of every particle's bytes, in rank order,
 * and the final step, so fault-free and recovered runs compare bit for bit.
 */
#include <fti.h>
#include <mpi.h>

#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct particle {
    double pos[3];
    double vel[3];
    int64_t id;
    float charge;
} particle;

typedef struct options {
    int count, steps, every, level, crash_at, crash_rank;
    const char *config, *output;
} options;

static int parse(int argc, char **argv, options *o)
{
    *o = (options){2000, 200, 20, 1, -1, 0, "particles.fti", NULL};
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--count")) o->count = atoi(v);
        else if (!strcmp(k, "--steps")) o->steps = atoi(v);
        else if (!strcmp(k, "--every")) o->every = atoi(v);
        else if (!strcmp(k, "--level")) o->level = atoi(v);
        else if (!strcmp(k, "--crash-at")) o->crash_at = atoi(v);
        else if (!strcmp(k, "--crash-rank")) o->crash_rank = atoi(v);
        else if (!strcmp(k, "--config")) o->config = v;
        else if (!strcmp(k, "--output")) o->output = v;
        else return -1;
    }
    return o->count > 0 && o->steps > 0 && o->every > 0 ? 0 : -1;
}

/* The particle type as FTI sees it: named fields, so tools can show them. */
static fti_id_t particle_type(void)
{
    int64_t three = 3;
    fti_id_t t = FTI_InitCompositeType("particle", sizeof(particle), NULL);
    if (t < 0 || FTI_AddVectorField(t, "pos", FTI_DBLE, offsetof(particle, pos), 1, &three) ||
        FTI_AddVectorField(t, "vel", FTI_DBLE, offsetof(particle, vel), 1, &three) ||
        FTI_AddScalarField(t, "id", FTI_LONG, offsetof(particle, id)) ||
        FTI_AddScalarField(t, "charge", FTI_SFLT, offsetof(particle, charge)))
        return -1;
    return t;
}

static void init_particles(particle *p, int n, int rank)
{
    uint64_t x = 0x9E3779B97F4A7C15ull * (uint64_t)(rank + 1);
    for (int i = 0; i < n; i++) {
        for (int d = 0; d < 3; d++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            p[i].pos[d] = (double)(x % 1000000) / 1e6;
            p[i].vel[d] = 0.0;
        }
        p[i].id = (int64_t)rank * n + i;
        p[i].charge = (i % 2) ? 1.0f : -1.0f;
    }
}

/* One step: every particle feels the global mean position of the other
 * charge (one allreduce), then moves in the unit periodic box. */
static void step(particle *p, int n, MPI_Comm comm)
{
    double local[8] = {0}, global[8];
    for (int i = 0; i < n; i++) {
        int c = p[i].charge > 0 ? 0 : 4;
        for (int d = 0; d < 3; d++)
            local[c + d] += p[i].pos[d];
        local[c + 3] += 1;
    }
    MPI_Allreduce(local, global, 8, MPI_DOUBLE, MPI_SUM, comm);
    for (int i = 0; i < n; i++) {
        int other = p[i].charge > 0 ? 4 : 0;
        for (int d = 0; d < 3; d++) {
            double target = global[other + d] / global[other + 3];
            p[i].vel[d] = 0.98 * p[i].vel[d] + 1e-3 * (target - p[i].pos[d]);
            p[i].pos[d] += p[i].vel[d];
            p[i].pos[d] -= (p[i].pos[d] >= 1.0) - (p[i].pos[d] < 0.0);
        }
    }
}

static uint64_t digest(const void *buf, size_t n, uint64_t h)
{
    const unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}

static void write_output(const options *o, particle *p, int n, int step_no, int rank, int size,
                         MPI_Comm comm)
{
    uint64_t mine = digest(p, (size_t)n * sizeof *p, 0xCBF29CE484222325ull);
    uint64_t *all = rank == 0 ? malloc((size_t)size * sizeof *all) : NULL;
    MPI_Gather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, comm);
    if (rank != 0)
        return;
    uint64_t h = digest(all, (size_t)size * sizeof *all, 0xCBF29CE484222325ull);
    FILE *f = o->output ? fopen(o->output, "w") : stdout;
    if (f == NULL) {
        perror(o->output);
        MPI_Abort(comm, 4);
    }
    fprintf(f, "particles ranks=%d count=%d step=%d digest=%016" PRIx64 "\n", size, n, step_no, h);
    if (f != stdout)
        fclose(f);
    free(all);
}

int main(int argc, char **argv)
{
    options o;
    MPI_Init(&argc, &argv);
    int help = argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
    if (help || parse(argc, argv, &o) != 0) {
        fprintf(help ? stdout : stderr, "usage: particles [--count N] [--steps S] [--every K] "
                "[--level L] [--config FILE] [--output FILE] [--crash-at STEP --crash-rank R]\n");
        if (help) {
            MPI_Finalize();
            return 0;
        }
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (FTI_Init(o.config, MPI_COMM_WORLD) != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int rank, size, restarted = FTI_Status() != 0, step_no = 0;
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    MPI_Comm_size(FTI_COMM_WORLD, &size);
    particle *p = malloc((size_t)o.count * sizeof *p);
    fti_id_t ptype = particle_type();
    if (p == NULL || ptype < 0)
        MPI_Abort(MPI_COMM_WORLD, 3);
    init_particles(p, o.count, rank);
    FTI_Protect(FTI_setIDFromString("step"), &step_no, 1, FTI_INTG);
    FTI_Protect(FTI_setIDFromString("particles"), p, o.count, ptype);
    if (restarted && FTI_Recover() != FTI_SCES)
        MPI_Abort(MPI_COMM_WORLD, 5);
    int resumed = step_no;
    while (step_no < o.steps) {
        if (!restarted && step_no == o.crash_at && rank == o.crash_rank)
            raise(SIGKILL); /* the simulated node crash, first run only */
        step(p, o.count, FTI_COMM_WORLD);
        step_no++;
        if (step_no % o.every == 0 && FTI_Checkpoint(step_no, o.level) != FTI_DONE && rank == 0)
            fprintf(stderr, "particles: checkpoint at step %d failed; computing on\n", step_no);
    }
    write_output(&o, p, o.count, step_no, rank, size, FTI_COMM_WORLD);
    if (rank == 0)
        printf("particles: resumed_from=%d steps=%d restarted=%d\n", resumed, step_no, restarted);
    free(p);
    FTI_Finalize();
    MPI_Finalize();
    return 0;
}
