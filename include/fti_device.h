/**
 * fti_device - device buffers and FPGA in-kernel checkpointing (libfti's extension of FTI's API)
 *
 * Our documented extension of the FTI API for accelerators:
 *
 *  1. FTI_ProtectDevice: protect a device buffer named by a backend handle
 *     (an XRT buffer object, an emulated allocation), so FTI_Checkpoint and
 *     FTI_Snapshot copy it from the device and FTI_Recover writes it back.
 *
 *  2. The FPGA monitor (FTI_Fpga*): the host side of in-kernel partial
 *     checkpointing (FPGA.md, "In-kernel partial checkpoints";
 *     kernel side: fti_kernel.h). The kernel works in blocks; after each
 *     block the host copies that block's data and the kernel's replicated
 *     state into host variables the application protects, and checkpoints.
 *
 *       FTI_FpgaConfig c = FTI_FpgaConfigDefaults();   // then set the fields
 *       FTI_FpgaCreate(&m, &c);
 *       FTI_FpgaAddBlockRegion(m, out_bo, ...);       // rows of block b
 *       FTI_FpgaAddSlotRegion(m, err_bo, ...);        // state, one copy per slot
 *       FTI_FpgaStart(m);           // writes the control block; on restart,
 *                                   // restores regions up to *blocks_var
 *       run = xrtKernelRun(kernel, ..., ctrl_bo, ...);
 *       FTI_FpgaWait(m);            // checkpoints until the kernel is done
 *       FTI_FpgaFree(m);
 *
 * Threading contract: like the rest of the API, these calls are not thread
 * safe. FTI_FpgaWait is driven by the calling (main) thread, which polls the
 * control block and calls FTI_Checkpoint itself, so the application needs no
 * MPI_THREAD_MULTIPLE and must not call FTI from another thread meanwhile.
 * The kernel runs on the device (or, emulated, in a thread of its own that
 * never calls FTI or MPI).
 *
 * The kernel side is the header fti_kernel.h; FPGA.md (docs/ in the
 * source, share/doc/fti once installed) explains the protocol.
 *
 * FTI 1.6: not in FTI (FTI_Protect takes CUDA pointers there as here).
 *
 * See also: fti(3)
 */
#ifndef FTI_DEVICE_API_H
#define FTI_DEVICE_API_H

#include "fti.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * FTI_ProtectDevice - protect a device buffer named by a backend handle
 *
 * As FTI_Protect, for memory the host cannot address: checkpoints copy the
 * buffer from the device, recovery writes it back. Calling it again with
 * the same id updates the variable (e.g. after swapping buffers).
 *
 * Parameters:
 *   id       the variable's id, as FTI_Protect's
 *   backend  "xrt" (an xrtBufferHandle) or "emu" (a pointer from
 *            fti_emu_malloc)
 *   handle   the device buffer
 *   offset   byte offset of the variable in the buffer
 *   count    number of elements
 *   type     the element type id
 *
 * Returns: FTI_SCES; FTI_NSCS when the backend is NULL or not built into
 *   this library (the message lists those built), `handle` is NULL, or as
 *   FTI_Protect.
 * Scope: local.
 * FTI 1.6: not in FTI.
 */
FTI_API int FTI_ProtectDevice(int id, const char *backend, void *handle, size_t offset,
                              int64_t count, fti_id_t type);

/* ---- FPGA in-kernel partial checkpointing (host side) ------------------ */

/**
 * FTI_FpgaMode, FTI_FPGA_OFF, FTI_FPGA_BLOCKING, FTI_FPGA_NONBLOCKING - how the kernel and the checkpoints interleave
 *
 * FTI_FpgaConfig.mode.
 */
typedef enum FTI_FpgaMode {
    FTI_FPGA_OFF = 0,         /* the kernel runs uninterrupted; Wait only waits */
    FTI_FPGA_BLOCKING = 1,    /* the kernel waits for each block's checkpoint */
    FTI_FPGA_NONBLOCKING = 2, /* the kernel never waits; replicated slots */
} FTI_FpgaMode;

