#include "format/dcp_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/config.h"
#include "base/fio.h"
#include "base/integrity.h"
#include "format/l4_codec.h"
#include "format/layout.h"
#include "base/le_field.h"
#include "base/log.h"
#include "base/safe_fs.h"

#define DCP_SUM_AT 120          /* header checksum: XXH3 of bytes 0..119 */
#define DCP_MAX_CHAIN 64        /* layers open at once while assembling */

uint64_t fti_dcp_blocks_of(uint64_t nbytes, uint64_t block_size)
{
    return (nbytes + block_size - 1) / block_size;
}

int fti_dcp_var_sum(const fti_dcp_block *blocks, uint64_t n, uint64_t *sum)
{
    fti_hash h;
    if (fti_hash_init(&h) != 0)
        return -1;
    unsigned char buf[8 * 512];
    for (uint64_t i = 0; i < n; i += 512) {
        uint64_t k = n - i < 512 ? n - i : 512;
        for (uint64_t j = 0; j < k; j++)
            fti_le_put64(buf + 8 * j, blocks[i + j].hash);
        fti_hash_update(&h, buf, (size_t)(8 * k));
    }
    *sum = fti_hash_final(&h);
    fti_hash_free(&h);
    return 0;
}

uint64_t fti_dcp_count_blocks(const fti_file_header *image, uint64_t block_size)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < image->nvars; i++)
        n += fti_dcp_blocks_of(image->vars[i].nbytes, block_size);
    return n;
}

static uint64_t map_offset(const fti_file_header *image)
{
    return FTI_DCP_FIXED + image->data_offset;
}

uint64_t fti_dcp_data_offset(const fti_file_header *image, uint64_t nblocks)
{
    uint64_t end = map_offset(image) + nblocks * FTI_DCP_ENTRY + 8;
    return (end + FTI_FILE_ALIGN - 1) & ~(uint64_t)(FTI_FILE_ALIGN - 1);
}

static void encode_fixed(const fti_dcp_layer *l, unsigned char *p)
{
    memcpy(p, FTI_DCP_MAGIC, 8);
    fti_le_put32(p + 8, FTI_DCP_VERSION);
    fti_le_put32(p + 12, l->rank);
    fti_le_put64(p + 16, l->seq);
    fti_le_put64(p + 24, l->base_seq);
    fti_le_put32(p + 32, l->depth);
    fti_le_put32(p + 36, l->image.nvars);
    fti_le_put64(p + 40, l->block_size);
    fti_le_put64(p + 48, l->nblocks);
    fti_le_put64(p + 56, l->data_offset);
    fti_le_put64(p + 64, l->data_size);
    fti_le_put64(p + DCP_SUM_AT, fti_hash_buffer(p, DCP_SUM_AT));
}

static void put_entry(unsigned char *m, uint64_t i, const fti_dcp_block *b)
{
    fti_le_put64(m + i * FTI_DCP_ENTRY, b->seq);
    fti_le_put64(m + i * FTI_DCP_ENTRY + 8, b->offset);
    fti_le_put64(m + i * FTI_DCP_ENTRY + 16, b->hash);
}

/* The parts of the header region that are not map entries: fixed header,
 * image header, the map's checksum. */
static void encode_around_map(const fti_dcp_layer *l, unsigned char *buf)
{
    encode_fixed(l, buf);
    fti_file_header_encode(&l->image, buf + FTI_DCP_FIXED);
    unsigned char *m = buf + map_offset(&l->image);
    uint64_t n = l->nblocks * FTI_DCP_ENTRY;
    fti_le_put64(m + n, fti_hash_buffer(m, n));
}

fti_err fti_dcp_encode(const fti_dcp_layer *l, unsigned char **out)
{
    unsigned char *buf = calloc(1, l->data_offset);
    if (buf == NULL)
        return fti_fail(FTI_E_NOMEM, "dCP: out of memory for a layer header of %llu bytes",
                        (unsigned long long)l->data_offset);
    unsigned char *m = buf + map_offset(&l->image);
    for (uint64_t i = 0; i < l->nblocks; i++)
        put_entry(m, i, &l->map[i]);
    encode_around_map(l, buf);
    *out = buf;
    return FTI_E_OK;
}

