/*
 * test_dirty_pages.c - the page write tracker of differential checkpoints:
 * written pages are reported and unwritten ones are not, a reset starts a
 * clean interval, partial pages always count, writes from another thread
 * are seen, a fault outside tracked memory reaches the application's own
 * SIGSEGV handler, and released memory takes kernel-side writes again.
 * A reset protects again only the runs of written pages: their first and
 * last pages fault again, and a thread writing during resets never leaves
 * a changed page reported clean.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "data/dirty_pages.h"

#define NPAGES 16

static size_t pg;

static char *map_pages(size_t n, int prot)
{
    void *p = mmap(NULL, n * pg, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(p != MAP_FAILED);
    return p;
}

/* Which of the n pages of set s are dirty, as a bit mask. */
static uint32_t dirty_mask(const fti_dirty_set *s, size_t n)
{
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (fti_dirty_set_any(s, i * pg, pg))
            m |= 1u << i;
    return m;
}

static uint32_t reset_mask(char *p, size_t n)
{
    fti_dirty_set s;
    char why[256];
    assert_int_equal(fti_dirty_reset(p, n * pg, 7, &s, why, sizeof why), 0);
    uint32_t m = dirty_mask(&s, n);
    fti_dirty_set_free(&s);
    return m;
}

static void written_pages_reported(void **state)
{
    (void)state;
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256] = "";
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 7, why, sizeof why), 0);
    assert_true(fti_dirty_tracked(p, NPAGES * pg, 7));
    p[0] = 5; /* written after tracking began: reported by the first reset */
    assert_int_equal(reset_mask(p, NPAGES), 1u);
    p[3 * pg + 17] = 1;
    p[9 * pg] = 2;
    p[9 * pg + pg - 1] = 3;
    assert_int_equal(reset_mask(p, NPAGES), (1u << 3) | (1u << 9));
    assert_int_equal(p[3 * pg + 17] + p[9 * pg] + p[9 * pg + pg - 1], 6); /* the writes landed */
    assert_int_equal(reset_mask(p, NPAGES), 0); /* nothing since the reset */
    p[15 * pg] = 4;
    assert_int_equal(reset_mask(p, NPAGES), 1u << 15);
    fti_dirty_release_all();
    assert_false(fti_dirty_tracked(p, NPAGES * pg, 7));
    munmap(p, NPAGES * pg);
}

/* A region that starts and ends inside pages: those two pages are not
 * protected (other data may live there) and always count as dirty. */
static void partial_pages_always_dirty(void **state)
{
    (void)state;
    char *m = map_pages(6, PROT_READ | PROT_WRITE), why[256];
    char *p = m + 100;
    size_t n = 4 * pg;
    assert_int_equal(fti_dirty_track(p, n, 7, why, sizeof why), 0);
    fti_dirty_set s;
    assert_int_equal(fti_dirty_reset(p, n, 7, &s, why, sizeof why), 0);
    fti_dirty_set_free(&s);
    m[50] = 1; /* before the region, in its first page: not protected */
    assert_int_equal(fti_dirty_reset(p, n, 7, &s, why, sizeof why), 0);
    assert_true(fti_dirty_set_any(&s, 0, 10));             /* partial head */
    assert_false(fti_dirty_set_any(&s, pg - 100, pg));     /* whole page 1, clean */
    assert_true(fti_dirty_set_any(&s, n - 10, 10));        /* partial tail */
    fti_dirty_set_free(&s);
    fti_dirty_release_all();
    munmap(m, 6 * pg);
}

static void small_region_refused(void **state)
{
    (void)state;
    char *m = map_pages(1, PROT_READ | PROT_WRITE), why[256] = "";
    assert_int_equal(fti_dirty_track(m + 8, pg - 16, 7, why, sizeof why), -1);
    assert_non_null(strstr(why, "no whole page"));
    fti_dirty_set s;
    assert_int_equal(fti_dirty_reset(m + 8, pg - 16, 7, &s, why, sizeof why), -1);
    munmap(m, pg);
}

