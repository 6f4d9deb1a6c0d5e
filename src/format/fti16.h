/*
 * fti16.h - reading the checkpoints FTI 1.6 wrote (level 4 per-rank POSIX
 * files, the level 4 MPI-IO shared file, the own files of levels 1-3) with FTI's metadata
 * files, so that `fti-ckpt import` can turn them into one of ours
 * (docs/MIGRATION.md). MPI-free; only reads.
 */
#ifndef FTI_FORMAT_FTI16_H
#define FTI_FORMAT_FTI16_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "device.h"
#include "format/config.h"

/* One variable of a rank's FTI 1.6 file, as the metadata records it. */
typedef struct fti16_var {
    int id;
    int type;          /* FTI 1.6's type id (0-10 the predefined types, -1 FTI_InitType) */
    uint64_t typesize; /* bytes per element */
    uint64_t size;     /* bytes */
    uint64_t pos;      /* offset in the rank's data */
} fti16_var;

typedef struct fti16_rank {
    int rank;                /* the application rank (FTI_COMM_WORLD's) */
    int world;               /* the rank in the file name Ckpt<id>-Rank<r>.fti: FTI's
                                MPI_COMM_WORLD rank, which skips the heads */
    char file[FTI_PATH_MAX]; /* its data: the rank's file, or the shared MPI-IO file */
    char meta[FTI_PATH_MAX]; /* the metadata file that describes it */
    uint64_t size;           /* bytes, as recorded */
    uint64_t offset;         /* where its bytes start in file (MPI-IO: the ranks before it) */
    char md5[33];            /* recorded md5, lower-case hex; "" when FTI recorded none */
    int nvars;
    fti16_var *vars;
} fti16_rank;

typedef struct fti16_ckpt {
    int level;        /* 1-4 */
    int64_t id;       /* the id given to FTI_Checkpoint */
    int shared;       /* 1: the MPI-IO shared file Ckpt<id>-mpiio.fti */
    int nranks;       /* ranks 0..nranks-1, in rank order */
    fti16_rank *ranks;
} fti16_ckpt;

/* Finds the newest checkpoint of the FTI 1.6 job whose config is
 * `config_path` (its [basic] ckpt_dir, glbl_dir, meta_dir, relative ones
 * taken from the config's folder, [restart] exec_id, and [basic] head and
 * node_size, which say which world ranks were heads) at levels 1-4 (L2 and
 * L3: the ranks' own files),
 * and loads its metadata into *c. FTI_E_MISSING when there is none,
 * FTI_E_CORRUPT naming the metadata file and key for a record that does
 * not hold together (a variable outside the file, ranks missing). */
fti_err fti16_open(const char *config_path, fti16_ckpt *c);

/* Reads rank index i's bytes into a malloc'd *buf (size c->ranks[i].size)
 * after checking its file's size and, where FTI recorded one, its md5:
 * FTI_E_CORRUPT naming the file (and the metadata file) on a mismatch.
 * The whole rank in memory: for small ranks (tests, fuzzing); the import
 * streams (below). */
fti_err fti16_read_rank(const fti16_ckpt *c, int i, unsigned char **buf);

/* The bytes held in memory at a time when a rank is checked or streamed. */
#define FTI16_CHUNK ((size_t)4 << 20)

/* Checks rank index i's file as fti16_read_rank does (size, md5), reading
 * it FTI16_CHUNK bytes at a time. */
fti_err fti16_check_rank(const fti16_ckpt *c, int i);

/* Rank index i's variables as a source for the checkpoint writer, which
 * reads them in chunks through the capture pipeline: each variable is
 * protected as "device" memory of fti16_source_ops() at the handle
 * fti16_source_var(s, j) (data/registry.h, fti_registry_protect_device),
 * and fti_file_write is given FTI16_CHUNK as its buffer size. The source
 * hashes the bytes as they are read; fti16_source_close (s may be NULL)
 * checks them against FTI's recorded md5 (FTI_E_CORRUPT naming the file),
 * so the bytes written are the bytes checked, and frees s. The checkpoint
 * c must outlive s. */
typedef struct fti16_source fti16_source;
fti_err fti16_source_open(const fti16_ckpt *c, int i, fti16_source **s);
const fti_device_ops *fti16_source_ops(void);
void *fti16_source_var(fti16_source *s, int j);
fti_err fti16_source_close(fti16_source *s);

void fti16_free(fti16_ckpt *c);

/* MD5 (RFC 1321) of n bytes as 32 lower-case hex digits: the checksum FTI
 * 1.6 records for a checkpoint file. */
void fti16_md5_hex(const void *data, size_t n, char out[33]);

#endif /* FTI_FORMAT_FTI16_H */