int fti_dcp_encode_patch(const fti_dcp_layer *l, const fti_dcp_layer *prev, unsigned char *buf)
{
    if (prev->nblocks != l->nblocks || prev->data_offset != l->data_offset ||
        prev->image.nvars != l->image.nvars || map_offset(&prev->image) != map_offset(&l->image))
        return -1;
    unsigned char *m = buf + map_offset(&l->image);
    for (uint64_t i = 0; i < l->nblocks; i++)
        if (memcmp(&l->map[i], &prev->map[i], sizeof l->map[i]) != 0)
            put_entry(m, i, &l->map[i]);
    encode_around_map(l, buf);
    return 0;
}

void fti_dcp_layer_free(fti_dcp_layer *l)
{
    fti_file_header_free(&l->image);
    free(l->map);
    free(l->enc);
    l->map = NULL;
    l->enc = NULL;
}

/* The fixed header: magic, version, checksum, and that it is (rank, seq). */
static fti_err decode_fixed(const unsigned char *p, const char *path, int rank, uint64_t seq,
                            fti_dcp_layer *l)
{
    if (memcmp(p, FTI_DCP_MAGIC, 8) != 0)
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: bad magic (not a dCP layer)", path);
    if (fti_le_get32(p + 8) != FTI_DCP_VERSION)
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: format version %u, this library reads %u",
                        path, fti_le_get32(p + 8), FTI_DCP_VERSION);
    if (fti_le_get64(p + DCP_SUM_AT) != fti_hash_buffer(p, DCP_SUM_AT))
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: header checksum mismatch", path);
    l->rank = fti_le_get32(p + 12);
    l->seq = fti_le_get64(p + 16);
    l->base_seq = fti_le_get64(p + 24);
    l->depth = fti_le_get32(p + 32);
    l->block_size = fti_le_get64(p + 40);
    l->nblocks = fti_le_get64(p + 48);
    l->data_offset = fti_le_get64(p + 56);
    l->data_size = fti_le_get64(p + 64);
    if ((int)l->rank != rank || l->seq != seq || l->base_seq > seq || l->block_size == 0)
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: holds rank %u layer #%llu, expected rank %d "
                        "layer #%llu", path, l->rank, (unsigned long long)l->seq, rank,
                        (unsigned long long)seq);
    return FTI_E_OK;
}

/* Every entry names a layer of this chain, and this layer's blocks lie in it. */
static fti_err check_map(const fti_dcp_layer *l, const char *path)
{
    uint64_t k = 0;
    for (uint32_t v = 0; v < l->image.nvars; v++) {
        uint64_t nb = l->image.vars[v].nbytes;
        for (uint64_t b = 0; b < fti_dcp_blocks_of(nb, l->block_size); b++, k++) {
            const fti_dcp_block *e = &l->map[k];
            uint64_t len = nb - b * l->block_size < l->block_size ? nb - b * l->block_size
                                                                  : l->block_size;
            int bad = e->seq < l->base_seq || e->seq > l->seq ||
                      (e->seq == l->seq && (e->offset < l->data_offset ||
                                            e->offset + len > l->data_offset + l->data_size));
            if (bad)
                return fti_fail(FTI_E_CORRUPT, "dCP layer %s: block %llu of variable %d has an "
                                "impossible location", path, (unsigned long long)b,
                                l->image.vars[v].id);
        }
    }
    return FTI_E_OK;
}