static void *writer(void *arg)
{
    ((char *)arg)[5 * pg + 1] = 9;
    return NULL;
}

static void other_thread_seen(void **state)
{
    (void)state;
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256];
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 7, why, sizeof why), 0);
    reset_mask(p, NPAGES);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, writer, p), 0);
    pthread_join(t, NULL);
    assert_int_equal(reset_mask(p, NPAGES), 1u << 5);
    assert_int_equal(p[5 * pg + 1], 9);
    fti_dirty_release_all();
    munmap(p, NPAGES * pg);
}

/* ---- the application's own handler --------------------------------------- */

static sigjmp_buf app_jump;
static void *volatile app_fault_addr;

static void app_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    app_fault_addr = si->si_addr;
    siglongjmp(app_jump, 1);
}

static void foreign_fault_reaches_application(void **state)
{
    (void)state;
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = app_handler;
    act.sa_flags = SA_SIGINFO;
    sigemptyset(&act.sa_mask);
    assert_int_equal(sigaction(SIGSEGV, &act, &old), 0);
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256];
    char *ro = map_pages(1, PROT_READ); /* not tracked: the application's fault */
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 7, why, sizeof why), 0);
    reset_mask(p, NPAGES);
    p[2 * pg] = 1; /* ours: handled without the application seeing it */
    assert_null(app_fault_addr);
    if (sigsetjmp(app_jump, 1) == 0) {
        ((volatile char *)ro)[7] = 1;
        fail_msg("a write to a read-only page went through");
    }
    assert_ptr_equal(app_fault_addr, ro + 7);
    assert_int_equal(reset_mask(p, NPAGES), 1u << 2);
    fti_dirty_release_all();
    struct sigaction now;
    sigaction(SIGSEGV, NULL, &now);
    assert_ptr_equal(now.sa_sigaction, app_handler); /* given back */
    sigaction(SIGSEGV, &old, NULL);
    munmap(p, NPAGES * pg);
    munmap(ro, pg);
}

/* An application that installs its handler after ours: seen, so that the
 * caller stops tracking before a tracked page's fault reaches it. */
static void replaced_handler_detected(void **state)
{
    (void)state;
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256];
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 7, why, sizeof why), 0);
    assert_true(fti_dirty_handler_intact());
    struct sigaction act, ours;
    memset(&act, 0, sizeof act);
    act.sa_sigaction = app_handler;
    act.sa_flags = SA_SIGINFO;
    sigemptyset(&act.sa_mask);
    sigaction(SIGSEGV, &act, &ours);
    assert_false(fti_dirty_handler_intact());
    sigaction(SIGSEGV, &ours, NULL);
    assert_true(fti_dirty_handler_intact());
    fti_dirty_release_all();
    munmap(p, NPAGES * pg);
}

/* The limit that makes tracking opt-in: the kernel does not fault on a
 * protected page, it fails the call (EFAULT). Released memory takes the
 * write again. */
static void kernel_writes_after_release(void **state)
{
    (void)state;
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256];
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 7, why, sizeof why), 0);
    assert_int_equal(write(fds[1], "abc", 3), 3);
    errno = 0;
    assert_int_equal(read(fds[0], p + pg, 3), -1);
    assert_int_equal(errno, EFAULT);
    fti_dirty_release(p + pg, 3);
    assert_false(fti_dirty_tracked(p, NPAGES * pg, 7));
    assert_int_equal(read(fds[0], p + pg, 3), 3);
    assert_memory_equal(p + pg, "abc", 3);
    close(fds[0]);
    close(fds[1]);
    fti_dirty_release_all();
    munmap(p, NPAGES * pg);
}

/* A reset re-protects each run of written pages, first and last page
 * included, and leaves the pages between runs protected. */
