#include "fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

int fti_fault_enabled = 0;

typedef enum { F_WRITE, F_CRASH, F_FLIP, F_TRUNCATE } fault_kind;

typedef struct fault_point {
    fault_kind kind;
    char phase[32]; /* crash/flip/truncate: where; write: unused */
    long nth;       /* write: the Nth write call fails; phase: on the Nth time reached */
    int err;        /* write: errno to inject */
    long count;     /* times this point was reached */
} fault_point;

#define MAX_POINTS 8
static fault_point points[MAX_POINTS];
static int npoints;

static int parse_errno(const char *s)
{
    if (strcmp(s, "EIO") == 0) return EIO;
    if (strcmp(s, "ENOSPC") == 0) return ENOSPC;
    if (strcmp(s, "EDQUOT") == 0) return EDQUOT;
    if (strcmp(s, "EROFS") == 0) return EROFS;
    return 0;
}

/* "@r1+r2" restricts a point to some ranks; returns 1 when this rank is in. */
static int rank_selected(const char *spec, int rank)
{
    const char *at = strchr(spec, '@');
    if (at == NULL)
        return 1;
    for (const char *p = at + 1; *p; ) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p)
            return 0;
        if (r == rank)
            return 1;
        p = (*end == '+') ? end + 1 : end;
        if (*end != '+' )
            break;
    }
    return 0;
}

/* One point: write:N:ERRNO | crash:PHASE[:N] | flip:PHASE[:N] | truncate:PHASE[:N],
 * each optionally followed by @RANK[+RANK...]. */
static int parse_point(char *spec, int rank)
{
    char *at = strchr(spec, '@');
    int selected = rank_selected(spec, rank);
    if (at)
        *at = '\0';
    char *kind = strtok(spec, ":");
    char *a = strtok(NULL, ":");
    char *b = strtok(NULL, ":");
    if (kind == NULL || a == NULL || npoints == MAX_POINTS)
        return -1;
    fault_point p = {0};
    p.nth = 1;
    if (strcmp(kind, "write") == 0) {
        p.kind = F_WRITE;
        p.nth = strtol(a, NULL, 10);
        p.err = b ? parse_errno(b) : EIO;
        if (p.nth <= 0 || p.err == 0)
            return -1;
    } else {
        if (strcmp(kind, "crash") == 0) p.kind = F_CRASH;
        else if (strcmp(kind, "flip") == 0) p.kind = F_FLIP;
        else if (strcmp(kind, "truncate") == 0) p.kind = F_TRUNCATE;
        else return -1;
        snprintf(p.phase, sizeof p.phase, "%s", a);
        if (b) p.nth = strtol(b, NULL, 10);
        if (p.nth <= 0)
            return -1;
    }
    if (selected)
        points[npoints++] = p;
    return 0;
}

int fti_fault_init(int rank)
{
    npoints = 0;
    fti_fault_enabled = 0;
    const char *env = getenv("FTI_FAULT");
    if (env == NULL || env[0] == '\0')
        return 0;
    char *copy = strdup(env);
    if (copy == NULL)
        return -1;
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save))
        rc = parse_point(tok, rank);
    free(copy);
    if (rc != 0) {
        npoints = 0;
        fti_fail(FTI_E_CONFIG, "FTI_FAULT='%s' is malformed (see docs/FAULTS.md)", env);
        return -1;
    }
    fti_fault_enabled = npoints > 0;
    return 0;
}

int fti_fault_write_hook(int fd, size_t n, off_t off)
{
    (void)fd; (void)n; (void)off;
    for (int i = 0; i < npoints; i++) {
        fault_point *p = &points[i];
        if (p->kind == F_WRITE && ++p->count == p->nth) {
            fti_log(FTI_LOG_WARN, "fault injection: write #%ld fails with %s", p->nth,
                    strerror(p->err));
            errno = p->err;
            return -1;
        }
    }
    return 0;
}

static void damage(const fault_point *p, const char *file)
{
    if (file == NULL)
        return;
    int fd = open(file, O_RDWR);
    if (fd < 0)
        return;
    off_t size = lseek(fd, 0, SEEK_END);
    if (p->kind == F_TRUNCATE) {
        if (ftruncate(fd, size / 2) != 0)
            fti_log(FTI_LOG_WARN, "fault injection: truncate %s failed", file);
    } else if (size > 0) {
        unsigned char c;
        off_t at = size - 1; /* last byte: inside the data of the last variable */
        if (pread(fd, &c, 1, at) == 1) {
            c ^= 0x01;
            if (pwrite(fd, &c, 1, at) != 1)
                fti_log(FTI_LOG_WARN, "fault injection: flip in %s failed", file);
        }
    }
    close(fd);
    fti_log(FTI_LOG_WARN, "fault injection: %s %s", p->kind == F_TRUNCATE ? "truncated" : "flipped a bit in", file);
}

void fti_fault_phase_hook(const char *phase, const char *file)
{
    for (int i = 0; i < npoints; i++) {
        fault_point *p = &points[i];
        if (p->kind == F_WRITE || strcmp(p->phase, phase) != 0)
            continue;
        if (++p->count != p->nth)
            continue;
        if (p->kind == F_CRASH) {
            fti_log(FTI_LOG_WARN, "fault injection: crash at phase '%s'", phase);
            _exit(42);
        }
        damage(p, file);
    }
}