static fti_err decode_map(const unsigned char *m, const char *path, fti_dcp_layer *l)
{
    uint64_t n = l->nblocks * FTI_DCP_ENTRY;
    if (fti_le_get64(m + n) != fti_hash_buffer(m, n))
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: block map checksum mismatch", path);
    l->map = calloc(l->nblocks ? l->nblocks : 1, sizeof *l->map);
    if (l->map == NULL)
        return fti_fail(FTI_E_NOMEM, "dCP layer %s: out of memory for the block map", path);
    for (uint64_t i = 0; i < l->nblocks; i++) {
        l->map[i].seq = fti_le_get64(m + i * FTI_DCP_ENTRY);
        l->map[i].offset = fti_le_get64(m + i * FTI_DCP_ENTRY + 8);
        l->map[i].hash = fti_le_get64(m + i * FTI_DCP_ENTRY + 16);
    }
    return check_map(l, path);
}

/* Image header and map from the header region `buf` of n bytes. */
static fti_err decode_body(const unsigned char *buf, uint64_t n, const char *path,
                           fti_dcp_layer *l)
{
    fti_err e = fti_file_header_decode(buf + FTI_DCP_FIXED, (size_t)(n - FTI_DCP_FIXED), path,
                                       &l->image);
    if (e != FTI_E_OK)
        return e;
    if (l->image.seq != l->seq || fti_dcp_count_blocks(&l->image, l->block_size) != l->nblocks ||
        fti_dcp_data_offset(&l->image, l->nblocks) != l->data_offset)
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: block map does not match its variable table",
                        path);
    return decode_map(buf + map_offset(&l->image), path, l);
}

static fti_err read_region(int fd, const char *path, uint64_t n, unsigned char **out)
{
    *out = malloc(n ? n : 1);
    if (*out == NULL)
        return fti_fail(FTI_E_NOMEM, "dCP layer %s: out of memory", path);
    if (fti_pread_full(fd, *out, (size_t)n, 0) != 0)
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: truncated header: %s", path, fti_fs_strerror(errno));
    return FTI_E_OK;
}

static fti_err read_fixed_fd(int fd, const char *path, int rank, uint64_t seq, fti_dcp_layer *l)
{
    unsigned char fixed[FTI_DCP_FIXED];
    struct stat st;
    if (fstat(fd, &st) != 0 || fti_pread_full(fd, fixed, sizeof fixed, 0) != 0)
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: truncated header", path);
    fti_err e = decode_fixed(fixed, path, rank, seq, l);
    if (e == FTI_E_OK && (uint64_t)st.st_size != l->data_offset + l->data_size)
        e = fti_fail(FTI_E_CORRUPT, "dCP layer %s: %lld bytes, its header says %llu", path,
                     (long long)st.st_size, (unsigned long long)(l->data_offset + l->data_size));
    if (e == FTI_E_OK && l->nblocks > ((uint64_t)1 << 40) / FTI_DCP_ENTRY)
        e = fti_fail(FTI_E_CORRUPT, "dCP layer %s: impossible block count", path);
    return e;
}

static fti_err read_layer_fd(int fd, const char *path, int rank, uint64_t seq, fti_dcp_layer *l)
{
    unsigned char *buf = NULL;
    fti_err e = read_fixed_fd(fd, path, rank, seq, l);
    if (e == FTI_E_OK)
        e = read_region(fd, path, l->data_offset, &buf);
    if (e == FTI_E_OK)
        e = decode_body(buf, l->data_offset, path, l);
    free(buf);
    if (e != FTI_E_OK)
        fti_dcp_layer_free(l);
    return e;
}

typedef fti_err (*layer_reader)(int fd, const char *path, int rank, uint64_t seq,
                                fti_dcp_layer *l);

/* Opens path and reads the layer from it with read_fd (all of it, or its fixed part). */
static fti_err read_layer_file(const char *path, int rank, uint64_t seq, fti_dcp_layer *l,
                               layer_reader read_fd)
{
    memset(l, 0, sizeof *l);
    int fd = fti_open_read(path);
    if (fd < 0)
        return fti_fail(errno == ENOENT ? FTI_E_MISSING : FTI_E_IO, "dCP layer %s: %s", path,
                        fti_fs_strerror(errno));
    fti_err e = read_fd(fd, path, rank, seq, l);
    close(fd);
    return e;
}

