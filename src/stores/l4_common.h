/*
 * l4_common.h - what the L4 stores share, below all of them: one rank's
 * checkpoint file (its local file, or with no local copy its image in
 * memory, l4_image.h) stored on the global file system as is or compressed
 * (l4_codec.h) and restored and verified the same way; keep_l4_ckpt's
 * archive; removing a store's files; the direct write of POSIX and MPI-IO.
 */
#ifndef FTI_L4_COMMON_H
#define FTI_L4_COMMON_H

#include <stdint.h>

#include "core/context.h"
#include "format/l4_codec.h"
#include "stores/l4_image.h"

/* "L4 rank R", the prefix of every message about rank R's files. */
typedef struct fti_l4_who {
    char s[32];
} fti_l4_who;

void fti_l4_who_of(fti_l4_who *w, int rank);

/* Bytes moved per read/write: transfer_size, capped at 1 GiB so that a
 * piece always fits an MPI count (int). */
size_t fti_l4_chunk(const fti_ctx *ctx);

/* The slot's old global file `global` becomes the temporary `tmp` that the
 * new checkpoint overwrites in place: on tmpfs (and page-cached file
 * systems) a new file costs page allocation and replacing the old one frees
 * its pages, together about half a raw write. The slot never holds the
 * committed checkpoint (the new one goes to the other slot), so only the
 * older fallback goes, as the rename would drop it anyway; a crash leaves a
 * partial file under the temporary name only. A file with other links
 * (keep_l4_ckpt's archive) keeps its bytes: it is left, and tmp is new. */
void fti_l4_reuse_old(const char *global, const char *tmp);

/* Writes the local file `local` to `dst` (created 0600 or overwritten, cut
 * to size): copied
 * as is for FTI_CODEC_NONE, else compressed with c->codec. fsync'd.
 * *out_size: bytes in dst. Not collective. */
fti_err fti_l4_pack(const fti_ctx *ctx, const fti_commit *c, const char *who, const char *local,
                    const char *dst, uint64_t *out_size);

/* As fti_l4_pack, from the image of the protected variables. */
fti_err fti_l4_pack_image(const fti_ctx *ctx, const fti_commit *c, const char *who,
                          fti_l4_image *im, const char *dst, uint64_t *out_size);

/* Restores rank's local file of c from src (`avail` bytes, as stored by
 * fti_l4_pack) at fti_path_rebuilt, then verifies it fully against the
 * commit record (fti_expect). On failure the half-restored file is removed
 * (the source never is); the error names src_name. */
fti_err fti_l4_restore(fti_ctx *ctx, const fti_commit *c, int rank, const fti_l4_io *src,
                       uint64_t avail, const char *src_name);

/* The file restored at path must be rank's data of c, every byte (the rules
 * of ckpt_expect.h); src_name: where it came from, for the message.
 * verified (or NULL): as fti_expect's. */
fti_err fti_l4_verify_restored(const fti_ctx *ctx, const char *path, const fti_commit *c, int rank,
                               const char *who, const char *src_name, fti_file_version *verified);

/* fti_l4_verify_restored of this rank's file at path during a restart: the
 * version it verified goes to *into (the recovery's `verified` for a file
 * read where it is, `rebuilt` for one the rename adopts), and its mapping,
 * in memory, to the recovery's map, so that FTI_Recover neither reads nor
 * hashes it again while it stays that version. */
fti_err fti_l4_verify_for_restart(fti_ctx *ctx, const char *path, const fti_commit *c,
                                  const char *src_name, fti_file_version *into);

/* keep_l4_ckpt: links `file` (checkpoint `id`, rank's file or, rank < 0,
 * the shared one) into the archive (layout.h); a failure only warns. */
void fti_l4_archive(const fti_ctx *ctx, int64_t id, int rank, const char *file);

/* Removes path; a missing file is fine, another failure only warns. */
void fti_l4_unlink_warn(const char *path);

/* Removes this rank's per-rank HDF5 file of `slot` (the HDF5 store's remove
 * and its stub's: it needs no HDF5 call). */
void fti_l4_h5_remove(fti_ctx *ctx, int slot);
void fti_l4_h5s_remove(fti_ctx *ctx, int slot); /* level 9's shared file */

/* Whether POSIX or MPI-IO may skip the local file: no local copy asked for,
 * and no head or helper thread that would flush the local file
 * (ctx->post_async). */
int fti_l4_direct_allowed(const fti_ctx *ctx);

/* The direct write of c with `writer` (the POSIX or MPI-IO writer, which
 * gives the written file's header); ctx->rec.l4_written keeps that header
 * until the commit hands it to fti_recover_track. *bytes: the file's size. */
fti_err fti_l4_write_kept(fti_ctx *ctx, const fti_commit *c, uint64_t *bytes,
                          fti_err (*writer)(fti_ctx *, const fti_commit *, fti_file_header *));

#endif /* FTI_L4_COMMON_H */
