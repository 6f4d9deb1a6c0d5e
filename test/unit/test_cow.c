/*
 * test_cow.c - copy-on-write snapshots (data/cow.c): the bytes read through
 * the snapshot are those of the moment it was taken, whatever the
 * application wrote meanwhile (partial pages, a variable without a whole
 * page, pages split across the reader's chunks); with the pool full, a
 * writing thread waits until the reader has taken its page and the bytes
 * are still exact; a device variable or a replaced SIGSEGV handler refuses
 * the snapshot and leaves nothing protected; after the end everything is
 * writable. With cow_huge_pages, a variable in 4 KiB pages is collapsed
 * into huge pages at its snapshot, its bytes stay exact when every page is
 * rewritten during the drain, and the pages the faults split are huge
 * again after it; where the kernel refuses (THP disabled for the process),
 * the refusal is said once and the snapshot still exact.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/capture.h"
#include "data/cow.h"
#include "data/dirty_pages.h"
#include "emu/emu.h"

enum { T_CHAR = 0 };

static size_t pg;

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 7 + seed + i / 4096);
}

/* Variable i of the snapshot, read as the file writer reads it: through
 * the capture pipeline in chunks of `chunk` bytes. */
static void read_var(fti_cow *c, int i, unsigned char *dst, size_t chunk)
{
    const fti_var *v = &fti_cow_registry(c)->vars[i];
    char err[256] = "";
    int rc = fti_capture_to_memory(NULL, v->dev, v->ptr, (size_t)fti_var_bytes(v), dst, chunk, err,
                                   sizeof err);
    if (rc != 0)
        fail_msg("capture: %s", err);
}

/* Every byte written after the snapshot, pages split across chunks of 3000
 * bytes, a variable starting and ending inside pages and one of 100 bytes. */
static void snapshot_exact_after_writes(void **state)
{
    (void)state;
    size_t n = 40 * pg + 333;
    unsigned char *mem = aligned_alloc(pg, 42 * pg), *a = mem + 100;
    unsigned char small[100], want_a[40 * 4096 + 333], want_s[100];
    assert_true(n <= sizeof want_a);
    fill(a, n, 1);
    fill(small, sizeof small, 2);
    memcpy(want_a, a, n);
    memcpy(want_s, small, sizeof small);
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 1, a, (int64_t)n, T_CHAR), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 2, small, sizeof small, T_CHAR), FTI_E_OK);
    fti_cow *c = fti_cow_new(64 * pg);
    char why[512] = "";
    if (fti_cow_take(c, &reg, why, sizeof why) != 0)
        fail_msg("fti_cow_take: %s", why);
    assert_true(fti_cow_active(c));
    memset(a, 0xab, n); /* the application moves on: every page faults once */
    memset(small, 0xcd, sizeof small);
    unsigned char *got = malloc(n);
    read_var(c, 0, got, 3000);
    assert_memory_equal(got, want_a, n);
    read_var(c, 1, got, 3000);
    assert_memory_equal(got, want_s, sizeof small);
    fti_cow_stats st;
    fti_cow_end(c, &st);
    assert_false(fti_cow_active(c));
    assert_int_equal(st.pooled, 39); /* the whole pages inside a, each copied once */
    assert_int_equal(st.waits, 0);
    assert_int_equal(a[0] + a[n - 1], 2 * 0xab); /* the writes landed */
    memset(a, 0x11, n); /* and memory is writable without faults */
    assert_int_equal(a[5 * pg], 0x11);
    fti_cow_free(c);
    fti_registry_free(&reg);
    free(got);
    free(mem);
}

typedef struct scribbler {
    unsigned char *p;
    size_t n;
    _Atomic int done;
} scribbler;

/* Another thread of the application overwrites everything, page by page. */
static void *scribble(void *arg)
{
    scribbler *s = arg;
    for (size_t off = 0; off < s->n; off += pg)
        memset(s->p + off, 0x5a, s->n - off < pg ? s->n - off : pg);
    atomic_store(&s->done, 1);
    return NULL;
}

/* A pool of 2 pages for 64 written pages: the writing thread waits for the
 * reader, which takes the pages in order; no byte of the snapshot is lost. */
