/*
 * registry.h - what the application protects: variables (id, pointer,
 * element count, type, the device backend that owns the pointer) and data
 * types (predefined, opaque from FTI_InitType, composite with fields).
 */
#ifndef FTI_REGISTRY_H
#define FTI_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "base/error.h"
#include "format/fti_types_table.h"

#define FTI_NAME_LEN 48
#define FTI_FIRST_STRING_ID 0x40000000 /* ids handed out by FTI_setIDFromString */
#define FTI_MAX_STRING_IDS (1 << 20)    /* names per run (bounds a name read from a checkpoint) */

typedef struct fti_field {
    char name[FTI_NAME_LEN];
    int type;
    int64_t offset;
    int ndims;
    int64_t dims[8];
} fti_field;

typedef struct fti_type {
    size_t size;
    char name[FTI_NAME_LEN];
    int composite;
    int nfields;
    fti_field *fields;
} fti_type;

/* Most dimensions a variable's shape may have: FTI's bound, the size of
 * FTIT_shape's count array in fti.h (checked in api.c). */
#define FTI_MAX_DIMS 32

typedef struct fti_var {
    int id;
    void *ptr;
    int64_t count;
    int type;
    size_t elem_size;
    char name[FTI_NAME_LEN];
    int ndims;                 /* shape from FTI_SetAttribute, 0: none */
    int64_t dims[FTI_MAX_DIMS];
    const fti_device_ops *dev; /* NULL: host memory */
    fti_devptr_info devinfo;
    void *dev_owned; /* freed with the variable (a device view of FTI_ProtectDevice) */
} fti_var;

typedef struct fti_registry {
    fti_type *types;
    int ntypes;
    fti_var *vars;
    int nvars, var_cap;
    int *index;     /* open-addressing hash of ids: position in vars + 1, 0 empty; NULL in
                     * a copy of the table (ckpt_copy.c), which is searched in order */
    int index_cap;  /* a power of two, at least twice nvars */
    uint64_t bytes; /* every variable's bytes */
    uintptr_t host_page; /* page of the last variable found in host memory: a variable on
                          * the same page is too, without asking the kernel again */
    char (*names)[FTI_NAME_LEN]; /* FTI_setIDFromString names, index = id - FIRST */
    int nnames;
    int no_device_lookup; /* [basic] device_backends = off: pointers are host memory */
} fti_registry;

/* FTI_NPREDEFINED: the number of predefined types (fti_types_table.h). */

fti_err fti_registry_init(fti_registry *r);
void fti_registry_free(fti_registry *r);

fti_err fti_registry_protect(fti_registry *r, int id, void *ptr, int64_t count, int type);
/* Like fti_registry_protect, for device memory of an explicit backend:
 * `handle` is what ops' copies take. On success the registry owns `owned`
 * (may be NULL) and free()s it when the variable is replaced or the
 * registry freed; on failure the caller keeps it. */
fti_err fti_registry_protect_device(fti_registry *r, int id, const fti_device_ops *ops,
                                    void *handle, void *owned, int64_t count, int type);
fti_var *fti_registry_find(fti_registry *r, int id);
/* For the API calls that act on a protected variable: variable `id`, or
 * NULL with an error naming the call fn. */
fti_var *fti_registry_require(fti_registry *r, const char *fn, int id);
/* Names v: a name longer than the checkpoint's field is cut, as FTI does. */
void fti_var_set_name(fti_var *v, const char *name);
uint64_t fti_var_bytes(const fti_var *v);
/* This rank's checkpoint data size: every protected variable's bytes. */
uint64_t fti_registry_bytes(const fti_registry *r);

fti_err fti_registry_new_type(fti_registry *r, size_t size, const char *name, int composite,
                              int *type_out);
fti_err fti_registry_add_field(fti_registry *r, int type, const char *name, int field_type,
                               int64_t offset, int ndims, const int64_t *dims);
const fti_type *fti_registry_type(const fti_registry *r, int type);

/* Name <-> id. set: returns the id for name, creating it on first use. */
fti_err fti_registry_set_name(fti_registry *r, const char *name, int *id_out);
int fti_registry_get_name(const fti_registry *r, const char *name);
/* Restart: the name stored in the checkpoint for `id` (an id handed out by
 * FTI_setIDFromString in the earlier run) gets that id in this run too. */
fti_err fti_registry_adopt_name(fti_registry *r, const char *name, int id);

#endif /* FTI_REGISTRY_H */
