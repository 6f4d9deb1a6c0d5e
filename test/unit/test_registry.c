/*
 * test_registry.c - protected variables and types: predefined type sizes,
 * protect/update, argument errors (FTI_E_ARG with a message naming the
 * variable), composite field bounds, and name <-> id mapping.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/log.h"
#include "data/registry.h"

/* The FTI type ids (api.c): FTI_CHAR 0 .. FTI_LDBE 10. */
enum { T_CHAR, T_SHRT, T_INTG, T_LONG, T_UCHR, T_USHT, T_UINT, T_ULNG, T_SFLT, T_DBLE, T_LDBE };

static int setup(void **state)
{
    fti_registry *r = malloc(sizeof *r);
    if (r == NULL || fti_registry_init(r) != FTI_E_OK)
        return -1;
    fti_log_quiet(1);
    *state = r;
    return 0;
}

static int teardown(void **state)
{
    fti_log_quiet(0);
    fti_registry_free(*state);
    free(*state);
    return 0;
}

static void assert_error_names(const char *needle)
{
    const char *msg = fti_last_error();
    if (strstr(msg, needle) == NULL)
        fail_msg("error message '%s' does not name '%s'", msg, needle);
}

/* ---- types ------------------------------------------------------------------ */

static void test_predefined_sizes(void **state)
{
    fti_registry *r = *state;
    static const size_t sizes[FTI_NPREDEFINED] = {
        sizeof(char), sizeof(short), sizeof(int), sizeof(long), sizeof(unsigned char),
        sizeof(unsigned short), sizeof(unsigned int), sizeof(unsigned long), sizeof(float),
        sizeof(double), sizeof(long double)};
    assert_int_equal(r->ntypes, FTI_NPREDEFINED);
    for (int t = 0; t < FTI_NPREDEFINED; t++) {
        assert_non_null(fti_registry_type(r, t));
        assert_int_equal(fti_registry_type(r, t)->size, sizes[t]);
        assert_int_equal(fti_registry_type(r, t)->composite, 0);
    }
    assert_string_equal(fti_registry_type(r, T_DBLE)->name, "double");
    assert_null(fti_registry_type(r, FTI_NPREDEFINED));
    assert_null(fti_registry_type(r, -1));
}

static void test_opaque_type(void **state)
{
    fti_registry *r = *state;
    int t = -1;
    char buf[3 * 24];
    assert_int_equal(fti_registry_new_type(r, 24, "opaque", 0, &t), FTI_E_OK);
    assert_int_equal(t, FTI_NPREDEFINED);
    assert_int_equal(fti_registry_type(r, t)->size, 24);
    assert_int_equal(fti_registry_protect(r, 1, buf, 3, t), FTI_E_OK);
    assert_int_equal(fti_var_bytes(fti_registry_find(r, 1)), 72);
    assert_int_equal(fti_registry_new_type(r, 0, "zero", 0, &t), FTI_E_ARG);
    assert_error_names("zero");
}

/* ---- protect ------------------------------------------------------------------- */

static void test_protect_and_update(void **state)
{
    fti_registry *r = *state;
    int a[10], b[20];
    assert_int_equal(fti_registry_protect(r, 5, a, 10, T_INTG), FTI_E_OK);
    fti_var *v = fti_registry_find(r, 5);
    assert_non_null(v);
    assert_ptr_equal(v->ptr, a);
    assert_int_equal(v->count, 10);
    assert_int_equal(v->elem_size, sizeof(int));
    assert_null(v->dev); /* host memory */
    assert_int_equal(fti_registry_protect(r, 5, b, 20, T_INTG), FTI_E_OK);
    assert_int_equal(r->nvars, 1);
    v = fti_registry_find(r, 5);
    assert_ptr_equal(v->ptr, b);
    assert_int_equal(v->count, 20);
    assert_int_equal(fti_var_bytes(v), 20 * sizeof(int));
    assert_null(fti_registry_find(r, 6));
}

