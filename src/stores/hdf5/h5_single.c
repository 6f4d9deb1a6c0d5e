#include "stores/hdf5/h5_single.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/collective.h"
#include "base/fio.h"
#include "stores/hdf5/h5_file.h"
#include "stores/hdf5/h5_groups.h"
#include "base/integrity.h"
#include "base/log.h"
#include "base/safe_fs.h"

/* One row of /fti_subsets per subset written: writer rank, dataset id,
 * rank of the hyperslab, XXH3-64 of its bytes, offset[32], count[32]. */
#define ROW (4 + 2 * FTI_H5_MAXDIM)
#define A_DID "fti_did"

static uint64_t elems(int ndims, const FTIT_hsize_t *count)
{
    uint64_t n = 1;
    for (int i = 0; i < ndims; i++)
        n *= count[i];
    return n;
}

/* Every protected variable is a subset that fits its dataset. */
static fti_err check_var(fti_ctx *ctx, const fti_var *v)
{
    const fti_h5_subset *s = ctx->h5 ? fti_h5_subset_of(ctx->h5, v->id) : NULL;
    fti_h5_global *g = s ? fti_h5_global_find(ctx->h5, s->did) : NULL;
    const fti_type *t = g ? fti_registry_type(&ctx->reg, g->type) : NULL;
    if (g == NULL || t == NULL)
        return fti_fail(FTI_E_ARG, "FTI_L4_H5_SINGLE: variable %d is in no global dataset "
                        "(FTI_DefineGlobalDataset, FTI_AddSubset)", v->id);
    if (v->dev != NULL || elems(s->ndims, s->count) != (uint64_t)v->count ||
        t->size != v->elem_size)
        return fti_fail(FTI_E_ARG, "FTI_L4_H5_SINGLE: variable %d (%lld elements of %zu bytes) "
                        "does not match its subset of dataset %d (%llu elements of %zu bytes), "
                        "or is device memory", v->id, (long long)v->count, v->elem_size, g->id,
                        (unsigned long long)elems(s->ndims, s->count), t->size);
    for (int i = 0; i < s->ndims; i++)
        if (s->offset[i] + s->count[i] > g->dims[i])
            return fti_fail(FTI_E_ARG, "FTI_L4_H5_SINGLE: the subset of variable %d leaves "
                            "dataset %d in dimension %d", v->id, g->id, i);
    return FTI_E_OK;
}

static hid_t open_file(const char *path, MPI_Comm comm, int create)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (comm != MPI_COMM_NULL)
        H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL);
    /* created: our own new file (fti_open_new before); read: never a link or
     * a FIFO, which every rank sees alike */
    hid_t f = create ? H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
              : fti_check_regular(path) == 0 ? H5Fopen(path, H5F_ACC_RDONLY, fapl) : -1;
    H5Pclose(fapl);
    return f;
}

/* Reads (or writes) the hyperslab (offset, count) of d from (into) buf. */
static int slab_io(hid_t d, hid_t t, int ndims, const FTIT_hsize_t *offset,
                   const FTIT_hsize_t *count, void *buf, int write)
{
    hsize_t off[FTI_H5_MAXDIM], cnt[FTI_H5_MAXDIM];
    for (int i = 0; i < ndims; i++)
        off[i] = offset[i], cnt[i] = count[i];
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(ndims, cnt, NULL);
    int rc = fs >= 0 && ms >= 0 &&
             H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL) >= 0 &&
             (write ? H5Dwrite(d, t, ms, fs, H5P_DEFAULT, buf)
                    : H5Dread(d, t, ms, fs, H5P_DEFAULT, buf)) >= 0 ? 0 : -1;
    if (ms >= 0) H5Sclose(ms);
    if (fs >= 0) H5Sclose(fs);
    return rc;
}

/* ---- writing -------------------------------------------------------------- */

typedef struct rows {
    uint64_t *r;
    int n, cap;
} rows;

static int add_row(rows *rs, int writer, const fti_h5_subset *s, uint64_t sum)
{
    if (rs->n == rs->cap) {
        int cap = rs->cap ? 2 * rs->cap : 8;
        uint64_t *g = realloc(rs->r, (size_t)cap * ROW * sizeof *g);
        if (g == NULL)
            return -1;
        rs->r = g;
        rs->cap = cap;
    }
    uint64_t *row = rs->r + (size_t)rs->n++ * ROW;
    memset(row, 0, ROW * sizeof *row);
    row[0] = (uint64_t)writer, row[1] = (uint64_t)s->did, row[2] = (uint64_t)s->ndims, row[3] = sum;
    for (int i = 0; i < s->ndims; i++)
        row[4 + i] = s->offset[i], row[4 + FTI_H5_MAXDIM + i] = s->count[i];
    return 0;
}

