#include "data/ckpt_copy.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/memcopy.h"

#define COPY_ALIGN 64 /* whole cache lines: memcpy at full speed */

static uint64_t aligned(uint64_t n)
{
    return (n + COPY_ALIGN - 1) / COPY_ALIGN * COPY_ALIGN;
}

uint64_t fti_ckpt_copy_need(const fti_registry *reg)
{
    uint64_t need = 0;
    for (int i = 0; i < reg->nvars; i++)
        need += aligned(fti_var_bytes(&reg->vars[i]));
    return need;
}

/* The buffer holds `need` bytes and the table reg's variables afterwards. */
static fti_err reserve(fti_ckpt_copy *cp, uint64_t need, int nvars)
{
    if (need > cp->cap) {
        free(cp->buf);
        cp->cap = 0;
        cp->buf = aligned_alloc(COPY_ALIGN, (size_t)need);
        if (cp->buf == NULL)
            return fti_fail(FTI_E_NOMEM, "staging_mib: cannot allocate %llu bytes for the copy "
                            "of an asynchronous checkpoint", (unsigned long long)need);
        cp->cap = (size_t)need;
    }
    if (nvars > cp->var_cap) {
        fti_var *v = realloc(cp->reg.vars, (size_t)nvars * sizeof *v);
        if (v == NULL)
            return fti_fail(FTI_E_NOMEM, "staging_mib: out of memory for the variable table");
        cp->reg.vars = v;
        cp->var_cap = nvars;
    }
    return FTI_E_OK;
}

static fti_err copy_var(const fti_var *v, void *dst, fti_capture_sets *sets, size_t gpu_bufsize)
{
    size_t n = (size_t)fti_var_bytes(v);
    if (v->dev == NULL) {
        if (n > 0)
            fti_copy_large(dst, v->ptr, n);
        return FTI_E_OK;
    }
    char err[256] = "";
    if (fti_capture_to_memory(sets, v->dev, v->ptr, n, dst, gpu_bufsize, err, sizeof err) != 0)
        return fti_fail(FTI_E_DEVICE, "staging_mib: copying device variable %d from %s: %s",
                        v->id, v->dev->name, err);
    return FTI_E_OK;
}

fti_err fti_ckpt_copy_take(fti_ckpt_copy *cp, const fti_registry *reg, fti_capture_sets *sets,
                           size_t gpu_bufsize)
{
    fti_err e = reserve(cp, fti_ckpt_copy_need(reg), reg->nvars);
    uint64_t at = 0;
    for (int i = 0; i < reg->nvars && e == FTI_E_OK; i++) {
        fti_var *dst = &cp->reg.vars[i];
        *dst = reg->vars[i];
        dst->ptr = cp->buf + at;
        dst->dev = NULL;
        dst->dev_owned = NULL; /* the registry owns it */
        e = copy_var(&reg->vars[i], dst->ptr, sets, gpu_bufsize);
        at += aligned(fti_var_bytes(dst));
    }
    cp->reg.nvars = e == FTI_E_OK ? reg->nvars : 0;
    cp->reg.bytes = e == FTI_E_OK ? reg->bytes : 0;
    return e;
}

void fti_ckpt_copy_free(fti_ckpt_copy *cp)
{
    if (cp == NULL)
        return;
    free(cp->buf);
    free(cp->reg.vars);
    memset(cp, 0, sizeof *cp);
}
