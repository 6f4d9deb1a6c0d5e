#include "stores/hdf5/h5_file.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fault.h"
#include "base/fio.h"
#include "stores/hdf5/h5_groups.h"
#include "base/integrity.h"
#include "base/log.h"
#include "base/safe_fs.h"

#define A_ORDER "fti_order"
#define A_ID "fti_id"
#define A_TYPE "fti_type"
#define A_SUM "fti_checksum"
#define A_NAME "fti_name"

/* ---- types ------------------------------------------------------------------ */

/* A copy of predefined type `type`'s HDF5 native type (type < FTI_NPREDEFINED). */
static hid_t predefined(int type)
{
    switch (type) {
#define FTI_TYPE_CASE(NAME, id, ctype, kind, h5) case id: return H5Tcopy(h5);
    FTI_PREDEFINED_TYPES(FTI_TYPE_CASE)
#undef FTI_TYPE_CASE
    default: return -1;
    }
}

static hid_t h5_type(const fti_registry *reg, int type, int depth);

/* A field: its type, as an HDF5 array type when it is a vector. */
static hid_t field_type(const fti_registry *reg, const fti_field *f, int depth)
{
    hid_t t = h5_type(reg, f->type, depth + 1);
    if (t < 0 || f->ndims <= 0)
        return t;
    hsize_t dims[8];
    for (int i = 0; i < f->ndims && i < 8; i++)
        dims[i] = (hsize_t)f->dims[i];
    hid_t a = H5Tarray_create2(t, (unsigned)(f->ndims < 8 ? f->ndims : 8), dims);
    H5Tclose(t);
    return a;
}

static hid_t compound(const fti_registry *reg, const fti_type *t, int depth)
{
    hid_t c = H5Tcreate(H5T_COMPOUND, t->size);
    for (int i = 0; c >= 0 && i < t->nfields; i++) {
        hid_t ft = field_type(reg, &t->fields[i], depth);
        if (ft < 0 || H5Tinsert(c, t->fields[i].name, (size_t)t->fields[i].offset, ft) < 0) {
            if (ft >= 0)
                H5Tclose(ft);
            H5Tclose(c);
            return -1;
        }
        H5Tclose(ft);
    }
    return c;
}

hid_t fti_h5_type(const fti_registry *reg, int type)
{
    return h5_type(reg, type, 0);
}

/* Our type as an HDF5 type (the caller closes it); -1 when impossible. */
static hid_t h5_type(const fti_registry *reg, int type, int depth)
{
    if (type >= 0 && type < FTI_NPREDEFINED)
        return predefined(type);
    const fti_type *t = fti_registry_type(reg, type);
    if (t == NULL || depth > 16)
        return -1;
    if (t->composite && t->nfields > 0)
        return compound(reg, t, depth);
    /* Untagged: readers convert an opaque type only to one of the same tag, and
     * h5py reads raw bytes ('V<size>') with the empty tag. */
    return H5Tcreate(H5T_OPAQUE, t->size);
}

/* ---- attributes --------------------------------------------------------------- */

int fti_h5_put_attr(hid_t obj, const char *name, hid_t type, const void *v)
{
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, type, v) >= 0 ? 0 : -1;
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(s);
    return rc;
}

static int put_name(hid_t obj, const char *name)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, FTI_NAME_LEN);
    char buf[FTI_NAME_LEN] = {0};
    snprintf(buf, sizeof buf, "%s", name);
    int rc = fti_h5_put_attr(obj, A_NAME, t, buf);
    H5Tclose(t);
    return rc;
}

int fti_h5_get_attr(hid_t obj, const char *name, hid_t type, void *v)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int rc = a >= 0 && H5Aread(a, type, v) >= 0 ? 0 : -1;
    if (a >= 0)
        H5Aclose(a);
    return rc;
}

int fti_h5_get_nonce(hid_t f, uint64_t *nonce)
{
    *nonce = 0;
    htri_t has = H5Aexists(f, "fti_nonce");
    if (has < 0)
        return -1;
    return has > 0 ? fti_h5_get_attr(f, "fti_nonce", H5T_NATIVE_UINT64, nonce) : 0;
}

