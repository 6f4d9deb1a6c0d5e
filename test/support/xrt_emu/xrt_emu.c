/*
 * xrt_emu.c - the XRT emulation library: the subset of XRT's native C API
 * that FTI uses (xrt/xrt_device.h, xrt/xrt_bo.h, xrt/xrt_kernel.h), on the
 * project's emulated device (backends/emu). It lets the XRT backend and the
 * FPGA examples compile and run unchanged where XRT is not installed.
 *
 * Buffer objects pair emulated device memory with a host store; syncs go
 * through one stream of the emulated device per xrt device (one DMA engine),
 * so the device's speed model and failure injection apply. Kernels are C
 * functions registered by name; a run is a thread.
 *
 * Memory banks: the emulated xclbin connects each buffer argument of a
 * kernel to a bank ("connect KERNEL ARG BANK" lines, bank 0 otherwise), as
 * v++ --connectivity.sp does; xrtKernelArgGroupId reports it, xrtBOAlloc
 * records the bank a buffer is placed in, and xrtKernelRun refuses a buffer
 * in another bank than its argument's, as XRT does on hardware.
 *
 * One compute unit shared by processes: with XRT_EMU_SHARED_CU=FILE, every
 * run holds an exclusive lock on FILE while its kernel executes, so the
 * kernels of every process (MPI rank) using FILE run one after the other,
 * like the ranks of a node sharing a card with one compute unit. Errors are returned as
 * negative errno values (as XRT's C API does) and explained on stderr, the
 * way XRT reports the cause of a failed call in its log.
 */
#include "xrt_emu.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "emu/emu.h"

#define MAX_KERNELS 32
#define NAME_LEN 64
#define XCLBIN_MAGIC "fti-xrt-emu xclbin 1"
#define HOST_ALIGN 4096
#define BANKS 4 /* memory banks (DDR[0..3]) of the emulated card */

enum { DEV_MAGIC = 0x58444556, BO_MAGIC = 0x58424f21, KRN_MAGIC = 0x584b524e, RUN_MAGIC = 0x5852554e };

typedef struct kernel_def {
    char name[NAME_LEN];
    char args[XRT_EMU_MAX_ARGS + 1];
    xrt_emu_kernel_fn fn;
} kernel_def;

static kernel_def kernels[MAX_KERNELS];
static int nkernels;

typedef struct emu_device {
    unsigned magic;
    pthread_mutex_t lock; /* the DMA stream is used by one sync at a time */
    void *stream;
    int loaded;
    xuid_t uuid;
    char listed[MAX_KERNELS][NAME_LEN];
    unsigned bank[MAX_KERNELS][XRT_EMU_MAX_ARGS]; /* of each listed kernel's arguments */
    int nlisted;
} emu_device;

typedef struct emu_bo {
    unsigned magic;
    emu_device *dev;
    unsigned char *devmem; /* emulated device memory */
    unsigned char *host;   /* host backing store */
    size_t size;
    int owner;             /* 0 for sub-buffers */
    unsigned bank;         /* memory group it was allocated in */
} emu_bo;

typedef struct emu_kernel {
    unsigned magic;
    emu_device *dev;
    const kernel_def *def;
    const unsigned *bank; /* its arguments' banks, from the xclbin */
} emu_kernel;

typedef struct emu_run {
    unsigned magic;
    const kernel_def *def;
    xrt_emu_arg args[XRT_EMU_MAX_ARGS];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t ended;
    enum ert_cmd_state state;
} emu_run;

static int fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("xrt-emu: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    errno = err;
    return -err;
}

/* ---- kernel registry --------------------------------------------------------- */

static const kernel_def *kernel_find(const char *name)
{
    for (int i = 0; i < nkernels; i++)
        if (strcmp(kernels[i].name, name) == 0)
            return &kernels[i];
    return NULL;
}