static void test_many_vars_keep_order(void **state)
{
    fti_registry *r = *state;
    double d[100];
    for (int id = 0; id < 100; id++) /* grows the table several times */
        assert_int_equal(fti_registry_protect(r, 1000 - id, &d[id], 1, T_DBLE), FTI_E_OK);
    assert_int_equal(r->nvars, 100);
    for (int id = 0; id < 100; id++) {
        assert_int_equal(r->vars[id].id, 1000 - id);
        assert_ptr_equal(fti_registry_find(r, 1000 - id)->ptr, &d[id]);
    }
}

/* Any int is an id: INT_MIN and INT_MAX are protected, found and updated
 * like others (no signed overflow: the sanitizer build runs this), beside
 * names of FTI_setIDFromString. */
static void test_extreme_ids(void **state)
{
    fti_registry *r = *state;
    int a = 1, b = 2, c = 3, named = -1;
    assert_int_equal(fti_registry_set_name(r, "temperature", &named), FTI_E_OK);
    assert_int_equal(fti_registry_protect(r, INT_MIN, &a, 1, T_INTG), FTI_E_OK);
    assert_int_equal(fti_registry_protect(r, INT_MAX, &b, 1, T_INTG), FTI_E_OK);
    assert_int_equal(fti_registry_protect(r, named, &c, 1, T_INTG), FTI_E_OK);
    assert_int_equal(fti_registry_protect(r, INT_MIN, &c, 1, T_INTG), FTI_E_OK); /* update */
    assert_int_equal(r->nvars, 3);
    assert_ptr_equal(fti_registry_find(r, INT_MIN)->ptr, &c);
    assert_ptr_equal(fti_registry_find(r, INT_MAX)->ptr, &b);
    assert_string_equal(fti_registry_find(r, INT_MIN)->name, "");
    assert_string_equal(fti_registry_find(r, INT_MAX)->name, "");
    assert_string_equal(fti_registry_find(r, named)->name, "temperature");
    assert_null(fti_registry_find(r, INT_MIN + 1));
    assert_null(fti_registry_find(r, INT_MAX - 1));
    assert_int_equal(fti_registry_bytes(r), 3 * sizeof(int));
    /* a name read from a checkpoint with an id that is not FTI_setIDFromString's */
    assert_int_equal(fti_registry_adopt_name(r, "pressure", INT_MIN), FTI_E_ARG);
    assert_error_names("-2147483648");
}

static void test_type_change_rejected(void **state)
{
    fti_registry *r = *state;
    double d[4];
    int i[4];
    assert_int_equal(fti_registry_protect(r, 3, d, 4, T_DBLE), FTI_E_OK);
    assert_int_equal(fti_registry_protect(r, 3, i, 4, T_INTG), FTI_E_ARG);
    assert_error_names("variable 3");
    assert_error_names("'double'");
    assert_error_names("'int'");
    fti_var *v = fti_registry_find(r, 3); /* unchanged */
    assert_ptr_equal(v->ptr, d);
    assert_int_equal(v->type, T_DBLE);
}

static void test_null_and_negative(void **state)
{
    fti_registry *r = *state;
    char c[4];
    assert_int_equal(fti_registry_protect(r, 8, NULL, 4, T_CHAR), FTI_E_ARG);
    assert_error_names("variable 8");
    assert_error_names("NULL");
    assert_null(fti_registry_find(r, 8));
    assert_int_equal(fti_registry_protect(r, 9, c, -1, T_CHAR), FTI_E_ARG);
    assert_error_names("variable 9");
    assert_error_names("-1");
    assert_null(fti_registry_find(r, 9));
    assert_int_equal(fti_registry_protect(r, 10, NULL, 0, T_CHAR), FTI_E_OK); /* empty is fine */
    assert_int_equal(fti_var_bytes(fti_registry_find(r, 10)), 0);
}

