/**
 * fti_kernel - the kernel side of in-kernel partial checkpointing (FPGA kernels, header-only)
 *
 * For FPGA kernels in HLS C/C++, and the emulated kernels that run as
 * threads. Header-only, plain C99 with no library calls in the synthesised
 * paths; the kernel links nothing of libfti and calls neither FTI nor MPI.
 *
 * The kernel and the host monitor (fti_device.h, FTI_Fpga*) share a control
 * block in device memory: an array of 64-bit words in 64-byte lines. Each
 * line has one writer, and the kernel writes one line while the host polls
 * another, so no two writers share a line (false sharing would make them
 * fight over it):
 *
 *   line 0  header    host, before the launch: magic, version, slots, blocks,
 *                     resume block, mode, ack timeout (us), max re-raises
 *   line 1  progress  kernel: number of completed blocks (monotonic)
 *   line 2  flagA     kernel: word 0 = b+1 when the data of block b is ready
 *                     (blocking mode), word 1 = times the kernel re-raised it
 *   line 3  flagB     host: word 0 = b+1 once block b is checkpointed
 *   line 4  done      kernel: word 0 = 1 when finished, word 1 = status,
 *                     word 2 = blocks completed when it stopped
 *   line 5+s seq[s]   kernel: sequence number of replicated slot s
 *                     (2b+1 while block b is written into it, 2b+2 after)
 *
 * Flags carry block numbers rather than booleans, and the host never writes
 * a kernel line: "flagA cleared" is flagB catching up with flagA, so an ack
 * can never erase a newer raise. A lost ack is survived by the kernel: after
 * the ack timeout it bumps the raise count (the host then re-sends flagB), and
 * after `max raises` it stops with FTI_K_EACK instead of hanging forever.
 *
 * A kernel iteration over blocks looks like:
 *
 *     uint64_t b, resume;
 *     if (fti_k_begin(ctrl, &resume) != FTI_K_OK) return;  // corrupt block
 *     acc = resume ? slots[(resume - 1) % nslots] : 0;       // restored state
 *     for (b = resume; b < nblocks; b++) {
 *         ... compute block b, write its data ...
 *         fti_k_slot_begin(ctrl, b); slots[b % nslots] = acc; fti_k_slot_end(ctrl, b);
 *         if (fti_k_block_done(ctrl, b) != FTI_K_OK) { status = FTI_K_EACK; break; }
 *     }
 *     fti_k_end(ctrl, status, b);
 *
 * Memory ordering: a flag must never become visible before the data it
 * announces. Every announcing store (progress, flagA, an even slot
 * sequence, done) goes through fti_k_publish(), which puts a fence on both
 * sides of the store; the odd sequence store that opens a slot is fenced
 * before the slot's data too.
 *
 *  - Emulated device (the kernel is a thread): C11-style atomics through
 *    the GCC/Clang __atomic builtins (acquire loads, release stores) and a
 *    sequentially consistent thread fence.
 *  - HLS (__SYNTHESIS__): control-block accesses are volatile, which Vitis
 *    HLS never merges into bursts, widens or removes, and keeps in program
 *    order on their m_axi port. That alone does not order them against the
 *    data, which lives on other ports (AXI orders nothing across ports,
 *    and a write is visible only once its write response came back). So
 *    fti_k_publish() is a fixed protocol region (#pragma HLS protocol
 *    fixed) with ap_wait() clock boundaries around the store: in fixed mode
 *    HLS runs nothing from outside the region in parallel with it, so the
 *    data writes issued before it, write responses included, have completed
 *    before the flag is written, and nothing after it is hoisted above.
 *    Keep the control block on its own m_axi bundle; write block data in
 *    plain loops or with hls::burst_maxi (then call write_response()
 *    before publishing); do not publish from inside a dataflow region,
 *    whose processes run concurrently by design.
 *  - FTI_K_VOLATILE (user-defined, other HLS tools): volatile accesses and
 *    a compiler barrier only; FTI_K_LOAD / FTI_K_STORE / FTI_K_FENCE may be
 *    predefined to map everything onto the tool's own primitives.
 *
 * FTI 1.6: not in FTI; an extension of this library (docs/FPGA.md in the
 * source, FPGA.md in share/doc/fti once installed).
 * See also: fti_device(3)
 */
#ifndef FTI_KERNEL_H
#define FTI_KERNEL_H

#include <stdint.h>

/**
 * fti_k_word - a word of the control block
 *
 * The control block is an array of them in device memory, in lines of
 * FTI_K_LINE_WORDS.
 */
typedef uint64_t fti_k_word;

/**
 * FTI_K_MAGIC, FTI_K_VERSION, FTI_K_LINE_WORDS - identity and line size of a control block
 *
 * The host writes the magic and version in the header line (FTI_FpgaStart);
 * fti_k_begin refuses a block without them.
 */
