/*
 * test_l4_shared.c - the shared global file of ckpt_io = 2
 * (src/format/l4_shared.c), read by the library and fti-ckpt alike: every
 * rank's piece is found from a file built with the encoders; a damaged
 * header or index entry, another checkpoint, a file cut before its index
 * or inside a piece are each rejected with FTI_E_CORRUPT and a message
 * naming the file (and the caller's prefix).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format/l4_shared.h"
#include "base/le_field.h"
#include "base/log.h"

#define NRANKS 3
#define SEQ 12

static unsigned char file[3 * 4096 + 4096 + 100];
static uint64_t file_len;
static const uint64_t piece_len[NRANKS] = {5000, 0, 100};

static int mem_read(void *arg, void *buf, size_t n, uint64_t off)
{
    (void)arg;
    if (off > file_len || n > file_len - off)
        return -1;
    memcpy(buf, file + off, n);
    return 0;
}

/* Builds the file the way l4_mpiio.c lays it out: pieces of 5000, 0 and
 * 100 bytes at aligned offsets after the index. */
static int setup(void **state)
{
    (void)state;
    memset(file, 0, sizeof file);
    fti_l4sh_encode_header(file, NRANKS, SEQ, 0);
    uint64_t at = fti_l4sh_data_offset(NRANKS);
    for (int r = 0; r < NRANKS; r++) {
        fti_l4sh_encode_entry(file + FTI_L4SH_HEADER + r * FTI_L4SH_ENTRY, at, piece_len[r], r);
        memset(file + at, 'a' + r, piece_len[r]);
        at += fti_l4sh_align(piece_len[r]);
    }
    file_len = at - fti_l4sh_align(piece_len[NRANKS - 1]) + piece_len[NRANKS - 1];
    fti_log_quiet(1);
    return 0;
}

static fti_err find(int rank, const char *who, uint64_t *off, uint64_t *len)
{
    fti_l4_io src = {mem_read, NULL, NULL};
    fti_clear_error();
    return fti_l4sh_find_piece(&src, file_len, NRANKS, SEQ, rank, who, "g/l4-s0-shared.fti", off, len);
}

static void assert_rejected(int rank, const char *what)
{
    uint64_t off, len;
    assert_int_equal(find(rank, "L4 rank 1", &off, &len), FTI_E_CORRUPT);
    const char *msg = fti_last_error(), *head = "L4 rank 1: shared global file g/l4-s0-shared.fti";
    if (strncmp(msg, head, strlen(head)) != 0 ||
        strstr(msg, what) == NULL)
        fail_msg("message '%s' should name the file and '%s'", msg, what);
}

static void test_layout(void **state)
{
    (void)state;
    assert_int_equal(fti_l4sh_align(0), 0);
    assert_int_equal(fti_l4sh_align(1), 4096);
    assert_int_equal(fti_l4sh_align(4096), 4096);
    assert_int_equal(fti_l4sh_data_offset(3), 4096);
    assert_int_equal(fti_l4sh_data_offset(128), 8192); /* 64 + 128 * 32 bytes */
    assert_memory_equal(file, "FTIL4SH\0", 8);
    assert_int_equal(fti_le_get64(file + 32), 4096); /* the data offset, in the header */
}

static void test_every_piece_found(void **state)
{
    (void)state;
    uint64_t off, len, want = fti_l4sh_data_offset(NRANKS);
    for (int r = 0; r < NRANKS; r++) {
        assert_int_equal(find(r, NULL, &off, &len), FTI_E_OK);
        assert_int_equal(off, want);
        assert_int_equal(len, piece_len[r]);
        if (len > 0)
            assert_int_equal(file[off + len - 1], 'a' + r);
        want += fti_l4sh_align(piece_len[r]);
    }
}

static void test_damage_rejected(void **state)
{
    (void)state;
    file[3] ^= 1;
    assert_rejected(0, ": header corrupt");
    file[3] ^= 1;
    file[FTI_L4SH_HEADER + 2 * FTI_L4SH_ENTRY + 1] ^= 1; /* rank 2's offset */
    assert_rejected(2, ": index entry of rank 2 corrupt");
    assert_int_equal(find(1, NULL, &(uint64_t){0}, &(uint64_t){0}), FTI_E_OK); /* rank 1's is whole */
    file[FTI_L4SH_HEADER + 2 * FTI_L4SH_ENTRY + 1] ^= 1;
}

static void test_other_checkpoint_rejected(void **state)
{
    (void)state;
    uint64_t off, len;
    fti_l4_io src = {mem_read, NULL, NULL};
    assert_int_equal(fti_l4sh_find_piece(&src, file_len, NRANKS, SEQ + 1, 0, NULL, "g/x.fti", &off, &len),
                     FTI_E_CORRUPT);
    assert_string_equal(fti_last_error(), "shared global file g/x.fti holds checkpoint #12 of 3 ranks "
                                          "(version 1), expected #13 of 3");
    assert_int_equal(fti_l4sh_find_piece(&src, file_len, 4, SEQ, 0, NULL, "g/x.fti", &off, &len),
                     FTI_E_CORRUPT);
    assert_non_null(strstr(fti_last_error(), "expected #12 of 4"));
}

static void test_truncation_rejected(void **state)
{
    (void)state;
    uint64_t whole = file_len;
    file_len = 4095; /* the index is padded to 4096 */
    assert_rejected(0, "is truncated (4095 bytes, no complete index)");
    file_len = whole - 1;
    assert_rejected(2, "is truncated: the piece of rank 2 ends at byte 12388, the file has 12387");
    file_len = whole;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_every_piece_found),
        cmocka_unit_test(test_damage_rejected),
        cmocka_unit_test(test_other_checkpoint_rejected),
        cmocka_unit_test(test_truncation_rejected),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
