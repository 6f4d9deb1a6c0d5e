#include "format/ckpt_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/capture.h"
#include "base/fio.h"
#include "base/hashed_io.h"
#include "base/integrity.h"
#include "base/le_field.h"
#include "base/log.h"
#include "base/memcopy.h"
#include "base/safe_fs.h"

#define MAX_VARS (1u << 20)

static uint64_t align_to(uint64_t x, uint64_t a)
{
    return (x + a - 1) & ~(a - 1);
}

static uint64_t align_up(uint64_t x)
{
    return align_to(x, FTI_FILE_ALIGN);
}

/* Large variables stay on page boundaries (read or written alone, O_DIRECT);
 * small ones are packed, so that many of them do not take a page each. */
uint64_t fti_file_var_align(uint32_t version, uint64_t nbytes)
{
    return version >= 2 && nbytes < FTI_FILE_ALIGN ? FTI_FILE_SMALL_ALIGN : FTI_FILE_ALIGN;
}

static uint64_t table_end(uint32_t nvars)
{
    return FTI_FILE_FIXED_HEADER + (uint64_t)nvars * FTI_FILE_ENTRY_SIZE;
}

uint64_t fti_file_header_size(uint32_t nvars)
{
    return align_up(table_end(nvars) + 8);
}

void fti_file_header_encode(const fti_file_header *hdr, unsigned char *buf)
{
    uint64_t size = fti_file_header_size(hdr->nvars);
    memset(buf, 0, size);
    memcpy(buf, FTI_FILE_MAGIC, 8);
    fti_le_put32(buf + 8, hdr->version);
    fti_le_put32(buf + 12, hdr->kind);
    fti_le_put64(buf + 16, hdr->seq);
    fti_le_put64(buf + 24, (uint64_t)hdr->ckpt_id);
    fti_le_put32(buf + 32, hdr->level);
    fti_le_put32(buf + 36, hdr->rank);
    fti_le_put32(buf + 40, hdr->nvars);
    fti_le_put32(buf + 44, FTI_FILE_ENTRY_SIZE);
    fti_le_put64(buf + 48, hdr->data_offset);
    fti_le_put64(buf + 56, hdr->file_size);
    fti_le_put64(buf + 64, hdr->payload_checksum);
    fti_le_put64(buf + 72, hdr->exec_tag);
    fti_le_put64(buf + 80, hdr->nonce);
    for (uint32_t i = 0; i < hdr->nvars; i++) {
        unsigned char *e = buf + FTI_FILE_FIXED_HEADER + (size_t)i * FTI_FILE_ENTRY_SIZE;
        const fti_file_entry *v = &hdr->vars[i];
        fti_le_put32(e, (uint32_t)v->id);
        fti_le_put32(e + 4, (uint32_t)v->type);
        fti_le_put64(e + 8, v->elem_size);
        fti_le_put64(e + 16, v->count);
        fti_le_put64(e + 24, v->offset);
        fti_le_put64(e + 32, v->nbytes);
        fti_le_put64(e + 40, v->checksum);
        memcpy(e + 48, v->name, FTI_NAME_LEN);
    }
    uint64_t end = table_end(hdr->nvars);
    fti_le_put64(buf + end, fti_hash_buffer(buf, end));
}

/* Checks the fixed part (magic, version, table size) of a header. */
static fti_err decode_fixed(const unsigned char *buf, size_t n, const char *path, uint32_t *nvars)
{
    if (n < FTI_FILE_FIXED_HEADER)
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: truncated header (%zu bytes)", path, n);
    if (memcmp(buf, FTI_FILE_MAGIC, 8) != 0)
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: bad magic (not a checkpoint file)", path);
    uint32_t version = fti_le_get32(buf + 8);
    if (version != 1 && version != FTI_FILE_VERSION)
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: format version %u, this library reads "
                        "versions 1 and %u", path, version, FTI_FILE_VERSION);
    *nvars = fti_le_get32(buf + 40);
    if (*nvars > MAX_VARS || fti_le_get32(buf + 44) != FTI_FILE_ENTRY_SIZE)
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: corrupt header (variable table)", path);
    return FTI_E_OK;
}

