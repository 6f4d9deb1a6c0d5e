/*
 * axi_model_xrt.c - the part of XRT's C API that the "xrt" backend
 * (backends/xrt/xrt_backend.c) calls, over the model of AXI memory, so that
 * test_fpga_axi_model runs the monitor through that backend too: a buffer
 * object is a model buffer plus its host store; xrtBOSync moves bytes
 * between them as one DMA at the current simulated time (XRT's sync
 * blocks until the transfer is done), xrtBORead/xrtBOWrite touch the host
 * store only.
 */
#include "axi_model_xrt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct axim_bo {
    axim_buf *dev;
    unsigned char *host;
};

axim_bo *axim_bo_wrap(axim_buf *b)
{
    axim_bo *bo = malloc(sizeof *bo);
    if (bo == NULL || (bo->host = calloc(1, b->bytes)) == NULL)
        abort();
    bo->dev = b;
    return bo;
}

void axim_bo_free(axim_bo *bo)
{
    if (bo != NULL)
        free(bo->host);
    free(bo);
}

static int in_range(const axim_bo *bo, size_t size, size_t off)
{
    return bo != NULL && off <= bo->dev->bytes && size <= bo->dev->bytes - off;
}

size_t xrtBOSize(xrtBufferHandle bhdl)
{
    return bhdl ? ((axim_bo *)bhdl)->dev->bytes : 0;
}

int xrtBOSync(xrtBufferHandle bhdl, enum xclBOSyncDirection dir, size_t size, size_t offset)
{
    axim_bo *bo = bhdl;
    if (!in_range(bo, size, offset))
        return -EINVAL;
    axim_dma_now(bo->dev, offset, bo->host + offset, size, dir == XCL_BO_SYNC_BO_TO_DEVICE);
    return 0;
}

int xrtBOWrite(xrtBufferHandle bhdl, const void *src, size_t size, size_t seek)
{
    axim_bo *bo = bhdl;
    if (!in_range(bo, size, seek))
        return -EINVAL;
    memcpy(bo->host + seek, src, size);
    return 0;
}

int xrtBORead(xrtBufferHandle bhdl, void *dst, size_t size, size_t skip)
{
    axim_bo *bo = bhdl;
    if (!in_range(bo, size, skip))
        return -EINVAL;
    memcpy(dst, bo->host + skip, size);
    return 0;
}