/* Collective: creates global dataset g, then this rank writes its subsets. */
static int write_global(fti_ctx *ctx, hid_t f, const fti_h5_global *g, rows *rs)
{
    char path[2 * FTI_BUFS];
    hsize_t dims[FTI_H5_MAXDIM];
    for (int i = 0; i < g->ndims; i++)
        dims[i] = g->dims[i];
    fti_h5_global_path(ctx->h5, g, path, sizeof path);
    hid_t t = fti_h5_type(&ctx->reg, g->type), s = H5Screate_simple(g->ndims, dims, NULL);
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t d = H5Dcreate2(f, path, t, s, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    int rc = d >= 0 && fti_h5_put_attr(d, A_DID, H5T_NATIVE_INT, &g->id) == 0 ? 0 : -1;
    for (int i = 0; rc == 0 && i < ctx->reg.nvars; i++) {
        const fti_var *v = &ctx->reg.vars[i];
        const fti_h5_subset *sub = fti_h5_subset_of(ctx->h5, v->id);
        if (sub->did != g->id)
            continue;
        rc = slab_io(d, t, sub->ndims, sub->offset, sub->count, v->ptr, 1);
        if (rc == 0)
            rc = add_row(rs, ctx->topo.app_rank, sub,
                         fti_hash_buffer(v->ptr, (size_t)fti_var_bytes(v)));
    }
    if (d >= 0) H5Dclose(d);
    H5Pclose(lcpl);
    H5Sclose(s);
    if (t >= 0) H5Tclose(t);
    return rc;
}

/* Collective: /fti_subsets, every rank's rows at its place. */
static int write_table(fti_ctx *ctx, hid_t f, const rows *rs)
{
    unsigned long long mine = (unsigned long long)rs->n, start = 0, total = 0;
    MPI_Exscan(&mine, &start, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, ctx->topo.app);
    MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, ctx->topo.app);
    if (ctx->topo.app_rank == 0)
        start = 0;
    hsize_t dims[2] = {total, ROW};
    hid_t s = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate2(f, "/fti_subsets", H5T_NATIVE_UINT64, s, H5P_DEFAULT, H5P_DEFAULT,
                         H5P_DEFAULT);
    FTIT_hsize_t off[2] = {start, 0}, cnt[2] = {mine, ROW};
    int rc = d >= 0 ? 0 : -1;
    if (rc == 0 && mine > 0)
        rc = slab_io(d, H5T_NATIVE_UINT64, 2, off, cnt, rs->r, 1);
    if (d >= 0) H5Dclose(d);
    H5Sclose(s);
    return rc;
}

static int write_contents(fti_ctx *ctx, const fti_commit *c, hid_t f)
{
    rows rs = {0};
    int rc = fti_h5_put_attr(f, "fti_seq", H5T_NATIVE_UINT64, &c->seq) |
             fti_h5_put_attr(f, "fti_ckpt_id", H5T_NATIVE_INT64, &c->id) |
             fti_h5_put_attr(f, "fti_nranks", H5T_NATIVE_INT, &c->nranks);
    if (c->nonce != 0)
        rc |= fti_h5_put_attr(f, "fti_nonce", H5T_NATIVE_UINT64, &c->nonce);
    for (int i = 0; i < ctx->h5->nglobals; i++) /* every rank, same order: collective */
        rc |= write_global(ctx, f, &ctx->h5->globals[i], &rs);
    rc |= write_table(ctx, f, &rs);
    free(rs.r);
    return rc;
}

fti_err fti_h5s_write(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes)
{
    fti_err e = ctx->h5 == NULL ? fti_fail(FTI_E_ARG, "FTI_L4_H5_SINGLE: no global dataset is "
                                           "defined (FTI_DefineGlobalDataset)") : FTI_E_OK;
    for (int i = 0; e == FTI_E_OK && i < ctx->reg.nvars; i++)
        e = check_var(ctx, &ctx->reg.vars[i]);
    if ((e = fti_agree(ctx->topo.app, e, FTI_E_ARG, "FTI_L4_H5_SINGLE: another rank's variables "
                       "do not fit their global datasets")) != FTI_E_OK)
        return e;
    char path[FTI_PATH_MAX], tmp[FTI_PATH_MAX + 8];
    fti_path_global_h5single(&ctx->dirs, path, c->slot);
    fti_path_temp(tmp, path, "tmp");
    int ok = 1, rank0 = ctx->topo.app_rank == 0;
    if (rank0) { /* 0600: HDF5's truncation keeps the mode, its creation would not */
        int fd = fti_open_new(tmp);
        ok = fd >= 0 && close(fd) == 0;
    }
    *bytes = 0;
    if (fti_all_ok(ctx->topo.app, ok)) {
        H5E_BEGIN_TRY {
            hid_t f = open_file(tmp, ctx->topo.app, 1);
            ok = f >= 0 && write_contents(ctx, c, f) == 0;
            ok = f >= 0 && H5Fclose(f) >= 0 && ok;
        } H5E_END_TRY;
        ok = fti_all_ok(ctx->topo.app, ok);
        if (ok && rank0) /* fsync and rename, once every rank wrote */
            ok = fti_publish_file(tmp, path, ctx->dirs.global, bytes) == 0;
        MPI_Bcast(&ok, 1, MPI_INT, 0, ctx->topo.app);
    }
    if (!ok && rank0)
        unlink(tmp);
    return ok ? FTI_E_OK : fti_fail(FTI_E_IO, "FTI_L4_H5_SINGLE: writing the shared file %s "
                                    "failed (on this or another rank)", tmp);
}

