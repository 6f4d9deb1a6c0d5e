/*
 * test_fpga_kernel_hls.c - fti_kernel.h as Vitis HLS sees it (__SYNTHESIS__
 * defined, ap_utils.h from hls_stub/): it compiles, its control-block
 * accesses are volatile, and every announcing store (progress, flagA, slot
 * sequences, done) sits between two clock boundaries (ap_wait), the fixed
 * protocol region that keeps data writes from being overtaken. A kernel of
 * three blocks in non-blocking mode runs and writes the expected words.
 */
#define __SYNTHESIS__ 1
#include <stdio.h>
#include <string.h>

#include "fti_kernel.h"

unsigned long fti_test_ap_waits;

int main(void)
{
    static fti_k_word ctrl[FTI_K_CTRL_WORDS(2)];
    uint64_t resume = 99;
    ctrl[FTI_K_AT(FTI_K_LINE_HDR, FTI_K_H_MAGIC)] = FTI_K_MAGIC;
    ctrl[FTI_K_AT(FTI_K_LINE_HDR, FTI_K_H_VERSION)] = FTI_K_VERSION;
    ctrl[FTI_K_AT(FTI_K_LINE_HDR, FTI_K_H_SLOTS)] = 2;
    ctrl[FTI_K_AT(FTI_K_LINE_HDR, FTI_K_H_NBLOCKS)] = 3;
    ctrl[FTI_K_AT(FTI_K_LINE_HDR, FTI_K_H_MODE)] = FTI_K_MODE_NONBLOCKING;
    if (fti_k_begin(ctrl, &resume) != FTI_K_OK || resume != 0) {
        fprintf(stderr, "FAIL: fti_k_begin\n");
        return 1;
    }
    for (uint64_t b = 0; b < 3; b++) {
        unsigned long before = fti_test_ap_waits;
        fti_k_slot_begin(ctrl, b);
        fti_k_slot_end(ctrl, b);
        if (fti_k_block_done(ctrl, b) != FTI_K_OK || fti_test_ap_waits - before != 6) {
            fprintf(stderr, "FAIL: block %llu: %lu clock boundaries for 3 announcing stores, "
                    "want 6\n", (unsigned long long)b, fti_test_ap_waits - before);
            return 1;
        }
    }
    fti_k_end(ctrl, FTI_K_OK, 3);
    int ok = ctrl[FTI_K_AT(FTI_K_LINE_PROGRESS, 0)] == 3 &&
             ctrl[FTI_K_AT(FTI_K_LINE_SEQ0 + 0, 0)] == 2 * 2 + 2 &&
             ctrl[FTI_K_AT(FTI_K_LINE_SEQ0 + 1, 0)] == 2 * 1 + 2 &&
             ctrl[FTI_K_AT(FTI_K_LINE_DONE, 0)] == 1 && ctrl[FTI_K_AT(FTI_K_LINE_DONE, 2)] == 3;
    printf("%s: HLS path of fti_kernel.h, %lu clock boundaries\n", ok ? "PASS" : "FAIL",
           fti_test_ap_waits);
    return ok ? 0 : 1;
}