/* ---- writing -------------------------------------------------------------- */

/* The dataset's path: group of FTI_DefineDataset, then the variable's name
 * (FTI_setIDFromString / FTI_SetAttribute / FTI_DefineDataset) or FTI's
 * default, Dataset_<id>. */
static void dataset_path(const fti_ctx *ctx, const fti_var *v, char *out, size_t n)
{
    const char *group = ctx->h5 != NULL ? fti_h5_var_group(ctx->h5, v->id) : "";
    if (v->name[0] != '\0')
        snprintf(out, n, "%s/%s", group, v->name);
    else
        snprintf(out, n, "%s/Dataset_%d", group, v->id);
}

/* The variable's shape when its dimensions multiply to its count, else 1-D. */
static hid_t dataspace(const fti_var *v)
{
    hsize_t dims[FTI_MAX_DIMS];
    uint64_t prod = 1;
    for (int i = 0; i < v->ndims; i++) {
        dims[i] = (hsize_t)v->dims[i];
        prod *= (uint64_t)v->dims[i];
    }
    if (v->ndims > 0 && prod == (uint64_t)v->count)
        return H5Screate_simple(v->ndims, dims, NULL);
    dims[0] = (hsize_t)v->count;
    return H5Screate_simple(1, dims, NULL);
}

static fti_err write_attrs(hid_t d, const fti_var *v, int order, const char *path)
{
    int type = v->type;
    uint64_t sum = fti_hash_buffer(v->ptr, (size_t)fti_var_bytes(v));
    if (fti_h5_put_attr(d, A_ORDER, H5T_NATIVE_INT, &order) != 0 ||
        fti_h5_put_attr(d, A_ID, H5T_NATIVE_INT, &v->id) != 0 ||
        fti_h5_put_attr(d, A_TYPE, H5T_NATIVE_INT, &type) != 0 ||
        fti_h5_put_attr(d, A_SUM, H5T_NATIVE_UINT64, &sum) != 0 || put_name(d, v->name) != 0)
        return fti_fail(FTI_E_IO, "HDF5 checkpoint %s: cannot write the attributes of variable %d",
                        path, v->id);
    return FTI_E_OK;
}

static fti_err write_var(fti_ctx *ctx, hid_t f, const fti_var *v, int order, const char *path)
{
    char name[FTI_PATH_MAX];
    if (v->dev != NULL)
        return fti_fail(FTI_E_UNSUPPORTED, "HDF5 checkpoint: variable %d is in %s memory; "
                        "ckpt_io = 5 takes host variables", v->id, v->dev->name);
    dataset_path(ctx, v, name, sizeof name);
    hid_t t = h5_type(&ctx->reg, v->type, 0), s = dataspace(v), lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = t >= 0 ? H5Dcreate2(f, name, t, s, lcpl, H5P_DEFAULT, H5P_DEFAULT) : -1;
    fti_err e = FTI_E_OK;
    if (d < 0)
        e = fti_fail(FTI_E_IO, "HDF5 checkpoint %s: cannot create dataset %s for variable %d "
                     "(type %d; is the name used twice?)", path, name, v->id, v->type);
    else if (v->count > 0 && H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v->ptr) < 0)
        e = fti_fail(FTI_E_IO, "HDF5 checkpoint %s: writing dataset %s failed", path, name);
    if (e == FTI_E_OK)
        e = write_attrs(d, v, order, path);
    if (d >= 0)
        H5Dclose(d);
    if (t >= 0)
        H5Tclose(t);
    H5Sclose(s);
    H5Pclose(lcpl);
    return e;
}