/**
 * FTI_FpgaConfig - settings of an FPGA monitor
 *
 * Start from FTI_FpgaConfigDefaults() and set the fields; FTI_FpgaCreate
 * validates them.
 */
typedef struct FTI_FpgaConfig {
    FTI_FpgaMode mode;
    const char *backend;  /* "xrt" or "emu" */
    void *ctrl;           /* device buffer holding the control block */
    size_t ctrl_offset;   /* byte offset of the control block, multiple of 64 */
    uint32_t slots;       /* replicated slots (>= 2 in non-blocking mode) */
    int64_t nblocks;      /* blocks in one run of the kernel */
    int64_t *blocks_var;  /* host variable the application protects: the
                             number of blocks whose data the checkpointed
                             host regions hold; FTI_FpgaStart resumes there */
    int level;            /* checkpoint level, 1-4 */
    int ckpt_id;          /* id of the first checkpoint, incremented after each */
    int64_t every;        /* checkpoint at most every `every` blocks (>= 1) */
    double timeout_s;     /* error when the kernel shows no sign of life this long */
    uint32_t ack_timeout_us; /* blocking: the kernel re-raises flagA after this */
    uint32_t max_raises;  /* blocking: the kernel gives up after this many */
    /* The ranks agree (one small collective) only when a rank's state
     * changed, while a checkpoint cut is being assembled, or at least this
     * often otherwise (seconds; 0 = at every poll). Default 0.01. */
    double agree_interval_s;
    /* Optional: called after each committed checkpoint with *blocks_var. */
    void (*on_checkpoint)(void *arg, int64_t blocks);
    void *arg;
} FTI_FpgaConfig;

/**
 * FTI_FpgaStats - counters of an FPGA monitor
 *
 * Filled in by FTI_FpgaGetStats.
 */
typedef struct FTI_FpgaStats {
    int64_t checkpoints; /* committed by the monitor */
    int64_t torn;        /* slot copies discarded: the kernel wrote the slot meanwhile */
    int64_t resends;     /* flagB re-sent after the kernel re-raised flagA */
    int64_t raises;      /* re-raises seen (lost or late acknowledgements) */
    int64_t polls;       /* control block reads */
    int64_t rounds;      /* agreements with the other ranks (collectives) */
    int64_t resumed_at;  /* block the last FTI_FpgaStart resumed from */
    double ckpt_seconds; /* time spent in FTI_Checkpoint */
} FTI_FpgaStats;

/**
 * FTI_FpgaMonitor - an FPGA monitor (opaque)
 *
 * Opened by FTI_FpgaCreate, released by FTI_FpgaFree.
 */
typedef struct FTI_FpgaMonitor FTI_FpgaMonitor;

/**
 * FTI_FpgaCtrlBytes - size of a control block
 *
 * Parameters:
 *   slots  the number of replicated slots
 *
 * Returns: bytes of a control block with `slots` slots; allocate at least
 *   this on the device.
 * Scope: local; callable before FTI_Init.
 */
FTI_API size_t FTI_FpgaCtrlBytes(uint32_t slots);

/**
 * FTI_FpgaConfigDefaults - the default settings of an FPGA monitor
 *
 * Returns: blocking mode, 2 slots, level 1, a checkpoint every block, 30 s
 *   timeout, 100 ms ack timeout, 100 re-raises, agreements at least every
 *   10 ms; the backend, control block, block count and blocks_var are left
 *   for the caller to set.
 * Scope: local; callable before FTI_Init.
 */
FTI_API FTI_FpgaConfig FTI_FpgaConfigDefaults(void);

/**
 * FTI_FpgaCreate - open an FPGA monitor
 *
 * Parameters:
 *   m    receives the monitor
 *   cfg  its settings (copied)
 *
 * Returns: FTI_SCES; FTI_NSCS when a pointer is NULL, a setting is out of
 *   range (the message names it), the backend is not built, or a device
 *   allocation fails.
 * Scope: local.
 */
FTI_API int FTI_FpgaCreate(FTI_FpgaMonitor **m, const FTI_FpgaConfig *cfg);