int xrt_emu_register_kernel(const char *name, const char *args, xrt_emu_kernel_fn fn)
{
    if (name == NULL || args == NULL || fn == NULL || strlen(name) >= NAME_LEN ||
        strlen(args) > XRT_EMU_MAX_ARGS || strspn(args, "biulLd") != strlen(args))
        return fail(EINVAL, "kernel registration of '%s': bad name, argument kinds or function",
                    name ? name : "(null)");
    if (nkernels == MAX_KERNELS || kernel_find(name) != NULL)
        return fail(EEXIST, "kernel '%s': already registered, or too many kernels", name);
    kernel_def *k = &kernels[nkernels++];
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->args, sizeof k->args, "%s", args);
    k->fn = fn;
    return 0;
}

/* ---- devices and xclbins ------------------------------------------------------ */

xrtDeviceHandle xrtDeviceOpen(unsigned int index)
{
    if (index != 0) {
        fail(ENODEV, "xrtDeviceOpen(%u): the emulation has one device, index 0", index);
        return NULL;
    }
    emu_device *d = calloc(1, sizeof *d);
    if (d == NULL) {
        fail(ENOMEM, "xrtDeviceOpen: out of memory");
        return NULL;
    }
    if (fti_emu_ops.stream_create(&d->stream) != 0) {
        fail(EIO, "xrtDeviceOpen: %s", fti_emu_ops.last_error());
        free(d);
        return NULL;
    }
    pthread_mutex_init(&d->lock, NULL);
    d->magic = DEV_MAGIC;
    return d;
}

static emu_device *device_of(xrtDeviceHandle h, const char *fn)
{
    emu_device *d = h;
    if (d == NULL || d->magic != DEV_MAGIC) {
        fail(EINVAL, "%s: %p is not an open device handle", fn, h);
        return NULL;
    }
    return d;
}

int xrtDeviceClose(xrtDeviceHandle dhdl)
{
    emu_device *d = device_of(dhdl, "xrtDeviceClose");
    if (d == NULL)
        return -EINVAL;
    fti_emu_ops.stream_destroy(d->stream);
    pthread_mutex_destroy(&d->lock);
    d->magic = 0;
    free(d);
    return 0;
}

/* Two FNV-1a hashes with different seeds make the 16-byte uuid. */
static void hash_uuid(const char *buf, size_t n, xuid_t out)
{
    uint64_t h[2] = {0xcbf29ce484222325ULL, 0x84222325cbf29ce4ULL};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < n; i++)
            h[k] = (h[k] ^ (unsigned char)buf[i]) * 0x100000001b3ULL;
    memcpy(out, h, 16);
}

static int listed_index(const emu_device *d, const char *name)
{
    for (int i = 0; i < d->nlisted; i++)
        if (strcmp(d->listed[i], name) == 0)
            return i;
    return -1;
}

/* "connect KERNEL ARG BANK", after the kernel's own line. */
static int parse_connect(emu_device *d, const char *path, const char *line)
{
    char name[NAME_LEN];
    int arg = -1, k;
    unsigned bank = 0;
    if (sscanf(line, "connect %63s %d %u", name, &arg, &bank) != 3 ||
        (k = listed_index(d, name)) < 0 || arg < 0 || arg >= XRT_EMU_MAX_ARGS || bank >= BANKS)
        return fail(EINVAL, "xclbin %s: bad line '%s' (want \"connect KERNEL ARG BANK\" after "
                    "the kernel's line, ARG < %d, BANK < %d)", path, line, XRT_EMU_MAX_ARGS,
                    BANKS);
    d->bank[k][arg] = bank;
    return 0;
}