fti_err fti_file_header_region(const unsigned char *fixed, const char *path, uint64_t *size)
{
    uint32_t nvars;
    fti_err e = decode_fixed(fixed, FTI_FILE_FIXED_HEADER, path, &nvars);
    if (e == FTI_E_OK)
        *size = fti_file_header_size(nvars);
    return e;
}

/* Checks that every variable lies inside the file, in order, aligned. */
static fti_err check_layout(const fti_file_header *h, const char *path)
{
    uint64_t pos = h->data_offset;
    for (uint32_t i = 0; i < h->nvars; i++) {
        const fti_file_entry *e = &h->vars[i];
        if (e->offset < pos || e->offset % fti_file_var_align(h->version, e->nbytes) != 0 ||
            (e->elem_size && e->count > UINT64_MAX / e->elem_size) ||
            e->nbytes != e->elem_size * e->count || e->nbytes > h->file_size - e->offset ||
            e->offset > h->file_size)
            return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: variable %d has an impossible "
                            "layout (offset %llu, %llu bytes)", path, e->id,
                            (unsigned long long)e->offset, (unsigned long long)e->nbytes);
        pos = e->offset + e->nbytes;
    }
    return FTI_E_OK;
}

fti_err fti_file_header_decode(const unsigned char *buf, size_t n, const char *path,
                               fti_file_header *hdr)
{
    uint32_t nvars;
    memset(hdr, 0, sizeof *hdr);
    fti_err e = decode_fixed(buf, n, path, &nvars);
    if (e != FTI_E_OK)
        return e;
    uint64_t end = table_end(nvars);
    if (n < end + 8)
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: truncated header", path);
    if (fti_le_get64(buf + end) != fti_hash_buffer(buf, end))
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: header checksum mismatch", path);
    hdr->version = fti_le_get32(buf + 8);
    hdr->kind = fti_le_get32(buf + 12);
    hdr->seq = fti_le_get64(buf + 16);
    hdr->ckpt_id = (int64_t)fti_le_get64(buf + 24);
    hdr->level = fti_le_get32(buf + 32);
    hdr->rank = fti_le_get32(buf + 36);
    hdr->nvars = nvars;
    hdr->data_offset = fti_le_get64(buf + 48);
    hdr->file_size = fti_le_get64(buf + 56);
    hdr->payload_checksum = fti_le_get64(buf + 64);
    hdr->exec_tag = fti_le_get64(buf + 72);
    hdr->nonce = fti_le_get64(buf + 80);
    hdr->vars = calloc(nvars ? nvars : 1, sizeof *hdr->vars);
    if (hdr->vars == NULL)
        return fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", path);
    for (uint32_t i = 0; i < nvars; i++) {
        const unsigned char *p = buf + FTI_FILE_FIXED_HEADER + (size_t)i * FTI_FILE_ENTRY_SIZE;
        fti_file_entry *v = &hdr->vars[i];
        v->id = (int32_t)fti_le_get32(p);
        v->type = (int32_t)fti_le_get32(p + 4);
        v->elem_size = fti_le_get64(p + 8);
        v->count = fti_le_get64(p + 16);
        v->offset = fti_le_get64(p + 24);
        v->nbytes = fti_le_get64(p + 32);
        v->checksum = fti_le_get64(p + 40);
        memcpy(v->name, p + 48, FTI_NAME_LEN);
        v->name[FTI_NAME_LEN - 1] = '\0';
    }
    if (hdr->data_offset != fti_file_header_size(nvars) || hdr->file_size < hdr->data_offset) {
        fti_file_header_free(hdr);
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: corrupt header (sizes)", path);
    }
    if ((e = check_layout(hdr, path)) != FTI_E_OK)
        fti_file_header_free(hdr);
    return e;
}

void fti_file_header_free(fti_file_header *hdr)
{
    free(hdr->vars);
    hdr->vars = NULL;
}

const fti_file_entry *fti_file_find(const fti_file_header *hdr, int id)
{
    for (uint32_t i = 0; i < hdr->nvars; i++)
        if (hdr->vars[i].id == id)
            return &hdr->vars[i];
    return NULL;
}

