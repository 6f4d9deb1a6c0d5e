/*
 * ckpt_stream.h - checks a checkpoint file while its bytes go by, in file
 * order (received from a partner, decoded from parity), with the rules of
 * fti_file_verify (docs/FORMAT.md, "What a reader checks" 1-5 and 7), so
 * the file need not be read back to be verified. fti-ckpt watches the
 * variables go by (fti_file_stream_watch) for its verdicts and extraction.
 * MPI-free.
 */
#ifndef FTI_CKPT_STREAM_H
#define FTI_CKPT_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "format/ckpt_file.h"
#include "base/integrity.h"

/* A watcher of the variables as they go by: `data` receives each
 * variable's bytes in file order (in pieces), `done` its verdict once
 * complete (ok: its checksum matched). Either may be NULL. */
typedef struct fti_file_stream_vars {
    void (*data)(void *arg, const fti_file_entry *v, const void *buf, size_t n);
    void (*done)(void *arg, uint32_t index, int ok);
    void *arg;
} fti_file_stream_vars;

typedef struct fti_file_stream {
    const char *path;     /* named in the errors */
    unsigned char *head;  /* the header region, until decoded */
    size_t head_len, head_need;
    fti_file_header hdr;  /* decoded header (vars == NULL before) */
    uint64_t pos;         /* file offset of the next byte fed */
    uint32_t var;         /* the variable being hashed (the hash holds its bytes so far) */
    fti_hash hash;
    fti_err err;          /* first error; later bytes are ignored */
    const fti_file_stream_vars *watch; /* NULL: none */
    fti_err mismatch;     /* watched: the first checksum mismatch (the stream goes on) */
} fti_file_stream;

/* Starts checking the file written at path (kept for messages). */
fti_err fti_file_stream_init(fti_file_stream *s, const char *path);

/* Tells w about every variable (w must outlive s). A checksum mismatch
 * then no longer stops the check: every variable gets its verdict, and
 * the first mismatch is the check's error. */
void fti_file_stream_watch(fti_file_stream *s, const fti_file_stream_vars *w);

/* The next n bytes of the file. Never fails: errors are kept for finish. */
void fti_file_stream_feed(fti_file_stream *s, const void *buf, size_t n);

/* The verdict, once every byte was fed: the whole file was fed (its length
 * is the header's file_size) and every variable matches its checksum.
 * Keeps s (and the decoded header in s->hdr, when s->hdr.vars != NULL). */
fti_err fti_file_stream_verdict(fti_file_stream *s);

/* fti_file_stream_verdict; on success the header goes to *hdr (the caller
 * frees it); releases s either way. */
fti_err fti_file_stream_finish(fti_file_stream *s, fti_file_header *hdr);

/* Releases s without a verdict (a transfer that failed). */
void fti_file_stream_free(fti_file_stream *s);

#endif /* FTI_CKPT_STREAM_H */
