#include "core/checkpoint_write.h"

#include "base/fault.h"
#include "format/ckpt_expect.h"

fti_err fti_checkpoint_write_from(fti_ctx *ctx, const fti_registry *reg, const fti_commit *c,
                                  uint64_t *bytes)
{
    return fti_checkpoint_write_via(ctx, reg, c, bytes, &ctx->capture,
                                    (size_t)ctx->cfg.gpu_host_bufsize);
}

fti_err fti_checkpoint_write_via(fti_ctx *ctx, const fti_registry *reg, const fti_commit *c,
                                 uint64_t *bytes, fti_capture_sets *sets, size_t chunk)
{
    char path[FTI_PATH_MAX];
    fti_file_header hdr;
    fti_expect_data_header(&hdr, c, ctx->topo.app_rank, ctx->dirs.exec_id);
    fti_path_local(&ctx->dirs, path, c->level, c->slot, ctx->topo.app_rank);
    fti_err e = fti_file_write_sets(path, reg, &hdr, chunk, sets);
    if (e == FTI_E_OK) {
        *bytes = hdr.file_size;
        fti_file_header_free(&hdr);
        fti_fault_wrote(FTI_PHASE_AFTER_LOCAL_WRITE, path, 0, 0);
        fti_fault_phase(FTI_PHASE_AFTER_LOCAL_WRITE);
    }
    return e;
}
