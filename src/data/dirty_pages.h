/*
 * dirty_pages.h - which pages of registered host memory were written since
 * they were last reset: the pages are write-protected (mprotect), and a
 * SIGSEGV handler marks the page a write faults on, makes it writable and
 * lets the write go on. Faults anywhere else go to the handler the process
 * had before. Process-wide, as the signal handler is: it cannot reach a
 * context. Used by differential checkpoints (stores/dcp.c).
 *
 * Only whole pages inside a region are tracked: the partial first and last
 * pages (which may hold other data, written by anyone) are left alone and
 * always count as dirty. A write by the kernel into a tracked page (read(2)
 * into it, an MPI library's process_vm_readv or RDMA) does not fault: it
 * fails with EFAULT. That is why the tracking is opt-in (docs/USER_GUIDE.md).
 */
#ifndef FTI_DIRTY_PAGES_H
#define FTI_DIRTY_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* What fti_dirty_reset hands back: the pages written since the reset before
 * it. Valid until fti_dirty_set_free. */
typedef struct fti_dirty_set {
    uintptr_t base;  /* the region as registered */
    size_t nbytes;
    uintptr_t first; /* first tracked (whole) page */
    size_t npages;
    size_t page;
    size_t written;  /* pages set in bits */
    size_t runs;     /* runs of consecutive set bits */
    uint64_t *bits;  /* bit p: page first + p * page was written */
} fti_dirty_set;

/* Starts tracking [ptr, ptr + nbytes) for `owner` (the caller's name for
 * it, a variable id) and write-protects its whole pages.
 * Thread-safe with the handler, not with the other calls of this module (one
 * thread drives them). 0, or -1 with the reason in why (no whole page in the
 * region, the region overlaps a tracked one, too many regions, mprotect or
 * sigaction failed with strerror). Already tracked with the same bounds: 0.
 * Like a reset that found nothing: the first reset reports the pages
 * written since this call (the caller has to read everything now). */
int fti_dirty_track(void *ptr, size_t nbytes, int owner, char *why, size_t why_cap);

/* Called by the SIGSEGV handler, in the thread that wrote, before page
 * `index` (0: the region's first whole page) of a region tracked with
 * fti_dirty_track_hook is made writable; it may block until the page's
 * bytes are safe elsewhere (copy-on-write checkpoints, data/cow.c). Runs
 * in a signal handler: async-signal-safe code only. */
typedef void (*fti_dirty_before_write)(void *arg, size_t index);

/* fti_dirty_track, with `before` (may be NULL) called on every write fault
 * of the region until it is reset or released. A fault on a page already
 * written since the last reset does not happen (it is writable), so
 * `before` sees each page at most once per interval. Where the kernel refuses
 * to split the mapping for one page (vm.max_map_count), `before` is called
 * for every page of the region before all of them become writable. */
int fti_dirty_track_hook(void *ptr, size_t nbytes, int owner, fti_dirty_before_write before,
                         void *arg, char *why, size_t why_cap);

/* Whether exactly [ptr, ptr + nbytes) is tracked for owner. */
int fti_dirty_tracked(const void *ptr, size_t nbytes, int owner);

/* For a region tracked for owner: moves the pages written since the last reset into
 * out, then write-protects those pages again (one mprotect per run of
 * consecutive written pages; the others never stopped being protected), in
 * that order, so that a write racing with the reset is seen by this reset's
 * reader (it landed before the protection) or recorded for the next one (it
 * faults again, or its fault was marking the page as the bits were moved:
 * the page stays writable and counts for the next reset). 0, or -1
 * when the region is not tracked with these bounds and owner, or re-protecting failed
 * (the region is then released; why says so). */
int fti_dirty_reset(void *ptr, size_t nbytes, int owner, fti_dirty_set *out, char *why,
                    size_t why_cap);

/* Decides from the pages written since the last reset (in the set) whether
 * the region stays tracked (1) or is released (0). */
typedef int (*fti_dirty_keep)(const fti_dirty_set *set, void *arg);
/* fti_dirty_reset, where keep (NULL: always) is asked before the pages are
 * protected again: at its 0 the region is released instead (writable, no
 * longer tracked) and 1 is returned, out still holding the written pages
 * (valid for a reader that reads the others from elsewhere: a write after
 * the reset is no longer recorded anywhere, so the caller must read all of
 * the region next time). Saves the second of two calls over the region:
 * the first pays the kernel's merge of the mappings that scattered faults
 * split (140-270 ms for 26,000 runs in 1 GiB), a release after a
 * re-protection walked its page table again (60-70 ms). */
int fti_dirty_reset_if(void *ptr, size_t nbytes, int owner, fti_dirty_keep keep, void *arg,
                       fti_dirty_set *out, char *why, size_t why_cap);
/* Whether bytes [off, off + len) of the set's region may have changed:
 * they touch a written page or an untracked partial page. */
int fti_dirty_set_any(const fti_dirty_set *s, size_t off, size_t len);

/* The end of the bytes from off on that cannot have changed: the offset of
 * the first written or partial page at or after off (off itself when off is
 * on one; nbytes at most). A reader skips a clean stretch in one step where
 * asking fti_dirty_set_any block by block cost a 1%-changed layer of 1 GiB
 * at 4 KiB blocks 262,144 calls. */
size_t fti_dirty_set_clean_to(const fti_dirty_set *s, size_t off);
void fti_dirty_set_free(fti_dirty_set *s);

/* Stops tracking every region that overlaps [ptr, ptr + nbytes) and makes
 * its pages writable again. Before the library writes into protected
 * memory from the kernel (a restore reading a file into it). */
void fti_dirty_release(const void *ptr, size_t nbytes);

/* Stops tracking everything and gives SIGSEGV back to the handler the
 * process had, if ours is still installed. FTI_Finalize. */
void fti_dirty_release_all(void);

/* Whether our SIGSEGV handler is still the process's (1), or the
 * application replaced it (0: faults on tracked pages would reach the
 * application's handler; the caller releases everything). 1 when nothing
 * is tracked. */
int fti_dirty_handler_intact(void);

#endif /* FTI_DIRTY_PAGES_H */