static void pool_full_writer_waits(void **state)
{
    (void)state;
    size_t n = 64 * pg;
    unsigned char *a = aligned_alloc(pg, n), *want = malloc(n), *got = malloc(n);
    fill(a, n, 3);
    memcpy(want, a, n);
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 9, a, (int64_t)n, T_CHAR), FTI_E_OK);
    fti_cow *c = fti_cow_new(2 * pg);
    char why[512] = "";
    if (fti_cow_take(c, &reg, why, sizeof why) != 0)
        fail_msg("fti_cow_take: %s", why);
    scribbler s = {a, n, 0};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, scribble, &s), 0);
    struct timespec nap = {0, 20 * 1000 * 1000};
    nanosleep(&nap, NULL); /* the scribbler fills the pool and waits */
    assert_false(atomic_load(&s.done));
    const fti_var *v = &fti_cow_registry(c)->vars[0];
    for (size_t off = 0; off < n; off += pg) { /* the reader, a page at a time */
        assert_int_equal(v->dev->to_host(NULL, got + off, v->ptr, off, pg), 0);
        nanosleep(&(struct timespec){0, 200 * 1000}, NULL);
    }
    pthread_join(t, NULL);
    assert_memory_equal(got, want, n);
    fti_cow_stats st;
    fti_cow_end(c, &st);
    assert_true(st.waits >= 1);
    assert_true(st.peak_slots <= 2);
    for (size_t i = 0; i < n; i++)
        if (a[i] != 0x5a)
            fail_msg("byte %zu: the scribbler's write was lost (%#x)", i, a[i]);
    fti_cow_free(c);
    fti_registry_free(&reg);
    free(a);
    free(want);
    free(got);
}

/* A device variable after a host one: refused, naming it; the host one is
 * not left protected. */
static void device_variable_refused(void **state)
{
    (void)state;
    size_t n = 8 * pg;
    unsigned char *a = aligned_alloc(pg, n);
    fill(a, n, 4);
    void *d = fti_emu_malloc(4096);
    assert_non_null(d);
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 1, a, (int64_t)n, T_CHAR), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 2, d, 4096, T_CHAR), FTI_E_OK);
    assert_non_null(reg.vars[1].dev);
    fti_cow *c = fti_cow_new(pg);
    char why[512] = "";
    assert_int_equal(fti_cow_take(c, &reg, why, sizeof why), -1);
    if (strstr(why, "variable 2 is emu device memory") == NULL)
        fail_msg("why: %s", why);
    assert_false(fti_cow_active(c));
    assert_false(fti_dirty_tracked(a, n, 1));
    a[3 * pg] = 1; /* writable, no fault */
    fti_cow_free(c);
    fti_registry_free(&reg);
    fti_emu_free(d);
    free(a);
}

static void app_handler(int sig)
{
    (void)sig;
}

/* The application installed its own SIGSEGV handler over the tracker's:
 * faults would not reach us, so no snapshot. */
static void replaced_handler_refused(void **state)
{
    (void)state;
    size_t n = 4 * pg;
    unsigned char *a = aligned_alloc(pg, n);
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 1, a, (int64_t)n, T_CHAR), FTI_E_OK);
    fti_cow *c = fti_cow_new(pg);
    char why[512] = "";
    if (fti_cow_take(c, &reg, why, sizeof why) != 0)
        fail_msg("fti_cow_take: %s", why); /* installs the tracker */
    fti_cow_end(c, NULL);
    struct sigaction mine = {0}, ours;
    mine.sa_handler = app_handler;
    assert_int_equal(sigaction(SIGSEGV, &mine, &ours), 0);
    assert_int_equal(fti_cow_take(c, &reg, why, sizeof why), -1);
    assert_non_null(strstr(why, "replaced the SIGSEGV handler"));
    memset(a, 1, n); /* nothing protected */
    sigaction(SIGSEGV, &ours, NULL);
    fti_dirty_release_all();
    fti_cow_free(c);
    fti_registry_free(&reg);
    free(a);
}

#define HUGE ((size_t)2 << 20)

/* AnonHugePages (kB) of the mapping holding addr, from /proc/self/smaps. */
static long anon_huge_kb(const void *addr)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    long kb = -1;
    int in = 0;
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
        else if (in && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
            break;
    }
    if (f != NULL)
        fclose(f);
    return kb;
}

