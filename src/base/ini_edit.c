#include "base/ini_edit.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fio.h"
#include "base/ini.h"
#include "base/safe_fs.h"

typedef struct line {
    const char *text; /* the physical bytes in the file's buffer, not terminated */
    size_t len;       /* with the last '\n', if any */
    const char *logical; /* continuations joined (owned when `joined`) */
    size_t logical_len;
    int joined;
    fti_ini_line l; /* pointers into `logical` */
} line;

static int name_is(const line *ln, const char *name)
{
    return ln->l.name_len == strlen(name) && strncasecmp(ln->l.name, name, ln->l.name_len) == 0;
}

static void free_lines(line *ls, int n)
{
    for (int i = 0; ls != NULL && i < n; i++)
        if (ls[i].joined)
            free((char *)ls[i].logical);
    free(ls);
}

/* Splits buf into logical lines, classified by the one grammar (ini.h). */
static line *split_lines(const char *buf, size_t size, int *count)
{
    line *ls = calloc(size + 1, sizeof *ls);
    fti_ini_cursor c;
    fti_ini_cursor_init(&c, buf, size);
    const char *s;
    size_t len, start, end;
    int n = 0, first, got = 0;
    while (ls != NULL && (got = fti_ini_next(&c, &s, &len, &first, &start, &end)) == 1) {
        line *ln = &ls[n++];
        ln->text = buf + start;
        ln->len = end - start;
        ln->joined = s < buf || s >= buf + size;
        ln->logical = ln->joined ? strndup(s, len) : s;
        ln->logical_len = len;
        if (ln->logical == NULL)
            got = -1;
        else
            fti_ini_line_parse(ln->logical, len, &ln->l);
        if (got < 0)
            break;
    }
    fti_ini_cursor_free(&c);
    *count = n;
    if (got < 0) {
        free_lines(ls, n);
        return NULL;
    }
    return ls;
}

/* A key line with its value replaced: the text before the value, the new
 * value, then what followed the old value (spacing, comment, end of line). */
static void write_key_line(FILE *out, const line *ln, const char *value)
{
    const char *t = ln->logical, *end = t + ln->logical_len;
    fprintf(out, "%.*s%s%.*s\n", (int)(ln->l.raw - t), t, value, (int)(end - ln->l.raw_end),
            ln->l.raw_end);
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
        if (ls[i].l.kind == FTI_INI_SECTION)
            in = name_is(&ls[i], section);
        if (in && (ls[i].l.kind == FTI_INI_SECTION || ls[i].l.kind == FTI_INI_KEY))
            last = i;
        for (int k = 0; in && ls[i].l.kind == FTI_INI_KEY && k < n; k++)
            if (name_is(&ls[i], kv[k].key))
                found[k] = 1;
    }
    in = 0;
    for (int i = 0; i < nl; i++) {
        if (ls[i].l.kind == FTI_INI_SECTION)
            in = name_is(&ls[i], section);
        int k = 0;
        while (in && ls[i].l.kind == FTI_INI_KEY && k < n && !name_is(&ls[i], kv[k].key))
            k++;
        if (in && ls[i].l.kind == FTI_INI_KEY && k < n)
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
    free_lines(ls, nl);
    free(buf);
    return rc;
}
