/*
 * test_types_table.c - FTI's predefined types (fti_types_table.h), the one
 * table api.c, registry.c, stores/hdf5/h5_file.c, stores/l4_image.c and fti-ckpt
 * expand: the ids are FTI's (FTI_CHAR = 0 ... FTI_LDBE = 10, the numbers in
 * checkpoint files), each row's C type is the one FTI names (its size is
 * sizeof of that type, spelt out here, not taken from the table), and the
 * API's variables and the registry of a new context hold the same.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "fti.h"
#include "format/fti_types_table.h"
#include "data/registry.h"

/* FTI 1.6's predefined types, written out independently of the table. */
static const struct {
    int id;
    const char *name;
    size_t size;
    char kind;
} fti16[] = {
    {0, "char", sizeof(char), (char)-1 < 0 ? 'i' : 'u'},
    {1, "short", sizeof(short), 'i'},
    {2, "int", sizeof(int), 'i'},
    {3, "long", sizeof(long), 'i'},
    {4, "unsigned char", sizeof(unsigned char), 'u'},
    {5, "unsigned short", sizeof(unsigned short), 'u'},
    {6, "unsigned int", sizeof(unsigned int), 'u'},
    {7, "unsigned long", sizeof(unsigned long), 'u'},
    {8, "float", sizeof(float), 'f'},
    {9, "double", sizeof(double), 'f'},
    {10, "long double", sizeof(long double), 'f'},
};
#define N_FTI16 (int)(sizeof fti16 / sizeof fti16[0])

static const struct {
    int id;
    const char *name;
    size_t size;
    char kind;
} table[] = {
#define ROW(NAME, id, ctype, kind, h5) {id, #ctype, sizeof(ctype), kind},
    FTI_PREDEFINED_TYPES(ROW)
#undef ROW
};

static void test_table_rows_are_ftis(void **state)
{
    (void)state;
    assert_int_equal(FTI_NPREDEFINED, N_FTI16);
    assert_int_equal(sizeof table / sizeof table[0], N_FTI16);
    for (int i = 0; i < N_FTI16; i++) {
        assert_int_equal(table[i].id, fti16[i].id);
        assert_string_equal(table[i].name, fti16[i].name);
        assert_int_equal(table[i].size, fti16[i].size);
        assert_int_equal(table[i].kind, fti16[i].kind);
    }
}

/* The API's ids (api.c) and the enum the library uses (FTI_TYPE_*). */
static void test_api_ids(void **state)
{
    (void)state;
    const fti_id_t api[] = {FTI_CHAR, FTI_SHRT, FTI_INTG, FTI_LONG, FTI_UCHR, FTI_USHT,
                            FTI_UINT, FTI_ULNG, FTI_SFLT, FTI_DBLE, FTI_LDBE};
    const int lib[] = {FTI_TYPE_CHAR, FTI_TYPE_SHRT, FTI_TYPE_INTG, FTI_TYPE_LONG,
                       FTI_TYPE_UCHR, FTI_TYPE_USHT, FTI_TYPE_UINT, FTI_TYPE_ULNG,
                       FTI_TYPE_SFLT, FTI_TYPE_DBLE, FTI_TYPE_LDBE};
    for (int i = 0; i < N_FTI16; i++) {
        assert_int_equal(api[i], fti16[i].id);
        assert_int_equal(lib[i], fti16[i].id);
    }
}

/* A new registry holds the predefined types at their ids: name and size. */
static void test_registry_predefined(void **state)
{
    (void)state;
    fti_registry r;
    assert_int_equal(fti_registry_init(&r), FTI_E_OK);
    assert_int_equal(r.ntypes, N_FTI16);
    for (int i = 0; i < N_FTI16; i++) {
        const fti_type *t = fti_registry_type(&r, fti16[i].id);
        assert_non_null(t);
        assert_string_equal(t->name, fti16[i].name);
        assert_int_equal(t->size, fti16[i].size);
    }
    fti_registry_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_rows_are_ftis),
        cmocka_unit_test(test_api_ids),
        cmocka_unit_test(test_registry_predefined),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