#define FTI_K_MAGIC 0x46544946504741ULL /* "FTIFPGA" */
#define FTI_K_VERSION 1ULL
#define FTI_K_LINE_WORDS 8 /* 64-byte lines */

/**
 * FTI_K_LINE_HDR, FTI_K_LINE_PROGRESS, FTI_K_LINE_FLAGA, FTI_K_LINE_FLAGB, FTI_K_LINE_DONE, FTI_K_LINE_SEQ0 - lines of the control block
 *
 * Line numbers; slot s's sequence number is in line FTI_K_LINE_SEQ0 + s.
 * Who writes each line is in fti_kernel(3).
 */
#define FTI_K_LINE_HDR 0
#define FTI_K_LINE_PROGRESS 1
#define FTI_K_LINE_FLAGA 2
#define FTI_K_LINE_FLAGB 3
#define FTI_K_LINE_DONE 4
#define FTI_K_LINE_SEQ0 5

/**
 * FTI_K_H_MAGIC, FTI_K_H_VERSION, FTI_K_H_SLOTS, FTI_K_H_NBLOCKS, FTI_K_H_RESUME, FTI_K_H_MODE, FTI_K_H_ACK_US, FTI_K_H_RAISES - words of the header line
 *
 * Written by the host before the launch; the kernel reads them with
 * fti_k_header.
 */
#define FTI_K_H_MAGIC 0
#define FTI_K_H_VERSION 1
#define FTI_K_H_SLOTS 2
#define FTI_K_H_NBLOCKS 3
#define FTI_K_H_RESUME 4
#define FTI_K_H_MODE 5
#define FTI_K_H_ACK_US 6
#define FTI_K_H_RAISES 7

/**
 * FTI_K_MODE_OFF, FTI_K_MODE_BLOCKING, FTI_K_MODE_NONBLOCKING - modes of a run
 *
 * Header word FTI_K_H_MODE, from FTI_FpgaConfig.mode.
 */
#define FTI_K_MODE_OFF 0         /* no partial checkpoints: progress only */
#define FTI_K_MODE_BLOCKING 1    /* wait for the host after every block */
#define FTI_K_MODE_NONBLOCKING 2 /* never wait: the host reads slot b-1 */

/**
 * FTI_K_OK, FTI_K_EBADCTRL, FTI_K_EACK - kernel status
 *
 * Returned by fti_k_begin and fti_k_block_done, and passed to fti_k_end,
 * which stores it in the done line (word 1) for the host.
 */
#define FTI_K_OK 0
#define FTI_K_EBADCTRL 1 /* the control block is not ours: never touched */
#define FTI_K_EACK 2     /* no checkpoint acknowledgement after max raises */

/**
 * FTI_K_CTRL_WORDS, FTI_K_AT - sizes and positions in the control block
 *
 * FTI_K_CTRL_WORDS(slots): words of a control block with `slots`
 * replicated slots (FTI_FpgaCtrlBytes gives bytes). FTI_K_AT(l, w): index
 * of word w of line l.
 */
#define FTI_K_CTRL_WORDS(slots) ((FTI_K_LINE_SEQ0 + (uint64_t)(slots)) * FTI_K_LINE_WORDS)
#define FTI_K_AT(l, w) ((l) * FTI_K_LINE_WORDS + (w))

/**
 * FTI_K_LOAD, FTI_K_STORE, FTI_K_FENCE, FTI_K_PROTOCOL_FIXED - how the kernel reads, writes and orders control-block words
 *
 * Chosen by the build: HLS (__SYNTHESIS__), FTI_K_VOLATILE, or the C11
 * atomics of an emulated kernel (see "Memory ordering" in fti_kernel(3)).
 * Define FTI_K_LOAD, FTI_K_STORE and FTI_K_FENCE before including the
 * header to use another tool's primitives.
 */
#if !defined(FTI_K_LOAD)
#if defined(__SYNTHESIS__)
#include "ap_utils.h" /* ap_wait(): an explicit clock boundary */
#define FTI_K_LOAD(p) (*(volatile fti_k_word *)(p))
#define FTI_K_STORE(p, v) (*(volatile fti_k_word *)(p) = (fti_k_word)(v))
#define FTI_K_FENCE() ap_wait()
#define FTI_K_PROTOCOL_FIXED _Pragma("HLS protocol fixed")
#elif defined(FTI_K_VOLATILE)
#define FTI_K_LOAD(p) (*(volatile fti_k_word *)(p))
#define FTI_K_STORE(p, v) (*(volatile fti_k_word *)(p) = (fti_k_word)(v))
#define FTI_K_FENCE() __asm__ __volatile__("" ::: "memory")
#else
#define FTI_K_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define FTI_K_STORE(p, v) __atomic_store_n((p), (fti_k_word)(v), __ATOMIC_RELEASE)
/* Orders the slot data stores against the sequence stores (seqlock). */
#define FTI_K_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif
#endif

