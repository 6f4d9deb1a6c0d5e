/*
 * dev_error.h - a backend's last-error message (fti_device_ops.last_error):
 * each backend keeps its own thread-local buffer, so that one backend's
 * failure never replaces another's message before the caller reads it.
 * Header-only: the XRT backend is also compiled outside libfti.
 */
#ifndef FTI_DEV_ERROR_H
#define FTI_DEV_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* Writes the message into the backend's buffer buf (len bytes); returns -1,
 * the backends' failure code. */
static inline int fti_dev_fail(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline int fti_dev_fail(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
    return -1;
}

/* The message in buf, or `none` when this thread recorded no failure. */
static inline const char *fti_dev_last_error(const char *buf, const char *none)
{
    return buf[0] ? buf : none;
}

#endif /* FTI_DEV_ERROR_H */
