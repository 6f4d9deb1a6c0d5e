/*
 * device_api.c - FTI_ProtectDevice (fti_device.h), through the backend
 * registry of backends/device.h.
 *
 * A device variable is (backend ops, handle) in the registry; the capture
 * pipeline copies `off` bytes into the variable as ops->to_host(handle, off).
 * A variable that starts at a non-zero offset of its buffer gets a view: a
 * copy of the backend's ops table whose copies add the base offset, and whose
 * handle is the view itself. Streams, buffers and errors stay the backend's.
 * The registry owns the view and frees it with the variable.
 */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fti_device.h"

#include "core/context.h"
#include "base/log.h"

/* ---- views: a variable at an offset of its device buffer ----------------- */

typedef struct dev_view {
    fti_device_ops ops; /* first: the registry's dev points here */
    const fti_device_ops *inner;
    void *handle;
    size_t offset;
} dev_view;

static int view_to_host(void *stream, void *dst, const void *h, size_t off, size_t n)
{
    const dev_view *v = h;
    return v->inner->to_host(stream, dst, v->handle, v->offset + off, n);
}

static int view_to_device(void *stream, void *h, size_t off, const void *src, size_t n)
{
    const dev_view *v = h;
    return v->inner->to_device(stream, v->handle, v->offset + off, src, n);
}

static int view_order(void *stream, const void *h)
{
    const dev_view *v = h;
    return v->inner->order_after_app(stream, v->handle);
}

static dev_view *view_new(const fti_device_ops *inner, void *handle, size_t offset)
{
    dev_view *v = malloc(sizeof *v);
    if (v == NULL)
        return NULL;
    v->ops = *inner;
    v->ops.to_host = view_to_host;
    v->ops.to_device = view_to_device;
    v->ops.order_after_app = inner->order_after_app ? view_order : NULL;
    v->inner = inner;
    v->handle = handle;
    v->offset = offset;
    return v;
}

/* ---- FTI_ProtectDevice ------------------------------------------------------ */

static fti_err find_backend(int id, const char *backend, const fti_device_ops **ops)
{
    char names[128];
    if (backend == NULL)
        return fti_fail(FTI_E_ARG, "FTI_ProtectDevice: variable %d: backend name is NULL", id);
    *ops = fti_device_by_name(backend);
    if (*ops != NULL)
        return FTI_E_OK;
    fti_device_names(names, sizeof names);
    return fti_fail(FTI_E_UNSUPPORTED, "FTI_ProtectDevice: variable %d: device backend '%s' is not "
                    "in this build (available: %s)%s", id, backend, names[0] ? names : "none",
                    strcmp(backend, "xrt") == 0 ? "; libfti was built without XRT (set "
                    "XILINX_XRT and reconfigure)" : "");
}

int FTI_ProtectDevice(int id, const char *backend, void *handle, size_t offset, int64_t count,
                      fti_id_t type)
{
    fti_ctx *ctx = fti_api_ctx("FTI_ProtectDevice");
    const fti_device_ops *ops = NULL;
    if (ctx == NULL || find_backend(id, backend, &ops) != FTI_E_OK)
        return FTI_NSCS;
    if (handle == NULL) {
        fti_fail(FTI_E_ARG, "FTI_ProtectDevice: variable %d: %s handle is NULL", id, backend);
        return FTI_NSCS;
    }
    if (offset == 0)
        return fti_registry_protect_device(&ctx->reg, id, ops, handle, NULL, count, type) == FTI_E_OK
                   ? FTI_SCES : FTI_NSCS;
    dev_view *v = view_new(ops, handle, offset);
    if (v == NULL) {
        fti_fail(FTI_E_NOMEM, "FTI_ProtectDevice: variable %d: out of memory", id);
        return FTI_NSCS;
    }
    if (fti_registry_protect_device(&ctx->reg, id, &v->ops, v, v, count, type) != FTI_E_OK) {
        free(v);
        return FTI_NSCS;
    }
    return FTI_SCES;
}