/* 8 MiB in 4 KiB pages (touched before any advice), 100 bytes into a
 * mapping: the first snapshot advises its interior (6 MiB whole huge
 * pages at least), which the end of the drain collapses; the next
 * snapshot advises nothing; every page rewritten before the reader reads
 * it: the bytes read are the snapshot's, and after the end the interior is
 * huge again (the faults had split it). */
static void huge_pages_exact_and_collapsed_again(void **state)
{
    (void)state;
    size_t n = 8 << 20, map = n + 2 * HUGE;
    unsigned char *mem = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    assert_true(mem != MAP_FAILED);
    madvise(mem, map, MADV_NOHUGEPAGE); /* as an application's malloc gives it: 4 KiB pages */
    unsigned char *a = mem + 100, *want = malloc(n), *got = malloc(n);
    fill(a, n, 5);
    assert_int_equal(anon_huge_kb(a + HUGE), 0);
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 3, a, (int64_t)n, T_CHAR), FTI_E_OK);
    fti_cow *c = fti_cow_new(n + HUGE);
    fti_cow_huge_pages(c, 1);
    char why[512] = "";
    fti_cow_stats st;
    for (int round = 0; round < 2; round++) {
        fill(a, n, 5 + round);
        memcpy(want, a, n);
        if (fti_cow_take(c, &reg, why, sizeof why) != 0)
            fail_msg("fti_cow_take: %s", why);
        size_t advised = fti_cow_last_take(c)->huge_bytes;
        if (round == 0)
            assert_true(advised >= 3 * HUGE && advised <= n); /* 6 or 7 MiB */
        else
            assert_int_equal(advised, 0); /* known: not advised twice */
        scribbler s = {a, n, 0};
        scribble(&s); /* every page faults: a huge one is split */
        read_var(c, 0, got, 1 << 20);
        assert_memory_equal(got, want, n);
        fti_cow_end(c, &st);
        if (fti_cow_huge_note(c, why, sizeof why))
            skip(); /* this kernel refuses huge pages: the next test covers that */
        assert_true(st.collapse_s > 0);
        long kb = anon_huge_kb(a + HUGE);
        if (kb < 6 * 1024)
            fail_msg("round %d: after the drain %ld kB of the interior in huge pages, want >= 6144",
                     round, kb);
        for (size_t i = 0; i < n; i += 4093)
            if (a[i] != 0x5a)
                fail_msg("byte %zu: the application's write was lost (%#x)", i, a[i]);
    }
    fti_cow_free(c);
    fti_registry_free(&reg);
    munmap(mem, map);
    free(want);
    free(got);
}

/* At FTI_Protect: 8 MiB in 4 KiB pages collapsed at once (the interior
 * huge, a time returned); a second call and the snapshot advise nothing
 * more; the snapshot is exact. */
static void huge_pages_at_protect(void **state)
{
    (void)state;
    size_t n = 8 << 20, map = n + 2 * HUGE;
    unsigned char *mem = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    assert_true(mem != MAP_FAILED);
    madvise(mem, map, MADV_NOHUGEPAGE);
    unsigned char *a = mem + 64, *want = malloc(n), *got = malloc(n);
    fill(a, n, 9);
    memcpy(want, a, n);
    fti_cow *c = fti_cow_new(HUGE);
    fti_cow_huge_pages(c, 1);
    double secs = fti_cow_prefer_huge(c, a, n);
    char why[512] = "";
    if (fti_cow_huge_note(c, why, sizeof why))
        skip();
    assert_true(secs > 0);
    assert_true(anon_huge_kb(a + HUGE) >= 6 * 1024);
    assert_true(fti_cow_prefer_huge(c, a, n) == 0); /* known */
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 6, a, (int64_t)n, T_CHAR), FTI_E_OK);
    if (fti_cow_take(c, &reg, why, sizeof why) != 0)
        fail_msg("fti_cow_take: %s", why);
    assert_int_equal(fti_cow_last_take(c)->huge_bytes, 0);
    read_var(c, 0, got, 1 << 20);
    assert_memory_equal(got, want, n);
    fti_cow_end(c, NULL);
    fti_cow_free(c);
    fti_registry_free(&reg);
    munmap(mem, map);
    free(want);
    free(got);
}

