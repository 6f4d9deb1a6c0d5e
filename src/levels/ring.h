/*
 * ring.h - the group ring that L2 and L3 work in: one member per node of the
 * group (the ranks with the same position on their nodes), ordered by node.
 * Member i's partner (the holder of its L2 copy) is member i+1.
 * Helpers here move whole files between members in pipelined chunks.
 */
#ifndef FTI_RING_H
#define FTI_RING_H

#include <mpi.h>
#include <stdint.h>

#include "format/ckpt_stream.h"
#include "format/file_image.h"
#include "core/context.h"


typedef struct fti_ring {
    MPI_Comm comm;
    int size, pos;
    int left, right; /* ring positions */
    int app_rank[FTI_GROUP_MAX];/* application rank of each member */
    int tag;
    int overlap; /* a job thread may overlap local work with the transfers
                  * (fti_job_thread_helps: spare CPUs for the host's ranks) */
} fti_ring;

/* The ring of this application rank (group_comm of the topology). */
void fti_ring_of(const fti_ctx *ctx, fti_ring *ring);

/* On a head: the ring of the group's heads, acting for the application
 * ranks at position `pos` of each node. */
void fti_head_ring_of(const fti_ctx *ctx, int pos, fti_ring *ring);

/* The largest message of fti_ring_transfer: a transfer holds four in
 * memory (two sent, two received), so its peak memory is 32 MiB whatever
 * the file size or transfer_size. */
#define FTI_RING_MESSAGE_MAX ((size_t)8 << 20)

/* Collective over the ring, pairwise: sends the file send_path to member
 * `to` while receiving a file from member `from` into recv_path (created
 * 0600, overwritten in place, truncated to size, fsync'd). Either side may be
 * absent (NULL path and MPI_PROC_NULL). Chunks of `chunk` bytes (at most
 * FTI_RING_MESSAGE_MAX): chunk i is written (and checked) by a job thread
 * while chunk i+1 travels both ways, where ring->overlap allows one, else
 * between the transfers. A local I/O error
 * never stops the exchange (the peer would wait forever): it is reported
 * after the whole protocol ran. Returns this rank's result. */
fti_err fti_ring_transfer(const fti_ring *ring, const char *send_path, int to, const char *recv_path,
                          int from, size_t chunk);

/* fti_ring_transfer, sending the bytes that image has in memory from there
 * (file_image.h: only while the application's buffers hold what the file
 * got) and the rest from the file. image NULL: as fti_ring_transfer. */
fti_err fti_ring_transfer_image(const fti_ring *ring, const char *send_path,
                                const fti_file_image *image, int to, const char *recv_path,
                                int from, size_t chunk);

/* fti_ring_transfer, and the received bytes are fed to check (when not
 * NULL) as they are stored, so the received file is verified without
 * reading it back. */
fti_err fti_ring_transfer_checked(const fti_ring *ring, const char *send_path, int to,
                                  const char *recv_path, int from, size_t chunk,
                                  fti_file_stream *check);

/* Allgather of one int over the ring. */
void fti_ring_allgather(const fti_ring *ring, int mine, int *all);

/* Reads len bytes at off from fd into buf; bytes past file_size are zero
 * (logical padding of shorter files). 0 or -1 (errno). */
int fti_read_padded(int fd, uint64_t file_size, void *buf, size_t len, uint64_t off);

#endif /* FTI_RING_H */
