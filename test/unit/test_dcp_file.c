/*
 * test_dcp_file.c - dCP layer files: a base and a differential layer built
 * with the library's encoder assemble into the exact bytes; every kind of
 * damage (magic, header checksum, map checksum, truncation, a block's
 * bytes, another seq or rank, a missing older layer, a variable checksum
 * that does not match its block hashes) is rejected with
 * FTI_E_CORRUPT or FTI_E_MISSING, never assembled.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/config.h"
#include "base/fio.h"
#include "base/integrity.h"
#include "format/layout.h"
#include "format/dcp_file.h"
#include "base/log.h"
#include "scratch.h"

#define BS 4096
#define NB 10000 /* bytes of the one variable: blocks of 4096, 4096, 1808 */

static char dir[1024];
static unsigned char data1[NB], data2[NB];

static uint64_t bad_sum; /* XORed into the variable's checksum of a layer written */

/* Writes layer seq of rank 0: every block from `data` when prev is NULL,
 * else only the blocks that differ from prev's data (one layer back). */
static void write_layer(uint64_t seq, const unsigned char *data, const unsigned char *prev,
                        uint64_t prev_seq, fti_dcp_layer *prev_l, fti_dcp_layer *l)
{
    memset(l, 0, sizeof *l);
    fti_file_entry *e = calloc(1, sizeof *e);
    e->id = 7, e->type = 4, e->elem_size = 1, e->count = NB, e->nbytes = NB;
    l->image = (fti_file_header){.version = FTI_FILE_VERSION, .kind = FTI_KIND_DATA, .seq = seq,
                                 .ckpt_id = (int64_t)seq, .level = 4, .nvars = 1, .vars = e};
    fti_file_place(&l->image);
    l->seq = seq, l->base_seq = prev ? prev_l->base_seq : seq, l->depth = prev ? 1 : 0;
    l->block_size = BS;
    l->nblocks = fti_dcp_count_blocks(&l->image, BS);
    l->data_offset = fti_dcp_data_offset(&l->image, l->nblocks);
    l->map = calloc(l->nblocks, sizeof *l->map);
    char path[FTI_PATH_MAX];
    fti_path_dcp_layer(path, dir, 0, seq);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    for (uint64_t b = 0; b < l->nblocks; b++) {
        uint64_t len = NB - b * BS < BS ? NB - b * BS : BS;
        if (prev && memcmp(prev + b * BS, data + b * BS, len) == 0) {
            l->map[b] = prev_l->map[b];
            continue;
        }
        uint64_t at = l->data_offset + l->data_size;
        assert_int_equal(fti_pwrite_full(fd, data + b * BS, len, (off_t)at), 0);
        l->map[b] = (fti_dcp_block){seq, at, fti_hash_buffer(data + b * BS, len)};
        l->data_size += len;
    }
    (void)prev_seq;
    assert_int_equal(fti_dcp_var_sum(l->map, l->nblocks, &e->checksum), 0);
    e->checksum ^= bad_sum;
    unsigned char *hdr;
    assert_int_equal(fti_dcp_encode(l, &hdr), FTI_E_OK);
    assert_int_equal(fti_pwrite_full(fd, hdr, l->data_offset, 0), 0);
    assert_int_equal(ftruncate(fd, (off_t)(l->data_offset + l->data_size)), 0);
    free(hdr);
    close(fd);
}