static void runs_reprotected(void **state)
{
    (void)state;
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256];
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 7, why, sizeof why), 0);
    reset_mask(p, NPAGES);
    for (int i = 0; i < 4; i++) /* runs: 0-3, 5, 8-15 */
        p[i * pg] = 1;
    p[5 * pg] = 1;
    for (int i = 8; i < 16; i++)
        p[i * pg + 1] = 1;
    assert_int_equal(reset_mask(p, NPAGES), 0xff2fu);
    p[0] = 2, p[3 * pg] = 2, p[4 * pg] = 2, p[5 * pg] = 2, p[8 * pg] = 2, p[15 * pg + 7] = 2;
    assert_int_equal(reset_mask(p, NPAGES), (1u << 0) | (1u << 3) | (1u << 4) | (1u << 5) |
                                                (1u << 8) | (1u << 15));
    assert_int_equal(p[0] + p[3 * pg] + p[4 * pg] + p[5 * pg] + p[8 * pg] + p[15 * pg + 7], 12);
    assert_int_equal(reset_mask(p, NPAGES), 0);
    for (int i = 0; i < NPAGES; i++) /* every page, one run: all protected again */
        p[i * pg + 2] = 3;
    assert_int_equal(reset_mask(p, NPAGES), 0xffffu);
    p[7 * pg] = 4;
    assert_int_equal(reset_mask(p, NPAGES), 1u << 7);
    fti_dirty_release_all();
    munmap(p, NPAGES * pg);
}

/* What the hook saw: the byte each page held when its first write faulted. */
static int hook_calls;
static char hook_seen[NPAGES];
static char *hook_base;

static void before_write(void *arg, size_t index)
{
    assert_ptr_equal(arg, &hook_calls);
    hook_calls++;
    hook_seen[index] = hook_base[index * pg];
}

/* The copy-on-write hook runs once per page, before the write lands: it
 * still reads the page's old byte, and the write goes on afterwards. */
static void hook_sees_page_before_write(void **state)
{
    (void)state;
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256] = "";
    for (size_t i = 0; i < NPAGES; i++)
        p[i * pg] = (char)(10 + i);
    hook_base = p;
    hook_calls = 0;
    memset(hook_seen, 0, sizeof hook_seen);
    assert_int_equal(fti_dirty_track_hook(p, NPAGES * pg, 7, before_write, &hook_calls, why,
                                          sizeof why), 0);
    p[3 * pg] = 99;
    p[3 * pg + 1] = 98; /* the same page again: writable by now, no second call */
    p[12 * pg] = 97;
    assert_int_equal(hook_calls, 2);
    assert_int_equal(hook_seen[3], 13);
    assert_int_equal(hook_seen[12], 22);
    assert_int_equal(p[3 * pg], 99);
    assert_int_equal(p[12 * pg], 97);
    assert_int_equal(reset_mask(p, NPAGES), (1u << 3) | (1u << 12));
    fti_dirty_release_all();
    munmap(p, NPAGES * pg);
}

#define RACE_PAGES 64

static _Atomic int race_stop;

static void *race_writer(void *arg)
{
    volatile unsigned char *p = arg;
    for (unsigned i = 0; !atomic_load(&race_stop); i++) {
        size_t page = (i * 37u + i / 5u) % RACE_PAGES; /* runs and single pages */
        p[page * pg + i % pg] += 1;
    }
    return NULL;
}

/* A thread writes while the main thread resets: a page whose bytes differ
 * from the copy made after the reset before is reported by this reset or,
 * where the write came after this reset took the record, by the next one. */
