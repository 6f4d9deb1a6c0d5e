/*
 * ckpt_expect.h - what a checkpoint file must hold to be restored for a
 * rank: kind, rank, level, sequence number, application id, job (exec id),
 * the run that wrote it (the commit's nonce) and, over all ranks, the sizes of the commit record. The one set of rules
 * that recovery (src/core/recover.c, src/levels/) and fti-ckpt (tools/) both
 * apply, so they can never disagree. MPI-free.
 */
#ifndef FTI_CKPT_EXPECT_H
#define FTI_CKPT_EXPECT_H

#include <stdint.h>

#include "format/ckpt_file.h"
#include "format/ckpt_stream.h"
#include "format/meta.h"

typedef struct fti_expect {
    uint32_t kind;     /* FTI_KIND_DATA or FTI_KIND_PARITY */
    uint32_t level;
    uint32_t rank;     /* data: whose data it is; parity: the member holding it */
    uint64_t seq;
    int64_t ckpt_id;
    uint64_t exec_tag; /* fti_exec_tag of the job's exec id */
    uint64_t nonce;    /* the commit's nonce: the file must carry exactly this one */
    uint32_t group;    /* parity: members in the group (manifest entries) */
    const char *role;  /* for messages: "own file", "L2 partner copy", ... */
    fti_file_version *verified; /* fti_expect_probe: receives the version of a file that
                                   passes and did not change while it was verified (then
                                   FTI_Recover need not hash it again; else nothing is
                                   kept); NULL: not asked */
} fti_expect;

/* The tag written into every file header: a hash of the exec id, never 0
 * (0 in a header means "written before headers carried it"). */
uint64_t fti_exec_tag(const char *exec_id);

/* Rank `rank`'s data of commit c (own file, partner copy, decoded L3 file,
 * L4 copy: all hold the same bytes). */
void fti_expect_data(fti_expect *x, const fti_commit *c, int rank, const char *exec_id,
                     const char *role);

/* The header a data file of commit c for `rank` is written with: the
 * fields fti_expect_data checks (the writer fills in sizes and checksums). */
void fti_expect_data_header(fti_file_header *h, const fti_commit *c, int rank,
                            const char *exec_id);

/* The L3 parity file held by member `holder` of a group of `group` nodes. */
void fti_expect_parity(fti_expect *x, const fti_commit *c, int holder, int group,
                       const char *exec_id);

/* FTI_E_OK when the decoded header h is what x expects, else FTI_E_CORRUPT
 * with a message naming `path`, the role and the first field that differs. */
fti_err fti_expect_header(const fti_expect *x, const fti_file_header *h, const char *path);

/* Verifies the file at path (header, and with full every checksum) and
 * checks it against x. On success *hdr (when not NULL) holds its header
 * (free with fti_file_header_free). FTI_E_MISSING when absent. */
fti_err fti_expect_file(const fti_expect *x, const char *path, int full, fti_file_header *hdr);

/* As fti_expect_file with full verification, for probes of files that may
 * well be lost: the reason stays in fti_last_error() without being printed,
 * except for a whole, valid file of another rank, job, level or kind, or of
 * another job's checkpoint (nonce): that
 * one was put there and is logged as a warning ("refused: ...") naming it. */
fti_err fti_expect_probe(const fti_expect *x, const char *path, fti_file_header *hdr);

/* Ends the check of a file streamed through s (ckpt_stream.h: every
 * byte verified as it was stored) and holds its header to x. */
fti_err fti_expect_streamed(const fti_expect *x, fti_file_stream *s);

/* fti_expect_probe as a yes/no: 1 when valid (and *size, when not NULL, is
 * its length), 0 otherwise. */
int fti_expect_valid(const fti_expect *x, const char *path, uint64_t *size);

/* The sum of every rank's file size must be the commit record's bytes. */
fti_err fti_expect_total(const fti_commit *c, uint64_t total);

#endif /* FTI_CKPT_EXPECT_H */
