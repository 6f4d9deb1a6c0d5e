/*
 * fti-intern.h - the names applications take from FTI 1.6's internal header
 * of this name, for code that includes it (directly, or because a project
 * installs or vendors it beside fti.h). Our own definitions, with FTI's
 * names and values:
 *
 *   - everything of fti.h (it is included): the API, FTI_BUFS, FTI_WORD,
 *     the return codes, the verbosity levels FTI_DBUG..FTI_EROR, the level
 *     names FTI_L1..FTI_L4_H5_SINGLE (FTIT_level), the I/O mode ids
 *     FTI_IO_*, the head tokens FTI_BASE..FTI_REJW, FTIT_hsize_t, the type
 *     ids, FTIT_attribute, FTIT_H5Group, and the FTIT_configuration /
 *     FTIT_topology / FTIT_checkpoint / FTIT_execution / FTIT_injection
 *     that FTI_GetConfig returns (the fields a program can read);
 *   - the C headers FTI's internal header includes, which code written
 *     against it may rely on without including them itself;
 *   - LOCAL / GLOBAL, DBG_MSG, the variable id limits, the MD5 digest
 *     lengths, the colour escapes, the type-table limits, FTI_ADDRVAL /
 *     FTI_ADDRPTR, and the FTIT_double / FTIT_float bit views.
 *
 * Not provided: FTI's internal bookkeeping (FTIT_dataset, FTIT_Datatype,
 * FTIT_complexType, FTIT_keymap, FTIT_IO, the FTI-FF and dCP records, the
 * staging records), which this library does not have; no FTI function
 * takes or returns them. docs/MIGRATION.md lists the same.
 */
#ifndef FTI_INCLUDE_FTI_INTERN_H_
#define FTI_INCLUDE_FTI_INTERN_H_

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "fti.h"

/* File system of an operation, FTI's short names (FTI_FS_LOCAL / _GLOBAL). */
#ifndef LOCAL
#define LOCAL 0
#endif
#ifndef GLOBAL
#define GLOBAL 1
#endif

/* The default and the largest [basic] max_var_id FTI accepts. */
#define FTI_DEFAULT_MAX_VAR_ID (100 * 1024)
#define FTI_LIMIT_MAX_VAR_ID INT_MAX

/* MD5 digest: bytes, and characters of its hex string with the NUL (FTI's
 * dCP test programs size their hash buffers with them). OpenSSL's md5.h
 * defines the first with the same value. */
#ifndef MD5_DIGEST_LENGTH
#define MD5_DIGEST_LENGTH 16
#endif
#define MD5_DIGEST_STRING_LENGTH (2 * MD5_DIGEST_LENGTH + 1)

/* Terminal colours of FTI's messages. */
#define FTI_COLOR_RED "\033[31m"
#define FTI_COLOR_ORG "\033[38;5;202m"
#define FTI_COLOR_GRN "\033[32m"
#define FTI_COLOR_BLU "\033[34m"
#define FTI_COLOR_RESET "\033[0m"

/* Limits of FTI's type table: nesting depth of composite types, types,
 * dimensions and fields per composite type. */
#define MAX_STACK_SIZE 10
#define TYPES_MAX 64
#define TYPES_DIMENSION_MAX 32
#define TYPES_FIELDS_MAX 128

/* Pointer arithmetic on protected buffers. */
typedef uintptr_t FTI_ADDRVAL;
typedef void *FTI_ADDRPTR;

/* A double (a float) seen as words and bytes, for bit-level edits of data
 * (FTI's fault injection flips bits through them). */
typedef union FTIT_double {
    double value;
    float floatval[2];
    int intval[2];
    char byte[8];
} FTIT_double;

typedef union FTIT_float {
    float value;
    int intval;
    char byte[4];
} FTIT_float;

/* The name of the current source file without its folders. */
#define FTI_INTERN_BASENAME_ (strrchr(__FILE__, '/') ? strrchr(__FILE__, '/') + 1 : __FILE__)
#ifndef __FILENAME__
#define __FILENAME__ FTI_INTERN_BASENAME_
#endif

/* DBG_MSG(fmt, RANK, ...): prints "file:line[DEBUG-r] message" on stdout
 * on rank RANK of MPI_COMM_WORLD, or on every rank when RANK is -1. */
#define DBG_MSG(MSG, RANK, ...)                                                          \
    do {                                                                                 \
        int dbg_rank_;                                                                   \
        MPI_Comm_rank(MPI_COMM_WORLD, &dbg_rank_);                                       \
        if ((RANK) == -1 || dbg_rank_ == (RANK))                                         \
            printf("%s:%d[DEBUG-%d] " MSG "\n", FTI_INTERN_BASENAME_, __LINE__, dbg_rank_, \
                   ##__VA_ARGS__);                                                       \
    } while (0)

#endif /* FTI_INCLUDE_FTI_INTERN_H_ */
