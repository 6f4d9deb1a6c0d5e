/*
 * test_ini.c - the one INI grammar (ini.h). Every config in the corpus
 * (FTI 1.6's configs with their comment text blanked, ours in
 * config-templates/, examples/ and test/fault/) reads to exactly the keys
 * and values iniparser 4.1 read from it (ini_corpus/iniparser-4.1.expect);
 * each shape of the grammar on its own; malformed lines are refused with
 * the file, the line and the key in the message; the line classifier that
 * the in-place editor uses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/fio.h"
#include "base/ini.h"
#include "base/log.h"

#define EXPECT_FILE FTI_SOURCE_DIR "/test/unit/ini_corpus/iniparser-4.1.expect"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The parsed file as sorted "section:key=value" lines, one string. */
static char *dump(const fti_ini *ini)
{
    char **lines = calloc(ini->n + 1, sizeof *lines);
    size_t total = 1;
    assert_non_null(lines);
    for (size_t i = 0; i < ini->n; i++) {
        size_t n = strlen(ini->e[i].name) + strlen(ini->e[i].value) + 3;
        lines[i] = malloc(n);
        snprintf(lines[i], n, "%s=%s\n", ini->e[i].name, ini->e[i].value);
        total += n;
    }
    qsort(lines, ini->n, sizeof *lines, cmp_str);
    char *out = calloc(total, 1);
    for (size_t i = 0; i < ini->n; i++) {
        strcat(out, lines[i]);
        free(lines[i]);
    }
    free(lines);
    return out;
}

static fti_err parse_text(fti_ini *ini, const char *text)
{
    return fti_ini_parse(ini, "t.fti", text, strlen(text));
}

/* ---- the corpus ----------------------------------------------------------- */

/* FTI 1.6 files that give a key twice: iniparser kept the last value
 * silently; we have always refused them, naming the key and both lines. */
static const struct {
    const char *file, *message;
} given_twice[] = {
    {"fti16-examples-GPU-heatdis-configH1.fti", "[basic] meta_dir is given twice (lines 7 and 8)"},
    {"fti16-examples-GPU-heatdis-configH1.in.fti", "[basic] meta_dir is given twice (lines 7 and 8)"},
};

static const char *refused_as(const char *rel)
{
    for (size_t i = 0; i < sizeof given_twice / sizeof given_twice[0]; i++)
        if (strstr(rel, given_twice[i].file) != NULL)
            return given_twice[i].message;
    return NULL;
}

/* Checks one file against its block of the expect file. */
static void check_corpus_file(const char *rel, const char *want)
{
    char path[4096], *text = NULL;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s", FTI_SOURCE_DIR, rel);
    if (fti_read_small(path, &text, &n) != 0)
        fail_msg("cannot read %s", path);
    fti_ini ini;
    fti_err e = fti_ini_parse(&ini, path, text, n);
    const char *refusal = refused_as(rel);
    if (refusal != NULL) {
        if (e != FTI_E_CONFIG || strstr(fti_last_error(), refusal) == NULL ||
            strstr(fti_last_error(), path) == NULL)
            fail_msg("%s: not refused with '%s' (got '%s')", rel, refusal, fti_last_error());
        free(text);
        return;
    }
    if (e != FTI_E_OK)
        fail_msg("%s: refused: %s", rel, fti_last_error());
    char *got = dump(&ini);
    if (strcmp(got, want) != 0)
        fail_msg("%s: read as\n%s\niniparser read\n%s", rel, got, want);
    free(got);
    fti_ini_free(&ini);
    free(text);
}

static void test_corpus_reads_as_iniparser(void **state)
{
    (void)state;
    char *text = NULL;
    size_t n = 0;
    if (fti_read_small(EXPECT_FILE, &text, &n) != 0)
        fail_msg("cannot read %s", EXPECT_FILE);
    int files = 0;
    fti_log_quiet(1);
    char *block = strstr(text, "\n== ");
    while (block != NULL) {
        char *name = block + 4, *eol = strchr(name, '\n');
        assert_non_null(eol);
        *eol = '\0';
        char *next = strstr(eol + 1, "\n== ");
        if (next != NULL)
            next[1] = '\0'; /* the block's lines end at the next header */
        check_corpus_file(name, eol + 1);
        files++;
        block = next;
    }
    fti_log_quiet(0);
    assert_true(files >= 30); /* 23 of FTI 1.6's, 9 of ours */
    free(text);
}

/* ---- shapes, one by one --------------------------------------------------- */

/* Each text reads to exactly `want` (what iniparser 4.1 gave for it). */
static void expect_reads(const char *text, const char *want)
{
    fti_ini ini;
    if (parse_text(&ini, text) != FTI_E_OK)
        fail_msg("'%s' refused: %s", text, fti_last_error());
    char *got = dump(&ini);
    if (strcmp(got, want) != 0)
        fail_msg("'%s' read as '%s', want '%s'", text, got, want);
    free(got);
    fti_ini_free(&ini);
}

