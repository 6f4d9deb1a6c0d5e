/*
 * jobstatus.c - appends one JSON object per line to $FTI_STATUS_FILE, so a
 * launcher can tell "relaunch and resume" from "relaunching cannot help".
 */
#include "runtime/jobstatus.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/safe_fs.h"

#define LINE_MAX_LEN 2048

/* A JSON string body: quotes, backslashes and control characters escaped. */
static void json_escape(char *out, size_t cap, const char *s)
{
    size_t n = 0;
    for (; *s && n + 7 < cap; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            n += (size_t)snprintf(out + n, cap - n, "\\%c", ch);
        else if (ch < 0x20)
            n += (size_t)snprintf(out + n, cap - n, "\\u%04x", ch);
        else
            out[n++] = (char)ch;
    }
    out[n] = '\0';
}

/* One line, one write(2) with O_APPEND: lines of separate runs never mix. */
static void append(int rank, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append(int rank, const char *fmt, ...)
{
    const char *path = getenv("FTI_STATUS_FILE");
    if (rank != 0 || path == NULL || path[0] == '\0')
        return;
    char line[LINE_MAX_LEN];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int n = snprintf(line, sizeof line, "{\"time\":%.3f,", (double)now.tv_sec + now.tv_nsec * 1e-9);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n - 2, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n > sizeof line - 3)
        return;
    memcpy(line + n, "}\n", 3);
    int fd = fti_open_append(path); /* a regular file of this user, 0600, or new */
    if (fd < 0)
        return;
    ssize_t w = write(fd, line, (size_t)n + 2);
    (void)w; /* best effort by contract */
    close(fd);
}

static void error_event(int rank, const char *event, fti_err code, const char *message)
{
    char esc[1024];
    json_escape(esc, sizeof esc, message ? message : "");
    append(rank, "\"event\":\"%s\",\"error\":\"%s\",\"message\":\"%s\"", event, fti_err_name(code),
           esc);
}

void fti_jobstatus_init_error(int rank, fti_err code, const char *message)
{
    (void)rank;
    error_event(0, "init_error", code, message);
}

void fti_jobstatus_restart_refused(int rank, fti_err code, const char *message)
{
    (void)rank;
    error_event(0, "restart_refused", code, message);
}

void fti_jobstatus_ready(int rank, const char *exec_id, const fti_commit *chosen)
{
    char esc[512];
    json_escape(esc, sizeof esc, exec_id);
    if (chosen == NULL)
        append(rank, "\"event\":\"ready\",\"exec_id\":\"%s\",\"restart\":false", esc);
    else
        append(rank, "\"event\":\"ready\",\"exec_id\":\"%s\",\"restart\":true,\"seq\":%llu,"
               "\"id\":%lld,\"level\":%d", esc, (unsigned long long)chosen->seq,
               (long long)chosen->id, chosen->level);
}

void fti_jobstatus_committed(int rank, const fti_commit *c)
{
    append(rank, "\"event\":\"committed\",\"seq\":%llu,\"id\":%lld,\"level\":%d,\"bytes\":%llu",
           (unsigned long long)c->seq, (long long)c->id, c->level, (unsigned long long)c->bytes);
}

void fti_jobstatus_finalized(int rank, fti_err code)
{
    append(rank, "\"event\":\"finalized\",\"error\":\"%s\"", fti_err_name(code));
}

void fti_jobstatus_online(int rank, int replaced, double repair_s, double choose_s,
                          const fti_commit *chosen)
{
    append(rank, "\"event\":\"online_recovery\",\"replaced\":%d,\"repair_s\":%.3f,"
           "\"choose_s\":%.3f,\"seq\":%llu,\"id\":%lld,\"level\":%d", replaced, repair_s,
           choose_s, (unsigned long long)chosen->seq, (long long)chosen->id, chosen->level);
}
