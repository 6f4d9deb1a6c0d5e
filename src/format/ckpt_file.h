/*
 * ckpt_file.h - the checkpoint file format (docs/FORMAT.md): a header with a
 * variable table and per-variable checksums, then each variable's data, at a
 * 4 KiB-aligned offset when it has 4 KiB or more, else packed (8 bytes). Writing goes straight from the user buffers (or the
 * device capture pipeline), hashing each chunk while it is hot.
 */
#ifndef FTI_CKPT_FILE_H
#define FTI_CKPT_FILE_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "base/error.h"
#include "data/registry.h"

struct fti_capture_sets; /* capture.h: kept pinned buffers and streams */

#define FTI_FILE_MAGIC "FTICKPT\0"
#define FTI_FILE_VERSION 2 /* 1: every variable at a multiple of 4096 (still read) */
#define FTI_FILE_ALIGN 4096      /* the header region; variables of 4 KiB or more */
#define FTI_FILE_SMALL_ALIGN 8   /* version 2: variables under 4 KiB, packed */
#define FTI_FILE_FIXED_HEADER 128
#define FTI_FILE_ENTRY_SIZE 96

typedef enum { FTI_KIND_DATA = 1, FTI_KIND_PARITY = 2 } fti_file_kind;

typedef struct fti_file_entry {
    int32_t id;
    int32_t type;
    uint64_t elem_size;
    uint64_t count;
    uint64_t offset;   /* of the data in the file */
    uint64_t nbytes;   /* elem_size * count */
    uint64_t checksum; /* XXH3-64 of the nbytes */
    char name[FTI_NAME_LEN];
} fti_file_entry;

typedef struct fti_file_header {
    uint32_t version;
    uint32_t kind;
    uint64_t seq;      /* library checkpoint sequence number */
    int64_t ckpt_id;   /* the id the application gave */
    uint32_t level;
    uint32_t rank;
    uint32_t nvars;
    uint64_t data_offset; /* = header size, 4 KiB aligned */
    uint64_t file_size;
    uint64_t payload_checksum; /* parity files: checksum of all data bytes */
    uint64_t exec_tag; /* fti_exec_tag of the writer's exec id; 0: not recorded */
    uint64_t nonce;    /* the commit's nonce (fti_commit.nonce): which job's checkpoint */
    fti_file_entry *vars;
} fti_file_header;

/* Size of the header region (fixed part + table + checksum, aligned). */
uint64_t fti_file_header_size(uint32_t nvars);

/* The header region's size (*size) announced by a file's first
 * FTI_FILE_FIXED_HEADER bytes, once their magic, version and table
 * fields pass; an error naming path otherwise. */
fti_err fti_file_header_region(const unsigned char *fixed, const char *path, uint64_t *size);

/* Fills hdr's table from the registry (ids, types, sizes, names and
 * aligned offsets; checksums left 0), data_offset and file_size: the layout
 * fti_file_write gives the variables. Caller frees with fti_file_header_free. */
fti_err fti_file_plan(const fti_registry *reg, fti_file_header *hdr);

/* Sets version (the current one), data_offset, every entry's aligned offset
 * (from the nbytes of the entries before it) and file_size: the one layout
 * rule of the format. */
void fti_file_place(fti_file_header *hdr);

/* The alignment of a variable of `nbytes` in a file of `version`. */
uint64_t fti_file_var_align(uint32_t version, uint64_t nbytes);

/* Writes the protected variables to `path` (created 0600, or overwritten in
 * place), then the header, then fsync. `hdr` gives seq/ckpt_id/level/rank;
 * on success its table and sizes are filled (caller frees with
 * fti_file_header_free). gpu_bufsize: pinned buffer size for device vars. */
fti_err fti_file_write(const char *path, const fti_registry *reg, fti_file_header *hdr,
                       size_t gpu_bufsize);

/* As fti_file_write, with device variables captured through the pinned
 * buffers and streams kept in `sets` (created there on first use, kept after;
 * NULL: made and freed for each variable). The library passes its context's
 * sets, so a checkpoint does not pin memory again. */
fti_err fti_file_write_sets(const char *path, const fti_registry *reg, fti_file_header *hdr,
                            size_t gpu_bufsize, struct fti_capture_sets *sets);

/* Reads and checks the header of `fd` (magic, version, header checksum,
 * sizes against the file length). `path` is for messages. */
fti_err fti_file_read_header(int fd, const char *path, fti_file_header *hdr);

/* Opens path and validates it: header, expected seq (0: any), and when
 * `full` every data checksum. On success fills *hdr. */
fti_err fti_file_verify(const char *path, uint64_t expect_seq, int full, fti_file_header *hdr);

/* 1 when path is a whole, valid file of checkpoint `seq` (every checksum).
 * Quiet: the reason stays in fti_last_error() without being printed, for
 * probes of files that may well be lost. */
int fti_file_valid(const char *path, uint64_t seq);

/* Reads entry e of an open file into var (host or device), verifying its
 * checksum. */
fti_err fti_file_read_var(int fd, const char *path, const fti_file_entry *e, const fti_var *var,
                          size_t gpu_bufsize);

/* As fti_file_read_var, restoring a device variable through `sets` (see
 * fti_file_write_sets). checked: the file's bytes were verified in this
 * version (fti_file_version), so a host variable is copied without a
 * second hash. */
fti_err fti_file_read_var_sets(int fd, const char *path, const fti_file_entry *e,
                               const fti_var *var, size_t gpu_bufsize,
                               struct fti_capture_sets *sets, int checked);

/* Which version of a file is on disk: any write, truncation or replacement
 * changes its inode, size or change time. Bytes verified while a file kept
 * its version are still the bytes that were verified. */
typedef struct fti_file_version {
    int known;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
} fti_file_version;

/* fd's version (known = 0 when fstat fails); path's (-1 fd) likewise. */
fti_file_version fti_file_version_of(int fd, const char *path);
int fti_file_version_same(const fti_file_version *a, const fti_file_version *b);
/* The same, but for the change time, which a rename moves: b is a, written
 * nowhere since, under its new name. */
int fti_file_version_renamed(const fti_file_version *a, const fti_file_version *b);

const fti_file_entry *fti_file_find(const fti_file_header *hdr, int id);
/* The same, looking at entry `hint` first: the table is in protection order,
 * so a walk over the registry finds each entry at once (100,000 variables). */
const fti_file_entry *fti_file_find_near(const fti_file_header *hdr, int id, int hint);
void fti_file_header_free(fti_file_header *hdr);

/* Serialises a header (table included) to `buf` (fti_file_header_size
 * bytes, zero-filled padding) and parses it back; used by the writers of
 * other file kinds (parity, global copies). */
void fti_file_header_encode(const fti_file_header *hdr, unsigned char *buf);
fti_err fti_file_header_decode(const unsigned char *buf, size_t n, const char *path,
                               fti_file_header *hdr);

#endif /* FTI_CKPT_FILE_H */
