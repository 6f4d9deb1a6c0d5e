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

__attribute__((format(printf, 2, 3))) static void say(int level, const char *fmt, ...)
{
    if (!fti_log_enabled(level) || (level == FTI_LOG_INFO && !say_info))
        return;
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
    say(is_new ? FTI_LOG_INFO : FTI_LOG_DEBUG, "Variable ID %d to protect (Stored in %s). Current "
        "ckpt. size per rank is %.2fMB.", id, on_device ? "GPU" : "CPU",
        ckpt_bytes / (1024.0 * 1024.0));
}

void fti_say_checkpoint(int id, int level, double bytes_per_rank, double secs)
{
    say(FTI_LOG_INFO, "Ckpt. ID %d (L%d) (%.2f MB/proc) taken in %.2f sec.", id, level,
        bytes_per_rank / (1024.0 * 1024.0), secs);
}

void fti_say_next_checkpoint(long long iter, long long interval, long long next, long long sync)
{
    say(FTI_LOG_DEBUG, "Current iter : %lld ckpt intv. : %lld . Next ckpt. at iter. %lld . "
        "Sync. intv. : %lld", iter, interval, next, sync);
}

void fti_say_node_flag(int node, int level)
{
    say(FTI_LOG_DEBUG, "Has nodeFlag = 1 and nodeID = %d. CkptLvel = %d.", node, level);
}
