/*
 * scratch.h - a unit test's scratch folder: made fresh below $FTI_TEST_DIR
 * (ctest's, which may not exist yet) or /tmp, and removed with everything
 * in it. Shared by the unit tests that write files.
 */
#ifndef FTI_TEST_SCRATCH_H
#define FTI_TEST_SCRATCH_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* out: "<base>/<prefix>XXXXXX", created 0700. 0, or -1 when it could not be. */
static inline int fti_test_scratch_make(char *out, size_t size, const char *prefix)
{
    const char *base = getenv("FTI_TEST_DIR");
    base = base ? base : "/tmp";
    mkdir(base, 0700);
    snprintf(out, size, "%s/%sXXXXXX", base, prefix);
    return mkdtemp(out) == NULL ? -1 : 0;
}

static inline int fti_test_rm_entry(const char *p, const struct stat *sb, int flag,
                                    struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

/* Removes path and everything below it (links are removed, not followed). */
static inline int fti_test_scratch_remove(const char *path)
{
    return nftw(path, fti_test_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#endif /* FTI_TEST_SCRATCH_H */
