/*
 * l3_rs.h - level 3's pieces shared by its files: one member's job (its
 * group ring, the code, the members' file sizes, its paths) and the two
 * streams that move a group's files through MPI: the encode (l3_encode.c)
 * and the rebuild (l3_decode.c). Both cut the files into messages of
 * fti_l3_message bytes per member, whatever [advanced] block_size says (the
 * code is byte-wise, so the parity does not depend on the cut), and keep
 * two messages in flight while reading, computing and writing.
 */
#ifndef FTI_L3_RS_H
#define FTI_L3_RS_H

#include <mpi.h>
#include <stdint.h>

#include "core/context.h"
#include "levels/ring.h"
#include "format/rs_codec.h"

typedef struct fti_l3_job {
    fti_ring r;
    int G;
    fti_rs_code code;
    uint64_t size[FTI_RS_MAX_G]; /* members' local file sizes */
    uint64_t smax;               /* the largest: the parity chunk's length */
    size_t msg;                  /* bytes per member per message (fti_l3_message) */
    uint64_t exec_tag;           /* written into the parity headers */
    char data_path[FTI_PATH_MAX], parity_path[FTI_PATH_MAX];
    char rebuilt_path[FTI_PATH_MAX];        /* where a lost data file is decoded to */
    char parity_rebuilt_path[FTI_PATH_MAX]; /* where lost parity is re-created */
} fti_l3_job;

/* Bytes each member sends per message for files of at most smax bytes in a
 * group of G: up to 4 MiB (MPI's bandwidth regime), each of the two
 * gathered buffers at most 16 MiB, and at least 4 messages per file down
 * to 256 KiB messages; a multiple of 4096. */
size_t fti_l3_message(int G, uint64_t smax);

/* Collective over j->r: computes this member's parity chunk of the group's
 * files (sizes j->size) into parity_fd at parity_off, and its hash into
 * *sum. This member's data comes from data_fd, or from image where it has
 * the bytes (file_image.h; NULL: none). Every member runs the same
 * collectives whatever fails locally. 0, or the errno of this member's
 * first local failure. */
int fti_l3_encode(const fti_l3_job *j, int data_fd, const fti_file_image *image, int parity_fd,
                  uint64_t parity_off, uint64_t *sum);

/* A member's files in a rebuild: its data and parity (-1 when lost), the
 * files it re-creates (-1 when it lost nothing of that kind). */
typedef struct fti_l3_io {
    int data_fd, parity_fd, out_data_fd, out_parity_fd;
    uint64_t parity_off; /* offset of the parity bytes, in the parity files */
    fti_file_stream *check; /* verifies the re-created data file as it is written (or NULL) */
} fti_l3_io;

/* Collective over j->r: re-creates every chunk of plan (lost data files of
 * sizes j->size, lost parity of j->smax bytes) on the member that owns it:
 * each survivor adds its share, and one reduction per owner and message
 * sums the shares onto the owner only. *parity_sum: the hash of this
 * member's re-created parity bytes. 0, or this member's first errno. */
int fti_l3_rebuild_stream(const fti_l3_job *j, const fti_rs_plan *plan, const fti_l3_io *io,
                          uint64_t *parity_sum);

/* Drives MPI's progress on req between slices of local work. */
void fti_l3_poll(MPI_Request *req, int n);

#endif /* FTI_L3_RS_H */