/**
 * FTI_FpgaAddBlockRegion - declare data the kernel writes block by block
 *
 * Data written by blocks [first, first + nblocks): block b's bytes are at
 * `offset + (b - first) * bytes_per_block` of `handle` and are copied to
 * `host` at the same relative position once b is complete. `host` must be
 * protected by the application (FTI_Protect) and survive the monitor.
 *
 * Returns: FTI_SCES; FTI_NSCS when a pointer is NULL, the blocks are not
 *   within the run's, the monitor has too many regions or was started.
 * Scope: local; before FTI_FpgaStart.
 */
FTI_API int FTI_FpgaAddBlockRegion(FTI_FpgaMonitor *m, void *handle, size_t offset,
                                   size_t bytes_per_block, int64_t first, int64_t nblocks,
                                   void *host);

/**
 * FTI_FpgaAddSlotRegion - declare kernel state replicated per slot
 *
 * Block b writes its copy of `bytes` bytes at `offset + (b % slots) *
 * stride` of `handle`; the newest complete copy, validated by the slot's
 * sequence number, is copied to `host` (protected by the application).
 *
 * Returns: FTI_SCES; FTI_NSCS when `stride` is smaller than `bytes`, a
 *   pointer is NULL, the monitor has too many regions or was started.
 * Scope: local; before FTI_FpgaStart.
 */
FTI_API int FTI_FpgaAddSlotRegion(FTI_FpgaMonitor *m, void *handle, size_t offset,
                                  size_t stride, size_t bytes, void *host);

/**
 * FTI_FpgaStart - prepare the device for a run of the kernel
 *
 * Writes the control block for a run resuming at *blocks_var (0 on a fresh
 * start). When resuming, first writes the host regions back to the device
 * (block data of blocks < *blocks_var, and the state of block *blocks_var
 * - 1 into its slot). Call before launching the kernel.
 *
 * Returns: FTI_SCES; FTI_NSCS when `m` is NULL, *blocks_var is not within
 *   0 .. nblocks, or a device copy fails.
 * Scope: local.
 */
FTI_API int FTI_FpgaStart(FTI_FpgaMonitor *m);

/**
 * FTI_FpgaWait - checkpoint the kernel's progress until it is done
 *
 * Polls the control block with a 1 us .. 1 ms backoff, copies complete
 * blocks, checkpoints, acknowledges, until every rank's kernel is done. The
 * ranks agree on a checkpoint through one small collective, not at every
 * poll: when a rank's votes change, while a cut is being assembled, and at
 * least every agree_interval_s. In blocking mode the checkpoint waits until
 * every rank's kernel waits at flagA, is done, or has not started (a kernel
 * queued behind another rank's on a shared compute unit does not block the
 * others, and is not reported silent while they progress).
 * After a failure, a blocking kernel stops by itself (FTI_K_EACK) once
 * max_raises re-raises of ack_timeout_us went unanswered.
 *
 * Returns: FTI_SCES, or FTI_NSCS on every rank when one rank failed: a
 *   kernel silent for timeout_s, a corrupt control block, a kernel that
 *   gave up waiting (FTI_K_EACK), a device or checkpoint error.
 * Scope: collective over FTI_COMM_WORLD (every rank monitors its own
 *   kernel); local in FTI_FPGA_OFF mode, which only waits for the kernel.
 * Thread safety: driven by the calling thread, which calls FTI_Checkpoint
 *   itself; no other thread may call FTI meanwhile.
 */
FTI_API int FTI_FpgaWait(FTI_FpgaMonitor *m);

/**
 * FTI_FpgaGetStats - counters of a monitor
 *
 * Parameters:
 *   m   the monitor
 *   st  receives its counters since FTI_FpgaCreate
 *
 * Returns: FTI_SCES; FTI_NSCS when a pointer is NULL.
 * Scope: local.
 */
FTI_API int FTI_FpgaGetStats(const FTI_FpgaMonitor *m, FTI_FpgaStats *st);

/**
 * FTI_FpgaFree - release a monitor
 *
 * The device buffers stay the caller's. NULL is accepted.
 *
 * Scope: local.
 */
FTI_API void FTI_FpgaFree(FTI_FpgaMonitor *m);

#ifdef __cplusplus
}
#endif

#endif /* FTI_DEVICE_API_H */