/* 96 MiB: a drain's end collapses at least one step (32 MiB) and then
 * stops at the drain's own length; the next drains go on where it
 * stopped, until the whole interior is huge (4 drains at most). */
static void huge_pages_collapse_spread_over_drains(void **state)
{
    (void)state;
    size_t n = 96 << 20, map = n + 2 * HUGE;
    unsigned char *mem = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
    assert_true(mem != MAP_FAILED);
    madvise(mem, map, MADV_NOHUGEPAGE);
    unsigned char *a = mem + 4096;
    fill(a, n, 8);
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 5, a, (int64_t)n, T_CHAR), FTI_E_OK);
    fti_cow *c = fti_cow_new(HUGE);
    fti_cow_huge_pages(c, 1);
    char why[512] = "";
    long kb = 0, first = 0;
    int drains = 0;
    while (kb < 94 * 1024 && drains < 4) {
        if (fti_cow_take(c, &reg, why, sizeof why) != 0)
            fail_msg("fti_cow_take: %s", why);
        fti_cow_end(c, NULL); /* a drain of no time: one step of collapse */
        if (fti_cow_huge_note(c, why, sizeof why))
            skip();
        kb = anon_huge_kb(a + HUGE);
        first = drains++ == 0 ? kb : first;
    }
    assert_true(first >= 32 * 1024);
    if (kb < 94 * 1024)
        fail_msg("after %d drains %ld kB in huge pages (first %ld), want >= 96256", drains, kb,
                 first);
    fti_cow_free(c);
    fti_registry_free(&reg);
    munmap(mem, map);
}

/* THP disabled for the process (prctl): the writer's MADV_COLLAPSE is
 * refused with EINVAL; the note names the call, once; the snapshot is
 * exact in 4 KiB pages. */
static void huge_pages_refused_said_once(void **state)
{
    (void)state;
    size_t n = 4 << 20;
    unsigned char *mem = aligned_alloc(HUGE, n + HUGE), *a = mem + 300;
    unsigned char *want = malloc(n), *got = malloc(n);
    fill(a, n, 6);
    memcpy(want, a, n);
    if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0)
        skip();
    fti_registry reg;
    assert_int_equal(fti_registry_init(&reg), FTI_E_OK);
    assert_int_equal(fti_registry_protect(&reg, 4, a, (int64_t)n, T_CHAR), FTI_E_OK);
    fti_cow *c = fti_cow_new(n);
    fti_cow_huge_pages(c, 1);
    char why[512] = "", note[256] = "";
    int rc = fti_cow_take(c, &reg, why, sizeof why);
    if (rc == 0) {
        memset(a, 0x77, n);
        read_var(c, 0, got, 1 << 20);
        fti_cow_end(c, NULL); /* the writer's collapse is refused */
    }
    int said = fti_cow_huge_note(c, note, sizeof note);
    prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
    if (rc != 0)
        fail_msg("fti_cow_take: %s", why);
    assert_int_equal(said, 1);
    if (strstr(note, "madvise(MADV_COLLAPSE) refused: Invalid argument") == NULL &&
        strstr(note, "madvise(MADV_HUGEPAGE) refused: Invalid argument") == NULL)
        fail_msg("note: %s", note);
    assert_int_equal(fti_cow_huge_note(c, note, sizeof note), 0); /* said once */
    assert_int_equal(anon_huge_kb(a + HUGE), 0);
    assert_memory_equal(got, want, n);
    assert_int_equal(a[n / 2], 0x77);
    fti_cow_free(c);
    fti_registry_free(&reg);
    free(mem);
    free(want);
    free(got);
}

int main(void)
{
    pg = (size_t)sysconf(_SC_PAGESIZE);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshot_exact_after_writes),
        cmocka_unit_test(pool_full_writer_waits),
        cmocka_unit_test(device_variable_refused),
        cmocka_unit_test(replaced_handler_refused),
        cmocka_unit_test(huge_pages_exact_and_collapsed_again),
        cmocka_unit_test(huge_pages_collapse_spread_over_drains),
        cmocka_unit_test(huge_pages_at_protect),
        cmocka_unit_test(huge_pages_refused_said_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
