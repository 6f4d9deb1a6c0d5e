/*
 * xrt/xrt_bo.h - XRT emulation (FTI project): buffer objects of XRT's
 * native C API. A buffer object has device memory (emulated device memory,
 * fti_emu_malloc) and a host backing store (xrtBOMap); xrtBOSync moves bytes
 * between them through the emulated device's copy engine (its speed model
 * and failure injection apply), xrtBOWrite/xrtBORead touch the host store.
 */
#ifndef FTI_XRT_EMU_BO_H
#define FTI_XRT_EMU_BO_H

#include <stddef.h>
#include <stdint.h>

#include "xrt/xrt_device.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *xrtBufferHandle;
typedef uint64_t xrtBufferFlags;
typedef uint32_t xrtMemoryGroup;

#define XRT_BO_FLAGS_NONE 0
#define XCL_BO_FLAGS_NONE 0

enum xclBOSyncDirection {
    XCL_BO_SYNC_BO_TO_DEVICE = 0,
    XCL_BO_SYNC_BO_FROM_DEVICE = 1,
};

/* A buffer of `size` bytes, or NULL (errno set). */
xrtBufferHandle xrtBOAlloc(xrtDeviceHandle dhdl, size_t size, xrtBufferFlags flags,
                           xrtMemoryGroup grp);

/* A buffer naming bytes [offset, offset + size) of parent, or NULL. */
xrtBufferHandle xrtBOSubAlloc(xrtBufferHandle parent, size_t size, size_t offset);

/* 0, or a negative errno. */
int xrtBOFree(xrtBufferHandle bhdl);

size_t xrtBOSize(xrtBufferHandle bhdl);

/* The device address of the buffer (here: of its emulated device memory). */
uint64_t xrtBOAddress(xrtBufferHandle bhdl);

/* Copies `size` bytes at `offset` between the host store and the device:
 * 0, or a negative errno. */
int xrtBOSync(xrtBufferHandle bhdl, enum xclBOSyncDirection dir, size_t size, size_t offset);

/* The host backing store. */
void *xrtBOMap(xrtBufferHandle bhdl);

/* Host store <-> user memory: 0, or a negative errno. */
int xrtBOWrite(xrtBufferHandle bhdl, const void *src, size_t size, size_t seek);
int xrtBORead(xrtBufferHandle bhdl, void *dst, size_t size, size_t skip);

#ifdef __cplusplus
}
#endif

#endif