fti_err fti_dcp_read(const char *path, int rank, uint64_t seq, fti_dcp_layer *l)
{
    return read_layer_file(path, rank, seq, l, read_layer_fd);
}

fti_err fti_dcp_read_fixed(const char *path, int rank, uint64_t seq, fti_dcp_layer *l)
{
    return read_layer_file(path, rank, seq, l, read_fixed_fd);
}

/* ---- assembling ----------------------------------------------------------- */

/* The open layers of one chain, found by seq. */
typedef struct chain {
    const char *dir;
    int rank;
    int n;
    uint64_t seq[DCP_MAX_CHAIN];
    int fd[DCP_MAX_CHAIN];
    char path[FTI_PATH_MAX];
} chain;

/* fd of layer seq (opened and its fixed header checked on first use). */
static fti_err chain_fd(chain *c, uint64_t seq, int *fd)
{
    for (int i = 0; i < c->n; i++)
        if (c->seq[i] == seq) {
            *fd = c->fd[i];
            return FTI_E_OK;
        }
    fti_path_dcp_layer(c->path, c->dir, c->rank, seq);
    if (c->n == DCP_MAX_CHAIN)
        return fti_fail(FTI_E_CORRUPT, "dCP: chain of rank %d longer than %d layers", c->rank,
                        DCP_MAX_CHAIN);
    fti_dcp_layer l;
    fti_err e = fti_dcp_read(c->path, c->rank, seq, &l);
    if (e != FTI_E_OK)
        return e;
    fti_dcp_layer_free(&l);
    *fd = fti_open_read(c->path);
    if (*fd < 0)
        return fti_fail(FTI_E_IO, "dCP layer %s: %s", c->path, fti_fs_strerror(errno));
    c->seq[c->n] = seq;
    c->fd[c->n++] = *fd;
    return FTI_E_OK;
}

static void chain_close(chain *c)
{
    for (int i = 0; i < c->n; i++)
        close(c->fd[i]);
}

/* Copies one block from its layer to fd at `at`, checking its hash. */
static fti_err copy_block(chain *c, const fti_dcp_block *b, uint64_t len, int fd, uint64_t at,
                          unsigned char *buf, const char *out_name)
{
    int src = -1;
    fti_err e = chain_fd(c, b->seq, &src);
    if (e != FTI_E_OK)
        return e;
    fti_path_dcp_layer(c->path, c->dir, c->rank, b->seq);
    if (fti_pread_full(src, buf, (size_t)len, (off_t)b->offset) != 0)
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: block at %llu unreadable: %s", c->path,
                        (unsigned long long)b->offset, fti_fs_strerror(errno));
    if (fti_hash_buffer(buf, (size_t)len) != b->hash)
        return fti_fail(FTI_E_CORRUPT, "dCP layer %s: block at %llu does not match its hash "
                        "(damaged layer)", c->path, (unsigned long long)b->offset);
    if (fti_pwrite_full(fd, buf, (size_t)len, (off_t)at) != 0)
        return fti_fail(FTI_E_IO, "%s: %s", out_name, fti_fs_strerror(errno));
    return FTI_E_OK;
}

/* Variable v's blocks (map entries from k) copied to fd; its entry in the
 * image gets the XXH3-64 of its bytes once its block hashes match the
 * layer's checksum of them. */
