#include "data/registry.h"
#include "data/dirty_pages.h"

#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "base/log.h"

static const struct {
    const char *name;
    size_t size;
} predefined[FTI_NPREDEFINED] = {
#define FTI_TYPE_ROW(NAME, id, ctype, kind, h5) [id] = {#ctype, sizeof(ctype)},
    FTI_PREDEFINED_TYPES(FTI_TYPE_ROW)
#undef FTI_TYPE_ROW
};

fti_err fti_registry_init(fti_registry *r)
{
    memset(r, 0, sizeof *r);
    for (int i = 0; i < FTI_NPREDEFINED; i++) {
        int id;
        fti_err e = fti_registry_new_type(r, predefined[i].size, predefined[i].name, 0, &id);
        if (e != FTI_E_OK)
            return e;
    }
    return FTI_E_OK;
}

void fti_registry_free(fti_registry *r)
{
    fti_dirty_release_all(); /* no variable is protected any more */
    for (int i = 0; i < r->ntypes; i++)
        free(r->types[i].fields);
    for (int i = 0; i < r->nvars; i++)
        free(r->vars[i].dev_owned);
    free(r->types);
    free(r->vars);
    free(r->index);
    free(r->names);
    memset(r, 0, sizeof *r);
}

const fti_type *fti_registry_type(const fti_registry *r, int type)
{
    if (type < 0 || type >= r->ntypes)
        return NULL;
    return &r->types[type];
}

/* The index slot where id is, or the empty one where it would go (linear
 * probing; the table is never more than half full). Unsigned arithmetic:
 * any id, INT_MIN included, hashes without overflow. */
static int *index_slot(const fti_registry *r, int id)
{
    unsigned mask = (unsigned)r->index_cap - 1;
    unsigned h = ((unsigned)id * 0x9E3779B1u) & mask;
    for (;; h = (h + 1) & mask) {
        int *slot = &r->index[h];
        if (*slot == 0 || r->vars[*slot - 1].id == id)
            return slot;
    }
}

/* Room in the index for one more variable (FTI_Protect stays O(1) per call
 * on average: 100,000 variables took a minute with a linear search). */
static fti_err index_reserve(fti_registry *r, int id)
{
    if (2 * (r->nvars + 1) <= r->index_cap)
        return FTI_E_OK;
    int cap = r->index_cap ? 2 * r->index_cap : 64;
    int *old = r->index, *idx = calloc((size_t)cap, sizeof *idx);
    if (idx == NULL)
        return fti_fail(FTI_E_NOMEM, "FTI_Protect: variable %d: out of memory", id);
    r->index = idx;
    r->index_cap = cap;
    for (int i = 0; i < r->nvars; i++)
        *index_slot(r, r->vars[i].id) = i + 1;
    free(old);
    return FTI_E_OK;
}

fti_var *fti_registry_find(fti_registry *r, int id)
{
    if (r->index != NULL) {
        int at = *index_slot(r, id);
        return at ? &r->vars[at - 1] : NULL;
    }
    for (int i = 0; i < r->nvars; i++)
        if (r->vars[i].id == id)
            return &r->vars[i];
    return NULL;
}

fti_var *fti_registry_require(fti_registry *r, const char *fn, int id)
{
    fti_var *v = fti_registry_find(r, id);
    if (v == NULL)
        fti_fail(FTI_E_ARG, "%s: variable %d is not protected (FTI_Protect first)", fn, id);
    return v;
}

void fti_var_set_name(fti_var *v, const char *name)
{
    size_t n = strnlen(name, sizeof v->name - 1);
    memcpy(v->name, name, n);
    v->name[n] = '\0';
}

uint64_t fti_var_bytes(const fti_var *v)
{
    return (uint64_t)v->count * v->elem_size;
}

static void copy_name(char *dst, const char *src)
{
    snprintf(dst, FTI_NAME_LEN, "%s", src ? src : "");
}

/* The name given by FTI_setIDFromString for this id, if any. */
static const char *name_of_id(const fti_registry *r, int id)
{
    if (id < FTI_FIRST_STRING_ID) /* first: id - FIRST overflows for ids near INT_MIN */
        return "";
    int i = id - FTI_FIRST_STRING_ID;
    return i < r->nnames ? r->names[i] : "";
}

/* Where the n bytes at ptr live: *dev NULL for host memory. A pointer no
 * backend claims and the host cannot read (device memory while its runtime
 * is missing) is refused here rather than crash the checkpoint.
 * device_backends = off: the backends are not even asked, because a CUDA
 * pointer query can create a CUDA context (GPU memory, and a process on the
 * GPU) in an application that never uses the GPU. */
