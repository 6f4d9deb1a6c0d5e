/*
 * axi_model.h - a seeded discrete-event model of an FPGA card's memory as
 * the in-kernel checkpoint protocol (fti_kernel.h) sees it through AXI:
 * every write, from the kernel's m_axi ports or from the host's DMA, lands
 * after its own random latency (writes to overlapping bytes land in issue
 * order; a port may also be made to land in order), reads see only what has
 * landed, and the kernel's fence waits for the write responses of
 * everything it issued before (what fti_k_publish's fixed protocol region
 * means under Vitis HLS). The kernel (a coroutine) and the host (a
 * coroutine running FTI_FpgaWait through the "axim" device backend and a
 * simulated clock) are interleaved by one scheduler: a schedule is a seed.
 *
 * Kernel side: compile the kernel with FTI_K_LOAD / FTI_K_STORE /
 * FTI_K_FENCE / FTI_K_SLEEP_NS / FTI_K_NOW_US predefined to the axim_k_*
 * calls (axi_model_kernel.h). Its plain data stores go to the buffer's
 * kernel view and are issued as writes (64-byte beats) at its next
 * protocol call; its data loads read that view (the kernel reading its own
 * writes before they land is not modelled).
 */
#ifndef FTI_AXI_MODEL_H
#define FTI_AXI_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "fti_kernel.h"

/* Fences of fti_kernel.h, named by the announcing store they surround:
 * AXIM_FENCE(site, 0) is the fence before it, (site, 1) the one after. */
enum {
    AXIM_SITE_SLOT_BEGIN, /* odd slot sequence (fti_k_slot_begin) */
    AXIM_SITE_SLOT_END,   /* even slot sequence (fti_k_slot_end) */
    AXIM_SITE_PROGRESS,   /* progress (fti_k_block_done) */
    AXIM_SITE_FLAGA,      /* flagA raise (fti_k_checkpoint_wait) */
    AXIM_SITE_DONE,       /* done (fti_k_end) */
    AXIM_NSITES
};
#define AXIM_FENCE(site, after) ((site) * 2 + (after))
#define AXIM_NFENCES (2 * AXIM_NSITES)

/* "before progress", "after flagA", ... */
const char *axim_fence_name(int fence);

/* A device buffer: what has landed (read by the host and by the kernel's
 * control loads) and the kernel's view (written by its plain stores). */
typedef struct axim_buf {
    unsigned char *landed, *view, *issued;
    size_t bytes;
    int port; /* 0: the control block's bundle; 1..: data bundles */
} axim_buf;

#define AXIM_PORTS 8 /* ports 0..6 are the kernel's bundles, 7 the host's DMA */

/* Starts schedule `seed`: frees the buffers of the last one, draws this
 * schedule's latencies and speeds. Fences in `fences_off` (bit
 * AXIM_FENCE(site, after)) do not wait: the negative controls. */
void axim_reset(uint64_t seed, unsigned fences_off);

/* A buffer of this schedule, zeroed, on kernel port `port`. */
axim_buf *axim_alloc(size_t bytes, int port);

/* Uniform random number in [0, n) from the schedule's generator. */
uint64_t axim_rand(uint64_t n);

/* Runs host(arg) as the host coroutine until it returns, interleaved with
 * the kernel it launches. 0; 1 when simulated time passed horizon_ns or
 * the schedule took too many steps (a handshake deadlock). */
int axim_run(void (*host)(void *), void *arg, uint64_t horizon_ns);

/* From the host: starts kernel(arg) after a random launch delay (its view
 * of every buffer is what has landed then), and waits until it returned
 * and its writes landed (xrtRunWait: HLS signals ap_done only then). */
void axim_launch(void (*kernel)(void *), void *arg);
void axim_wait_kernel(void);

/* The "axim" device backend: handles are axim_buf pointers. Reads take
 * each 64-byte beat at its own time; writes land after the DMA latency
 * and stream_sync waits for them. Outside axim_run it acts at once. */
extern const fti_device_ops axim_ops;

/* A DMA that completes within the call, at the current simulated time,
 * never yielding: XRT's blocking xrtBOSync, run by the "xrt" backend's
 * worker thread while the host coroutine waits in its stream_sync (so the
 * model is never touched by two threads at once). */
void axim_dma_now(axim_buf *b, size_t off, void *host, size_t n, int to_device);

/* The host's simulated clock, for fti_fpga_set_clock. */
double axim_clock_now(void *arg);
void axim_clock_sleep(void *arg, long ns);

/* Straight mode, outside any schedule: kernel calls act at once on the
 * views, no latency (the reference runs). */
void axim_straight(int on);

/* Called at each store to the progress line in straight mode (reference
 * runs record the replicated state per block there). */
extern void (*axim_on_progress)(fti_k_word value);

/* Kernel side (fti_kernel.h's primitives, see axi_model_kernel.h). */
fti_k_word axim_k_load(const fti_k_word *p);
void axim_k_store(fti_k_word *p, fti_k_word v);
void axim_k_fence(void);
void axim_k_sleep_ns(uint64_t ns);
uint64_t axim_k_now_us(void);

/* 1 when built with AddressSanitizer (coroutines then run ~10x slower). */
int axim_sanitized(void);

/* Statistics of the schedules run since the process started. */
typedef struct axim_stats {
    uint64_t steps, writes, fences_met[AXIM_NFENCES], unknown_fences;
} axim_stats;
const axim_stats *axim_get_stats(void);

#endif
