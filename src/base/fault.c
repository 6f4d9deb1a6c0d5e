#include "base/fault.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"

int fti_fault_enabled = 0;

typedef enum { F_WRITE, F_CRASH, F_FLIP, F_TRUNCATE, F_DELAY } fault_kind;

typedef struct fault_point {
    fault_kind kind;
    fti_phase phase; /* crash/delay/flip/truncate: where; write: unused */
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

/* Why the "@R[+R...]" of spec names no rank of a job of nranks (global)
 * ranks, or NULL: a point restricted to such a rank would never fire. */
static const char *ranks_invalid(const char *spec, int nranks)
{
    static char why[96];
    const char *at = strchr(spec, '@');
    for (const char *p = at ? at + 1 : NULL; p; ) {
        char *end;
        long r = strtol(p, &end, 10);
        if (end == p || r < 0 || (*end != '\0' && *end != '+'))
            return "@R[+R...] needs rank numbers";
        if (r >= nranks) {
            snprintf(why, sizeof why, "@%ld: the job has ranks 0-%d only", r, nranks - 1);
            return why;
        }
        p = *end == '+' ? end + 1 : NULL;
    }
    return NULL;
}

static const struct {
    const char *name;
    int writes;
} phases[FTI_PHASE_COUNT] = {
#define FTI_PHASE_ROW(id, name, writes) [FTI_PHASE_##id] = {name, writes},
    FTI_FAULT_PHASES(FTI_PHASE_ROW)
#undef FTI_PHASE_ROW
};

const char *fti_fault_phase_name(fti_phase phase)
{
    return (unsigned)phase < FTI_PHASE_COUNT ? phases[phase].name : "?";
}

int fti_fault_phase_by_name(const char *name)
{
    for (int i = 0; i < FTI_PHASE_COUNT; i++)
        if (strcmp(phases[i].name, name) == 0)
            return i;
    return -1;
}

void fti_fault_phase_list(char *buf, size_t size, int files_only)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < FTI_PHASE_COUNT; i++)
        if ((!files_only || phases[i].writes) && used < size)
            used += (size_t)snprintf(buf + used, size - used, "%s%s", used ? ", " : "", phases[i].name);
}

/* Why a point of this kind cannot be placed at the phase named `name`, or
 * NULL: a crash or delay anywhere the library reaches, a flip or truncate
 * only where a file was just written (an accepted point always injects). */
static const char *phase_refused(fault_kind kind, const char *name, fti_phase *phase)
{
    static char why[512];
    int anywhere = kind == F_CRASH || kind == F_DELAY, id = fti_fault_phase_by_name(name);
    if (id >= 0 && (anywhere || phases[id].writes)) {
        *phase = (fti_phase)id;
        return NULL;
    }
    char list[400];
    fti_fault_phase_list(list, sizeof list, !anywhere);
    snprintf(why, sizeof why, id < 0 ? "unknown phase '%s' (phases: %s)"
                                     : "flip and truncate need a phase that writes a file, not '%s': %s",
             name, list);
    return why;
}

/* One point: write:N:ERRNO | crash:PHASE[:N] | delay:PHASE[:N] | flip:PHASE[:N] |
 * truncate:PHASE[:N],
 * each optionally followed by @RANK[+RANK...] (ranks below nranks). Returns
 * NULL, or why not. */
static const char *parse_point(char *spec, int rank, int nranks)
{
    const char *bad_ranks = ranks_invalid(spec, nranks);
    if (bad_ranks)
        return bad_ranks;
    char *at = strchr(spec, '@');
    int selected = rank_selected(spec, rank);
    if (at)
        *at = '\0';
    char *kind = strtok(spec, ":");
    char *a = strtok(NULL, ":");
    char *b = strtok(NULL, ":");
    if (kind == NULL || a == NULL)
        return "a point is KIND:ARG (write:N, crash:PHASE, delay:PHASE, flip:PHASE, truncate:PHASE)";
    if (npoints == MAX_POINTS)
        return "more than 8 points";
    fault_point p = {0};
    p.nth = 1;
    if (strcmp(kind, "write") == 0) {
        p.kind = F_WRITE;
        p.nth = strtol(a, NULL, 10);
        p.err = b ? parse_errno(b) : EIO;
        if (p.nth <= 0 || p.err == 0)
            return "write:N[:ERRNO] needs N >= 1 and ERRNO one of EIO, ENOSPC, EDQUOT, EROFS";
    } else {
        if (strcmp(kind, "crash") == 0) p.kind = F_CRASH;
        else if (strcmp(kind, "delay") == 0) p.kind = F_DELAY;
        else if (strcmp(kind, "flip") == 0) p.kind = F_FLIP;
        else if (strcmp(kind, "truncate") == 0) p.kind = F_TRUNCATE;
        else return "unknown kind (write, crash, delay, flip, truncate)";
        if (b) p.nth = strtol(b, NULL, 10);
        if (p.nth <= 0)
            return "the count N of KIND:PHASE:N must be >= 1";
        const char *why = phase_refused(p.kind, a, &p.phase);
        if (why)
            return why;
    }
    if (selected)
        points[npoints++] = p;
    return NULL;
}

