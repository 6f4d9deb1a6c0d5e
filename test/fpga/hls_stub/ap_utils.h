/*
 * ap_utils.h - stand-in for the Vitis HLS header of that name, so that
 * fti_kernel.h's synthesis path (__SYNTHESIS__) is compiled and run by an
 * ordinary compiler (test/fpga/test_fpga_kernel_hls.c). It counts the clock
 * boundaries the header asks for instead of making any.
 */
#ifndef FTI_TEST_AP_UTILS_H
#define FTI_TEST_AP_UTILS_H

extern unsigned long fti_test_ap_waits;
#define ap_wait() ((void)fti_test_ap_waits++)

#endif