static int setup(void **state)
{
    (void)state;
    if (fti_test_scratch_make(dir, sizeof dir, "dcp") != 0)
        return -1;
    for (int i = 0; i < NB; i++)
        data1[i] = (unsigned char)(i * 7 + 1);
    memcpy(data2, data1, NB);
    data2[5000] ^= 0xff; /* only block 1 changes */
    fti_dcp_layer l1, l2;
    write_layer(1, data1, NULL, 0, NULL, &l1);
    write_layer(2, data2, data1, 1, &l1, &l2);
    assert_int_equal(l2.data_size, BS); /* one block stored */
    fti_dcp_layer_free(&l1);
    fti_dcp_layer_free(&l2);
    fti_log_quiet(1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fti_log_quiet(0);
    return fti_test_scratch_remove(dir);
}

/* Assembles layer seq into a scratch file; on success checks its data. */
static fti_err assemble(uint64_t seq, const unsigned char *want)
{
    char out[2048];
    snprintf(out, sizeof out, "%s/image", dir);
    int fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
    fti_err e = fti_dcp_assemble(dir, 0, seq, fd, out);
    close(fd);
    if (e == FTI_E_OK) {
        fti_file_header h;
        assert_int_equal(fti_file_verify(out, seq, 1, &h), FTI_E_OK);
        unsigned char got[NB];
        fd = open(out, O_RDONLY);
        assert_int_equal(fti_pread_full(fd, got, NB, (off_t)h.vars[0].offset), 0);
        close(fd);
        assert_memory_equal(got, want, NB);
        fti_file_header_free(&h);
    }
    return e;
}

/* Copies layer seq aside, applies damage at `off` (xor) or truncates, checks
 * the verdict, puts the original back. */
static void damaged(uint64_t seq, long off, int truncate_to, uint64_t check_seq, fti_err want)
{
    char path[FTI_PATH_MAX], cmd[3 * FTI_PATH_MAX];
    fti_path_dcp_layer(path, dir, 0, seq);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s.orig'", path, path);
    assert_int_equal(system(cmd), 0);
    int fd = open(path, O_RDWR);
    struct stat st;
    fstat(fd, &st);
    if (truncate_to)
        assert_int_equal(ftruncate(fd, st.st_size - 1), 0);
    else {
        unsigned char c;
        off_t at = off >= 0 ? off : st.st_size + off;
        assert_int_equal(fti_pread_full(fd, &c, 1, at), 0);
        c ^= 0x10;
        assert_int_equal(fti_pwrite_full(fd, &c, 1, at), 0);
    }
    close(fd);
    assert_int_equal(assemble(check_seq, data2), want);
    snprintf(cmd, sizeof cmd, "mv '%s.orig' '%s'", path, path);
    assert_int_equal(system(cmd), 0);
}

static void test_roundtrip(void **state)
{
    (void)state;
    assert_int_equal(assemble(1, data1), FTI_E_OK);
    assert_int_equal(assemble(2, data2), FTI_E_OK);
}

static void test_damage(void **state)
{
    (void)state;
    damaged(2, 0, 0, 2, FTI_E_CORRUPT);      /* magic */
    damaged(2, 20, 0, 2, FTI_E_CORRUPT);     /* fixed header (checksum) */
    damaged(2, 130, 0, 2, FTI_E_CORRUPT);    /* image header */
    damaged(2, -10, 0, 2, FTI_E_CORRUPT);    /* this layer's block */
    damaged(1, -10, 0, 2, FTI_E_CORRUPT);    /* an older layer's block it uses */
    damaged(2, 0, 1, 2, FTI_E_CORRUPT);      /* truncated */
    damaged(1, 20, 0, 2, FTI_E_CORRUPT);     /* the base's header */
    assert_int_equal(assemble(3, data2), FTI_E_MISSING); /* no such layer */
}

static void test_map_checksum(void **state)
{
    (void)state;
    fti_dcp_layer l;
    char path[FTI_PATH_MAX];
    fti_path_dcp_layer(path, dir, 0, 2);
    assert_int_equal(fti_dcp_read(path, 0, 2, &l), FTI_E_OK);
    long map_at = FTI_DCP_FIXED + (long)l.image.data_offset;
    fti_dcp_layer_free(&l);
    damaged(2, map_at + 3, 0, 2, FTI_E_CORRUPT);  /* an entry */
    assert_int_equal(fti_dcp_read(path, 1, 2, &l), FTI_E_CORRUPT); /* another rank's */
    assert_int_equal(fti_dcp_read(path, 0, 5, &l), FTI_E_CORRUPT); /* another seq */
}

static void test_missing_base(void **state)
{
    (void)state;
    char path[FTI_PATH_MAX], moved[FTI_PATH_MAX + 8];
    fti_path_dcp_layer(path, dir, 0, 1);
    snprintf(moved, sizeof moved, "%s.away", path);
    assert_int_equal(rename(path, moved), 0);
    assert_int_equal(assemble(2, data2), FTI_E_MISSING);
    assert_int_equal(rename(moved, path), 0);
}

/* A layer whose variable checksum does not match its block hashes (every
 * block intact, the header checksums right): refused, not assembled; the
 * file assembled from a good layer carries the XXH3-64 of the bytes. */
static void test_var_sum(void **state)
{
    (void)state;
    fti_dcp_layer l3;
    bad_sum = 1;
    write_layer(3, data1, NULL, 0, NULL, &l3);
    bad_sum = 0;
    fti_dcp_layer_free(&l3);
    assert_int_equal(assemble(3, data1), FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "do not match its checksum"));
    char path[FTI_PATH_MAX];
    fti_path_dcp_layer(path, dir, 0, 3);
    assert_int_equal(unlink(path), 0);
    char out[2048];
    snprintf(out, sizeof out, "%s/image", dir);
    assert_int_equal(assemble(2, data2), FTI_E_OK);
    fti_file_header h;
    assert_int_equal(fti_file_verify(out, 2, 1, &h), FTI_E_OK);
    assert_true(h.vars[0].checksum == fti_hash_buffer(data2, NB));
    fti_file_header_free(&h);
}

/* The header region of layer 2 patched from layer 1's (only the entries
 * that differ encoded again) is byte for byte layer 2's own encoding; a
 * layer laid out otherwise is refused and leaves the buffer as it was. */
static void test_encode_patch(void **state)
{
    (void)state;
    fti_dcp_layer l1, l2;
    char path[FTI_PATH_MAX];
    fti_path_dcp_layer(path, dir, 0, 1);
    assert_int_equal(fti_dcp_read(path, 0, 1, &l1), FTI_E_OK);
    fti_path_dcp_layer(path, dir, 0, 2);
    assert_int_equal(fti_dcp_read(path, 0, 2, &l2), FTI_E_OK);
    assert_true(memcmp(&l1.map[1], &l2.map[1], sizeof l1.map[1]) != 0);
    unsigned char *buf, *want;
    assert_int_equal(fti_dcp_encode(&l1, &buf), FTI_E_OK);
    assert_int_equal(fti_dcp_encode(&l2, &want), FTI_E_OK);
    assert_true(memcmp(buf, want, l2.data_offset) != 0);
    assert_int_equal(fti_dcp_encode_patch(&l2, &l1, buf), 0);
    assert_memory_equal(buf, want, l2.data_offset);
    unsigned char *before = malloc(l2.data_offset);
    memcpy(before, buf, l2.data_offset);
    fti_dcp_layer other = l2;
    other.nblocks++;
    assert_int_equal(fti_dcp_encode_patch(&other, &l2, buf), -1);
    other = l2;
    other.image.nvars = 0;
    assert_int_equal(fti_dcp_encode_patch(&other, &l2, buf), -1);
    assert_memory_equal(buf, before, l2.data_offset);
    free(before);
    free(buf);
    free(want);
    fti_dcp_layer_free(&l1);
    fti_dcp_layer_free(&l2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_damage),
        cmocka_unit_test(test_map_checksum),
        cmocka_unit_test(test_missing_base),
        cmocka_unit_test(test_var_sum),
        cmocka_unit_test(test_encode_patch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
