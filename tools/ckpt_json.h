/*
 * ckpt_json.h - fti-ckpt --json: one JSON document on stdout per command,
 * written as it goes (no tree in memory). Keys and their meaning are the
 * schema of docs/USER_GUIDE.md ("fti-ckpt --json"): stable, only added to.
 */
#ifndef FTI_CKPT_JSON_H
#define FTI_CKPT_JSON_H

#include <stdint.h>
#include <stdio.h>

#define CKPT_JSON_DEPTH 16

typedef struct ckpt_json {
    FILE *f;
    int depth;
    int items[CKPT_JSON_DEPTH]; /* values written so far at each depth: commas */
    char closer[CKPT_JSON_DEPTH]; /* '}' or ']' of the object or array open there */
} ckpt_json;

/* Starts the document's top object, with "schema": "fti-ckpt/<command>/1". */
void cj_begin(ckpt_json *j, FILE *f, const char *command);
/* Ends the top object and the line. */
void cj_finish(ckpt_json *j);

/* key is the member's name inside an object, NULL inside an array. */
void cj_object(ckpt_json *j, const char *key);
void cj_array(ckpt_json *j, const char *key);
void cj_end(ckpt_json *j); /* closes the innermost object or array */

void cj_str(ckpt_json *j, const char *key, const char *v); /* NULL: null */
void cj_int(ckpt_json *j, const char *key, int64_t v);
void cj_uint(ckpt_json *j, const char *key, uint64_t v);
void cj_num(ckpt_json *j, const char *key, double v);     /* not finite: null */
void cj_bool(ckpt_json *j, const char *key, int v);
void cj_null(ckpt_json *j, const char *key);

#endif /* FTI_CKPT_JSON_H */