const fti_file_entry *fti_file_find_near(const fti_file_header *hdr, int id, int hint)
{
    if (hint >= 0 && (uint32_t)hint < hdr->nvars && hdr->vars[hint].id == id)
        return &hdr->vars[hint];
    return fti_file_find(hdr, id);
}

static fti_err write_var(int fd, const char *path, const fti_var *v, fti_file_entry *e,
                         size_t gpu_bufsize, fti_capture_sets *sets)
{
    fti_hash h;
    if (fti_hash_init(&h) != 0)
        return fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", path);
    fti_err rc = FTI_E_OK;
    if (v->dev == NULL) {
        if (fti_pwrite_hashed(fd, v->ptr, (size_t)e->nbytes, (off_t)e->offset, &h) != 0)
            rc = fti_fail(FTI_E_IO, "checkpoint file %s: writing variable %d (%llu bytes): %s",
                          path, v->id, (unsigned long long)e->nbytes, strerror(errno));
    } else {
        char err[256] = "";
        if (fti_capture_to_file(sets, v->dev, v->ptr, e->nbytes, fd, (off_t)e->offset,
                                gpu_bufsize, &h, err, sizeof err) != 0)
            rc = fti_fail(FTI_E_DEVICE,
                          "checkpoint file %s: capturing device variable %d from %s: %s", path,
                          v->id, v->dev->name, err);
    }
    e->checksum = fti_hash_final(&h);
    fti_hash_free(&h);
    return rc;
}

fti_err fti_file_plan(const fti_registry *reg, fti_file_header *hdr)
{
    hdr->nvars = (uint32_t)reg->nvars;
    hdr->vars = calloc(reg->nvars ? (size_t)reg->nvars : 1, sizeof *hdr->vars);
    if (hdr->vars == NULL)
        return fti_fail(FTI_E_NOMEM, "checkpoint: out of memory for the variable table");
    for (int i = 0; i < reg->nvars; i++) {
        const fti_var *v = &reg->vars[i];
        fti_file_entry *e = &hdr->vars[i];
        e->id = v->id;
        e->type = v->type;
        e->elem_size = v->elem_size;
        e->count = (uint64_t)v->count;
        e->nbytes = fti_var_bytes(v);
        memcpy(e->name, v->name, FTI_NAME_LEN);
    }
    fti_file_place(hdr);
    return FTI_E_OK;
}

void fti_file_place(fti_file_header *hdr)
{
    hdr->version = FTI_FILE_VERSION;
    hdr->data_offset = fti_file_header_size(hdr->nvars);
    uint64_t pos = hdr->data_offset;
    for (uint32_t i = 0; i < hdr->nvars; i++) {
        fti_file_entry *e = &hdr->vars[i];
        e->offset = align_to(pos, fti_file_var_align(hdr->version, e->nbytes));
        pos = e->offset + e->nbytes;
    }
    hdr->file_size = pos;
}

/* Zeroes the alignment gaps so a file's bytes depend only on its data. */
static int write_padding(int fd, const fti_file_header *hdr)
{
    static const char zeros[FTI_FILE_ALIGN];
    for (uint32_t i = 0; i + 1 < hdr->nvars; i++) {
        uint64_t end = hdr->vars[i].offset + hdr->vars[i].nbytes;
        uint64_t gap = hdr->vars[i + 1].offset - end;
        if (gap && fti_pwrite_full(fd, zeros, (size_t)gap, (off_t)end) != 0)
            return -1;
    }
    return 0;
}

fti_err fti_file_write(const char *path, const fti_registry *reg, fti_file_header *hdr,
                       size_t gpu_bufsize)
{
    /* Callers without a context: buffers shared by this file's variables. */
    fti_capture_sets sets = {0};
    fti_err rc = fti_file_write_sets(path, reg, hdr, gpu_bufsize, &sets);
    fti_capture_sets_free(&sets);
    return rc;
}

