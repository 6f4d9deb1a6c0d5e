#include "core/schedule.h"

#include <math.h>
#include <string.h>

#include "fti.h" /* FTI_L4_DCP */
#include "runtime/log_fti.h"
#include "runtime/watchdog.h"

static double now(void)
{
    return MPI_Wtime();
}

/* Slots in the order of precedence, lowest first: a later due slot wins. */
static const int slot_order[] = {1, 2, 3, FTI_SCHED_DCP, 4};
#define NSLOTS ((int)(sizeof slot_order / sizeof slot_order[0]))

/* fast_forward: FTI's divisor of every time interval (for tests). */
static void init_slot(fti_schedule *s, int l, int minutes, int seconds, int iters, int fast_forward)
{
    double p = 60.0 * minutes;
    if (seconds > 0 && (p == 0 || seconds < p))
        p = seconds;
    p /= fast_forward > 1 ? fast_forward : 1;
    s->period[l] = p;
    s->due[l] = p;
    s->every[l] = iters;
    if (p > 0 && (!s->has_time || p < s->min_period))
        s->min_period = p;
    if (p > 0)
        s->has_time = 1;
}

void fti_schedule_init(fti_schedule *s, const fti_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->t0 = now();
    s->step = 1;
    s->max_step = (uint64_t)cfg->max_sync_intv;
    s->next_sync = 1;
    for (int l = 1; l <= 4; l++)
        init_slot(s, l, cfg->ckpt_min[l], cfg->ckpt_sec[l], cfg->ckpt_iter[l], cfg->fast_forward);
    init_slot(s, FTI_SCHED_DCP, cfg->dcp_l4_min, cfg->dcp_l4_sec, cfg->dcp_l4_iter,
              cfg->fast_forward);
}

/* The sync step doubles at every sync point (as FTI's) up to max_sync_intv,
 * but the time between two syncs stays within a 16th of the shortest
 * interval, so a time-based level is never planned from stale timings for
 * long. Jitter of short iterations does not shrink the step: only the
 * time it spans does. */
static uint64_t next_step(const fti_schedule *s, double len)
{
    uint64_t step = s->step * 2 < s->max_step ? s->step * 2 : s->max_step;
    while (step > 1 && (double)step * len > s->min_period / 16)
        step /= 2;
    return step > 0 ? step : 1;
}

/* As FTI's, sync points fall on multiples of the sync step. */
static uint64_t aligned_after(uint64_t iter, uint64_t step)
{
    return (iter / step + 1) * step;
}

/* A time-based level reached the iteration its last sync planned. */
static int time_level_due(const fti_schedule *s, int l)
{
    return s->period[l] > 0 && s->next_ckpt != 0 && s->planned[l] != 0 &&
           s->iter >= s->planned[l];
}

/* The sync point: agree on the elapsed time, re-plan time-based levels.
 * The time-based checkpoint runs at the iteration planned here (the one
 * FTI's debug line shows), or is planned again at the next sync. */
static void sync_point(fti_schedule *s, MPI_Comm comm)
{
    uint64_t led_here = s->step;
    double mine = now() - s->t0, agreed;
    fti_watched_allreduce(&mine, &agreed, 1, MPI_DOUBLE, MPI_MAX, comm, "FTI_Snapshot time agreement");
    uint64_t iters = s->iter - s->last_sync_iter;
    double len = iters ? (agreed - s->last_sync_time) / (double)iters : 0;
    s->step = next_step(s, len);
    s->iter_len = len;
    s->last_sync_iter = s->iter;
    s->last_sync_time = agreed;

    s->next_sync = aligned_after(s->iter, s->step);
    uint64_t next = 0;
    double shortest = 0;
    for (int l = 1; l < FTI_SCHED_SLOTS; l++) {
        if (s->period[l] <= 0)
            continue;
        if (!time_level_due(s, l)) {
            /* A level already due stays due until a checkpoint is taken,
             * even when iterations ran faster than planned and its time has
             * not quite come. */
            double left = s->due[l] - agreed;
            uint64_t in = (left <= 0 || len <= 0) ? 0 : (uint64_t)ceil(left / len);
            s->planned[l] = s->iter + in;
        }
        if (next == 0 || s->planned[l] < next)
            next = s->planned[l];
        if (shortest == 0 || s->period[l] < shortest)
            shortest = s->period[l];
    }
    s->next_ckpt = next;
    /* FTI's debug line: the plan in iterations (interval of the most frequent
     * level), and the sync step that led to this iteration, a multiple of it */
    fti_say_next_checkpoint((long long)s->iter, len > 0 ? (long long)llround(shortest / len) : 0,
                            (long long)next, (long long)led_here);
}

int fti_schedule_tick(fti_schedule *s, MPI_Comm comm)
{
    s->iter++;
    if (s->has_time && s->iter >= s->next_sync)
        sync_point(s, comm);
    int level = 0;
    for (int i = 0; i < NSLOTS; i++) {
        int l = slot_order[i];
        int due = (s->every[l] > 0 && s->iter % (uint64_t)s->every[l] == 0) ||
                  time_level_due(s, l);
        if (due)
            level = l == FTI_SCHED_DCP ? FTI_L4_DCP : l;
    }
    return level;
}

void fti_schedule_taken(fti_schedule *s, int level)
{
    /* The estimate of "now" every rank shares: last agreed time plus iterations since. */
    double t = s->last_sync_time + (double)(s->iter - s->last_sync_iter) * s->iter_len;
    for (int l = 1; l < FTI_SCHED_SLOTS; l++) {
        if (s->period[l] <= 0 || l > (level >= 4 ? FTI_SCHED_DCP : level))
            continue;
        s->due[l] = t + s->period[l];
        s->planned[l] = 0;
    }
    s->next_ckpt = 0; /* the next time-based checkpoint is planned at the next sync */
}