static void write_racing_reset_seen(void **state)
{
    (void)state;
    size_t n = RACE_PAGES * pg;
    char *p = map_pages(RACE_PAGES, PROT_READ | PROT_WRITE), why[256];
    char *copy = malloc(n);
    assert_non_null(copy);
    memset(p, 0, n);
    assert_int_equal(fti_dirty_track(p, n, 7, why, sizeof why), 0);
    fti_dirty_set s;
    assert_int_equal(fti_dirty_reset(p, n, 7, &s, why, sizeof why), 0);
    fti_dirty_set_free(&s);
    memcpy(copy, p, n);
    atomic_store(&race_stop, 0);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, race_writer, p), 0);
    int stale = 0, dirty = 0;
    uint64_t changed = 0; /* pages found changed but reported clean: due next time */
    for (int round = 0; round < 2000; round++) {
        assert_int_equal(fti_dirty_reset(p, n, 7, &s, why, sizeof why), 0);
        uint64_t now = 0;
        for (size_t i = 0; i < RACE_PAGES; i++) {
            if (fti_dirty_set_any(&s, i * pg, pg)) {
                memcpy(copy + i * pg, p + i * pg, pg), dirty++;
            } else if ((changed >> i) & 1) {
                stale++; /* changed before the last reset, reported by neither */
            } else if (memcmp(copy + i * pg, p + i * pg, pg) != 0) {
                now |= (uint64_t)1 << i;
            }
        }
        changed = now;
        fti_dirty_set_free(&s);
    }
    atomic_store(&race_stop, 1);
    pthread_join(t, NULL);
    assert_int_equal(stale, 0);
    assert_true(dirty > 0);
    fti_dirty_release_all();
    free(copy);
    munmap(p, n);
}

/* A region tracked again over the pages of one just released, in a slot
 * after the released one's (a failed track left that slot free): a write
 * is the live region's, not a retry for the released one (which spun for
 * a second and then ended the process by SIGSEGV). */
static void live_region_before_released(void **state)
{
    (void)state;
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256] = "";
    char *gone = map_pages(2, PROT_READ | PROT_WRITE);
    munmap(gone, 2 * pg); /* mprotect fails there: its slot is left free */
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 7, why, sizeof why), 0);
    assert_int_equal(fti_dirty_track(gone, 2 * pg, 8, why, sizeof why), -1);
    fti_dirty_release(p, NPAGES * pg);
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 9, why, sizeof why), 0);
    fti_dirty_set s;
    assert_int_equal(fti_dirty_reset(p, NPAGES * pg, 9, &s, why, sizeof why), 0);
    fti_dirty_set_free(&s);
    p[2 * pg] = 5;
    assert_int_equal(fti_dirty_reset(p, NPAGES * pg, 9, &s, why, sizeof why), 0);
    assert_true(fti_dirty_set_any(&s, 2 * pg, 1));
    assert_false(fti_dirty_set_any(&s, 3 * pg, 1));
    fti_dirty_set_free(&s);
    fti_dirty_release_all();
    munmap(p, NPAGES * pg);
}

/* fti_dirty_set_clean_to: from any offset, the start of the next written
 * or partial page (the region starts and ends mid-page). */
static void clean_to_next_written_page(void **state)
{
    (void)state;
    char *m = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256];
    char *p = m + 100; /* whole pages 1 .. NPAGES-2 of m tracked */
    size_t n = NPAGES * pg - 200, first = pg - 100;
    assert_int_equal(fti_dirty_track(p, n, 8, why, sizeof why), 0);
    m[3 * pg + 5] = 1, m[7 * pg] = 1, m[8 * pg] = 1;
    fti_dirty_set s;
    assert_int_equal(fti_dirty_reset(p, n, 8, &s, why, sizeof why), 0);
    assert_int_equal(fti_dirty_set_clean_to(&s, 0), 0);      /* the partial first page */
    assert_int_equal(fti_dirty_set_clean_to(&s, first), first + 2 * pg); /* page 3 of m */
    assert_int_equal(fti_dirty_set_clean_to(&s, first + 2 * pg + 9), first + 2 * pg + 9);
    assert_int_equal(fti_dirty_set_clean_to(&s, first + 3 * pg + 1), first + 6 * pg);
    assert_int_equal(fti_dirty_set_clean_to(&s, first + 7 * pg), first + 7 * pg); /* page 8 */
    assert_int_equal(fti_dirty_set_clean_to(&s, first + 8 * pg), first + (NPAGES - 2) * pg);
    assert_int_equal(fti_dirty_set_clean_to(&s, n - 1), n - 1); /* the partial last page */
    assert_int_equal(fti_dirty_set_clean_to(&s, n + 5), n);
    fti_dirty_set_free(&s);
    fti_dirty_release_all();
    munmap(m, NPAGES * pg);
}