fti_err fti_file_write_sets(const char *path, const fti_registry *reg, fti_file_header *hdr,
                            size_t gpu_bufsize, fti_capture_sets *sets)
{
    hdr->version = FTI_FILE_VERSION;
    hdr->kind = FTI_KIND_DATA;
    fti_err rc = fti_file_plan(reg, hdr);
    if (rc != FTI_E_OK)
        return rc;
    /* No O_TRUNC: overwriting the slot's old file in place is ~3x faster on
     * tmpfs; only a regular file of this user with one link (safe_fs.h). */
    int fd = fti_open_existing_for_write(path);
    if (fd < 0) {
        rc = fti_fail(FTI_E_IO, "checkpoint file %s: cannot open for writing: %s", path,
                      fti_fs_strerror(errno));
        goto out;
    }
    for (uint32_t i = 0; i < hdr->nvars && rc == FTI_E_OK; i++)
        rc = write_var(fd, path, &reg->vars[i], &hdr->vars[i], gpu_bufsize, sets);
    if (rc == FTI_E_OK && (write_padding(fd, hdr) != 0 || ftruncate(fd, (off_t)hdr->file_size) != 0))
        rc = fti_fail(FTI_E_IO, "checkpoint file %s: %s", path, strerror(errno));
    if (rc == FTI_E_OK) {
        unsigned char *buf = malloc(hdr->data_offset);
        if (buf == NULL) {
            rc = fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", path);
        } else {
            fti_file_header_encode(hdr, buf);
            if (fti_pwrite_full(fd, buf, hdr->data_offset, 0) != 0 || fti_fsync(fd) != 0)
                rc = fti_fail(FTI_E_IO, "checkpoint file %s: writing header: %s", path,
                              strerror(errno));
            free(buf);
        }
    }
    if (close(fd) != 0 && rc == FTI_E_OK)
        rc = fti_fail(FTI_E_IO, "checkpoint file %s: close: %s", path, strerror(errno));
out:
    if (rc != FTI_E_OK)
        fti_file_header_free(hdr);
    return rc;
}

fti_err fti_file_read_header(int fd, const char *path, fti_file_header *hdr)
{
    unsigned char fixed[FTI_FILE_FIXED_HEADER];
    struct stat st;
    memset(hdr, 0, sizeof *hdr); /* callers free hdr->vars on any error */
    if (fstat(fd, &st) != 0)
        return fti_fail(FTI_E_IO, "checkpoint file %s: %s", path, strerror(errno));
    if ((uint64_t)st.st_size < FTI_FILE_FIXED_HEADER ||
        fti_pread_full(fd, fixed, sizeof fixed, 0) != 0)
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: truncated (%lld bytes)", path,
                        (long long)st.st_size);
    uint64_t hsize;
    fti_err e = fti_file_header_region(fixed, path, &hsize);
    if (e != FTI_E_OK)
        return e;
    if ((uint64_t)st.st_size < hsize)
        return fti_fail(FTI_E_CORRUPT, "checkpoint file %s: truncated in its header", path);
    unsigned char *buf = malloc(hsize);
    if (buf == NULL)
        return fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", path);
    if (fti_pread_full(fd, buf, hsize, 0) != 0)
        e = fti_fail(FTI_E_IO, "checkpoint file %s: %s", path, strerror(errno));
    else
        e = fti_file_header_decode(buf, hsize, path, hdr);
    free(buf);
    if (e == FTI_E_OK && (uint64_t)st.st_size != hdr->file_size) {
        e = fti_fail(FTI_E_CORRUPT, "checkpoint file %s: %lld bytes, header says %llu (truncated "
                     "or extended)", path, (long long)st.st_size, (unsigned long long)hdr->file_size);
        fti_file_header_free(hdr);
    }
    return e;
}

/* Hashes n bytes of the file at off through a scratch buffer. */
static int hash_range(int fd, uint64_t off, uint64_t n, char *buf, uint64_t *sum)
{
    fti_hash h;
    if (fti_hash_init(&h) != 0)
        return -1;
    int rc = 0;
    for (uint64_t done = 0; done < n && rc == 0;) {
        size_t len = (size_t)(n - done < FTI_HASH_PIECE ? n - done : FTI_HASH_PIECE);
        rc = fti_pread_full(fd, buf, len, (off_t)(off + done));
        fti_hash_update(&h, buf, len);
        done += len;
    }
    *sum = fti_hash_final(&h);
    fti_hash_free(&h);
    return rc;
}

