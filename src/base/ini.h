/*
 * ini.h - the one INI grammar of the library and its tools: the config
 * reader (config.c), the in-place editor (ini_edit.c) and fti-ckpt's
 * `config` command (which the Python tools call) all go through it.
 *
 * The grammar is the one FTI's configs were written for (iniparser 4,
 * which FTI 1.6 bundles), so every config FTI accepts reads the same here:
 *   - a physical line ending in '\' (trailing white space ignored) goes on
 *     on the next one, the '\' dropped;
 *   - white space around a line is ignored; an empty line or one starting
 *     with '#' or ';' is a comment;
 *   - "[name]" starts section `name` (trimmed, case-insensitive); a comment
 *     may follow the ']';
 *   - "key = value": the key is what precedes the first '=' (trimmed,
 *     case-insensitive); the value is what follows, trimmed, up to the
 *     first '#' or ';' (an inline comment), or the text between double or
 *     single quotes (which may hold '#' and ';'), trimmed; "" and '' and
 *     nothing at all are the empty value;
 *   - a key before any section belongs to section "" (an unknown key).
 * Stricter than iniparser, each with a message naming the file, the line
 * and the key: a quote that is not closed and text after a closing quote
 * (iniparser took the text up to the end or the quote), a key given twice
 * in one section (iniparser kept the last silently). Longer lines than
 * iniparser's 1024 bytes are read, not refused.
 */
#ifndef FTI_INI_H
#define FTI_INI_H

#include <stddef.h>

#include "base/error.h"

typedef enum fti_ini_kind { FTI_INI_BLANK, FTI_INI_SECTION, FTI_INI_KEY, FTI_INI_BAD } fti_ini_kind;

/* One logical line, classified. Pointers are into the line given. */
typedef struct fti_ini_line {
    fti_ini_kind kind;
    const char *name; /* section or key, trimmed, case as written */
    size_t name_len;
    const char *value; /* key: the value as read (no quotes, no comment) */
    size_t value_len;
    const char *raw, *raw_end; /* key: the value as written, quotes included */
    const char *why;           /* bad: what is wrong, for the message */
} fti_ini_line;

/* Classifies one logical line of len bytes (no '\n'). Pure; thread-safe. */
fti_ini_kind fti_ini_line_parse(const char *s, size_t len, fti_ini_line *out);

/* Walks a file's text by logical lines (continuations joined). */
typedef struct fti_ini_cursor {
    const char *text;
    size_t n, at; /* the text and where the next physical line starts */
    int lineno;   /* the last physical line read, 1-based */
    char *buf;    /* the joined text of a continued line */
    size_t cap;
} fti_ini_cursor;

void fti_ini_cursor_init(fti_ini_cursor *c, const char *text, size_t n);

/* The next logical line: s and len its text (no newline), first its first
 * line number, [start, end) its physical bytes in the text ('\n'
 * included). 1, 0 at the end, -1 out of memory. */
int fti_ini_next(fti_ini_cursor *c, const char **s, size_t *len, int *first, size_t *start,
                 size_t *end);

void fti_ini_cursor_free(fti_ini_cursor *c);

/* A parsed file: every key in file order, names as "section:key" in lower
 * case (the spelling config.c's key table uses). */
typedef struct fti_ini_entry {
    char *name;
    char *value;
    int line;
} fti_ini_entry;

typedef struct fti_ini {
    fti_ini_entry *e;
    size_t n, cap;
} fti_ini;

/* Parses the n bytes of file `path` into *ini (zeroed first). FTI_E_CONFIG
 * naming the file, the line and the key (or the line's text) for a byte
 * that is not text, a malformed line, or a key given twice in one section
 * (both lines); FTI_E_NOMEM. *ini is empty after an error. */
fti_err fti_ini_parse(fti_ini *ini, const char *path, const char *text, size_t n);

/* The value of "section:key" (lower case), or NULL. */
const char *fti_ini_get(const fti_ini *ini, const char *name);

/* Accepts a zeroed or freed *ini. */
void fti_ini_free(fti_ini *ini);

/* Whether name (len bytes, any case) spells `want` (lower case). */
int fti_ini_name_is(const char *name, size_t len, const char *want);

#endif /* FTI_INI_H */
