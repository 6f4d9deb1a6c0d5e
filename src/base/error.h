/*
 * error.h - the library's internal error codes, from one table, and the
 * recording of the last error message (what failed and where: file, key,
 * rank, level, errno).
 */
#ifndef FTI_ERROR_H
#define FTI_ERROR_H

#include <stdarg.h>

/* X(name, message) */
#define FTI_ERRNO_MAP(X)                                                        \
    X(OK, "success")                                                            \
    X(ARG, "invalid argument")                                                  \
    X(STATE, "call out of order")                                               \
    X(CONFIG, "invalid configuration")                                          \
    X(IO, "input/output error")                                                 \
    X(NOMEM, "out of memory")                                                   \
    X(CORRUPT, "corrupt or incompatible checkpoint data")                       \
    X(MISSING, "checkpoint data missing")                                       \
    X(MPI, "MPI error")                                                         \
    X(DEVICE, "device error")                                                   \
    X(NOREC, "recovery impossible")                                             \
    X(UNSUPPORTED, "not supported by this build")

typedef enum fti_err {
#define FTI_ERR_ENUM(name, msg) FTI_E_##name,
    FTI_ERRNO_MAP(FTI_ERR_ENUM)
#undef FTI_ERR_ENUM
} fti_err;

const char *fti_err_name(fti_err e);
const char *fti_err_message(fti_err e);

#endif /* FTI_ERROR_H */