int fti_fault_init(int rank, int nranks)
{
    npoints = 0;
    fti_fault_enabled = 0;
    const char *env = getenv("FTI_FAULT");
    if (env == NULL || env[0] == '\0')
        return 0;
    char *copy = strdup(env);
    if (copy == NULL)
        return -1;
    const char *why = NULL;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && why == NULL; tok = strtok_r(NULL, ",", &save))
        why = parse_point(tok, rank, nranks);
    free(copy);
    if (why != NULL) {
        npoints = 0;
        fti_fail(FTI_E_CONFIG, "FTI_FAULT='%s' is malformed: %s (see docs/FAULTS.md)", env, why);
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

/* Flips a bit of the region's last byte (inside the data of the last
 * variable) or cuts the file in the middle of the region; says what it did,
 * or why it could not. */
static void damage(const fault_point *p, fti_phase phase, const char *file, uint64_t off,
                   uint64_t len)
{
    const char *what = p->kind == F_TRUNCATE ? "truncate" : "flip a bit in";
    /* never through a link; a FIFO has no size (lseek fails): not damaged */
    int fd = open(file, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (size > 0 && len == 0)
        off = 0, len = (uint64_t)size;
    int ok = size > 0 && len > 0 && off + len <= (uint64_t)size;
    if (ok && p->kind == F_TRUNCATE) {
        ok = ftruncate(fd, (off_t)(off + len / 2)) == 0;
    } else if (ok) {
        unsigned char c;
        ok = pread(fd, &c, 1, (off_t)(off + len - 1)) == 1;
        c ^= 0x01;
        ok = ok && pwrite(fd, &c, 1, (off_t)(off + len - 1)) == 1;
    }
    int err = errno;
    if (fd >= 0)
        close(fd);
    if (ok)
        fti_log(FTI_LOG_WARN, "fault injection: %s:%s: %s %s (bytes %llu-%llu of %lld)",
                p->kind == F_TRUNCATE ? "truncate" : "flip", fti_fault_phase_name(phase),
                p->kind == F_TRUNCATE ? "truncated" : "flipped a bit in", file,
                (unsigned long long)off, (unsigned long long)(off + len), (long long)size);
    else
        fti_log(FTI_LOG_WARN, "fault injection: %s:%s: could not %s %s: %s",
                p->kind == F_TRUNCATE ? "truncate" : "flip", fti_fault_phase_name(phase), what, file,
                size == 0 || fd >= 0 ? "empty file or region outside it" : strerror(err));
}

/* The Nth time point p's phase is reached; 1 when it fires now. */
static int fires(fault_point *p, fti_phase phase)
{
    return p->phase == phase && ++p->count == p->nth;
}

void fti_fault_phase_hook(fti_phase phase)
{
    for (int i = 0; i < npoints; i++) {
        fault_point *p = &points[i];
        if (p->kind == F_CRASH && fires(p, phase)) {
            fti_log(FTI_LOG_WARN, "fault injection: crash at phase '%s'", fti_fault_phase_name(phase));
            _exit(42);
        }
        if (p->kind == F_DELAY && fires(p, phase)) { /* widens a race window in tests */
            fti_log(FTI_LOG_WARN, "fault injection: 1 s delay at phase '%s'", fti_fault_phase_name(phase));
            struct timespec one = {1, 0};
            nanosleep(&one, NULL);
        }
    }
}

void fti_fault_wrote_hook(fti_phase phase, const char *file, uint64_t off, uint64_t len)
{
    for (int i = 0; i < npoints; i++) {
        fault_point *p = &points[i];
        if ((p->kind == F_FLIP || p->kind == F_TRUNCATE) && fires(p, phase))
            damage(p, phase, file, off, len);
    }
}