#if !defined(FTI_K_PROTOCOL_FIXED)
#define FTI_K_PROTOCOL_FIXED
#endif

/**
 * FTI_K_SLEEP_NS, FTI_K_NOW_US - the waiting kernel's pause and clock
 *
 * Sleeping while waiting matters only in emulation, where the kernel thread
 * shares the host's cores; hardware spins on its own silicon (no-ops under
 * __SYNTHESIS__). Define FTI_K_SLEEP_NS (and FTI_K_NOW_US) before including
 * the header to use others.
 */
#if defined(__SYNTHESIS__)
#define FTI_K_SLEEP_NS(ns) ((void)0)
#define FTI_K_NOW_US() 0ULL
#elif !defined(FTI_K_SLEEP_NS)
#include <time.h>
#if defined(__cplusplus)
static inline void fti_k_sleep_ns_(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL)};
    nanosleep(&ts, 0);
}
#else
#include <threads.h>
static inline void fti_k_sleep_ns_(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL)};
    thrd_sleep(&ts, 0);
}
#endif
static inline uint64_t fti_k_now_us_(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}
#define FTI_K_SLEEP_NS(ns) fti_k_sleep_ns_(ns)
#define FTI_K_NOW_US() fti_k_now_us_()
#endif

/**
 * fti_k_publish - store a control word after every earlier write and before any later one
 *
 * The announcing stores of the protocol go through it (see "Memory
 * ordering" in fti_kernel(3)): a flag never becomes visible before the data
 * it announces.
 *
 * Parameters:
 *   p  the control-block word
 *   v  its new value
 *
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline void fti_k_publish(fti_k_word *p, fti_k_word v)
{
    FTI_K_PROTOCOL_FIXED
    FTI_K_FENCE();
    FTI_K_STORE(p, v);
    FTI_K_FENCE();
}

/**
 * fti_k_header - read a word of the header line
 *
 * Parameters:
 *   ctrl  the control block
 *   w     FTI_K_H_MAGIC .. FTI_K_H_RAISES
 *
 * Returns: the word.
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline fti_k_word fti_k_header(const fti_k_word *ctrl, int w)
{
    return FTI_K_LOAD(&ctrl[FTI_K_AT(FTI_K_LINE_HDR, w)]);
}

/**
 * fti_k_begin - start a run: check the control block, get the block to resume from
 *
 * The first call of a run; on FTI_K_EBADCTRL the kernel returns at once
 * (without fti_k_end), writing nothing: the buffer may not be ours.
 *
 * Parameters:
 *   ctrl    the control block
 *   resume  receives the block to resume from (0 on a fresh start)
 *
 * Returns: FTI_K_OK; FTI_K_EBADCTRL on a bad magic or version.
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline int fti_k_begin(fti_k_word *ctrl, uint64_t *resume)
{
    if (fti_k_header(ctrl, FTI_K_H_MAGIC) != FTI_K_MAGIC ||
        fti_k_header(ctrl, FTI_K_H_VERSION) != FTI_K_VERSION)
        return FTI_K_EBADCTRL;
    *resume = fti_k_header(ctrl, FTI_K_H_RESUME);
    return FTI_K_OK;
}

/**
 * fti_k_slot - the slot of a block
 *
 * Parameters:
 *   ctrl  the control block
 *   b     the block
 *
 * Returns: b modulo the number of slots (0 without slots).
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline uint64_t fti_k_slot(const fti_k_word *ctrl, uint64_t b)
{
    fti_k_word slots = fti_k_header(ctrl, FTI_K_H_SLOTS);
    return slots ? b % slots : 0;
}

/**
 * fti_k_slot_begin - mark a block's slot as being written
 *
 * Call before writing the replicated state of block b into its slot: the
 * odd sequence number lets the host detect and discard a copy that raced
 * with the writes.
 *
 * Parameters:
 *   ctrl  the control block
 *   b     the block
 *
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline void fti_k_slot_begin(fti_k_word *ctrl, uint64_t b)
{
    fti_k_publish(&ctrl[FTI_K_AT(FTI_K_LINE_SEQ0 + fti_k_slot(ctrl, b), 0)], 2 * b + 1);
}

/**
 * fti_k_slot_end - publish a block's slot
 *
 * Call after the slot of block b is written: the even sequence number
 * tells the host the copy is complete.
 *
 * Parameters:
 *   ctrl  the control block
 *   b     the block
 *
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline void fti_k_slot_end(fti_k_word *ctrl, uint64_t b)
{
    fti_k_publish(&ctrl[FTI_K_AT(FTI_K_LINE_SEQ0 + fti_k_slot(ctrl, b), 0)], 2 * b + 2);
}

/**
 * fti_k_wait_flagb - wait for the host's acknowledgement
 *
 * Polls flagB with a backoff from 1 us to 256 us: short enough not to
 * delay the kernel much after the ack, long enough not to take a core
 * while the host writes. Under HLS, with no clock, one poll counts as
 * about 1 us.
 *
 * Parameters:
 *   ctrl      the control block
 *   want      the flagB value awaited (b + 1 for block b)
 *   limit_us  how long to wait
 *
 * Returns: 1 when flagB reached `want`, 0 after `limit_us`.
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline int fti_k_wait_flagb(const fti_k_word *ctrl, uint64_t want, uint64_t limit_us)
{
#if defined(__SYNTHESIS__)
    uint64_t spins = 0;
#else
    uint64_t start = FTI_K_NOW_US(), pause = 1000;
#endif
    for (;;) {
        if (FTI_K_LOAD(&ctrl[FTI_K_AT(FTI_K_LINE_FLAGB, 0)]) >= want)
            return 1;
#if defined(__SYNTHESIS__)
        /* No clock in HLS: one poll is taken as about 1 us (a round trip
         * to device memory); size the ack timeout accordingly. */
        if (++spins > limit_us)
            return 0;
