/*
 * test_kernel.h - the kernel of the protocol tests: block b writes `bw`
 * words of data and `sw` words of replicated slot state, all values
 * value(b, i), between the fti_kernel.h calls. Shared by test_fpga_protocol
 * (a thread on the emulated device) and test_fpga_axi_model (a coroutine on
 * the model of AXI memory, with fti_kernel.h's primitives predefined).
 */
#ifndef FTI_TEST_KERNEL_H
#define FTI_TEST_KERNEL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fti_kernel.h"

typedef struct tkernel {
    fti_k_word *ctrl;
    uint64_t *data;    /* device: nblocks * bw words */
    uint64_t *slots;   /* device: nslots * sw words */
    int nblocks;
    size_t bw, sw;     /* words per block, per slot copy */
    int slot_pause_us; /* pause in the middle of a slot write */
    int block_pause_us;
    int hang_after;    /* stop publishing after this block, until released */
    int release;       /* atomic: the test lets a hanging kernel go on */
    int joined;
    uint64_t first;    /* the block it started at */
    int began;         /* fti_k_begin's verdict */
    pthread_mutex_t *cu; /* a compute unit shared with other kernels, or NULL */
    pthread_t thread;
} tkernel;

static uint64_t value(uint64_t b, size_t i)
{
    return (b + 1) * 1000003ULL + i;
}

static void pause_us(int us)
{
    struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000L};
    if (us > 0)
        nanosleep(&ts, NULL);
}

static void write_slot(tkernel *k, uint64_t b)
{
    uint64_t *s = k->slots + fti_k_slot(k->ctrl, b) * k->sw;
    fti_k_slot_begin(k->ctrl, b);
    for (size_t i = 0; i < k->sw / 2; i++)
        s[i] = value(b, i);
    pause_us(k->slot_pause_us); /* a host copy now would be torn */
    for (size_t i = k->sw / 2; i < k->sw; i++)
        s[i] = value(b, i);
    fti_k_slot_end(k->ctrl, b);
}

static void *kernel_body(void *arg);

#if !defined(FTI_TEST_KERNEL_NO_THREADS)
/* On a shared compute unit a kernel starts only when the previous one ended. */
static void *kernel_main(void *arg)
{
    tkernel *k = arg;
    if (k->cu != NULL)
        pthread_mutex_lock(k->cu);
    kernel_body(k);
    if (k->cu != NULL)
        pthread_mutex_unlock(k->cu);
    return NULL;
}
#endif

static void *kernel_body(void *arg)
{
    tkernel *k = arg;
    uint64_t b = 0;
    int status = FTI_K_OK;
    k->began = fti_k_begin(k->ctrl, &k->first);
    if (k->began != FTI_K_OK)
        return NULL;
    for (b = k->first; b < (uint64_t)k->nblocks; b++) {
        for (size_t i = 0; i < k->bw; i++)
            k->data[b * k->bw + i] = value(b, i);
        pause_us(k->block_pause_us);
        if ((int)b == k->hang_after)
            while (!__atomic_load_n(&k->release, __ATOMIC_ACQUIRE))
                pause_us(1000);
        write_slot(k, b);
        if ((status = fti_k_block_done(k->ctrl, b)) != FTI_K_OK) {
            b++;
            break;
        }
    }
    fti_k_end(k->ctrl, status, b);
    return NULL;
}

#endif