static fti_err assemble_var(chain *c, fti_dcp_layer *l, uint32_t v, uint64_t k, int fd,
                            unsigned char *buf, const char *out_name)
{
    fti_file_entry *ve = &l->image.vars[v];
    uint64_t nb = fti_dcp_blocks_of(ve->nbytes, l->block_size), sum;
    if (fti_dcp_var_sum(&l->map[k], nb, &sum) != 0)
        return fti_fail(FTI_E_NOMEM, "dCP: out of memory");
    if (sum != ve->checksum)
        return fti_fail(FTI_E_CORRUPT, "dCP layer of %s: the block hashes of variable %d do not "
                        "match its checksum (damaged layer)", out_name, ve->id);
    fti_hash h;
    if (fti_hash_init(&h) != 0)
        return fti_fail(FTI_E_NOMEM, "dCP: out of memory");
    fti_err e = FTI_E_OK;
    for (uint64_t b = 0; b < nb && e == FTI_E_OK; b++) {
        uint64_t at = b * l->block_size;
        uint64_t len = ve->nbytes - at < l->block_size ? ve->nbytes - at : l->block_size;
        e = copy_block(c, &l->map[k + b], len, fd, ve->offset + at, buf, out_name);
        fti_hash_update(&h, buf, (size_t)len);
    }
    ve->checksum = fti_hash_final(&h);
    fti_hash_free(&h);
    return e;
}

static fti_err assemble_blocks(chain *c, fti_dcp_layer *l, int fd, const char *out_name)
{
    unsigned char *buf = fti_io_alloc(l->block_size);
    if (buf == NULL)
        return fti_fail(FTI_E_NOMEM, "dCP: out of memory for a block of %llu bytes",
                        (unsigned long long)l->block_size);
    fti_err e = FTI_E_OK;
    uint64_t k = 0;
    for (uint32_t v = 0; v < l->image.nvars && e == FTI_E_OK; v++) {
        e = assemble_var(c, l, v, k, fd, buf, out_name);
        k += fti_dcp_blocks_of(l->image.vars[v].nbytes, l->block_size);
    }
    free(buf);
    return e;
}

/* The header region, the zero gaps and the length of the image. */
static fti_err finish_image(const fti_file_header *image, int fd, const char *out_name)
{
    static const char zeros[FTI_FILE_ALIGN];
    unsigned char *hdr = malloc(image->data_offset);
    if (hdr == NULL)
        return fti_fail(FTI_E_NOMEM, "%s: out of memory", out_name);
    fti_file_header_encode(image, hdr);
    int rc = fti_pwrite_full(fd, hdr, image->data_offset, 0);
    free(hdr);
    for (uint32_t i = 0; rc == 0 && i + 1 < image->nvars; i++) {
        uint64_t end = image->vars[i].offset + image->vars[i].nbytes;
        uint64_t gap = image->vars[i + 1].offset - end;
        if (gap)
            rc = fti_pwrite_full(fd, zeros, (size_t)gap, (off_t)end);
    }
    if (rc == 0)
        rc = ftruncate(fd, (off_t)image->file_size);
    return rc == 0 ? FTI_E_OK : fti_fail(FTI_E_IO, "%s: %s", out_name, fti_fs_strerror(errno));
}

fti_err fti_dcp_assemble(const char *dir, int rank, uint64_t seq, int fd, const char *out_name)
{
    chain c = {.dir = dir, .rank = rank};
    char path[FTI_PATH_MAX];
    fti_path_dcp_layer(path, dir, rank, seq);
    fti_dcp_layer l;
    fti_err e = fti_dcp_read(path, rank, seq, &l);
    if (e != FTI_E_OK)
        return e;
    e = assemble_blocks(&c, &l, fd, out_name);
    if (e == FTI_E_OK)
        e = finish_image(&l.image, fd, out_name);
    chain_close(&c);
    fti_dcp_layer_free(&l);
    return e;
}

fti_err fti_dcp_check_owner(const fti_dcp_layer *l, const char *path, uint64_t nonce)
{
    if (l->image.nonce == nonce)
        return FTI_E_OK;
    return fti_fail(FTI_E_CORRUPT, "dCP layer %s: holds another job's checkpoint (nonce %016llx, "
                    "expected %016llx): written by a job sharing these folders (same exec_id, "
                    "another meta_dir?), not by the job of the commit record", path,
                    (unsigned long long)l->image.nonce, (unsigned long long)nonce);
}