#else
        if (FTI_K_NOW_US() - start > limit_us)
            return 0;
        FTI_K_SLEEP_NS(pause);
        if (pause < 256000)
            pause *= 2;
#endif
    }
}

/**
 * fti_k_checkpoint_wait - ask for a checkpoint of a block and wait for it
 *
 * Blocking mode: raises flagA for block b and waits for the host's flagB,
 * re-raising after each ack timeout (the host re-sends a lost ack), at
 * most the header's FTI_K_H_RAISES times. fti_k_block_done calls it.
 *
 * Parameters:
 *   ctrl  the control block
 *   b     the block just completed
 *
 * Returns: FTI_K_OK once acknowledged; FTI_K_EACK after the last re-raise
 *   went unanswered.
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline int fti_k_checkpoint_wait(fti_k_word *ctrl, uint64_t b)
{
    uint64_t limit = fti_k_header(ctrl, FTI_K_H_ACK_US);
    uint64_t max_raises = fti_k_header(ctrl, FTI_K_H_RAISES);
    uint64_t raises = FTI_K_LOAD(&ctrl[FTI_K_AT(FTI_K_LINE_FLAGA, 1)]);
    fti_k_publish(&ctrl[FTI_K_AT(FTI_K_LINE_FLAGA, 0)], b + 1);
    for (uint64_t n = 0;; n++) {
        if (fti_k_wait_flagb(ctrl, b + 1, limit))
            return FTI_K_OK;
        if (n >= max_raises)
            return FTI_K_EACK;
        FTI_K_STORE(&ctrl[FTI_K_AT(FTI_K_LINE_FLAGA, 1)], ++raises);
    }
}

/**
 * fti_k_block_done - announce a completed block
 *
 * Call after block b's data and slot are written: publishes the progress
 * and, in blocking mode, waits for the checkpoint (fti_k_checkpoint_wait).
 *
 * Parameters:
 *   ctrl  the control block
 *   b     the block just completed
 *
 * Returns: FTI_K_OK; FTI_K_EACK when the host never acknowledged (stop the
 *   run and pass the status to fti_k_end).
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline int fti_k_block_done(fti_k_word *ctrl, uint64_t b)
{
    fti_k_publish(&ctrl[FTI_K_AT(FTI_K_LINE_PROGRESS, 0)], b + 1);
    if (fti_k_header(ctrl, FTI_K_H_MODE) == FTI_K_MODE_BLOCKING)
        return fti_k_checkpoint_wait(ctrl, b);
    return FTI_K_OK;
}

/**
 * fti_k_end - end a run
 *
 * The last call of a run that passed fti_k_begin: stores the status and the
 * number of completed blocks, then raises the done flag for the host.
 *
 * Parameters:
 *   ctrl    the control block
 *   status  FTI_K_OK or FTI_K_EACK
 *   blocks  blocks completed
 *
 * Scope: local: kernel side.
 * Thread safety: for the one kernel that owns the control block.
 */
static inline void fti_k_end(fti_k_word *ctrl, int status, uint64_t blocks)
{
    FTI_K_STORE(&ctrl[FTI_K_AT(FTI_K_LINE_DONE, 1)], (fti_k_word)status);
    FTI_K_STORE(&ctrl[FTI_K_AT(FTI_K_LINE_DONE, 2)], blocks);
    fti_k_publish(&ctrl[FTI_K_AT(FTI_K_LINE_DONE, 0)], 1);
}

#endif /* FTI_KERNEL_H */