static size_t seen_written, seen_runs;

static int keep_if_few(const fti_dirty_set *set, void *arg)
{
    seen_written = set->written, seen_runs = set->runs;
    return set->runs <= *(const size_t *)arg;
}

/* fti_dirty_reset_if: the keep callback sees the written pages and their
 * runs before anything is protected again; at its 1 the region stays
 * tracked, at its 0 the region is released (writable, untracked: a kernel
 * write into it succeeds) and the set still names the written pages. */
static void reset_if_releases_at_callers_word(void **state)
{
    (void)state;
    char *p = map_pages(NPAGES, PROT_READ | PROT_WRITE), why[256];
    assert_int_equal(fti_dirty_track(p, NPAGES * pg, 7, why, sizeof why), 0);
    p[1 * pg] = 1, p[2 * pg] = 1, p[6 * pg] = 1; /* 3 pages in 2 runs */
    fti_dirty_set s;
    size_t max_runs = 2;
    assert_int_equal(fti_dirty_reset_if(p, NPAGES * pg, 7, keep_if_few, &max_runs, &s, why,
                                        sizeof why), 0);
    assert_int_equal(seen_written, 3);
    assert_int_equal(seen_runs, 2);
    assert_int_equal(dirty_mask(&s, NPAGES), (1u << 1) | (1u << 2) | (1u << 6));
    fti_dirty_set_free(&s);
    assert_true(fti_dirty_tracked(p, NPAGES * pg, 7));
    p[3 * pg] = 1, p[5 * pg] = 1, p[9 * pg] = 1; /* 3 runs: more than the caller keeps */
    assert_int_equal(fti_dirty_reset_if(p, NPAGES * pg, 7, keep_if_few, &max_runs, &s, why,
                                        sizeof why), 1);
    assert_int_equal(seen_runs, 3);
    assert_int_equal(dirty_mask(&s, NPAGES), (1u << 3) | (1u << 5) | (1u << 9));
    fti_dirty_set_free(&s);
    assert_false(fti_dirty_tracked(p, NPAGES * pg, 7));
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    assert_int_equal(write(fd[1], "xy", 2), 2);
    assert_int_equal(read(fd[0], p + 4 * pg, 2), 2); /* EFAULT while protected */
    assert_memory_equal(p + 4 * pg, "xy", 2);
    close(fd[0]);
    close(fd[1]);
    fti_dirty_release_all();
    munmap(p, NPAGES * pg);
}

int main(void)
{
    pg = (size_t)sysconf(_SC_PAGESIZE);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(written_pages_reported),
        cmocka_unit_test(partial_pages_always_dirty),
        cmocka_unit_test(small_region_refused),
        cmocka_unit_test(other_thread_seen),
        cmocka_unit_test(foreign_fault_reaches_application),
        cmocka_unit_test(replaced_handler_detected),
        cmocka_unit_test(kernel_writes_after_release),
        cmocka_unit_test(runs_reprotected),
        cmocka_unit_test(write_racing_reset_seen),
        cmocka_unit_test(hook_sees_page_before_write),
        cmocka_unit_test(live_region_before_released),
        cmocka_unit_test(reset_if_releases_at_callers_word),
        cmocka_unit_test(clean_to_next_written_page),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
