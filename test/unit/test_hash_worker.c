/* hash_worker.c: chunks posted in order hash to the one-shot hash of their
 * concatenation; a buffer may be overwritten once the next post or a wait
 * returned (the worker no longer reads it); a worker that did not start
 * (no hash asked) is safe to wait on and stop. Where this process may run
 * on one CPU only the worker does not start, and the test says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fill.h"
#include "base/hash_worker.h"

#define PIECE ((size_t)3 << 20)
#define PIECES 7

/* Chunks posted back to back from a working copy; once the next post
 * returned, the previous chunk's bytes are scribbled over, as the capture
 * pipeline refills a buffer: the hash must be that of the original bytes. */
static void test_ordered_chunks_back_to_back(void **state)
{
    (void)state;
    size_t total = PIECE * PIECES - 12345; /* a short last chunk */
    unsigned char *all = malloc(total), *work = malloc(total);
    assert_non_null(all);
    assert_non_null(work);
    fti_test_fill(all, total, 7);
    memcpy(work, all, total);
    fti_hash h;
    assert_int_equal(fti_hash_init(&h), 0);
    fti_hash_worker w;
    if (fti_hash_worker_start(&w, &h) != 0) {
        fti_hash_free(&h);
        free(all), free(work);
        skip(); /* one CPU: the pipeline hashes inline (tested by test_hashed_io) */
    }
    for (size_t off = 0; off < total; off += PIECE) {
        size_t len = total - off < PIECE ? total - off : PIECE;
        fti_hash_worker_post(&w, work + off, len);
        if (off > 0) /* the previous chunk's job is done: its bytes are free */
            memset(work + off - PIECE, 0xEE, PIECE);
    }
    fti_hash_worker_wait(&w);
    memset(work, 0xDD, total);
    fti_hash_worker_stop(&w);
    assert_true(fti_hash_final(&h) == fti_hash_buffer(all, total));
    fti_hash_free(&h);
    free(all), free(work);
}

static void test_not_started_is_harmless(void **state)
{
    (void)state;
    fti_hash_worker w;
    assert_int_equal(fti_hash_worker_start(&w, NULL), -1);
    assert_int_equal(w.running, 0);
    fti_hash_worker_wait(&w);
    fti_hash_worker_stop(&w);
    fti_hash_worker_stop(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ordered_chunks_back_to_back),
        cmocka_unit_test(test_not_started_is_harmless),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
