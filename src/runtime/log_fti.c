#include "runtime/log_fti.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/log.h"

/* Process-wide, as log.c's state: one stdout per process. */
static int say_rank;
static int say_info = 1;

void fti_say_setup(int global_rank, int info_rank)
{
    say_rank = global_rank;
    say_info = info_rank;
}

/* Who says FTI's lines of `level`: info lines and the debug lines every
 * rank would say alike (FTI_DEBUG_ONCE) by application rank 0 only, so
 * that their number does not grow with the ranks; the other debug lines
 * (nodeFlag: one rank per node, which FTI's nodeFlag check reads from
 * every rank's output) by each rank that says them. */
enum { FTI_DEBUG_ONCE = 0 };

static int says(int level)
{
    if (!fti_log_style_has(FTI_LOG_STYLE_FTI))
        return 0;
    if (level == FTI_DEBUG_ONCE)
        return say_info && fti_log_enabled(FTI_LOG_DEBUG);
    return fti_log_enabled(level) && (level != FTI_LOG_INFO || say_info);
}

__attribute__((format(printf, 2, 3))) static void say(int level, const char *fmt, ...)
{
    if (!says(level))
        return;
    if (level == FTI_DEBUG_ONCE)
        level = FTI_LOG_DEBUG;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* One write per line, flushed, as FTI's; colours left out. */
    if (level == FTI_LOG_DEBUG)
        printf("[FTI Debug - %06d] : %s \n", say_rank, msg);
    else
        printf("[ FTI  Information ] : %s \n", msg);
    fflush(stdout);
}

void fti_say_exec_id(int restart, const char *exec_id)
{
    if (restart)
        say(FTI_LOG_INFO, "This is a restart. The execution ID is: %s", exec_id);
    else
        say(FTI_LOG_INFO, "The execution ID is: %s", exec_id);
}

void fti_say_protect(int id, int is_new, int on_device, double ckpt_bytes)
{
    const char *where = on_device ? "GPU" : "CPU";
    double mb = ckpt_bytes / (1024.0 * 1024.0);
    if (is_new)
        say(FTI_LOG_INFO, "Variable ID %d to protect (Stored in %s). Current ckpt. size per rank "
            "is %.2fMB.", id, where, mb);
    else /* FTI 1.6's words for an update, its capital and double space included */
        say(FTI_DEBUG_ONCE, "Variable ID %d reseted. (Stored In %s).  Current ckpt. size per rank "
            "is %.2fMB.", id, where, mb);
}

void fti_say_checkpoint(int id, int level, double bytes_per_rank, double secs, double wait,
                        double write, double post)
{
    say(FTI_LOG_INFO, "Ckpt. ID %d (L%d) (%.2f MB/proc) taken in %.2f sec. (Wt:%.2fs, Wr:%.2fs, "
        "Ps:%.2fs)", id, level, bytes_per_rank / (1024.0 * 1024.0), secs, wait, write, post);
}

void fti_say_next_checkpoint(long long iter, long long interval, long long next, long long sync)
{
    say(FTI_DEBUG_ONCE, "Current iter : %lld ckpt intv. : %lld . Next ckpt. at iter. %lld . "
        "Sync. intv. : %lld", iter, interval, next, sync);
}

void fti_say_node_flag(int node, int level)
{
    say(FTI_LOG_DEBUG, "Has nodeFlag = 1 and nodeID = %d. CkptLvel = %d.", node, level);
}
