#include "base/ini.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* White space inside a line ('\n' ends lines before we get here). */
static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static const char *skip_blank(const char *p, const char *e)
{
    while (p < e && blank(*p))
        p++;
    return p;
}

static const char *trim_end(const char *p, const char *e)
{
    while (e > p && blank(e[-1]))
        e--;
    return e;
}

static fti_ini_kind bad(fti_ini_line *out, const char *name, const char *name_end, const char *why)
{
    out->kind = FTI_INI_BAD;
    out->name = name;
    out->name_len = (size_t)(name_end - name);
    out->why = why;
    return FTI_INI_BAD;
}

/* "[name]", a comment allowed after the ']' (iniparser also took "[a]b]"). */
static fti_ini_kind parse_section(const char *p, const char *e, fti_ini_line *out)
{
    const char *close = memchr(p, ']', (size_t)(e - p));
    if (close == NULL)
        return bad(out, p, e, "the section header has no ']'");
    const char *rest = skip_blank(close + 1, e);
    if (rest < e && *rest != '#' && *rest != ';' && e[-1] != ']')
        return bad(out, p, e, "text after the section header's ']'");
    const char *name = skip_blank(p + 1, close);
    const char *name_end = trim_end(name, close);
    if (name == name_end)
        return bad(out, p, e, "the section name is empty");
    out->kind = FTI_INI_SECTION;
    out->name = name;
    out->name_len = (size_t)(name_end - name);
    return FTI_INI_SECTION;
}

/* The value after '=' (v is past the '=' and its blanks). */
static fti_ini_kind parse_value(const char *v, const char *e, fti_ini_line *out)
{
    const char *from = v, *to;
    out->raw = v;
    if (v < e && (*v == '"' || *v == '\'')) {
        const char *q = memchr(v + 1, *v, (size_t)(e - v - 1));
        if (q == NULL)
            return bad(out, out->name, out->name + out->name_len,
                       *v == '"' ? "the value's '\"' is not closed" : "the value's \"'\" is not closed");
        const char *after = skip_blank(q + 1, e);
        if (after < e && *after != '#' && *after != ';')
            return bad(out, out->name, out->name + out->name_len,
                       "text after the quoted value (put it inside the quotes, or after '#')");
        from = skip_blank(v + 1, q);
        to = trim_end(from, q);
        out->raw_end = q + 1;
    } else {
        to = v;
        while (to < e && *to != '#' && *to != ';')
            to++;
        to = trim_end(v, to);
        out->raw_end = to;
    }
    out->kind = FTI_INI_KEY;
    out->value = from;
    out->value_len = (size_t)(to - from);
    return FTI_INI_KEY;
}

fti_ini_kind fti_ini_line_parse(const char *s, size_t len, fti_ini_line *out)
{
    memset(out, 0, sizeof *out);
    const char *p = skip_blank(s, s + len), *e = trim_end(p, s + len);
    if (p == e || *p == '#' || *p == ';')
        return out->kind = FTI_INI_BLANK;
    if (*p == '[')
        return parse_section(p, e, out);
    const char *eq = memchr(p, '=', (size_t)(e - p));
    if (eq == NULL)
        return bad(out, p, e, "no '=' (a line is '[section]', 'key = value' or a '#' or ';' comment)");
    const char *key_end = trim_end(p, eq);
    if (key_end == p)
        return bad(out, p, e, "no key before the '='");
    out->name = p;
    out->name_len = (size_t)(key_end - p);
    return parse_value(skip_blank(eq + 1, e), e, out);
}

/* ---- logical lines ---------------------------------------------------------- */

void fti_ini_cursor_init(fti_ini_cursor *c, const char *text, size_t n)
{
    memset(c, 0, sizeof *c);
    c->text = text;
    c->n = n;
}

void fti_ini_cursor_free(fti_ini_cursor *c)
{
    free(c->buf);
    c->buf = NULL;
    c->cap = 0;
}

static int append(fti_ini_cursor *c, size_t *used, const char *p, size_t k)
{
    if (*used + k + 1 > c->cap) {
        size_t cap = 2 * (*used + k + 1);
        char *b = realloc(c->buf, cap);
        if (b == NULL)
            return -1;
        c->buf = b, c->cap = cap;
    }
    memcpy(c->buf + *used, p, k);
    *used += k;
    c->buf[*used] = '\0';
    return 0;
}

int fti_ini_next(fti_ini_cursor *c, const char **s, size_t *len, int *first, size_t *start,
                 size_t *end)
{
    if (c->at >= c->n)
        return 0;
    *start = c->at;
    *first = c->lineno + 1;
    size_t used = 0;
    for (int joined = 0;; joined = 1) {
        const char *p = c->text + c->at, *nl = memchr(p, '\n', c->n - c->at);
        size_t k = nl ? (size_t)(nl - p) : c->n - c->at;
        c->at += k + (nl != NULL);
        c->lineno++;
        size_t t = (size_t)(trim_end(p, p + k) - p);
        int more = t > 0 && p[t - 1] == '\\' && c->at < c->n; /* the last line cannot go on */
        if (!more && !joined) { /* the common case: the text itself, no copy */
            *s = p;
            *len = k;
            break;
        }
        if (append(c, &used, p, more ? t - 1 : k) != 0)
            return -1;
        if (!more) {
            *s = c->buf;
            *len = used;
            break;
        }
    }
    *end = c->at;
    return 1;
}

/* ---- whole files -------------------------------------------------------------- */

