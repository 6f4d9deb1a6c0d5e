/*
 * log.h - verbosity-controlled logging to stderr with one prefix per rank,
 * and the record of the last error (fti_fail), which every error path uses.
 */
#ifndef FTI_LOG_H
#define FTI_LOG_H

#include "base/error.h"

enum { FTI_LOG_DEBUG = 1, FTI_LOG_INFO = 2, FTI_LOG_WARN = 3, FTI_LOG_ERROR = 4 };

/* Sets the rank shown in the prefix and the minimum level printed. */
void fti_log_setup(int rank, int verbosity);

/* [advanced] log_style: whose lines say what both FTI's and ours would say
 * (the start, each checkpoint). FTI's lines (runtime/log_fti.c, stdout) are
 * what scripts written for FTI grep; ours (stderr) add sizes, rates and
 * sequence numbers. Lines only one side has are printed in every style. */
typedef enum { FTI_LOG_STYLE_FTI = 1, FTI_LOG_STYLE_OURS = 2, FTI_LOG_STYLE_BOTH = 3 } fti_log_style;

/* Sets the style (default FTI_LOG_STYLE_FTI, as FTI prints). */
void fti_log_set_style(fti_log_style style);

/* Whether lines of `side` (FTI_LOG_STYLE_FTI or _OURS) are printed. */
int fti_log_style_has(fti_log_style side);

/* A tool's messages: "NAME: warning: ..." instead of "[FTI rN] warning: ...". */
void fti_log_program(const char *name);

/* Whether messages of `level` are printed at the configured verbosity. */
int fti_log_enabled(int level);

void fti_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* As fti_log, but only on rank 0 (and where no rank is set yet, -1): for
 * what every rank would say alike, such as a config file's warnings. */
void fti_log_rank0(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records `code` and its message as the last error, logs it, returns code. */
fti_err fti_fail(fti_err code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* fti_log_defer(1) before a step that every rank does alike and that ends
 * in an agreement: its error (fti_fail) is recorded but kept unsaid, so the
 * agreement prints it once for all the ranks that met it. fti_log_defer(0)
 * after the agreement prints an error that none took. Per thread. */
void fti_log_defer(int on);

/* The error kept unsaid since fti_log_defer(1), now taken (NULL: none). */
const char *fti_log_take_unsaid(void);

/* The last error recorded on this rank ("" when none). */
const char *fti_last_error(void);
fti_err fti_last_error_code(void);
void fti_clear_error(void);

#endif /* FTI_LOG_H */

/* While quiet, fti_fail records errors without printing them (recovery
 * probes files that are expected to be missing, then reports once). */
void fti_log_quiet(int on);