static fti_err classify(fti_registry *r, int id, const void *ptr, size_t n,
                        const fti_device_ops **dev, fti_devptr_info *info)
{
    char why[600];
    *dev = NULL;
    uintptr_t page = (uintptr_t)ptr / 4096;
    /* A page is host memory or a device's as a whole: many small variables
     * in one array cost one probe (four system calls), not one each. */
    if (ptr == NULL || n == 0 || page == r->host_page)
        return FTI_E_OK;
    if (r->no_device_lookup ? fti_device_host_readable(ptr, n)
                            : fti_device_classify(ptr, n, dev, info, why, sizeof why) == 0) {
        if (*dev == NULL)
            r->host_page = page;
        return FTI_E_OK;
    }
    if (r->no_device_lookup)
        snprintf(why, sizeof why, "%p is not readable by the host, and device_backends = off "
                 "asks no device backend", ptr);
    return fti_fail(FTI_E_ARG, "FTI_Protect: variable %d (%zu bytes): %s", id, n, why);
}

/* dev: an explicit backend (FTI_ProtectDevice), or NULL to look ptr up. */
static fti_err fill_var(fti_registry *r, fti_var *v, int id, void *ptr, int64_t count, int type,
                        const fti_device_ops *dev, void *owned)
{
    const fti_type *t = fti_registry_type(r, type);
    fti_devptr_info devinfo = {0};
    fti_err e = dev != NULL ? FTI_E_OK
                            : classify(r, id, ptr, (size_t)count * t->size, &dev, &devinfo);
    if (e != FTI_E_OK)
        return e;
    r->bytes += (uint64_t)count * t->size - fti_var_bytes(v);
    v->id = id;
    v->ptr = ptr;
    v->count = count;
    v->type = type;
    v->elem_size = t->size;
    free(v->dev_owned);
    v->dev_owned = owned;
    v->devinfo = devinfo;
    v->dev = dev;
    if (v->name[0] == '\0') /* FTI_SetAttribute's name survives re-protection */
        copy_name(v->name, name_of_id(r, id));
    return FTI_E_OK;
}

static fti_err protect(fti_registry *r, int id, void *ptr, int64_t count, int type,
                       const fti_device_ops *dev, void *owned)
{
    if (count < 0)
        return fti_fail(FTI_E_ARG, "FTI_Protect: variable %d: count %lld is negative", id,
                        (long long)count);
    if (ptr == NULL && count > 0)
        return fti_fail(FTI_E_ARG, "FTI_Protect: variable %d: pointer is NULL but count is %lld",
                        id, (long long)count);
    const fti_type *t = fti_registry_type(r, type);
    if (t == NULL)
        return fti_fail(FTI_E_ARG, "FTI_Protect: variable %d: unknown type id %d", id, type);
    if ((uint64_t)count > UINT64_MAX / (t->size ? t->size : 1))
        return fti_fail(FTI_E_ARG, "FTI_Protect: variable %d: %lld elements of %zu bytes overflow",
                        id, (long long)count, t->size);

    fti_var *v = fti_registry_find(r, id);
    if (v != NULL) {
        if (v->dev == NULL && (v->ptr != ptr || v->count != count))
            fti_dirty_release(v->ptr, fti_var_bytes(v)); /* not ours to write-protect any more */
        if (v->type != type)
            return fti_fail(FTI_E_ARG, "FTI_Protect: variable %d is already protected with type "
                            "'%s' (id %d); cannot protect it again as '%s' (id %d)", id,
                            r->types[v->type].name, v->type, t->name, type);
        return fill_var(r, v, id, ptr, count, type, dev, owned);
    }
    fti_err e = index_reserve(r, id);
    if (e != FTI_E_OK)
        return e;
    if (r->nvars == r->var_cap) {
        int cap = r->var_cap ? 2 * r->var_cap : 16;
        fti_var *nv = realloc(r->vars, (size_t)cap * sizeof *nv);
        if (nv == NULL)
            return fti_fail(FTI_E_NOMEM, "FTI_Protect: variable %d: out of memory", id);
        r->vars = nv;
        r->var_cap = cap;
    }
    v = &r->vars[r->nvars];
    memset(v, 0, sizeof *v);
    e = fill_var(r, v, id, ptr, count, type, dev, owned);
    if (e == FTI_E_OK)
        *index_slot(r, id) = ++r->nvars;
    return e;
}

uint64_t fti_registry_bytes(const fti_registry *r)
{
    return r->bytes;
}

fti_err fti_registry_protect(fti_registry *r, int id, void *ptr, int64_t count, int type)
{
    return protect(r, id, ptr, count, type, NULL, NULL);
}

fti_err fti_registry_protect_device(fti_registry *r, int id, const fti_device_ops *ops,
                                    void *handle, void *owned, int64_t count, int type)
{
    if (ops == NULL)
        return fti_fail(FTI_E_ARG, "FTI_ProtectDevice: variable %d: no device backend", id);
    return protect(r, id, handle, count, type, ops, owned);
}

fti_err fti_registry_new_type(fti_registry *r, size_t size, const char *name, int composite,
                              int *type_out)
{
    if (size == 0)
        return fti_fail(FTI_E_ARG, "type '%s': size must be positive", name ? name : "");
    fti_type *nt = realloc(r->types, (size_t)(r->ntypes + 1) * sizeof *nt);
    if (nt == NULL)
        return fti_fail(FTI_E_NOMEM, "type '%s': out of memory", name ? name : "");
    r->types = nt;
    fti_type *t = &r->types[r->ntypes];
    memset(t, 0, sizeof *t);
    t->size = size;
    t->composite = composite;
    copy_name(t->name, name);
    *type_out = r->ntypes++;
    return FTI_E_OK;
}