/* Parses the kernel and connect lines of an emulated xclbin. */
static int parse_xclbin(emu_device *d, const char *path, char *text)
{
    char *save = NULL, *line = strtok_r(text, "\n", &save);
    if (line == NULL || strcmp(line, XCLBIN_MAGIC) != 0)
        return fail(EINVAL, "xclbin %s: not an emulated xclbin (first line must be \"%s\"); a "
                    "hardware xclbin needs real XRT", path, XCLBIN_MAGIC);
    d->nlisted = 0;
    memset(d->bank, 0, sizeof d->bank);
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        char name[NAME_LEN];
        if (strncmp(line, "connect ", 8) == 0) {
            if (parse_connect(d, path, line) != 0)
                return -1;
            continue;
        }
        if (sscanf(line, "kernel %63s", name) != 1)
            continue;
        if (kernel_find(name) == NULL)
            return fail(ENOENT, "xclbin %s lists kernel '%s', but no emulated kernel of that "
                        "name is linked into this program", path, name);
        if (d->nlisted < MAX_KERNELS)
            snprintf(d->listed[d->nlisted++], NAME_LEN, "%s", name);
    }
    return 0;
}

static char *read_text(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    if (f == NULL)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long len = ftell(f);
        if (len >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) != NULL) {
            *n = fread(buf, 1, (size_t)len, f);
            buf[*n] = '\0';
        }
    }
    fclose(f);
    return buf;
}

int xrtDeviceLoadXclbinFile(xrtDeviceHandle dhdl, const char *xclbin_fnm)
{
    emu_device *d = device_of(dhdl, "xrtDeviceLoadXclbinFile");
    if (d == NULL)
        return -EINVAL;
    size_t n = 0;
    char *text = xclbin_fnm ? read_text(xclbin_fnm, &n) : NULL;
    if (text == NULL)
        return fail(ENOENT, "xrtDeviceLoadXclbinFile: cannot read %s: %s",
                    xclbin_fnm ? xclbin_fnm : "(null)", strerror(errno));
    hash_uuid(text, n, d->uuid);
    int rc = parse_xclbin(d, xclbin_fnm, text);
    free(text);
    d->loaded = rc == 0;
    return rc;
}

int xrtDeviceGetXclbinUUID(xrtDeviceHandle dhdl, xuid_t out)
{
    emu_device *d = device_of(dhdl, "xrtDeviceGetXclbinUUID");
    if (d == NULL)
        return -EINVAL;
    if (!d->loaded)
        return fail(ENOENT, "xrtDeviceGetXclbinUUID: no xclbin loaded");
    memcpy(out, d->uuid, sizeof(xuid_t));
    return 0;
}

/* ---- buffer objects ---------------------------------------------------------------- */

static emu_bo *bo_of(xrtBufferHandle h, const char *fn)
{
    emu_bo *b = h;
    if (b == NULL || b->magic != BO_MAGIC) {
        fail(EINVAL, "%s: %p is not a buffer handle", fn, h);
        return NULL;
    }
    return b;
}

xrtBufferHandle xrtBOAlloc(xrtDeviceHandle dhdl, size_t size, xrtBufferFlags flags,
                           xrtMemoryGroup grp)
{
    (void)flags;
    emu_device *d = device_of(dhdl, "xrtBOAlloc");
    if (d != NULL && grp >= BANKS) {
        fail(EINVAL, "xrtBOAlloc: memory group %u does not exist (the card has %d banks)",
             (unsigned)grp, BANKS);
        return NULL;
    }
    emu_bo *b = d ? calloc(1, sizeof *b) : NULL;
    size_t rounded = (size + HOST_ALIGN - 1) / HOST_ALIGN * HOST_ALIGN;
    if (b != NULL) {
        b->devmem = fti_emu_malloc(size);
        b->host = aligned_alloc(HOST_ALIGN, rounded ? rounded : HOST_ALIGN);
    }
    if (b == NULL || b->devmem == NULL || b->host == NULL) {
        if (b != NULL) {
            fti_emu_free(b->devmem);
            free(b->host);
            free(b);
        }
        if (d != NULL)
            fail(ENOMEM, "xrtBOAlloc(%zu bytes): out of memory", size);
        return NULL;
    }
    memset(b->host, 0, size);
    fti_emu_write(b->devmem, b->host, size); /* defined contents, like a fresh bank */
    *b = (emu_bo){BO_MAGIC, d, b->devmem, b->host, size, 1, (unsigned)grp};
    return b;
}