static void test_unknown_type(void **state)
{
    fti_registry *r = *state;
    char c[4];
    assert_int_equal(fti_registry_protect(r, 4, c, 4, FTI_NPREDEFINED), FTI_E_ARG);
    assert_error_names("unknown type id 11");
    assert_int_equal(fti_registry_protect(r, 4, c, 4, -1), FTI_E_ARG);
    assert_error_names("unknown type id -1");
    assert_int_equal(r->nvars, 0);
}

static void test_size_overflow(void **state)
{
    fti_registry *r = *state;
    char c;
    assert_int_equal(fti_registry_protect(r, 2, &c, INT64_MAX, T_DBLE), FTI_E_ARG);
    assert_error_names("overflow");
    assert_int_equal(fti_registry_protect(r, 2, &c, INT64_MAX, T_CHAR), FTI_E_OK);
}

/* ---- composite types --------------------------------------------------------- */

typedef struct particle {
    double pos[2];
    int id;
    char tag;
} particle; /* 24 bytes: 16 + 4 + 1 + 3 padding */

static int new_particle(fti_registry *r)
{
    int t = -1;
    assert_int_equal(fti_registry_new_type(r, sizeof(particle), "particle", 1, &t), FTI_E_OK);
    return t;
}

static void test_composite_fields(void **state)
{
    fti_registry *r = *state;
    int t = new_particle(r);
    int64_t two = 2;
    assert_int_equal(fti_registry_add_field(r, t, "pos", T_DBLE, 0, 1, &two), FTI_E_OK);
    assert_int_equal(fti_registry_add_field(r, t, "id", T_INTG, offsetof(particle, id), 0, NULL),
                     FTI_E_OK);
    assert_int_equal(fti_registry_add_field(r, t, "tag", T_CHAR, offsetof(particle, tag), 0, NULL),
                     FTI_E_OK);
    assert_int_equal(fti_registry_add_field(r, t, "last", T_INTG, 20, 0, NULL), FTI_E_OK);
    const fti_type *ty = fti_registry_type(r, t);
    assert_int_equal(ty->composite, 1);
    assert_int_equal(ty->nfields, 4);
    assert_string_equal(ty->fields[0].name, "pos");
    assert_int_equal(ty->fields[0].ndims, 1);
    assert_int_equal(ty->fields[0].dims[0], 2);
    assert_int_equal(ty->fields[1].offset, offsetof(particle, id));
}

static void test_field_bounds(void **state)
{
    fti_registry *r = *state;
    int t = new_particle(r);
    int64_t three = 3, zero = 0, dims9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    assert_int_equal(fti_registry_add_field(r, t, "past", T_INTG, 21, 0, NULL), FTI_E_ARG);
    assert_error_names("'past'");
    assert_error_names("type size 24");
    assert_int_equal(fti_registry_add_field(r, t, "far", T_CHAR, 24, 0, NULL), FTI_E_ARG);
    assert_int_equal(fti_registry_add_field(r, t, "vec", T_DBLE, 8, 1, &three), FTI_E_ARG);
    assert_error_names("'vec'");
    assert_int_equal(fti_registry_add_field(r, t, "neg", T_CHAR, -1, 0, NULL), FTI_E_ARG);
    assert_int_equal(fti_registry_add_field(r, t, "z", T_CHAR, 0, 1, &zero), FTI_E_ARG);
    assert_int_equal(fti_registry_add_field(r, t, "nine", T_CHAR, 0, 9, dims9), FTI_E_ARG);
    assert_int_equal(fti_registry_add_field(r, t, "nodims", T_CHAR, 0, 1, NULL), FTI_E_ARG);
    assert_int_equal(fti_registry_add_field(r, t, "badtype", 99, 0, 0, NULL), FTI_E_ARG);
    assert_int_equal(fti_registry_type(r, t)->nfields, 0);
}

