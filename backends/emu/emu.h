/*
 * emu.h - the emulated device: "device memory" lives in host memory, but is
 * reachable only through the device interface (copies with a configurable
 * bandwidth and latency, asynchronous streams, injectable failures), and
 * emulated kernels run as threads. Every device protocol (GPU capture, FPGA
 * handshakes) runs in CI through it.
 */
#ifndef FTI_EMU_H
#define FTI_EMU_H

#include <stddef.h>

#include "device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The emulated backend's ops table ("emu"). */
extern const fti_device_ops fti_emu_ops;

/* Device allocations: fti_emu_ops.owns() recognises any pointer inside one. */
void *fti_emu_malloc(size_t n);
void fti_emu_free(void *p);

/* Copy speed model: bytes per second (0 = unlimited) and per-copy latency. */
void fti_emu_set_speed(double bytes_per_second, double latency_seconds);

/* Failure injection: the copy that would move the byte past `bytes` more
 * bytes fails (as a device error would). Pass (size_t)-1 to disable. */
void fti_emu_fail_after(size_t bytes);

/* Pinned host buffers (host_alloc) made since the process started, and
 * alive now: lets tests see that the capture pipeline pins its buffers
 * once and frees them at FTI_Finalize. */
void fti_emu_host_stats(size_t *allocated, size_t *live);

/* Emulated kernel launch: fn(arg) runs on the emulated device's default
 * stream, a thread that runs kernels one after the other in launch order,
 * while the caller goes on (like a CUDA kernel launch). A checkpoint or
 * recovery of emulated memory waits for the kernels launched before it
 * (order_after_app), as the CUDA backend waits for the legacy default
 * stream. 0, or -1 (last_error). */
int fti_emu_launch(void (*fn)(void *), void *arg);

/* Waits until every kernel launched so far has finished (like
 * cudaDeviceSynchronize). */
void fti_emu_synchronize(void);

/* Synchronous copies for tests and emulated kernels (no speed model). */
int fti_emu_read(void *dst, const void *dev, size_t n);
int fti_emu_write(void *dev, const void *src, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* FTI_EMU_H */
