/*
 * ckpt_json.c - the JSON writer of fti-ckpt --json (see ckpt_json.h).
 */
#include "ckpt_json.h"

#include <inttypes.h>
#include <math.h>

/* Strings from checkpoint storage (paths, variable names) may hold any
 * byte: control characters are escaped, other bytes pass as they are. */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

/* The separator and the key before a value at the current depth. */
static void lead(ckpt_json *j, const char *key)
{
    if (j->items[j->depth]++ > 0)
        fputc(',', j->f);
    if (key != NULL) {
        put_string(j->f, key);
        fputc(':', j->f);
    }
}

static void open_with(ckpt_json *j, const char *key, char c)
{
    lead(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < CKPT_JSON_DEPTH)
        j->depth++;
    j->items[j->depth] = 0;
}

static void open_tracked(ckpt_json *j, const char *key, char open, char close)
{
    open_with(j, key, open);
    j->closer[j->depth] = close;
}

void cj_object(ckpt_json *j, const char *key) { open_tracked(j, key, '{', '}'); }
void cj_array(ckpt_json *j, const char *key) { open_tracked(j, key, '[', ']'); }

void cj_end(ckpt_json *j)
{
    fputc(j->closer[j->depth], j->f);
    if (j->depth > 0)
        j->depth--;
}

void cj_begin(ckpt_json *j, FILE *f, const char *command)
{
    j->f = f;
    j->depth = 0;
    j->items[0] = 0;
    open_tracked(j, NULL, '{', '}');
    char schema[64];
    snprintf(schema, sizeof schema, "fti-ckpt/%s/1", command);
    cj_str(j, "schema", schema);
}

void cj_finish(ckpt_json *j)
{
    while (j->depth > 0)
        cj_end(j);
    fputc('\n', j->f);
    fflush(j->f);
}

void cj_str(ckpt_json *j, const char *key, const char *v)
{
    lead(j, key);
    if (v == NULL)
        fputs("null", j->f);
    else
        put_string(j->f, v);
}

void cj_int(ckpt_json *j, const char *key, int64_t v)
{
    lead(j, key);
    fprintf(j->f, "%" PRId64, v);
}

void cj_uint(ckpt_json *j, const char *key, uint64_t v)
{
    lead(j, key);
    fprintf(j->f, "%" PRIu64, v);
}

void cj_num(ckpt_json *j, const char *key, double v)
{
    lead(j, key);
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
}

void cj_bool(ckpt_json *j, const char *key, int v)
{
    lead(j, key);
    fputs(v ? "true" : "false", j->f);
}

void cj_null(ckpt_json *j, const char *key)
{
    lead(j, key);
    fputs("null", j->f);
}
