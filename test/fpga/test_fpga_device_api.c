/*
 * test_fpga_device_api.c - FTI_ProtectDevice (fti_device.h) end to end in
 * one process (one MPI rank): device buffers of the "emu" backend and of
 * the "xrt" backend (backends/xrt/xrt_backend.c built against the XRT
 * emulation library) are checkpointed, overwritten on the device, and
 * restored by a second FTI_Init + FTI_Recover, byte for byte; a variable
 * at an offset of its buffer restores only its own bytes. Errors: an
 * unknown backend, a device copy failure, a range past the buffer's end.
 * Memory banks of the XRT emulation: a buffer argument is connected to a
 * bank by the xclbin, xrtKernelArgGroupId says which, and a buffer placed in
 * another bank is refused by xrtKernelRun.
 */
#include <mpi.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <xrt/xrt_bo.h>
#include <xrt/xrt_device.h>
#include <xrt/xrt_kernel.h>

#include "xrt_emu.h"

#include "fti.h"
#include "fti_device.h"

#include "emu/emu.h"
#include "base/log.h"

#define BO_BYTES 65536
#define VIEW_OFF 4096
#define VIEW_DOUBLES 2048
#define EMU_INTS 1000

static char config[1100];

static void write_config(const char *name)
{
    const char *base = getenv("FTI_TEST_DIR");
    char dir[1024], cmd[2100];
    snprintf(dir, sizeof dir, "%s/%s", base ? base : "/tmp/fti-test-device-api", name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(config, sizeof config, "%s/c.fti", dir);
    FILE *f = fopen(config, "w");
    assert_non_null(f);
    fprintf(f, "[basic]\nhead = 0\nnode_size = 1\ngroup_size = 1\nckpt_dir = %s/local\n"
               "glbl_dir = %s/global\nmeta_dir = %s/meta\nkeep_last_ckpt = 1\nverbosity = 3\n"
               "[restart]\nexec_id = %s\n[advanced]\nlocal_test = 1\n", dir, dir, dir, name);
    fclose(f);
}

typedef struct devbufs {
    xrtDeviceHandle dev;
    xrtBufferHandle bo;
    int *emu;
    double host;
} devbufs;

static void open_bufs(devbufs *d)
{
    d->dev = xrtDeviceOpen(0);
    assert_non_null(d->dev);
    d->bo = xrtBOAlloc(d->dev, BO_BYTES, XRT_BO_FLAGS_NONE, 0);
    d->emu = fti_emu_malloc(EMU_INTS * sizeof(int));
    assert_true(d->bo && d->emu);
}

static void close_bufs(devbufs *d)
{
    xrtBOFree(d->bo);
    xrtDeviceClose(d->dev);
    fti_emu_free(d->emu);
}

/* Device contents: pattern (seed != 0) or a uniform junk byte (seed 0). */
static void fill_device(devbufs *d, unsigned seed)
{
    unsigned char *map = xrtBOMap(d->bo);
    int ints[EMU_INTS];
    for (size_t i = 0; i < BO_BYTES; i++)
        map[i] = seed ? (unsigned char)(i * 7 + seed) : 0xab;
    for (int i = 0; i < EMU_INTS; i++)
        ints[i] = seed ? i * 31 + (int)seed : -1;
    assert_int_equal(xrtBOSync(d->bo, XCL_BO_SYNC_BO_TO_DEVICE, BO_BYTES, 0), 0);
    assert_int_equal(fti_emu_write(d->emu, ints, sizeof ints), 0);
}

static void protect(devbufs *d)
{
    assert_int_equal(FTI_ProtectDevice(1, "emu", d->emu, 0, EMU_INTS, FTI_INTG), FTI_SCES);
    assert_int_equal(FTI_ProtectDevice(2, "xrt", d->bo, VIEW_OFF, VIEW_DOUBLES, FTI_DBLE), FTI_SCES);
    assert_int_equal(FTI_Protect(3, &d->host, 1, FTI_DBLE), FTI_SCES);
}

static void device_buffers_survive_a_restart(void **state)
{
    (void)state;
    devbufs d;
    write_config("restart");
    open_bufs(&d);
    fill_device(&d, 5);
    d.host = 2.5;
    assert_int_equal(FTI_Init(config, MPI_COMM_WORLD), FTI_SCES);
    assert_int_equal(FTI_Status(), 0);
    protect(&d);
    assert_int_equal(FTI_Checkpoint(1, 1), FTI_DONE);
    assert_int_equal(FTI_Finalize(), FTI_SCES);

    fill_device(&d, 0); /* the "failure": device memory lost */
    d.host = 0;
    assert_int_equal(FTI_Init(config, MPI_COMM_WORLD), FTI_SCES);
    assert_int_equal(FTI_Status(), 2); /* FTI's value after a keep_last_ckpt finalize */
    protect(&d);
    assert_int_equal(FTI_Recover(), FTI_SCES);

    unsigned char *map = xrtBOMap(d.bo);
    int ints[EMU_INTS];
    assert_int_equal(xrtBOSync(d.bo, XCL_BO_SYNC_BO_FROM_DEVICE, BO_BYTES, 0), 0);
    for (size_t i = 0; i < BO_BYTES; i++) {
        int in_view = i >= VIEW_OFF && i < VIEW_OFF + VIEW_DOUBLES * sizeof(double);
        assert_int_equal(map[i], in_view ? (unsigned char)(i * 7 + 5) : 0xab);
    }
    assert_int_equal(fti_emu_read(ints, d.emu, sizeof ints), 0);
    for (int i = 0; i < EMU_INTS; i++)
        assert_int_equal(ints[i], i * 31 + 5);
    assert_true(d.host == 2.5);
    assert_int_equal(FTI_Finalize(), FTI_SCES);
    close_bufs(&d);
}

static void unknown_backend_is_named(void **state)
{
    (void)state;
    int x = 0;
    write_config("unknown");
    assert_int_equal(FTI_Init(config, MPI_COMM_WORLD), FTI_SCES);
    assert_int_equal(FTI_ProtectDevice(5, "fpga9000", &x, 0, 1, FTI_INTG), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "device backend 'fpga9000' is not in this build"));
    assert_non_null(strstr(fti_last_error(), "xrt"));
    assert_int_equal(FTI_ProtectDevice(5, "xrt", NULL, 0, 1, FTI_INTG), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "handle is NULL"));
    assert_int_equal(FTI_Finalize(), FTI_SCES);
}