int fti_ini_name_is(const char *name, size_t len, const char *want)
{
    size_t i = 0;
    for (; i < len && want[i]; i++)
        if (tolower((unsigned char)name[i]) != want[i])
            return 0;
    return i == len && want[i] == '\0';
}

void fti_ini_free(fti_ini *ini)
{
    for (size_t i = 0; i < ini->n; i++) {
        free(ini->e[i].name);
        free(ini->e[i].value);
    }
    free(ini->e);
    memset(ini, 0, sizeof *ini);
}

const char *fti_ini_get(const fti_ini *ini, const char *name)
{
    for (size_t i = 0; i < ini->n; i++)
        if (strcmp(ini->e[i].name, name) == 0)
            return ini->e[i].value;
    return NULL;
}

/* A config must be text: the control bytes of a binary file would reach
 * the terminal in our messages. */
static fti_err check_text(const char *path, const char *text, size_t n)
{
    size_t line = 1, col = 1, i = 0;
    for (; i < n; i++, col++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n')
            line++, col = 0;
        else if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
            break;
    }
    if (i == n)
        return FTI_E_OK;
    return fti_fail(FTI_E_CONFIG, "config %s: not a text INI file (byte 0x%02x at line %zu, column "
                    "%zu)", path, (unsigned char)text[i], line, col);
}

static char *lower_dup(const char *a, size_t na, const char *b, size_t nb)
{
    char *s = malloc(na + nb + 2);
    if (s == NULL)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < na; i++)
        s[k++] = (char)tolower((unsigned char)a[i]);
    if (b != NULL) {
        s[k++] = ':';
        for (size_t i = 0; i < nb; i++)
            s[k++] = (char)tolower((unsigned char)b[i]);
    }
    s[k] = '\0';
    return s;
}

static fti_err bad_line(const char *path, int lineno, const char *section, const fti_ini_line *l)
{
    if (l->name != NULL && l->name[0] == '[')
        return fti_fail(FTI_E_CONFIG, "config %s: not a valid INI file: line %d, section header "
                        "'%.*s': %s", path, lineno, (int)l->name_len, l->name, l->why);
    return fti_fail(FTI_E_CONFIG, "config %s: not a valid INI file: line %d, key '%.*s'%s%s%s: %s",
                    path, lineno, (int)l->name_len, l->name, section[0] ? " in [" : "", section,
                    section[0] ? "]" : "", l->why);
}

/* Adds "section:key" = value, or fails naming both lines of a key given twice. */
static fti_err add_key(fti_ini *ini, const char *path, const char *section, const fti_ini_line *l,
                       int lineno)
{
    fti_ini_entry en = {lower_dup(section, strlen(section), l->name, l->name_len),
                        lower_dup(l->value, l->value_len, NULL, 0), lineno};
    if (en.name == NULL || en.value == NULL)
        goto nomem;
    memcpy(en.value, l->value, l->value_len); /* values keep their case */
    for (size_t i = 0; i < ini->n; i++)
        if (strcmp(ini->e[i].name, en.name) == 0) {
            fti_err e = fti_fail(FTI_E_CONFIG, "config %s: [%s] %s is given twice (lines %d and "
                                 "%d); keep one", path, section, strchr(en.name, ':') + 1,
                                 ini->e[i].line, lineno);
            free(en.name);
            free(en.value);
            return e;
        }
    if (ini->n == ini->cap) {
        size_t cap = ini->cap ? 2 * ini->cap : 64;
        fti_ini_entry *grown = realloc(ini->e, cap * sizeof *grown);
        if (grown == NULL)
            goto nomem;
        ini->e = grown, ini->cap = cap;
    }
    ini->e[ini->n++] = en;
    return FTI_E_OK;
nomem:
    free(en.name);
    free(en.value);
    return fti_fail(FTI_E_NOMEM, "config %s: out of memory while reading it", path);
}

static fti_err parse_lines(fti_ini *ini, const char *path, fti_ini_cursor *c)
{
    char *section = lower_dup("", 0, NULL, 0);
    fti_err e = section ? FTI_E_OK : fti_fail(FTI_E_NOMEM, "config %s: out of memory", path);
    const char *s;
    size_t len, start, end;
    int lineno, got = 0;
    while (e == FTI_E_OK && (got = fti_ini_next(c, &s, &len, &lineno, &start, &end)) == 1) {
        fti_ini_line l;
        switch (fti_ini_line_parse(s, len, &l)) {
        case FTI_INI_BAD:
            e = bad_line(path, lineno, section, &l);
            break;
        case FTI_INI_SECTION:
            free(section);
            section = lower_dup(l.name, l.name_len, NULL, 0);
            if (section == NULL)
                e = fti_fail(FTI_E_NOMEM, "config %s: out of memory", path);
            break;
        case FTI_INI_KEY:
            e = add_key(ini, path, section, &l, lineno);
            break;
        default:
            break;
        }
    }
    if (e == FTI_E_OK && got < 0)
        e = fti_fail(FTI_E_NOMEM, "config %s: out of memory while reading it", path);
    free(section);
    return e;
}

fti_err fti_ini_parse(fti_ini *ini, const char *path, const char *text, size_t n)
{
    memset(ini, 0, sizeof *ini);
    fti_err e = check_text(path, text, n);
    if (e != FTI_E_OK)
        return e;
    fti_ini_cursor c;
    fti_ini_cursor_init(&c, text, n);
    e = parse_lines(ini, path, &c);
    fti_ini_cursor_free(&c);
    if (e != FTI_E_OK)
        fti_ini_free(ini);
    return e;
}