xrtBufferHandle xrtBOSubAlloc(xrtBufferHandle parent, size_t size, size_t offset)
{
    emu_bo *p = bo_of(parent, "xrtBOSubAlloc");
    if (p == NULL)
        return NULL;
    if (offset > p->size || size > p->size - offset) {
        fail(EINVAL, "xrtBOSubAlloc: %zu bytes at offset %zu exceed the parent's %zu", size,
             offset, p->size);
        return NULL;
    }
    emu_bo *b = malloc(sizeof *b);
    if (b == NULL) {
        fail(ENOMEM, "xrtBOSubAlloc: out of memory");
        return NULL;
    }
    *b = (emu_bo){BO_MAGIC, p->dev, p->devmem + offset, p->host + offset, size, 0, p->bank};
    return b;
}

int xrtBOFree(xrtBufferHandle bhdl)
{
    emu_bo *b = bo_of(bhdl, "xrtBOFree");
    if (b == NULL)
        return -EINVAL;
    if (b->owner) {
        fti_emu_free(b->devmem);
        free(b->host);
    }
    b->magic = 0;
    free(b);
    return 0;
}

size_t xrtBOSize(xrtBufferHandle bhdl)
{
    emu_bo *b = bo_of(bhdl, "xrtBOSize");
    return b ? b->size : 0;
}

uint64_t xrtBOAddress(xrtBufferHandle bhdl)
{
    emu_bo *b = bo_of(bhdl, "xrtBOAddress");
    return b ? (uint64_t)(uintptr_t)b->devmem : UINT64_MAX;
}

void *xrtBOMap(xrtBufferHandle bhdl)
{
    emu_bo *b = bo_of(bhdl, "xrtBOMap");
    return b ? b->host : NULL;
}

static int check_range(const emu_bo *b, size_t size, size_t off, const char *fn)
{
    if (off > b->size || size > b->size - off)
        return fail(EINVAL, "%s: %zu bytes at offset %zu exceed the buffer's %zu", fn, size, off,
                    b->size);
    return 0;
}

int xrtBOSync(xrtBufferHandle bhdl, enum xclBOSyncDirection dir, size_t size, size_t offset)
{
    emu_bo *b = bo_of(bhdl, "xrtBOSync");
    if (b == NULL)
        return -EINVAL;
    int rc = check_range(b, size, offset, "xrtBOSync");
    if (rc != 0)
        return rc;
    if (dir != XCL_BO_SYNC_BO_TO_DEVICE && dir != XCL_BO_SYNC_BO_FROM_DEVICE)
        return fail(EINVAL, "xrtBOSync: unknown direction %d", (int)dir);
    pthread_mutex_lock(&b->dev->lock);
    if (dir == XCL_BO_SYNC_BO_FROM_DEVICE)
        rc = fti_emu_ops.to_host(b->dev->stream, b->host + offset, b->devmem, offset, size);
    else
        rc = fti_emu_ops.to_device(b->dev->stream, b->devmem, offset, b->host + offset, size);
    if (fti_emu_ops.stream_sync(b->dev->stream) != 0)
        rc = -1;
    pthread_mutex_unlock(&b->dev->lock);
    if (rc != 0)
        return fail(EIO, "xrtBOSync(%s, %zu bytes at %zu): %s",
                    dir == XCL_BO_SYNC_BO_FROM_DEVICE ? "from device" : "to device", size, offset,
                    fti_emu_ops.last_error());
    return 0;
}

int xrtBOWrite(xrtBufferHandle bhdl, const void *src, size_t size, size_t seek)
{
    emu_bo *b = bo_of(bhdl, "xrtBOWrite");
    int rc = b ? check_range(b, size, seek, "xrtBOWrite") : -EINVAL;
    if (rc == 0 && size > 0)
        memcpy(b->host + seek, src, size);
    return rc;
}