/* Hashes n bytes of a file in memory at off where they lie, mapped
 * read-only a window at a time: no copy (about a third cheaper than
 * reading them into a buffer), and at most VERIFY_WINDOW mapped at once. A
 * whole-file map counted the file in the rank's resident set, what a
 * scheduler samples (a restart at 512 MiB per rank peaked 511 MiB above
 * FTI's). Only for files in memory (fti_in_memory_fs): no device is behind
 * the pages, so no I/O error can arrive as SIGBUS. */
#define VERIFY_WINDOW ((uint64_t)16 << 20)
static int hash_range_mapped(int fd, uint64_t off, uint64_t n, uint64_t *sum)
{
    fti_hash h;
    if (fti_hash_init(&h) != 0)
        return -1;
    int rc = 0;
    for (uint64_t done = 0; done < n && rc == 0;) {
        uint64_t at = off + done, base = at & ~(VERIFY_WINDOW - 1);
        uint64_t len = base + VERIFY_WINDOW - at < n - done ? base + VERIFY_WINDOW - at : n - done;
        void *map = mmap(NULL, (size_t)(at - base + len), PROT_READ, MAP_SHARED, fd, (off_t)base);
        if (map == MAP_FAILED) {
            rc = -1;
            break;
        }
        fti_hash_update(&h, (const char *)map + (at - base), (size_t)len);
        munmap(map, (size_t)(at - base + len));
        done += len;
    }
    *sum = fti_hash_final(&h);
    fti_hash_free(&h);
    return rc;
}

/* Each variable's checksum, hashed where the bytes lie for a file in
 * memory, read through a buffer otherwise. The file is the caller's to
 * keep unchanged meanwhile (recovery runs under the job lock). */
static fti_err verify_data(int fd, const char *path, const fti_file_header *hdr)
{
    int mapped = fti_in_memory_fs(fd);
    char *buf = mapped ? NULL : fti_io_alloc(FTI_HASH_PIECE);
    if (!mapped && buf == NULL)
        return fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", path);
    fti_err e = FTI_E_OK;
    for (uint32_t i = 0; i < hdr->nvars && e == FTI_E_OK; i++) {
        const fti_file_entry *v = &hdr->vars[i];
        uint64_t sum;
        if ((mapped ? hash_range_mapped(fd, v->offset, v->nbytes, &sum)
                    : hash_range(fd, v->offset, v->nbytes, buf, &sum)) != 0)
            e = fti_fail(FTI_E_IO, "checkpoint file %s: %s variable %d: %s", path,
                         mapped ? "mapping" : "reading", v->id, strerror(errno));
        else if (sum != v->checksum)
            e = fti_fail(FTI_E_CORRUPT, "checkpoint file %s: variable %d: data checksum mismatch "
                         "(corrupt data)", path, v->id);
    }
    free(buf);
    return e;
}

static fti_err verify(const char *path, uint64_t expect_seq, int full, fti_file_header *hdr)
{
    int fd = fti_open_read(path);
    if (fd < 0)
        return fti_fail(errno == ENOENT ? FTI_E_MISSING : FTI_E_IO, "checkpoint file %s: %s", path,
                        fti_fs_strerror(errno));
    fti_err e = fti_file_read_header(fd, path, hdr);
    if (e == FTI_E_OK && expect_seq != 0 && hdr->seq != expect_seq)
        e = fti_fail(FTI_E_CORRUPT, "checkpoint file %s: holds checkpoint #%llu, expected #%llu "
                     "(stale file)", path, (unsigned long long)hdr->seq,
                     (unsigned long long)expect_seq);
    if (e == FTI_E_OK && full)
        e = verify_data(fd, path, hdr);
    if (e != FTI_E_OK && hdr->vars)
        fti_file_header_free(hdr);
    close(fd);
    return e;
}

fti_err fti_file_verify(const char *path, uint64_t expect_seq, int full, fti_file_header *hdr)
{
    return verify(path, expect_seq, full, hdr);
}

