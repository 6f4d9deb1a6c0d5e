/* CHECK for the MPI test programs that call the library's internals: a
 * failed condition counts in the program's `failures` and is printed with
 * the program's `rank`, the line and the library's last error (both
 * variables are the including file's). */
#ifndef FTI_TEST_MPI_CHECK_H
#define FTI_TEST_MPI_CHECK_H

#include <stdio.h>

#define CHECK(cond, ...)                                                         \
    do {                                                                         \
        if (!(cond)) {                                                           \
            failures++;                                                          \
            fprintf(stderr, "FAIL rank %d line %d: ", rank, __LINE__);           \
            fprintf(stderr, __VA_ARGS__);                                        \
            fprintf(stderr, " (last error: '%s')\n", fti_last_error());          \
        }                                                                        \
    } while (0)

#endif