static void test_field_on_non_composite(void **state)
{
    fti_registry *r = *state;
    int opaque = -1;
    assert_int_equal(fti_registry_add_field(r, T_DBLE, "x", T_CHAR, 0, 0, NULL), FTI_E_ARG);
    assert_error_names("not a composite");
    assert_int_equal(fti_registry_new_type(r, 8, "opaque", 0, &opaque), FTI_E_OK);
    assert_int_equal(fti_registry_add_field(r, opaque, "x", T_CHAR, 0, 0, NULL), FTI_E_ARG);
    assert_int_equal(fti_registry_add_field(r, 77, "x", T_CHAR, 0, 0, NULL), FTI_E_ARG);
}

/* ---- names ---------------------------------------------------------------------- */

static void test_names(void **state)
{
    fti_registry *r = *state;
    int t1 = -1, t2 = -1, again = -1;
    assert_int_equal(fti_registry_set_name(r, "temperature", &t1), FTI_E_OK);
    assert_int_equal(fti_registry_set_name(r, "pressure", &t2), FTI_E_OK);
    assert_int_equal(fti_registry_set_name(r, "temperature", &again), FTI_E_OK);
    assert_int_equal(again, t1);
    assert_int_not_equal(t1, t2);
    assert_true(t1 >= FTI_FIRST_STRING_ID && t2 >= FTI_FIRST_STRING_ID);
    assert_int_equal(fti_registry_get_name(r, "temperature"), t1);
    assert_int_equal(fti_registry_get_name(r, "pressure"), t2);
    assert_int_equal(fti_registry_get_name(r, "unknown"), -1);
    assert_int_equal(fti_registry_get_name(r, "temp"), -1); /* no prefix match */
    assert_int_equal(fti_registry_get_name(r, NULL), -1);
    assert_int_equal(fti_registry_set_name(r, "", &again), FTI_E_ARG);
    assert_int_equal(fti_registry_set_name(r, NULL, &again), FTI_E_ARG);
}

static void test_name_labels_variable(void **state)
{
    fti_registry *r = *state;
    int id = -1;
    double d;
    assert_int_equal(fti_registry_set_name(r, "energy", &id), FTI_E_OK);
    assert_int_equal(fti_registry_protect(r, id, &d, 1, T_DBLE), FTI_E_OK);
    assert_string_equal(fti_registry_find(r, id)->name, "energy");
    assert_int_equal(fti_registry_protect(r, 1, &d, 1, T_DBLE), FTI_E_OK);
    assert_string_equal(fti_registry_find(r, 1)->name, "");
}

/* Two long names that share their first 47 characters are never silently
 * the same id: either both get their own id or a too-long name is refused. */
static void test_long_names_distinct(void **state)
{
    fti_registry *r = *state;
    char a[80], b[80];
    int ia = -1, ib = -1;
    memset(a, 'x', 60);
    a[60] = '\0';
    memcpy(b, a, sizeof b);
    a[59] = 'A';
    b[59] = 'B';
    fti_err ea = fti_registry_set_name(r, a, &ia), eb = fti_registry_set_name(r, b, &ib);
    if (ea == FTI_E_ARG && eb == FTI_E_ARG) {
        assert_int_equal(fti_registry_get_name(r, a), -1);
        return;
    }
    assert_int_equal(ea, FTI_E_OK);
    assert_int_equal(eb, FTI_E_OK);
    assert_int_not_equal(ia, ib);
    assert_int_equal(fti_registry_get_name(r, a), ia);
    assert_int_equal(fti_registry_get_name(r, b), ib);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_predefined_sizes),
        T(test_opaque_type),
        T(test_protect_and_update),
        T(test_many_vars_keep_order),
        T(test_extreme_ids),
        T(test_type_change_rejected),
        T(test_null_and_negative),
        T(test_unknown_type),
        T(test_size_overflow),
        T(test_composite_fields),
        T(test_field_bounds),
        T(test_field_on_non_composite),
        T(test_names),
        T(test_name_labels_variable),
        T(test_long_names_distinct),
    };
#undef T
    return cmocka_run_group_tests_name("registry", tests, NULL, NULL);
}