static void device_failures_fail_the_checkpoint(void **state)
{
    (void)state;
    devbufs d;
    write_config("failures");
    open_bufs(&d);
    assert_int_equal(FTI_Init(config, MPI_COMM_WORLD), FTI_SCES);
    assert_int_equal(FTI_ProtectDevice(1, "xrt", d.bo, 0, BO_BYTES, FTI_CHAR), FTI_SCES);
    fti_emu_fail_after(100);
    assert_int_equal(FTI_Checkpoint(1, 1), FTI_NSCS);
    fti_emu_fail_after((size_t)-1);
    assert_non_null(strstr(fti_last_error(), "xrtBOSync(FROM_DEVICE)"));
    assert_non_null(strstr(fti_last_error(), "device variable 1 from xrt"));

    assert_int_equal(FTI_ProtectDevice(1, "xrt", d.bo, 8, BO_BYTES, FTI_CHAR), FTI_SCES);
    assert_int_equal(FTI_Checkpoint(2, 1), FTI_NSCS);
    assert_non_null(strstr(fti_last_error(), "run past the end of buffer"));
    assert_int_equal(FTI_Finalize(), FTI_SCES);
    close_bufs(&d);
}

/* ---- memory banks ------------------------------------------------------------ */

/* Writes 42 into its buffer argument's first word. */
static void bank_probe(const xrt_emu_arg *args)
{
    *(int64_t *)args[0].ptr = 42 + args[1].i;
}
XRT_EMU_KERNEL(bank_probe, "bi", bank_probe)

static void buffers_follow_the_argument_bank(void **state)
{
    (void)state;
    write_config("banks");
    char xclbin[1200];
    snprintf(xclbin, sizeof xclbin, "%s.xclbin", config);
    FILE *f = fopen(xclbin, "w");
    assert_non_null(f);
    fputs("fti-xrt-emu xclbin 1\nkernel bank_probe\nconnect bank_probe 0 2\n", f);
    fclose(f);
    xrtDeviceHandle dev = xrtDeviceOpen(0);
    xuid_t uuid;
    assert_non_null(dev);
    assert_int_equal(xrtDeviceLoadXclbinFile(dev, xclbin), 0);
    assert_int_equal(xrtDeviceGetXclbinUUID(dev, uuid), 0);
    xrtKernelHandle k = xrtPLKernelOpen(dev, uuid, "bank_probe");
    assert_non_null(k);
    assert_int_equal(xrtKernelArgGroupId(k, 0), 2);
    assert_true(xrtKernelArgGroupId(k, 1) < 0); /* a scalar has no bank */
    assert_null(xrtBOAlloc(dev, 64, XRT_BO_FLAGS_NONE, 9)); /* no such bank */
    xrtBufferHandle bank0 = xrtBOAlloc(dev, 64, XRT_BO_FLAGS_NONE, 0);
    xrtBufferHandle right = xrtBOAlloc(dev, 64, XRT_BO_FLAGS_NONE, (xrtMemoryGroup)xrtKernelArgGroupId(k, 0));
    assert_true(bank0 && right);
    assert_null(xrtKernelRun(k, bank0, 0)); /* bank 0 is not connected to argument 0 */
    xrtRunHandle run = xrtKernelRun(k, right, 1);
    assert_non_null(run);
    assert_int_equal(xrtRunWait(run), ERT_CMD_STATE_COMPLETED);
    int64_t v = 0;
    assert_int_equal(xrtBOSync(right, XCL_BO_SYNC_BO_FROM_DEVICE, sizeof v, 0), 0);
    assert_int_equal(xrtBORead(right, &v, sizeof v, 0), 0);
    assert_int_equal(v, 43);
    xrtRunClose(run);
    xrtBOFree(bank0);
    xrtBOFree(right);
    xrtKernelClose(k);
    xrtDeviceClose(dev);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(device_buffers_survive_a_restart),
        cmocka_unit_test(unknown_backend_is_named),
        cmocka_unit_test(device_failures_fail_the_checkpoint),
        cmocka_unit_test(buffers_follow_the_argument_bank),
    };
    int rc = cmocka_run_group_tests_name("fpga_device_api (emulated XRT)", tests, NULL, NULL);
    MPI_Finalize();
    return rc;
}