static fti_err write_file(fti_ctx *ctx, const fti_commit *c, const char *tmp)
{
    /* Created 0600 first: HDF5's truncation keeps the mode, its creation would not. */
    /* Ours, new (safe_fs.h), so H5Fcreate truncates our own file by name. */
    int pre = fti_open_new(tmp);
    if (pre < 0)
        return fti_fail(FTI_E_IO, "HDF5 checkpoint %s: cannot create: %s", tmp, fti_fs_strerror(errno));
    close(pre);
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0)
        return fti_fail(FTI_E_IO, "HDF5 checkpoint %s: cannot create the file", tmp);
    if (fti_check_own_file(tmp) != 0) {
        fti_err e = fti_fail(FTI_E_IO, "HDF5 checkpoint %s: %s", tmp, fti_fs_strerror(errno));
        H5Fclose(f);
        return e;
    }
    int rank = ctx->topo.app_rank;
    fti_err e = FTI_E_OK;
    if (fti_h5_put_attr(f, "fti_seq", H5T_NATIVE_UINT64, &c->seq) != 0 ||
        fti_h5_put_attr(f, "fti_ckpt_id", H5T_NATIVE_INT64, &c->id) != 0 ||
        fti_h5_put_attr(f, "fti_rank", H5T_NATIVE_INT, &rank) != 0 ||
        fti_h5_put_attr(f, "fti_nvars", H5T_NATIVE_INT, &ctx->reg.nvars) != 0 ||
        (c->nonce != 0 && fti_h5_put_attr(f, "fti_nonce", H5T_NATIVE_UINT64, &c->nonce) != 0))
        e = fti_fail(FTI_E_IO, "HDF5 checkpoint %s: cannot write the file attributes", tmp);
    for (int i = 0; e == FTI_E_OK && i < ctx->reg.nvars; i++)
        e = write_var(ctx, f, &ctx->reg.vars[i], i, tmp);
    if (H5Fclose(f) < 0 && e == FTI_E_OK)
        e = fti_fail(FTI_E_IO, "HDF5 checkpoint %s: closing the file failed", tmp);
    return e;
}

/* fsync, then the rename that makes the file the checkpoint's. */
static fti_err publish(const fti_ctx *ctx, const char *tmp, const char *path, uint64_t *bytes)
{
    char dir[FTI_PATH_MAX];
    fti_path_fanout_dir(&ctx->dirs, dir, ctx->dirs.global, ctx->topo.app_rank);
    if (fti_publish_file(tmp, path, dir, bytes) != 0)
        return fti_fail(FTI_E_IO, "HDF5 checkpoint %s: cannot sync or rename to %s: %s", tmp, path,
                        fti_fs_strerror(errno));
    return FTI_E_OK;
}

fti_err fti_h5_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    char path[FTI_PATH_MAX], tmp[FTI_PATH_MAX];
    fti_path_global_h5(&ctx->dirs, path, c->slot, ctx->topo.app_rank);
    fti_path_temp(tmp, path, "tmp");
    *bytes = 0;
    fti_err e = fti_layout_create_fanout(&ctx->dirs, &ctx->cfg, ctx->topo.app_rank);
    if (e != FTI_E_OK)
        return e;
    H5E_BEGIN_TRY { /* our message names the file and variable */
        e = write_file(ctx, c, tmp);
    } H5E_END_TRY;
    if (e == FTI_E_OK) { /* the file is written and closed, not yet synced nor renamed */
        fti_fault_phase(FTI_PHASE_H5_WRITE);
        fti_fault_wrote(FTI_PHASE_H5_WRITE, tmp, 0, 0);
        e = publish(ctx, tmp, path, bytes);
    }
    if (e != FTI_E_OK)
        unlink(tmp);
    return e;
}

/* ---- restoring -------------------------------------------------------------- */

typedef struct found {
    char (*paths)[FTI_PATH_MAX];
    int n, cap;
} found;

/* H5Lvisit callback: every dataset that carries our order attribute. */
static herr_t collect(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
    found *fd = arg;
    (void)info;
    if (H5Aexists_by_name(g, name, A_ORDER, H5P_DEFAULT) <= 0)
        return 0;
    if (fd->n == fd->cap) {
        int cap = fd->cap ? 2 * fd->cap : 16;
        void *grown = realloc(fd->paths, (size_t)cap * sizeof *fd->paths);
        if (grown == NULL)
            return -1;
        fd->paths = grown;
        fd->cap = cap;
    }
    snprintf(fd->paths[fd->n++], FTI_PATH_MAX, "/%s", name);
    return 0;
}

/* One dataset: its table entry and bytes (read with its own type, so the
 * bytes are those that were written). */