int fti_file_valid(const char *path, uint64_t seq)
{
    fti_file_header h;
    fti_log_quiet(1);
    int ok = fti_file_verify(path, seq, 1, &h) == FTI_E_OK;
    fti_log_quiet(0);
    if (ok)
        fti_file_header_free(&h);
    return ok;
}

fti_err fti_file_read_var(int fd, const char *path, const fti_file_entry *e, const fti_var *var,
                          size_t gpu_bufsize)
{
    return fti_file_read_var_sets(fd, path, e, var, gpu_bufsize, NULL, 0);
}

fti_file_version fti_file_version_of(int fd, const char *path)
{
    struct stat st;
    fti_file_version v = {0};
    if ((fd >= 0 ? fstat(fd, &st) : stat(path, &st)) != 0)
        return v;
    v = (fti_file_version){.known = 1, .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
                           .mtime = st.st_mtim, .ctime = st.st_ctim};
    return v;
}

static int same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

int fti_file_version_same(const fti_file_version *a, const fti_file_version *b)
{
    return fti_file_version_renamed(a, b) && same_time(a->ctime, b->ctime);
}

int fti_file_version_renamed(const fti_file_version *a, const fti_file_version *b)
{
    return a->known && b->known && a->dev == b->dev && a->ino == b->ino &&
           a->size == b->size && same_time(a->mtime, b->mtime);
}

/* A variable into host memory, hashed into h (or NULL) piece by piece. A
 * large one goes through a page-aligned piece buffer that stays in cache:
 * the kernel copies into it at full speed, the hash reads it there, and
 * fti_copy_large moves it on; read straight into an application buffer 16
 * bytes past a page (malloc), the same bytes took 2.5 times as long
 * (fti_io_alloc). */
static fti_err read_host_var(int fd, const char *path, const fti_file_entry *e,
                             const fti_var *var, fti_hash *h)
{
    char *dst = var->ptr, *piece = NULL;
    if (e->nbytes >= FTI_HASH_PIECE)
        piece = fti_io_alloc(FTI_HASH_PIECE); /* NULL, no room for it: read in place */
    fti_err rc = FTI_E_OK;
    for (uint64_t done = 0; done < e->nbytes && rc == FTI_E_OK;) {
        uint64_t left = e->nbytes - done;
        size_t len = (size_t)(left < FTI_HASH_PIECE ? left : FTI_HASH_PIECE);
        char *land = piece != NULL ? piece : dst + done;
        if (fti_pread_full(fd, land, len, (off_t)(e->offset + done)) != 0) {
            rc = fti_fail(FTI_E_IO, "checkpoint file %s: reading variable %d: %s", path, var->id,
                          strerror(errno));
            break;
        }
        if (h != NULL)
            fti_hash_update(h, land, len);
        if (piece != NULL)
            fti_copy_large(dst + done, piece, len);
        done += len;
    }
    free(piece);
    return rc;
}

fti_err fti_file_read_var_sets(int fd, const char *path, const fti_file_entry *e,
                               const fti_var *var, size_t gpu_bufsize, fti_capture_sets *sets,
                               int checked)
{
    fti_hash h;
    if (fti_hash_init(&h) != 0)
        return fti_fail(FTI_E_NOMEM, "checkpoint file %s: out of memory", path);
    fti_err rc = FTI_E_OK;
    if (var->dev == NULL) {
        rc = read_host_var(fd, path, e, var, checked ? NULL : &h);
    } else {
        checked = 0; /* the capture pipeline hashes as it copies anyway */
        char err[256] = "";
        if (fti_capture_from_file(sets, var->dev, var->ptr, e->nbytes, fd, (off_t)e->offset,
                                  gpu_bufsize, &h, err, sizeof err) != 0)
            rc = fti_fail(FTI_E_DEVICE, "checkpoint file %s: restoring device variable %d to %s: %s",
                          path, var->id, var->dev->name, err);
    }
    if (rc == FTI_E_OK && !checked && fti_hash_final(&h) != e->checksum)
        rc = fti_fail(FTI_E_CORRUPT, "checkpoint file %s: variable %d: data checksum mismatch on "
                      "restore", path, var->id);
    fti_hash_free(&h);
    return rc;
}