int xrtBORead(xrtBufferHandle bhdl, void *dst, size_t size, size_t skip)
{
    emu_bo *b = bo_of(bhdl, "xrtBORead");
    int rc = b ? check_range(b, size, skip, "xrtBORead") : -EINVAL;
    if (rc == 0 && size > 0)
        memcpy(dst, b->host + skip, size);
    return rc;
}

/* ---- kernels and runs ------------------------------------------------------------ */

xrtKernelHandle xrtPLKernelOpen(xrtDeviceHandle dhdl, const xuid_t xclbin_id, const char *name)
{
    emu_device *d = device_of(dhdl, "xrtPLKernelOpen");
    if (d == NULL)
        return NULL;
    if (!d->loaded || memcmp(xclbin_id, d->uuid, sizeof(xuid_t)) != 0) {
        fail(EINVAL, "xrtPLKernelOpen(%s): the xclbin uuid is not the loaded one", name);
        return NULL;
    }
    int idx = listed_index(d, name), listed = idx >= 0;
    emu_kernel *k = listed ? malloc(sizeof *k) : NULL;
    if (k == NULL) {
        fail(listed ? ENOMEM : ENOENT, "xrtPLKernelOpen: %s", listed ? "out of memory" :
             "the loaded xclbin has no kernel of that name");
        return NULL;
    }
    *k = (emu_kernel){KRN_MAGIC, d, kernel_find(name), d->bank[idx]};
    return k;
}

int xrtKernelArgGroupId(xrtKernelHandle khdl, int argno)
{
    emu_kernel *k = khdl;
    if (k == NULL || k->magic != KRN_MAGIC)
        return fail(EINVAL, "xrtKernelArgGroupId: %p is not a kernel handle", khdl);
    if (argno < 0 || argno >= (int)strlen(k->def->args) || k->def->args[argno] != 'b')
        return fail(EINVAL, "xrtKernelArgGroupId(%s, %d): not a buffer argument", k->def->name,
                    argno);
    return (int)k->bank[argno];
}

int xrtKernelClose(xrtKernelHandle khdl)
{
    emu_kernel *k = khdl;
    if (k == NULL || k->magic != KRN_MAGIC) {
        fail(EINVAL, "xrtKernelClose: %p is not a kernel handle", khdl);
        return -1;
    }
    k->magic = 0;
    free(k);
    return 0;
}

/* Reads the arguments per the kernel's declared kinds. */
static int take_args(emu_run *r, const unsigned *bank, va_list ap)
{
    const char *kinds = r->def->args;
    for (int i = 0; kinds[i] != '\0'; i++) {
        switch (kinds[i]) {
        case 'b': {
            emu_bo *b = bo_of(va_arg(ap, xrtBufferHandle), "xrtKernelRun");
            if (b == NULL)
                return fail(EINVAL, "kernel %s: argument %d is not a buffer", r->def->name, i);
            if (b->bank != bank[i])
                return fail(EINVAL, "xrtKernelRun(%s): argument %d is a buffer in memory bank "
                            "%u, but the argument is connected to bank %u (allocate it in "
                            "xrtKernelArgGroupId's group)", r->def->name, i, b->bank, bank[i]);
            r->args[i].ptr = b->devmem;
            break;
        }
        case 'i': r->args[i].i = va_arg(ap, int); break;
        case 'u': r->args[i].u = va_arg(ap, unsigned int); break;
        case 'l': r->args[i].i = va_arg(ap, int64_t); break;
        case 'L': r->args[i].u = va_arg(ap, uint64_t); break;
        default: r->args[i].d = va_arg(ap, double); break;
        }
    }
    return 0;
}

/* XRT_EMU_SHARED_CU: the compute unit is held while the kernel runs. */
static int cu_acquire(void)
{
    const char *path = getenv("XRT_EMU_SHARED_CU");
    if (path == NULL || path[0] == '\0')
        return -1;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        fprintf(stderr, "xrt_emu: XRT_EMU_SHARED_CU=%s: %s (kernel not serialised)\n", path,
                strerror(errno));
        return -1;
    }
    while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
        ;
    return fd;
}