/* ---- reading ------------------------------------------------------------- */

typedef struct by_did {
    int did;
    char path[2 * FTI_BUFS];
} by_did;

static herr_t match_did(hid_t g, const char *name, const H5L_info_t *info, void *arg)
{
    by_did *b = arg;
    int did = -1;
    (void)info;
    if (H5Aexists_by_name(g, name, A_DID, H5P_DEFAULT) <= 0)
        return 0;
    hid_t a = H5Aopen_by_name(g, name, A_DID, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 ? H5Aread(a, H5T_NATIVE_INT, &did) : -1;
    if (a >= 0)
        H5Aclose(a);
    if (rc >= 0 && did == b->did) {
        snprintf(b->path, sizeof b->path, "/%s", name);
        return 1; /* found: stop */
    }
    return 0;
}

/* The dataset of global id did in f, or -1. */
static hid_t open_did(hid_t f, int did)
{
    by_did b = {did, ""};
    if (H5Lvisit(f, H5_INDEX_NAME, H5_ITER_INC, match_did, &b) <= 0)
        return -1;
    return H5Dopen2(f, b.path, H5P_DEFAULT);
}

/* Checks one row's hyperslab against its checksum. */
static int check_row(hid_t f, const uint64_t *row)
{
    hid_t d = open_did(f, (int)row[1]);
    hid_t t = d >= 0 ? H5Dget_type(d) : -1;
    int nd = (int)row[2], rc = -1;
    if (t >= 0 && nd >= 1 && nd <= FTI_H5_MAXDIM) {
        size_t n = H5Tget_size(t) * (size_t)elems(nd, row + 4 + FTI_H5_MAXDIM);
        void *buf = malloc(n ? n : 1);
        rc = buf != NULL && slab_io(d, t, nd, row + 4, row + 4 + FTI_H5_MAXDIM, buf, 0) == 0 &&
             fti_hash_buffer(buf, n) == row[3] ? 0 : -1;
        free(buf);
    }
    if (t >= 0) H5Tclose(t);
    if (d >= 0) H5Dclose(d);
    return rc;
}

/* This rank's share of the rows (every size-th from its rank). */
static int check_rows(fti_ctx *ctx, hid_t f, const fti_commit *c, char *why, size_t n)
{
    uint64_t seq = 0;
    hid_t d = H5Dopen2(f, "/fti_subsets", H5P_DEFAULT);
    hid_t s = d >= 0 ? H5Dget_space(d) : -1;
    hsize_t dims[2] = {0, 0};
    if (fti_h5_get_attr(f, "fti_seq", H5T_NATIVE_UINT64, &seq) != 0 || seq != c->seq || s < 0 ||
        H5Sget_simple_extent_dims(s, dims, NULL) != 2 || dims[1] != ROW) {
        snprintf(why, n, "not the shared file of checkpoint #%llu (or no subset table)",
                 (unsigned long long)c->seq);
        if (s >= 0) H5Sclose(s);
        if (d >= 0) H5Dclose(d);
        return -1;
    }
    uint64_t nonce = 0;
    if (fti_h5_get_nonce(f, &nonce) != 0 || nonce != c->nonce) {
        snprintf(why, n, "holds another job's checkpoint (nonce %016llx, expected %016llx): "
                 "written by a job sharing these folders (same exec_id, another meta_dir?)",
                 (unsigned long long)nonce, (unsigned long long)c->nonce);
        H5Sclose(s);
        H5Dclose(d);
        return -1;
    }
    uint64_t *all = malloc((size_t)(dims[0] ? dims[0] : 1) * ROW * sizeof *all);
    int rc = all != NULL && (dims[0] == 0 || H5Dread(d, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL,
                                                     H5P_DEFAULT, all) >= 0) ? 0 : -1;
    for (hsize_t r = (hsize_t)ctx->topo.app_rank; rc == 0 && r < dims[0];
         r += (hsize_t)ctx->topo.app_size)
        if (check_row(f, all + r * ROW) != 0) {
            snprintf(why, n, "the subset of dataset %llu written by rank %llu does not match its "
                     "checksum", (unsigned long long)all[r * ROW + 1],
                     (unsigned long long)all[r * ROW]);
            rc = -1;
        }
    free(all);
    H5Sclose(s);
    H5Dclose(d);
    return rc;
}

fti_err fti_h5s_verify(fti_ctx *ctx, const fti_commit *c)
{
    char path[FTI_PATH_MAX], why[256] = "cannot be opened";
    fti_path_global_h5single(&ctx->dirs, path, c->slot);
    fti_err e = access(path, R_OK) == 0 ? FTI_E_OK
              : fti_fail(FTI_E_MISSING, "FTI_L4_H5_SINGLE: shared file %s: missing", path);
    if ((e = fti_agree(ctx->topo.app, e, FTI_E_MISSING, "FTI_L4_H5_SINGLE: shared file %s: "
                       "missing on another rank", path)) != FTI_E_OK)
        return e;
    int ok;
    H5E_BEGIN_TRY {
        hid_t f = open_file(path, ctx->topo.app, 0);
        ok = f >= 0 && check_rows(ctx, f, c, why, sizeof why) == 0;
        if (f >= 0)
            H5Fclose(f);
    } H5E_END_TRY;
    if (!ok)
        return fti_fail(FTI_E_CORRUPT, "FTI_L4_H5_SINGLE: shared file %s: %s", path, why);
    return FTI_E_OK;
}

fti_err fti_h5s_read_var(fti_ctx *ctx, const fti_var *v)
{
    char path[FTI_PATH_MAX];
    fti_path_global_h5single(&ctx->dirs, path, ctx->rec.chosen.slot);
    const fti_h5_subset *s = ctx->h5 ? fti_h5_subset_of(ctx->h5, v->id) : NULL;
    if (s == NULL || v->dev != NULL)
        return fti_fail(FTI_E_ARG, "recover: variable %d has no subset (FTI_AddSubset) to read "
                        "from the shared file %s, or is device memory", v->id, path);
    fti_err e = FTI_E_OK;
    H5E_BEGIN_TRY {
        hid_t f = open_file(path, MPI_COMM_NULL, 0);
        hid_t d = f >= 0 ? open_did(f, s->did) : -1;
        hid_t t = d >= 0 ? H5Dget_type(d) : -1;
        if (t < 0 || H5Tget_size(t) != v->elem_size ||
            elems(s->ndims, s->count) != (uint64_t)v->count ||
            slab_io(d, t, s->ndims, s->offset, s->count, v->ptr, 0) != 0)
            e = fti_fail(FTI_E_CORRUPT, "recover: variable %d: cannot read its subset of dataset "
                         "%d from %s (missing dataset, other element size, or outside it)",
                         v->id, s->did, path);
        if (t >= 0) H5Tclose(t);
        if (d >= 0) H5Dclose(d);
        if (f >= 0) H5Fclose(f);
    } H5E_END_TRY;
    return e;
}

fti_err fti_h5s_dataset_dims(fti_ctx *ctx, int did)
{
    char path[FTI_PATH_MAX];
    fti_path_global_h5single(&ctx->dirs, path, ctx->rec.chosen.slot);
    fti_h5_global *g = ctx->h5 ? fti_h5_global_find(ctx->h5, did) : NULL;
    if (g == NULL)
        return fti_fail(FTI_E_ARG, "FTI_RecoverDatasetDimension: dataset %d is not defined", did);
    fti_err e = FTI_E_OK;
    H5E_BEGIN_TRY {
        hid_t f = open_file(path, MPI_COMM_NULL, 0);
        hid_t d = f >= 0 ? open_did(f, did) : -1;
        hid_t s = d >= 0 ? H5Dget_space(d) : -1;
        hsize_t dims[FTI_H5_MAXDIM];
        int nd = s >= 0 ? H5Sget_simple_extent_ndims(s) : -1;
        if (nd < 1 || nd > FTI_H5_MAXDIM || H5Sget_simple_extent_dims(s, dims, NULL) != nd) {
            e = fti_fail(FTI_E_CORRUPT, "FTI_RecoverDatasetDimension: dataset %d not in %s", did,
                         path);
        } else {
            g->ndims = nd;
            for (int i = 0; i < nd; i++)
                g->dims[i] = dims[i];
        }
        if (s >= 0) H5Sclose(s);
        if (d >= 0) H5Dclose(d);
        if (f >= 0) H5Fclose(f);
    } H5E_END_TRY;
    return e;
}
