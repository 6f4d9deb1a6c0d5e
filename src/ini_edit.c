#include "ini_edit.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fio.h"
#include "safe_fs.h"

enum { LINE_OTHER, LINE_SECTION, LINE_KEY };

typedef struct line {
    const char *text; /* into the file's buffer, not terminated */
    size_t len;       /* with its '\n', if any */
    int kind;
    const char *name; /* section or key name, trimmed */
    size_t name_len;
} line;

static const char *skip_space(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

static size_t trimmed_len(const char *p, size_t n)
{
    while (n > 0 && isspace((unsigned char)p[n - 1]))
        n--;
    return n;
}

static void classify(line *l)
{
    const char *end = l->text + l->len;
    const char *p = skip_space(l->text, end);
    l->kind = LINE_OTHER;
    if (p == end || *p == '#' || *p == ';' || *p == '\n' || *p == '\r')
        return;
    if (*p == '[') {
        const char *close = memchr(p, ']', (size_t)(end - p));
        if (close == NULL)
            return;
        l->name = skip_space(p + 1, close);
        l->name_len = trimmed_len(l->name, (size_t)(close - l->name));
        l->kind = LINE_SECTION;
        return;
    }
    const char *eq = memchr(p, '=', (size_t)(end - p));
    if (eq == NULL)
        return;
    l->name = p;
    l->name_len = trimmed_len(p, (size_t)(eq - p));
    l->kind = LINE_KEY;
}

static int name_is(const line *l, const char *name)
{
    return l->name_len == strlen(name) && strncasecmp(l->name, name, l->name_len) == 0;
}

/* Splits buf into lines (the last may lack its '\n'). */
static line *split_lines(const char *buf, size_t size, int *count)
{
    line *ls = calloc(size + 1, sizeof *ls);
    int n = 0;
    for (size_t at = 0; ls != NULL && at < size;) {
        const char *nl = memchr(buf + at, '\n', size - at);
        size_t len = nl ? (size_t)(nl - (buf + at)) + 1 : size - at;
        ls[n].text = buf + at;
        ls[n].len = len;
        classify(&ls[n]);
        n++;
        at += len;
    }
    *count = n;
    return ls;
}

/* A key line with its value replaced: the text before the value, the new
 * value, then what followed the old value (spacing, comment, end of line). */
static void write_key_line(FILE *out, const line *l, const char *value)
{
    const char *end = l->text + l->len;
    const char *v = skip_space((const char *)memchr(l->text, '=', l->len) + 1, end);
    const char *stop = v;
    if (stop < end && *stop == '"') { /* a quoted value may hold comment characters */
        const char *q = memchr(stop + 1, '"', (size_t)(end - stop - 1));
        stop = q ? q + 1 : end;
    }
    while (stop < end && *stop != '#' && *stop != ';' && *stop != '\n' && *stop != '\r')
        stop++;
    const char *vend = v + trimmed_len(v, (size_t)(stop - v));
    fprintf(out, "%.*s%s%.*s", (int)(v - l->text), l->text, value, (int)(end - vend), vend);
    if (l->len == 0 || l->text[l->len - 1] != '\n')
        fputc('\n', out);
}

static void write_missing(FILE *out, const fti_ini_kv *kv, int n, const int *found)
{
    for (int k = 0; k < n; k++)
        if (!found[k])
            fprintf(out, "%s = %s\n", kv[k].key, kv[k].value);
}

static void write_line(FILE *out, const line *l)
{
    fwrite(l->text, 1, l->len, out);
    if (l->len > 0 && l->text[l->len - 1] != '\n')
        fputc('\n', out); /* something follows it now */
}

/* The edited file: key lines of `section` replaced, missing keys added
 * after the section's last key line (or its header), or a new section. */
static void write_edited(FILE *out, const line *ls, int nl, const char *section, const fti_ini_kv *kv,
                         int n, int *found)
{
    int in = 0, last = -1; /* the line after which missing keys go */
    for (int i = 0; i < nl; i++) {
        if (ls[i].kind == LINE_SECTION)
            in = name_is(&ls[i], section);
        if (in && ls[i].kind != LINE_OTHER)
            last = i;
        for (int k = 0; in && ls[i].kind == LINE_KEY && k < n; k++)
            if (name_is(&ls[i], kv[k].key))
                found[k] = 1;
    }
    in = 0;
    for (int i = 0; i < nl; i++) {
        if (ls[i].kind == LINE_SECTION)
            in = name_is(&ls[i], section);
        int k = 0;
        while (in && ls[i].kind == LINE_KEY && k < n && !name_is(&ls[i], kv[k].key))
            k++;
        if (in && ls[i].kind == LINE_KEY && k < n)
            write_key_line(out, &ls[i], kv[k].value);
        else if (i == last)
            write_line(out, &ls[i]);
        else
            fwrite(ls[i].text, 1, ls[i].len, out);
        if (i == last)
            write_missing(out, kv, n, found);
    }
    if (last < 0) {
        if (nl > 0 && ls[nl - 1].text[ls[nl - 1].len - 1] != '\n')
            fputc('\n', out);
        fprintf(out, "\n[%s]\n", section);
        write_missing(out, kv, n, found);
    }
}

static char *read_all(const char *path, size_t *size, struct stat *st)
{
    FILE *f = fti_fopen_read(path);
    if (f == NULL)
        return NULL;
    char *buf = NULL;
    if (fstat(fileno(f), st) == 0 && (buf = malloc((size_t)st->st_size + 1)) != NULL) {
        *size = fread(buf, 1, (size_t)st->st_size, f);
        if (ferror(f)) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    return buf;
}

static int failed(char *why, size_t why_len, const char *what, const char *path)
{
    snprintf(why, why_len, "%s %s: %s", what, path, fti_fs_strerror(errno));
    return -1;
}

/* The new version's temporary file: a name nobody can plant a link at,
 * created exclusively. */
static FILE *create_temp(char *tmp, size_t n, const char *real)
{
    int fd = fti_temp_name(tmp, n, real) == 0 ? fti_open_new(tmp) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (f == NULL && fd >= 0) {
        int err = errno;
        close(fd);
        unlink(tmp);
        errno = err;
    }
    return f;
}

int fti_ini_set(const char *path, const char *section, const fti_ini_kv *kv, int n, char *why,
                size_t why_len)
{
    char real[PATH_MAX], tmp[PATH_MAX + 32];
    if (realpath(path, real) == NULL)
        return failed(why, why_len, "cannot resolve", path);
    if (access(real, W_OK) != 0)
        return failed(why, why_len, "cannot write", real);
    struct stat st;
    size_t size = 0;
    char *buf = read_all(real, &size, &st);
    if (buf == NULL)
        return failed(why, why_len, "cannot read", real);
    int nl = 0, found[16] = {0};
    line *ls = split_lines(buf, size, &nl);
    FILE *out = ls && n <= 16 ? create_temp(tmp, sizeof tmp, real) : NULL;
    int rc = out ? 0 : failed(why, why_len, "cannot create", tmp);
    if (out != NULL) {
        write_edited(out, ls, nl, section, kv, n, found);
        fchmod(fileno(out), st.st_mode & 07777);
        if (fflush(out) != 0 || fsync(fileno(out)) != 0)
            rc = failed(why, why_len, "cannot write", tmp);
        if (fclose(out) != 0 && rc == 0)
            rc = failed(why, why_len, "cannot write", tmp);
        if (rc == 0 && rename(tmp, real) != 0)
            rc = failed(why, why_len, "cannot replace", real);
        if (rc != 0)
            unlink(tmp);
    }
    free(ls);
    free(buf);
    return rc;
}