static void *run_main(void *arg)
{
    emu_run *r = arg;
    int cu = cu_acquire();
    r->def->fn(r->args);
    if (cu >= 0)
        close(cu); /* releases the lock */
    pthread_mutex_lock(&r->lock);
    r->state = ERT_CMD_STATE_COMPLETED;
    pthread_cond_broadcast(&r->ended);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static int run_start(emu_run *r)
{
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->ended, NULL);
    r->state = ERT_CMD_STATE_RUNNING;
    int rc = pthread_create(&r->thread, NULL, run_main, r);
    if (rc != 0) {
        pthread_cond_destroy(&r->ended);
        pthread_mutex_destroy(&r->lock);
        return fail(rc, "xrtKernelRun(%s): cannot start the kernel thread: %s", r->def->name,
                    strerror(rc));
    }
    return 0;
}

xrtRunHandle xrtKernelRun(xrtKernelHandle khdl, ...)
{
    emu_kernel *k = khdl;
    if (k == NULL || k->magic != KRN_MAGIC) {
        fail(EINVAL, "xrtKernelRun: %p is not a kernel handle", khdl);
        return NULL;
    }
    emu_run *r = calloc(1, sizeof *r);
    if (r == NULL) {
        fail(ENOMEM, "xrtKernelRun: out of memory");
        return NULL;
    }
    r->magic = RUN_MAGIC;
    r->def = k->def;
    va_list ap;
    va_start(ap, khdl);
    int rc = take_args(r, k->bank, ap);
    va_end(ap);
    if (rc != 0 || run_start(r) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

static emu_run *run_of(xrtRunHandle h, const char *fn)
{
    emu_run *r = h;
    if (r == NULL || r->magic != RUN_MAGIC) {
        fail(EINVAL, "%s: %p is not a run handle", fn, h);
        return NULL;
    }
    return r;
}

enum ert_cmd_state xrtRunWaitFor(xrtRunHandle rhdl, unsigned int timeout_ms)
{
    emu_run *r = run_of(rhdl, "xrtRunWaitFor");
    if (r == NULL)
        return ERT_CMD_STATE_ABORT;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&r->lock);
    while (r->state == ERT_CMD_STATE_RUNNING && timeout_ms > 0)
        if (pthread_cond_timedwait(&r->ended, &r->lock, &until) == ETIMEDOUT)
            break;
    enum ert_cmd_state s = r->state;
    pthread_mutex_unlock(&r->lock);
    return s;
}

enum ert_cmd_state xrtRunWait(xrtRunHandle rhdl)
{
    emu_run *r = run_of(rhdl, "xrtRunWait");
    if (r == NULL)
        return ERT_CMD_STATE_ABORT;
    pthread_mutex_lock(&r->lock);
    while (r->state == ERT_CMD_STATE_RUNNING)
        pthread_cond_wait(&r->ended, &r->lock);
    pthread_mutex_unlock(&r->lock);
    return ERT_CMD_STATE_COMPLETED;
}

enum ert_cmd_state xrtRunState(xrtRunHandle rhdl)
{
    emu_run *r = run_of(rhdl, "xrtRunState");
    if (r == NULL)
        return ERT_CMD_STATE_ABORT;
    pthread_mutex_lock(&r->lock);
    enum ert_cmd_state s = r->state;
    pthread_mutex_unlock(&r->lock);
    return s;
}

int xrtRunClose(xrtRunHandle rhdl)
{
    emu_run *r = run_of(rhdl, "xrtRunClose");
    if (r == NULL)
        return -1;
    pthread_join(r->thread, NULL); /* a run's thread ends with its kernel */
    pthread_cond_destroy(&r->ended);
    pthread_mutex_destroy(&r->lock);
    r->magic = 0;
    free(r);
    return 0;
}
