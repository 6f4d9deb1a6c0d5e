#include "schedule.h"

#include <math.h>
#include <string.h>

#include "log_fti.h"
#include "watchdog.h"

static double now(void)
{
    return MPI_Wtime();
}

void fti_schedule_init(fti_schedule *s, const fti_config *cfg)
{
    memset(s, 0, sizeof *s);
    s->t0 = now();
    s->step = 1;
    s->max_step = (uint64_t)cfg->max_sync_intv;
    s->next_sync = 1;
    for (int l = 1; l <= 4; l++) {
        double p = 60.0 * cfg->ckpt_min[l];
        if (cfg->ckpt_sec[l] > 0 && (p == 0 || cfg->ckpt_sec[l] < p))
            p = cfg->ckpt_sec[l];
        s->period[l] = p;
        s->due[l] = p;
        s->every[l] = cfg->ckpt_iter[l];
        if (p > 0)
            s->has_time = 1;
    }
}

/* The sync point: agree on the elapsed time, re-plan time-based levels. */
static void sync_point(fti_schedule *s, MPI_Comm comm)
{
    double mine = now() - s->t0, agreed;
    fti_watched_allreduce(&mine, &agreed, 1, MPI_DOUBLE, MPI_MAX, comm, "FTI_Snapshot time agreement");
    uint64_t iters = s->iter - s->last_sync_iter;
    double len = iters ? (agreed - s->last_sync_time) / (double)iters : 0;
    /* Steady iterations: sync less often; a change of more than 25%: more often. */
    if (s->iter_len > 0 && fabs(len - s->iter_len) > 0.25 * s->iter_len)
        s->step = s->step > 1 ? s->step / 2 : 1;
    else if (s->step < s->max_step)
        s->step = s->step * 2 < s->max_step ? s->step * 2 : s->max_step;
    s->iter_len = len;
    s->last_sync_iter = s->iter;
    s->last_sync_time = agreed;

    s->next_sync = s->iter + s->step;
    uint64_t next = 0;
    double shortest = 0;
    for (int l = 1; l <= 4; l++) {
        if (s->period[l] <= 0)
            continue;
        double left = s->due[l] - agreed;
        uint64_t in = (left <= 0 || len <= 0) ? 0 : (uint64_t)ceil(left / len);
        s->planned[l] = s->iter + in;
        if (s->planned[l] < s->next_sync && in > 0)
            s->next_sync = s->planned[l];
        if (next == 0 || s->planned[l] < next)
            next = s->planned[l];
        if (shortest == 0 || s->period[l] < shortest)
            shortest = s->period[l];
    }
    /* FTI's debug line: the plan in iterations (interval of the most frequent level) */
    fti_say_next_checkpoint((long long)s->iter, len > 0 ? (long long)llround(shortest / len) : 0,
                            (long long)next, (long long)s->step);
}

int fti_schedule_tick(fti_schedule *s, MPI_Comm comm)
{
    s->iter++;
    if (s->has_time && s->iter >= s->next_sync)
        sync_point(s, comm);
    int level = 0;
    for (int l = 1; l <= 4; l++) {
        if (s->every[l] > 0 && s->iter % (uint64_t)s->every[l] == 0)
            level = l;
        if (s->period[l] > 0 && s->planned[l] != 0 && s->iter >= s->planned[l])
            level = l;
    }
    return level;
}

void fti_schedule_taken(fti_schedule *s, int level)
{
    /* The estimate of "now" every rank shares: last agreed time plus iterations since. */
    double t = s->last_sync_time + (double)(s->iter - s->last_sync_iter) * s->iter_len;
    for (int l = 1; l <= level; l++) {
        if (s->period[l] <= 0)
            continue;
        s->due[l] = t + s->period[l];
        s->planned[l] = 0;
    }
    if (s->has_time && s->next_sync > s->iter + 1)
        s->next_sync = s->iter + 1; /* re-plan right after the checkpoint */
}