static fti_err read_var(hid_t f, const char *dpath, const char *file, fti_file_entry *e,
                        void **data, int *order)
{
    hid_t d = H5Dopen2(f, dpath, H5P_DEFAULT);
    hid_t t = d >= 0 ? H5Dget_type(d) : -1, s = d >= 0 ? H5Dget_space(d) : -1;
    fti_err rc = FTI_E_OK;
    if (d < 0 || t < 0 || s < 0 || fti_h5_get_attr(d, A_ORDER, H5T_NATIVE_INT, order) != 0 ||
        fti_h5_get_attr(d, A_ID, H5T_NATIVE_INT, &e->id) != 0 ||
        fti_h5_get_attr(d, A_TYPE, H5T_NATIVE_INT, &e->type) != 0 ||
        fti_h5_get_attr(d, A_SUM, H5T_NATIVE_UINT64, &e->checksum) != 0) {
        rc = fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: dataset %s is unreadable", file, dpath);
    } else {
        hid_t nt = H5Tcopy(H5T_C_S1);
        H5Tset_size(nt, FTI_NAME_LEN);
        if (fti_h5_get_attr(d, A_NAME, nt, e->name) != 0)
            e->name[0] = '\0';
        e->name[FTI_NAME_LEN - 1] = '\0';
        H5Tclose(nt);
        e->elem_size = H5Tget_size(t);
        e->count = (uint64_t)H5Sget_simple_extent_npoints(s);
        e->nbytes = e->elem_size * e->count;
        *data = malloc(e->nbytes ? e->nbytes : 1);
        if (*data == NULL || (e->count > 0 && H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, *data) < 0))
            rc = fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: reading dataset %s failed", file,
                          dpath);
        else if (fti_hash_buffer(*data, (size_t)e->nbytes) != e->checksum)
            rc = fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: dataset %s does not match its "
                          "checksum (corrupt data)", file, dpath);
    }
    if (s >= 0) H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Dclose(d);
    return rc;
}

/* The ordinary checkpoint file, written to fd from the datasets. */
typedef struct image {
    fti_file_header hdr;
    void **data;
} image;

static fti_err read_all(hid_t f, const char *file, const found *fd, image *im)
{
    im->hdr.nvars = (uint32_t)fd->n;
    im->hdr.vars = calloc(fd->n ? (size_t)fd->n : 1, sizeof *im->hdr.vars);
    im->data = calloc(fd->n ? (size_t)fd->n : 1, sizeof *im->data);
    if (im->hdr.vars == NULL || im->data == NULL)
        return fti_fail(FTI_E_NOMEM, "HDF5 checkpoint %s: out of memory", file);
    for (int i = 0; i < fd->n; i++) {
        fti_file_entry e;
        void *data = NULL;
        int order = -1;
        memset(&e, 0, sizeof e);
        fti_err rc = read_var(f, fd->paths[i], file, &e, &data, &order);
        if (rc == FTI_E_OK && (order < 0 || order >= fd->n || im->data[order] != NULL))
            rc = fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: dataset %s has a bad order", file,
                          fd->paths[i]);
        if (rc != FTI_E_OK) {
            free(data);
            return rc;
        }
        im->hdr.vars[order] = e;
        im->data[order] = data;
    }
    return FTI_E_OK;
}

static fti_err write_image(const image *im, const char *local)
{
    int fd = fti_open_new(local);
    if (fd < 0)
        return fti_fail(FTI_E_IO, "%s: cannot create: %s", local, fti_fs_strerror(errno));
    unsigned char *h = malloc(im->hdr.data_offset);
    int rc = h == NULL ? -1 : 0;
    if (rc == 0) {
        fti_file_header_encode(&im->hdr, h);
        rc = fti_pwrite_full(fd, h, im->hdr.data_offset, 0);
    }
    for (uint32_t i = 0; rc == 0 && i < im->hdr.nvars; i++)
        rc = fti_pwrite_full(fd, im->data[i], im->hdr.vars[i].nbytes, (off_t)im->hdr.vars[i].offset);
    if (rc == 0)
        rc = ftruncate(fd, (off_t)im->hdr.file_size) == 0 && fti_fsync(fd) == 0 ? 0 : -1;
    free(h);
    close(fd);
    return rc == 0 ? FTI_E_OK : fti_fail(FTI_E_IO, "%s: %s", local, fti_fs_strerror(errno));
}