fti_err fti_registry_add_field(fti_registry *r, int type, const char *name, int field_type,
                               int64_t offset, int ndims, const int64_t *dims)
{
    const char *fname = name ? name : "";
    if (type < FTI_NPREDEFINED || type >= r->ntypes || !r->types[type].composite)
        return fti_fail(FTI_E_ARG, "field '%s': type id %d is not a composite type", fname, type);
    const fti_type *ft = fti_registry_type(r, field_type);
    if (ft == NULL)
        return fti_fail(FTI_E_ARG, "field '%s': unknown field type id %d", fname, field_type);
    if (ndims < 0 || ndims > 8 || (ndims > 0 && dims == NULL))
        return fti_fail(FTI_E_ARG, "field '%s': ndims %d must be 0-8 with dims given", fname, ndims);
    uint64_t n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return fti_fail(FTI_E_ARG, "field '%s': dimension %d is %lld", fname, i,
                            (long long)dims[i]);
        n *= (uint64_t)dims[i];
    }
    fti_type *t = &r->types[type];
    if (offset < 0 || (uint64_t)offset + n * ft->size > t->size)
        return fti_fail(FTI_E_ARG, "field '%s' of type '%s': offset %lld + %llu bytes exceeds the "
                        "type size %zu", fname, t->name, (long long)offset,
                        (unsigned long long)(n * ft->size), t->size);
    fti_field *nf = realloc(t->fields, (size_t)(t->nfields + 1) * sizeof *nf);
    if (nf == NULL)
        return fti_fail(FTI_E_NOMEM, "field '%s': out of memory", fname);
    t->fields = nf;
    fti_field *f = &t->fields[t->nfields++];
    memset(f, 0, sizeof *f);
    copy_name(f->name, fname);
    f->type = field_type;
    f->offset = offset;
    f->ndims = ndims;
    for (int i = 0; i < ndims; i++)
        f->dims[i] = dims[i];
    return FTI_E_OK;
}

/* Grows the name table to hold index i; new slots are empty names. */
static fti_err grow_names(fti_registry *r, int i)
{
    if (i < r->nnames)
        return FTI_E_OK;
    char(*nn)[FTI_NAME_LEN] = realloc(r->names, (size_t)(i + 1) * sizeof *nn);
    if (nn == NULL)
        return fti_fail(FTI_E_NOMEM, "variable names: out of memory");
    memset(nn[r->nnames], 0, (size_t)(i + 1 - r->nnames) * sizeof *nn);
    r->names = nn;
    r->nnames = i + 1;
    return FTI_E_OK;
}

fti_err fti_registry_adopt_name(fti_registry *r, const char *name, int id)
{
    /* id comes from a checkpoint file: compared before it is subtracted */
    int i = id < FTI_FIRST_STRING_ID ? -1 : id - FTI_FIRST_STRING_ID;
    if (i < 0 || i >= FTI_MAX_STRING_IDS || name == NULL || name[0] == '\0')
        return fti_fail(FTI_E_ARG, "name '%s' with id %d is not one of FTI_setIDFromString", name ? name : "", id);
    if (i < r->nnames && r->names[i][0] != '\0')
        return FTI_E_OK; /* set in this run already */
    fti_err e = grow_names(r, i);
    if (e == FTI_E_OK)
        copy_name(r->names[i], name);
    return e;
}

fti_err fti_registry_set_name(fti_registry *r, const char *name, int *id_out)
{
    if (name == NULL || name[0] == '\0')
        return fti_fail(FTI_E_ARG, "FTI_setIDFromString: empty name");
    if (strlen(name) >= FTI_NAME_LEN) /* longer names could not be told apart */
        return fti_fail(FTI_E_ARG, "FTI_setIDFromString: name '%.20s...' has %zu characters, at "
                        "most %d are allowed", name, strlen(name), FTI_NAME_LEN - 1);
    int id = fti_registry_get_name(r, name);
    if (id >= 0) {
        *id_out = id;
        return FTI_E_OK;
    }
    int i = r->nnames;
    if (i >= FTI_MAX_STRING_IDS)
        return fti_fail(FTI_E_ARG, "FTI_setIDFromString('%s'): more than %d names", name,
                        FTI_MAX_STRING_IDS);
    fti_err e = grow_names(r, i);
    if (e != FTI_E_OK)
        return e;
    copy_name(r->names[i], name);
    *id_out = FTI_FIRST_STRING_ID + i;
    return FTI_E_OK;
}

int fti_registry_get_name(const fti_registry *r, const char *name)
{
    if (name == NULL)
        return -1;
    for (int i = 0; i < r->nnames; i++)
        if (r->names[i][0] != '\0' && strcmp(r->names[i], name) == 0)
            return FTI_FIRST_STRING_ID + i;
    return -1;
}
