/*
 * fti_types_table.h - FTI's predefined types, one table: the id FTI gives
 * each (FTI_CHAR = 0 ... FTI_LDBE = 10, the numbers in checkpoint files),
 * the C type (its name in the files and tools is the type's spelling, its
 * size this machine's sizeof), the numpy kind letter fti-ckpt writes in
 * .npy headers and the HDF5 native type. api.c, registry.c, stores/hdf5/h5_file.c,
 * stores/l4_image.c and tools/ckpt_var.c each expand the columns they need.
 */
#ifndef FTI_TYPES_TABLE_H
#define FTI_TYPES_TABLE_H

#include <limits.h>

/* X(ID, id, C type, numpy kind, HDF5 native type); ids in order from 0. */
#define FTI_PREDEFINED_TYPES(X)                                                 \
    X(CHAR, 0, char, CHAR_MIN < 0 ? 'i' : 'u', H5T_NATIVE_CHAR)                 \
    X(SHRT, 1, short, 'i', H5T_NATIVE_SHORT)                                    \
    X(INTG, 2, int, 'i', H5T_NATIVE_INT)                                        \
    X(LONG, 3, long, 'i', H5T_NATIVE_LONG)                                      \
    X(UCHR, 4, unsigned char, 'u', H5T_NATIVE_UCHAR)                            \
    X(USHT, 5, unsigned short, 'u', H5T_NATIVE_USHORT)                          \
    X(UINT, 6, unsigned int, 'u', H5T_NATIVE_UINT)                              \
    X(ULNG, 7, unsigned long, 'u', H5T_NATIVE_ULONG)                            \
    X(SFLT, 8, float, 'f', H5T_NATIVE_FLOAT)                                    \
    X(DBLE, 9, double, 'f', H5T_NATIVE_DOUBLE)                                  \
    X(LDBE, 10, long double, 'f', H5T_NATIVE_LDOUBLE)

/* The ids as constants (FTI_TYPE_DBLE == 9): the library's own code uses
 * these, not the API's FTI_DBLE variables, which an application could
 * overwrite. FTI_NPREDEFINED: their number, ids 0..FTI_NPREDEFINED-1. */
enum fti_predefined_type {
#define FTI_TYPE_ENUM(NAME, id, ctype, kind, h5) FTI_TYPE_##NAME = id,
    FTI_PREDEFINED_TYPES(FTI_TYPE_ENUM)
#undef FTI_TYPE_ENUM
};

enum {
#define FTI_TYPE_COUNT(NAME, id, ctype, kind, h5) +1
    FTI_NPREDEFINED = 0 FTI_PREDEFINED_TYPES(FTI_TYPE_COUNT)
#undef FTI_TYPE_COUNT
};

#endif /* FTI_TYPES_TABLE_H */