static fti_err check_file_attrs(hid_t f, const char *file, const fti_commit *c, int rank, int n)
{
    uint64_t seq = 0;
    int r = -1, nvars = -1;
    if (fti_h5_get_attr(f, "fti_seq", H5T_NATIVE_UINT64, &seq) != 0 ||
        fti_h5_get_attr(f, "fti_rank", H5T_NATIVE_INT, &r) != 0 ||
        fti_h5_get_attr(f, "fti_nvars", H5T_NATIVE_INT, &nvars) != 0 || seq != c->seq || r != rank ||
        nvars != n)
        return fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: holds rank %d checkpoint #%llu with %d "
                        "variables (%d found), expected rank %d checkpoint #%llu", file, r,
                        (unsigned long long)seq, nvars, n, rank, (unsigned long long)c->seq);
    uint64_t nonce;
    if (fti_h5_get_nonce(f, &nonce) != 0)
        return fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: unreadable attribute fti_nonce", file);
    if (nonce != c->nonce)
        return fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: holds another job's checkpoint (nonce "
                        "%016llx, expected %016llx): written by a job sharing these folders (same "
                        "exec_id, another meta_dir?)", file, (unsigned long long)nonce,
                        (unsigned long long)c->nonce);
    return FTI_E_OK;
}

static fti_err restore_from(hid_t f, const char *file, const fti_commit *c, int rank,
                            const char *local)
{
    found fd = {0};
    image im;
    memset(&im, 0, sizeof im);
    fti_err e = FTI_E_OK;
    if (H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, collect, &fd) < 0)
        e = fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: cannot list its datasets", file);
    if (e == FTI_E_OK)
        e = check_file_attrs(f, file, c, rank, fd.n);
    if (e == FTI_E_OK)
        e = read_all(f, file, &fd, &im);
    if (e == FTI_E_OK) {
        im.hdr.version = FTI_FILE_VERSION;
        im.hdr.kind = FTI_KIND_DATA;
        im.hdr.seq = c->seq;
        im.hdr.ckpt_id = c->id;
        im.hdr.level = 4;
        im.hdr.rank = (uint32_t)rank;
        im.hdr.nonce = c->nonce; /* checked against the file's fti_nonce above */
        fti_file_place(&im.hdr);
        e = write_image(&im, local);
    }
    for (uint32_t i = 0; im.data != NULL && i < im.hdr.nvars; i++)
        free(im.data[i]);
    free(im.data);
    fti_file_header_free(&im.hdr);
    free(fd.paths);
    return e;
}

static fti_err rebuild(const char *file, const char *local, const fti_commit *c, int rank)
{
    if (fti_check_regular(file) != 0) /* a FIFO would block H5Fopen */
        return fti_fail(errno == ENOENT ? FTI_E_MISSING : FTI_E_IO, "HDF5 checkpoint %s: %s", file,
                        fti_fs_strerror(errno));
    hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
    fti_err e = f < 0 ? fti_fail(FTI_E_CORRUPT, "HDF5 checkpoint %s: not a readable HDF5 file", file)
                      : restore_from(f, file, c, rank, local);
    if (f >= 0)
        H5Fclose(f);
    fti_file_header h;
    if (e == FTI_E_OK && (e = fti_file_verify(local, c->seq, 1, &h)) == FTI_E_OK)
        fti_file_header_free(&h);
    if (e != FTI_E_OK)
        unlink(local);
    return e;
}

fti_err fti_h5_to_ckpt_file(const char *file, const char *out, const fti_commit *c, int rank)
{
    if (access(file, R_OK) != 0)
        return fti_fail(FTI_E_MISSING, "HDF5 checkpoint %s: %s", file, fti_fs_strerror(errno));
    fti_err e = FTI_E_OK;
    H5E_BEGIN_TRY { /* a damaged file is reported once, by us, not by HDF5's stack dump */
        e = rebuild(file, out, c, rank);
    } H5E_END_TRY;
    return e;
}
