#include "base/log.h"

#include <stdio.h>
#include <string.h>

/* Logging state is process-wide by nature (one stderr per process). */
static int log_rank = -1;
static int log_verbosity = FTI_LOG_INFO;
static fti_log_style log_style = FTI_LOG_STYLE_FTI;
static const char *log_program; /* a tool's name, or NULL: the library in a rank */
/* Thread-local: the post-processing thread records its own errors. */
static _Thread_local char last_msg[1024];
static _Thread_local fti_err last_code = FTI_E_OK;
static _Thread_local int quiet;
/* While deferring, an error is kept unsaid for the agreement that follows,
 * which prints it once for all ranks (runtime/say_once.c). */
static _Thread_local int deferring;
static _Thread_local int unsaid;

/* Nested: each fti_log_quiet(1) is undone by one fti_log_quiet(0). */
void fti_log_quiet(int on) { quiet += on ? 1 : (quiet > 0 ? -1 : 0); }

void fti_log_setup(int rank, int verbosity)
{
    log_rank = rank;
    log_verbosity = verbosity;
}

void fti_log_set_style(fti_log_style style) { log_style = style; }

int fti_log_style_has(fti_log_style side) { return (log_style & side) != 0; }

void fti_log_program(const char *name) { log_program = name; }

int fti_log_enabled(int level) { return level >= log_verbosity; }

/* Writes one line at `level`, when the verbosity lets it through. */
static void vlog(int level, const char *fmt, va_list ap)
{
    if (!fti_log_enabled(level))
        return;
    static const char *tag[] = {"", "debug", "info", "warning", "error"};
    char line[1200];
    int n = log_program != NULL ? snprintf(line, sizeof line, "%s: %s: ", log_program, tag[level])
                                : snprintf(line, sizeof line, "[FTI r%d] %s: ", log_rank, tag[level]);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    /* One fputs per line so ranks' lines do not interleave mid-line. */
    strncat(line, "\n", sizeof line - strlen(line) - 1);
    fputs(line, stderr);
}

void fti_log(int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

/* Rank 0 of the application; every process before fti_log_setup. */
void fti_log_rank0(int level, const char *fmt, ...)
{
    if (log_rank != 0 && log_rank != -1)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(level, fmt, ap);
    va_end(ap);
}

fti_err fti_fail(fti_err code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_msg, sizeof last_msg, fmt, ap);
    va_end(ap);
    last_code = code;
    if (deferring && !quiet)
        unsaid = 1;
    else if (!quiet)
        fti_log(FTI_LOG_ERROR, "%s", last_msg);
    return code;
}

void fti_log_defer(int on)
{
    deferring = on;
    if (!on && unsaid) /* no agreement took it: said here, as without deferring */
        fti_log(FTI_LOG_ERROR, "%s", last_msg), unsaid = 0;
}

const char *fti_log_take_unsaid(void)
{
    if (!unsaid)
        return NULL;
    unsaid = 0;
    return last_msg;
}

const char *fti_last_error(void) { return last_msg; }
fti_err fti_last_error_code(void) { return last_code; }

void fti_clear_error(void)
{
    last_msg[0] = '\0';
    last_code = FTI_E_OK;
}
