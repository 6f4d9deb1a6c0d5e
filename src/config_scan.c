#include "config_scan.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

#define SCAN_KEY_MAX 160

typedef struct seen_key {
    char name[SCAN_KEY_MAX]; /* "section:key", lower case */
    int line;
} seen_key;

typedef struct seen_set {
    seen_key *keys;
    size_t n, cap;
} seen_set;

/* Trims white space at both ends in place; returns the first kept char. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static void lower(char *s)
{
    for (; *s; s++)
        *s = (char)tolower((unsigned char)*s);
}

/* The line of `name` already seen, or 0; records it otherwise (-1: no memory). */
static int seen_before(seen_set *set, const char *name, int line)
{
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->keys[i].name, name) == 0)
            return set->keys[i].line;
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        seen_key *k = realloc(set->keys, cap * sizeof *k);
        if (k == NULL)
            return -1;
        set->keys = k, set->cap = cap;
    }
    snprintf(set->keys[set->n].name, SCAN_KEY_MAX, "%s", name);
    set->keys[set->n++].line = line;
    return 0;
}

/* One line: updates `section`, or names its key in `name` (returns 1). */
static int key_of_line(char *line, char *section, size_t seclen, char *name)
{
    char *s = trim(line);
    if (*s == '\0' || *s == '#' || *s == ';')
        return 0;
    if (*s == '[') {
        char *end = strchr(s, ']');
        if (end != NULL) {
            *end = '\0';
            snprintf(section, seclen, "%s", trim(s + 1));
            lower(section);
        }
        return 0;
    }
    char *eq = strchr(s, '=');
    if (eq == NULL)
        return 0;
    *eq = '\0';
    char *key = trim(s);
    lower(key);
    snprintf(name, SCAN_KEY_MAX, "%.70s:%.80s", section, key);
    return 1;
}

/* Copies the line starting at text[*at] into line (cut at len - 1 bytes)
 * and moves *at past it; 0 at the end of the text. */
static int next_line(const char *text, size_t n, size_t *at, char *line, size_t len)
{
    if (*at >= n)
        return 0;
    const char *start = text + *at, *nl = memchr(start, '\n', n - *at);
    size_t k = nl ? (size_t)(nl - start) : n - *at;
    *at += k + (nl != NULL);
    if (k >= len)
        k = len - 1;
    memcpy(line, start, k);
    line[k] = '\0';
    return 1;
}

fti_err fti_config_check_duplicates(const char *path, const char *text, size_t n)
{
    seen_set set = {0};
    char line[4096], section[80] = "", name[SCAN_KEY_MAX];
    fti_err e = FTI_E_OK;
    size_t at = 0;
    for (int no = 1; e == FTI_E_OK && next_line(text, n, &at, line, sizeof line); no++) {
        if (!key_of_line(line, section, sizeof section, name))
            continue;
        int first = seen_before(&set, name, no);
        if (first < 0)
            e = fti_fail(FTI_E_NOMEM, "config %s: out of memory while reading it", path);
        else if (first > 0)
            e = fti_fail(FTI_E_CONFIG, "config %s: [%s] %s is given twice (lines %d and %d); "
                         "keep one", path, section, strchr(name, ':') + 1, first, no);
    }
    free(set.keys);
    return e;
}

int fti_edit_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= SCAN_KEY_MAX || lb >= SCAN_KEY_MAX)
        return cap;
    int row[SCAN_KEY_MAX];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0], best = row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int sub = diag + (a[i - 1] != b[j - 1]);
            int v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < v ? sub : v;
            diag = up;
            best = row[j] < best ? row[j] : best;
        }
        if (best >= cap)
            return cap;
    }
    return row[lb] < cap ? row[lb] : cap;
}