static void test_shapes(void **state)
{
    (void)state;
    expect_reads("[Basic]\nCkpt_Dir = /tmp/Local\n", "basic:ckpt_dir=/tmp/Local\n");
    expect_reads("  [ basic ]  \n\tckpt_l1=3\t\n", "basic:ckpt_l1=3\n");
    expect_reads("[basic] ; a comment\nhead = 0 # inline\n", "basic:head=0\n");
    expect_reads("[basic]\nglbl_dir = ./Global \t#/path\n", "basic:glbl_dir=./Global\n");
    expect_reads("[basic]\na = x;y\nb = x#y\n", "basic:a=x\nbasic:b=x\n");
    expect_reads("[basic]\na = \"x # y ; z\"  # c\nb = 'q'\n", "basic:a=x # y ; z\nbasic:b=q\n");
    expect_reads("[basic]\na =\nb = \"\"\nc = ''\nd = ;\ne = #\n",
                 "basic:a=\nbasic:b=\nbasic:c=\nbasic:d=\nbasic:e=\n");
    expect_reads("[basic]\nexec_id = XXXX-XX-XX_XX-XX-XX\nk = a = b\n",
                 "basic:exec_id=XXXX-XX-XX_XX-XX-XX\nbasic:k=a = b\n");
    expect_reads("[basic]\nckpt_dir = /a/\\\n  b\n", "basic:ckpt_dir=/a/  b\n");
    expect_reads("loose = 1\n[restart]\nfailure = 0\r\n", ":loose=1\nrestart:failure=0\n");
    expect_reads("# only\n; comments\n\n", "");
    expect_reads("[a]\nk = 1\n[b]\nk = 2\n[A]\nj = 3", "a:j=3\na:k=1\nb:k=2\n");
}

/* ---- malformed lines ------------------------------------------------------ */

static void expect_refused(const char *text, const char *needle1, const char *needle2)
{
    fti_ini ini;
    assert_int_equal(parse_text(&ini, text), FTI_E_CONFIG);
    assert_int_equal(ini.n, 0);
    const char *msg = fti_last_error();
    if (strstr(msg, "config t.fti: ") == NULL || strstr(msg, needle1) == NULL ||
        (needle2 != NULL && strstr(msg, needle2) == NULL))
        fail_msg("'%s': message '%s' does not name '%s' and '%s'", text, msg, needle1,
                 needle2 ? needle2 : "");
}

static void test_malformed_lines_named(void **state)
{
    (void)state;
    fti_log_quiet(1);
    expect_refused("[basic]\nckpt_dir /tmp\n", "line 2, key 'ckpt_dir /tmp' in [basic]", "no '='");
    expect_refused("[basic\nckpt_dir = x\n", "line 1, section header '[basic'", "no ']'");
    expect_refused("[basic]\n\n= 4\n", "line 3, key '= 4'", "no key before the '='");
    expect_refused("[basic]\nckpt_dir = \"/tmp\n", "line 2, key 'ckpt_dir' in [basic]",
                   "'\"' is not closed");
    expect_refused("[basic]\nx = 1\nckpt_dir = '/a' b\n", "line 3, key 'ckpt_dir' in [basic]",
                   "text after the quoted value");
    expect_refused("[]\n", "line 1, section header '[]'", "section name is empty");
    expect_refused("[basic] x\n", "line 1, section header '[basic] x'", "after the section");
    expect_refused("[basic]\nckpt_l1 = 1\nverbosity = 2\nCKPT_L1 = 2\n", "[basic] ckpt_l1",
                   "given twice (lines 2 and 4)");
    expect_refused("[basic]\na = 1\nb = \\\n  c\nd e\n", "line 5, key 'd e'", NULL);
    expect_refused("[basic]\nk = \x1b[31m\n", "not a text INI file (byte 0x1b at line 2", NULL);
    fti_log_quiet(0);
}

/* ---- the classifier the editor uses --------------------------------------- */

static void test_line_parse_value_span(void **state)
{
    (void)state;
    fti_ini_line l;
    const char *s = "  Failure =  1   # why";
    assert_int_equal(fti_ini_line_parse(s, strlen(s), &l), FTI_INI_KEY);
    assert_true(fti_ini_name_is(l.name, l.name_len, "failure"));
    assert_int_equal(l.raw - s, 13);
    assert_int_equal(l.raw_end - s, 14);
    s = "exec_id = \"a;b\" ; c";
    assert_int_equal(fti_ini_line_parse(s, strlen(s), &l), FTI_INI_KEY);
    assert_int_equal(l.value_len, 3);
    assert_memory_equal(l.value, "a;b", 3);
    assert_int_equal(l.raw_end - s, 15); /* past the closing quote */
    assert_int_equal(fti_ini_line_parse("  ; x", 5, &l), FTI_INI_BLANK);
    assert_int_equal(fti_ini_line_parse("[ Restart ]", 11, &l), FTI_INI_SECTION);
    assert_true(fti_ini_name_is(l.name, l.name_len, "restart"));
    assert_false(fti_ini_name_is(l.name, l.name_len, "restar"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_reads_as_iniparser),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_malformed_lines_named),
        cmocka_unit_test(test_line_parse_value_span),
    };
    return cmocka_run_group_tests_name("ini", tests, NULL, NULL);
}
