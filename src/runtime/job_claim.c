#include "runtime/job_claim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fio.h"
#include "base/integrity.h"
#include "base/log.h"
#include "base/safe_fs.h"
#include "base/walltime.h"
#include "runtime/watchdog.h"

enum { LOCK_META, LOCK_GLOBAL, LOCK_LOCAL, NLOCKS };
static const char *const lock_what[NLOCKS] = {"meta_dir", "glbl_dir", "ckpt_dir"};

uint64_t fti_nonce_draw(void)
{
    uint64_t n = 0;
    if (getrandom(&n, sizeof n, 0) != (ssize_t)sizeof n) {
        int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || read(fd, &n, sizeof n) != (ssize_t)sizeof n) {
            double t = fti_now(); /* no entropy source: still differs between jobs */
            long pid = (long)getpid();
            n = fti_hash_buffer(&t, sizeof t) ^ fti_hash_buffer(&pid, sizeof pid) << 1;
        }
        if (fd >= 0)
            close(fd);
    }
    return n != 0 ? n : 1;
}

/* Whether folders a and b are one (same device and inode): one lock file. */
static int same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The folder of lock `i`, as this rank sees it. */
static const char *lock_dir(const fti_ctx *ctx, int i)
{
    return i == LOCK_META ? ctx->dirs.meta : i == LOCK_GLOBAL ? ctx->dirs.global : ctx->dirs.local;
}

/* Which locks this rank takes. The node-local folder: with local_test = 1
 * each simulated node has its own, taken by its first rank; otherwise
 * several nodes of the job may share one host's folder, so rank 0 alone. */
static int takes(const fti_ctx *ctx, int i)
{
    if (ctx->topo.is_head)
        return 0;
    if (i == LOCK_LOCAL)
        return ctx->cfg.local_test ? ctx->topo.node_pos == 0 : ctx->topo.app_rank == 0;
    return ctx->topo.app_rank == 0;
}

/* Takes this rank's locks; a folder that is the same as one locked already
 * is not locked twice (flock would refuse our own second descriptor).
 * *failed: the lock that failed. */
static fti_err take_mine(fti_ctx *ctx, int *failed)
{
    for (int i = 0; i < NLOCKS; i++) {
        if (!takes(ctx, i) || ctx->locks[i].held)
            continue;
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= ctx->locks[j].held && same_dir(lock_dir(ctx, j), lock_dir(ctx, i));
        if (dup)
            continue;
        fti_err e = fti_job_lock_take(&ctx->locks[i], lock_dir(ctx, i));
        if (e != FTI_E_OK) {
            *failed = i;
            return e;
        }
    }
    return FTI_E_OK;
}

/* The failure of one rank in one word, so that one MPI_MAX names the lowest
 * failing rank to all: (INT32_MAX - rank) << 32 | lock << 24 | errno (0: in
 * use by another job); 0 when the rank succeeded. */
static uint64_t failure_word(int rank, int lock, int err)
{
    return (uint64_t)(0x7fffffff - rank) << 32 | (uint64_t)(lock + 1) << 24 |
           (uint64_t)(err & 0xffffff);
}

/* The node whose first rank is application rank `rank` (-1: none). */
static int node_of_first(const fti_topology *t, int rank)
{
    for (int k = 0; k < t->nnodes; k++)
        if (fti_topology_app_rank(t, k, 0) == rank)
            return k;
    return -1;
}

/* The lock file `lock` of application rank `rank`, as that rank named it. */
static void lock_path_of(const fti_ctx *ctx, int lock, int rank, char *out, size_t n)
{
    char dir[FTI_PATH_MAX];
    if (lock != LOCK_LOCAL)
        snprintf(dir, sizeof dir, "%s", lock_dir(ctx, lock));
    else
        fti_layout_node_local(dir, ctx->cfg.ckpt_dir,
                              ctx->cfg.local_test ? node_of_first(&ctx->topo, rank) : -1,
                              ctx->dirs.exec_id);
    snprintf(out, n, "%s/lock", dir);
}

/* Another rank's failure, as this rank reports it. */
static fti_err report_other(const fti_ctx *ctx, uint64_t word)
{
    int rank = 0x7fffffff - (int)(word >> 32);
    int lock = (int)(word >> 24 & 0xff) - 1;
    int err = (int)(word & 0xffffff);
    char path[FTI_PATH_MAX + 8];
    if (lock < 0 || lock >= NLOCKS)
        lock = LOCK_META; /* cannot happen: failure_word wrote it */
    lock_path_of(ctx, lock, rank, path, sizeof path);
    if (err == 0)
        return fti_fail(FTI_E_STATE, "checkpoint set in use by another job (lock file %s, %s; "
                        "see the message of application rank %d)", path, lock_what[lock], rank);
    return fti_fail(FTI_E_IO, "lock file %s (application rank %d): %s", path, rank,
                    fti_fs_strerror(err));
}

/* The commit record's temporary files of killed jobs: nobody writes the
 * record while this job holds its folder's lock, and this job has not yet. */
static void remove_stale_temps(const fti_ctx *ctx)
{
    if (!ctx->locks[LOCK_META].held)
        return;
    int n = fti_write_atomic_remove_stale(ctx->dirs.commit);
    if (n > 0)
        fti_log(FTI_LOG_INFO, "removed %d temporary file%s of the commit record %s left by a "
                "job that was killed while writing it", n, n > 1 ? "s" : "", ctx->dirs.commit);
}

fti_err fti_job_claim(fti_ctx *ctx)
{
    int failed = -1;
    fti_err e = take_mine(ctx, &failed);
    /* The nonce travels as two 32-bit halves: MPICH's MPI_MAX on
     * MPI_UINT64_T compares as signed, and loses a value with the top bit set. */
    uint64_t mine[3] = {0, 0, 0}, all[3];
    if (e != FTI_E_OK)
        mine[0] = failure_word(ctx->topo.app_rank, failed, ctx->locks[failed].err);
    if (!ctx->topo.is_head && ctx->topo.app_rank == 0) {
        uint64_t n = fti_nonce_draw();
        mine[1] = n >> 32;
        mine[2] = n & 0xffffffffu;
    }
    fti_watched_allreduce(mine, all, 3, MPI_UINT64_T, MPI_MAX, ctx->topo.global,
                          "agreement on the checkpoint set's locks");
    ctx->nonce = all[1] << 32 | all[2];
    if (all[0] == 0) {
        remove_stale_temps(ctx);
        return FTI_E_OK;
    }
    fti_job_claim_release(ctx); /* ours are of no use: the job stops here */
    return all[0] == mine[0] ? e : report_other(ctx, all[0]);
}

fti_err fti_job_claim_retake(fti_ctx *ctx)
{
    int failed = -1;
    /* take_mine skips what is held: a survivor keeps its locks, the
     * replacement of a node's first rank (or of rank 0) takes the dead
     * rank's, which the kernel released with the dead process's flock */
    return take_mine(ctx, &failed);
}

void fti_job_claim_release_dir(fti_ctx *ctx, const char *dir)
{
    char path[FTI_PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/lock", dir);
    for (int i = 0; i < NLOCKS; i++)
        if (ctx->locks[i].held && strcmp(ctx->locks[i].path, path) == 0)
            fti_job_lock_release(&ctx->locks[i]);
}

void fti_job_claim_release(fti_ctx *ctx)
{
    for (int i = NLOCKS - 1; i >= 0; i--)
        fti_job_lock_release(&ctx->locks[i]);
}
