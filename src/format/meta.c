#include "format/meta.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fio.h"
#include "base/integrity.h"
#include "base/log.h"
#include "base/safe_fs.h"

#define META_MAGIC "FTI-COMMIT 1"

/* The ten fields of FTI-COMMIT 1, then the fields appended since (a reader
 * of the ten ignores them): nonce, only when the checkpoint has one. */
static int format_commit(char *buf, size_t n, const char *kind, const fti_commit *c)
{
    int len = snprintf(buf, n,
                       "%s level=%d seq=%" PRIu64 " id=%" PRId64 " slot=%d nranks=%d time=%.3f "
                       "bytes=%" PRIu64 " codec=%d io=%d",
                       kind, c->level, c->seq, c->id, c->slot, c->nranks, c->time, c->bytes,
                       c->codec, c->io);
    if (c->nonce != 0)
        len += snprintf(buf + len, n - (size_t)len, " nonce=%016" PRIx64, c->nonce);
    return len + snprintf(buf + len, n - (size_t)len, "\n");
}

/* The appended fields after the ten (at `rest`): " nonce=<16 hex>", absent
 * in records written before it existed; present but not 16 hex digits, or
 * 0, is damage. */
static int parse_appended(const char *rest, fti_commit *c)
{
    const char *p = strstr(rest, " nonce=");
    if (p == NULL)
        return 0;
    p += 7;
    for (int i = 0; i < 16; i++)
        if (!isxdigit((unsigned char)p[i]) || isupper((unsigned char)p[i]))
            return -1;
    if (p[16] != '\0' && p[16] != ' ')
        return -1;
    c->nonce = strtoull(p, NULL, 16);
    return c->nonce != 0 ? 0 : -1;
}

fti_err fti_meta_store(const char *path, const fti_meta *m)
{
    char buf[4096];
    size_t len = (size_t)snprintf(buf, sizeof buf, "%s\nlast_seq=%" PRIu64 "\n", META_MAGIC,
                                  m->last_seq);
    for (int l = 1; l <= 4; l++) {
        if (m->cur[l].valid)
            len += (size_t)format_commit(buf + len, sizeof buf - len, "cur", &m->cur[l]);
        if (m->prev[l].valid)
            len += (size_t)format_commit(buf + len, sizeof buf - len, "prev", &m->prev[l]);
    }
    len += (size_t)snprintf(buf + len, sizeof buf - len, "checksum=%016" PRIx64 "\n",
                            fti_hash_buffer(buf, len));
    if (fti_write_atomic(path, buf, len) != 0)
        return fti_fail(FTI_E_IO, "commit record %s: cannot write: %s", path, strerror(errno));
    return FTI_E_OK;
}

static int parse_commit(const char *line, fti_commit *c, int *is_prev)
{
    char kind[8];
    int end = 0;
    memset(c, 0, sizeof *c);
    int n = sscanf(line, "%7s level=%d seq=%" SCNu64 " id=%" SCNd64 " slot=%d nranks=%d time=%lf "
                   "bytes=%" SCNu64 " codec=%d io=%d%n", kind, &c->level, &c->seq, &c->id, &c->slot,
                   &c->nranks, &c->time, &c->bytes, &c->codec, &c->io, &end);
    if (n != 10 || parse_appended(line + end, c) != 0 || c->level < 1 || c->level > 4 || (c->slot != 0 && c->slot != 1) || c->nranks < 1)
        return -1;
    *is_prev = strcmp(kind, "prev") == 0;
    if (!*is_prev && strcmp(kind, "cur") != 0)
        return -1;
    c->valid = 1;
    return 0;
}

static fti_err parse_record(char *text, size_t n, const char *path, fti_meta *m)
{
    char *sum_line = strstr(text, "checksum=");
    uint64_t sum = 0;
    if (strncmp(text, META_MAGIC "\n", sizeof META_MAGIC) != 0 || sum_line == NULL ||
        sscanf(sum_line, "checksum=%" SCNx64, &sum) != 1 ||
        sum != fti_hash_buffer(text, (size_t)(sum_line - text)))
        return fti_fail(FTI_E_CORRUPT, "commit record %s: damaged (bad magic or checksum); "
                        "move it away to start fresh", path);
    (void)n;
    *sum_line = '\0';
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        fti_commit c;
        int is_prev;
        if (strncmp(line, "last_seq=", 9) == 0) {
            m->last_seq = strtoull(line + 9, NULL, 10);
        } else if (strncmp(line, "cur ", 4) == 0 || strncmp(line, "prev ", 5) == 0) {
            if (parse_commit(line, &c, &is_prev) != 0)
                return fti_fail(FTI_E_CORRUPT, "commit record %s: malformed line '%s'", path, line);
            if (is_prev)
                m->prev[c.level] = c;
            else
                m->cur[c.level] = c;
        }
    }
    return FTI_E_OK;
}

fti_err fti_meta_load(const char *path, fti_meta *m, int *found)
{
    memset(m, 0, sizeof *m);
    *found = 0;
    char *text = NULL;
    size_t n = 0;
    if (fti_read_small(path, &text, &n) != 0) {
        if (errno == ENOENT)
            return FTI_E_OK;
        return fti_fail(FTI_E_IO, "commit record %s: cannot read: %s", path, fti_fs_strerror(errno));
    }
    fti_err e = parse_record(text, n, path, m);
    free(text);
    if (e == FTI_E_OK)
        *found = 1;
    else
        memset(m, 0, sizeof *m);
    return e;
}

void fti_meta_commit(fti_meta *m, const fti_commit *c)
{
    m->prev[c->level] = m->cur[c->level];
    m->cur[c->level] = *c;
    m->cur[c->level].valid = 1;
    if (c->seq > m->last_seq)
        m->last_seq = c->seq;
}

void fti_meta_drop_below(fti_meta *m, int level)
{
    for (int l = 1; l < level && l <= 4; l++) {
        m->cur[l].valid = 0;
        m->prev[l].valid = 0;
    }
}

void fti_meta_record(fti_meta *m, const fti_commit *c, int keep_all_levels)
{
    fti_meta_commit(m, c);
    if (!keep_all_levels)
        fti_meta_drop_below(m, c->level);
}

int fti_meta_candidates(const fti_meta *m, fti_commit out[8])
{
    int n = 0;
    for (int l = 1; l <= 4; l++) {
        if (m->cur[l].valid)
            out[n++] = m->cur[l];
        if (m->prev[l].valid)
            out[n++] = m->prev[l];
    }
    for (int i = 1; i < n; i++) /* insertion sort, newest first */
        for (int j = i; j > 0 && out[j].seq > out[j - 1].seq; j--) {
            fti_commit t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}
