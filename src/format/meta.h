/*
 * meta.h - the commit record: for each level, the last committed checkpoint
 * and the one before (sequence number, application id, slot, size, time).
 * Rank 0 rewrites it atomically only after every rank finished a checkpoint;
 * it is the single truth about which checkpoints exist.
 */
#ifndef FTI_META_H
#define FTI_META_H

#include <stdint.h>

#include "base/error.h"

typedef struct fti_commit {
    int valid;
    int level;
    int slot;
    int nranks;
    uint64_t seq;
    int64_t id;
    double time;    /* seconds since the epoch */
    uint64_t bytes; /* total over all ranks */
    int codec;      /* L4 compression, fti_codec */
    int io;         /* the L4 store it was written to: format/l4_kind.c's table (0 below L4) */
    uint64_t nonce; /* the writing run's random identity, in every file of the checkpoint;
                       0: a record written before nonces existed */
} fti_commit;

typedef struct fti_meta {
    uint64_t last_seq;
    fti_commit cur[5], prev[5]; /* index = level */
} fti_meta;

/* Loads the record at `path`. *found = 0 when there is none (fresh start).
 * A damaged record is an error naming the file. */
fti_err fti_meta_load(const char *path, fti_meta *m, int *found);

/* Writes the record atomically. */
fti_err fti_meta_store(const char *path, const fti_meta *m);

/* Records a new committed checkpoint (the level's current becomes previous). */
void fti_meta_commit(fti_meta *m, const fti_commit *c);

/* Forgets the checkpoints of the levels below `level` (FTI keeps none of
 * them once a higher level committed). */
void fti_meta_drop_below(fti_meta *m, int level);

/* The commit rule: c joins the record, and without keep_all_levels the
 * lower levels leave it (their files are removed once c committed). */
void fti_meta_record(fti_meta *m, const fti_commit *c, int keep_all_levels);

/* Valid commits, newest (highest seq) first. Returns how many (<= 8). */
int fti_meta_candidates(const fti_meta *m, fti_commit out[8]);

#endif /* FTI_META_H */
