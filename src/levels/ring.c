#include "levels/ring.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fio.h"
#include "base/log.h"
#include "base/phase_clock.h"
#include "base/walltime.h"
#include "base/job_thread.h"
#include "format/plan.h"
#include "base/safe_fs.h"
#include "runtime/watchdog.h"

/* The processes that share this host's CPUs: the node's ranks, or more
 * where the launcher says so (simulated nodes, local_test = 1, put several
 * "nodes" on one host): MPICH's and Open MPI's count of local ranks. */
static int host_ranks(const fti_topology *t)
{
    static const char *const vars[] = {"MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE"};
    int n = t->node_size;
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        int local = v != NULL ? atoi(v) : 0;
        if (local > n)
            n = local;
    }
    return n;
}

/* The ring of the application rank at position pos of this node, over
 * comm (plan.h: its members, their order, the neighbours). */
static void ring_at(const fti_ctx *ctx, MPI_Comm comm, int pos, fti_ring *ring)
{
    const fti_topology *t = &ctx->topo;
    const fti_shape *s = &t->shape;
    int rank = fti_plan_rank_at(s, t->node, pos);
    ring->comm = comm;
    ring->size = t->group_size;
    ring->pos = fti_plan_group_pos(s, rank);
    ring->left = fti_plan_ring_prev(s, ring->pos);
    ring->right = fti_plan_ring_next(s, ring->pos);
    ring->tag = ctx->cfg.mpi_tag;
    ring->overlap = fti_job_thread_helps(host_ranks(t));
    for (int i = 0; i < t->group_size && i < FTI_GROUP_MAX; i++)
        ring->app_rank[i] = fti_plan_member(s, rank, i);
}

void fti_ring_of(const fti_ctx *ctx, fti_ring *ring)
{
    ring_at(ctx, ctx->topo.group_comm, ctx->topo.node_pos, ring);
}

void fti_head_ring_of(const fti_ctx *ctx, int pos, fti_ring *ring)
{
    ring_at(ctx, ctx->topo.head_comm, pos, ring);
}

void fti_ring_allgather(const fti_ring *ring, int mine, int *all)
{
    fti_watched_allgather(&mine, 1, MPI_INT, all, ring->comm, "the group's agreement");
}

int fti_read_padded(int fd, uint64_t file_size, void *buf, size_t len, uint64_t off)
{
    size_t have = off >= file_size ? 0 : (size_t)(file_size - off < len ? file_size - off : len);
    if (have && fti_pread_full(fd, buf, have, (off_t)off) != 0)
        return -1;
    memset((char *)buf + have, 0, len - have);
    return 0;
}

/* One side of the exchange: an open file, its size, and a pair of buffers
 * (or, for a sender on a memory file system, a pair of windows mapped onto
 * the file's pages, one per message in flight). */
typedef struct side {
    int fd;
    uint64_t size, nchunks;
    char *buf[2];
    const fti_file_image *image; /* sender: where the file's bytes also lie in memory */
    uint64_t from_memory;  /* messages sent from there */
    int mapped;            /* sender: the file is in memory, sent from its own pages */
    void *win[2];          /* the mapping of message k & 1, page-aligned; NULL: none */
    size_t win_len[2];
    MPI_Request req[2];
    int err; /* first errno seen */
    fti_file_stream *check; /* receiving side: verifies the bytes as they are stored */
} side;

static size_t piece(const side *s, size_t chunk, uint64_t k)
{
    uint64_t off = k * chunk;
    return (size_t)(s->size - off < chunk ? s->size - off : chunk);
}

/* Message k's bytes: from the application's buffers where the file's image
 * has them (no copy, no mapping: the windows cost about 0.065 s of
 * page-table work per 512 MiB and rank), else in the sender's slot k & 1: mapped from the file (a
 * window of the message, unmapped once sent, so the resident pages stay two
 * messages whatever the file's size: a whole-file map counted the file in
 * every rank's RSS) or read into the buffer. NULL on an error. */
static const char *send_bytes(side *s, size_t chunk, uint64_t k)
{
    size_t n = piece(s, chunk, k);
    uint64_t off = k * chunk, page = (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t start = off - off % page;
    const char *mem = fti_file_image_at(s->image, off, n);
    if (mem != NULL) {
        s->from_memory++;
        return mem;
    }
    if (s->mapped) {
        void *p = mmap(NULL, (size_t)(off - start) + n, PROT_READ, MAP_SHARED | MAP_POPULATE,
                       s->fd, (off_t)start);
        if (p == MAP_FAILED)
            return NULL;
        s->win[k & 1] = p;
        s->win_len[k & 1] = (size_t)(off - start) + n;
        return (const char *)p + (off - start);
    }
    return fti_pread_full(s->fd, s->buf[k & 1], n, (off_t)off) == 0 ? s->buf[k & 1] : NULL;
}

/* Message k & 1 of the sender has left: its window goes. */
static void sent(side *s, uint64_t k)
{
    if (s->win[k & 1] != NULL)
        munmap(s->win[k & 1], s->win_len[k & 1]);
    s->win[k & 1] = NULL;
}

static void post_send(side *s, const fti_ring *r, int to, size_t chunk, uint64_t k)
{
    size_t n = piece(s, chunk, k);
    double t0 = fti_now();
    const char *b = s->err == 0 ? send_bytes(s, chunk, k) : NULL;
    fti_phase_since(FTI_PP_READ, t0);
    if (b == NULL) { /* the peer still gets its message (bytes it will not keep) */
        if (s->err == 0)
            s->err = errno ? errno : EIO;
        if (s->buf[k & 1] == NULL)
            s->buf[k & 1] = fti_io_alloc(chunk);
        b = s->buf[k & 1];
        if (b == NULL) /* no memory either: a shorter message (MPI allows it); the */
            n = 0;      /* sender's error fails the level all the same */
    }
    MPI_Isend(b, (int)n, MPI_BYTE, to, r->tag, r->comm, &s->req[k & 1]);
}

static void post_recv(side *s, const fti_ring *r, int from, size_t chunk, uint64_t k)
{
    MPI_Irecv(s->buf[k & 1], (int)piece(s, chunk, k), MPI_BYTE, from, r->tag, r->comm, &s->req[k & 1]);
}

/* Writes message k to the received file and verifies it; its seconds go
 * to secs[0] (write) and secs[1] (verify). */
static void store_chunk(side *s, size_t chunk, uint64_t k, double secs[2])
{
    double t0 = fti_now(), t1;
    if (s->err == 0 &&
        fti_pwrite_full(s->fd, s->buf[k & 1], piece(s, chunk, k), (off_t)(k * chunk)) != 0)
        s->err = errno ? errno : EIO;
    t1 = fti_now();
    if (s->check != NULL && s->err == 0)
        fti_file_stream_feed(s->check, s->buf[k & 1], piece(s, chunk, k));
    secs[0] += t1 - t0;
    secs[1] += fti_now() - t1;
}

/* Message k to be stored by the job thread (ring transfer: the caller
 * receives message k+1 meanwhile; a write made by the caller between its
 * MPI calls stalled both its transfers, so transfer and write took their
 * sum). One per buffer: message k lies in buf[k & 1]. */
typedef struct store_job {
    side *s;
    size_t chunk;
    uint64_t k;
    double secs[2]; /* write, verify */
} store_job;

static void store_job_run(void *arg)
{
    store_job *j = arg;
    store_chunk(j->s, j->chunk, j->k, j->secs);
}

#define NOT_READY UINT64_MAX

/* Opens files and buffers, then agrees with both peers: the sender tells the
 * size it will send (NOT_READY when it cannot), the receiver tells whether it
 * can receive. A side that is not ready moves no chunk, so nobody waits. */
static void open_sides(const fti_ring *r, side *snd, const char *send_path, int to, side *rcv,
                       const char *recv_path, int from, size_t chunk)
{
    struct stat st;
    uint64_t mysize = 0;
    int can_recv = 1, peer_can_recv = 1;
    snd->fd = rcv->fd = -1;
    if (to != MPI_PROC_NULL) {
        snd->fd = fti_open_read(send_path);
        if (snd->fd < 0 || fstat(snd->fd, &st) != 0)
            snd->err = errno;
        else
            mysize = (uint64_t)st.st_size;
        snd->image = fti_file_image_for(snd->image, mysize);
        /* A file in memory is sent from its own pages: that skips a copy of
         * every byte into the buffers (about a quarter of the CPU time of an
         * L2 checkpoint, measured at 4 x 512 MiB), one window per message.
         * Receiving into a mapped file measured no better: not done. */
        if (!snd->err)
            snd->mapped = fti_in_memory_fs(snd->fd);
        if (!snd->err && !snd->mapped) {
            snd->buf[0] = fti_io_alloc(chunk);
            snd->buf[1] = fti_io_alloc(chunk);
            if (!snd->buf[0] || !snd->buf[1])
                snd->err = ENOMEM;
        }
        if (snd->err)
            mysize = NOT_READY;
    }
    if (from != MPI_PROC_NULL) {
        rcv->fd = fti_open_existing_for_write(recv_path);
        rcv->buf[0] = fti_io_alloc(chunk);
        rcv->buf[1] = fti_io_alloc(chunk);
        if (rcv->fd < 0)
            rcv->err = errno;
        else if (!rcv->buf[0] || !rcv->buf[1])
            rcv->err = ENOMEM;
        can_recv = rcv->err == 0;
    }
    double t0 = fti_now();
    MPI_Sendrecv(&mysize, 1, MPI_UINT64_T, to, r->tag, &rcv->size, 1, MPI_UINT64_T, from, r->tag,
                 r->comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&can_recv, 1, MPI_INT, from, r->tag, &peer_can_recv, 1, MPI_INT, to, r->tag,
                 r->comm, MPI_STATUS_IGNORE);
    fti_phase_since(FTI_PP_AGREE, t0);
    snd->size = (to == MPI_PROC_NULL || mysize == NOT_READY || !peer_can_recv) ? 0 : mysize;
    if (from != MPI_PROC_NULL && rcv->size == NOT_READY && rcv->err == 0)
        rcv->err = EPIPE; /* the sender could not send */
    if (from == MPI_PROC_NULL || rcv->size == NOT_READY || !can_recv)
        rcv->size = 0;
}

static fti_err finish(side *snd, const char *send_path, side *rcv, const char *recv_path)
{
    fti_err e = FTI_E_OK;
    double t0 = fti_now();
    if (rcv->fd >= 0 && rcv->err == 0 &&
        (ftruncate(rcv->fd, (off_t)rcv->size) != 0 || fti_fsync(rcv->fd) != 0))
        rcv->err = errno;
    fti_phase_since(FTI_PP_SYNC, t0);
    sent(snd, 0);
    sent(snd, 1);
    if (snd->fd >= 0)
        close(snd->fd);
    if (rcv->fd >= 0)
        close(rcv->fd);
    if (snd->err)
        e = fti_fail(FTI_E_IO, "sending %s: %s", send_path, fti_fs_strerror(snd->err));
    if (rcv->err)
        e = fti_fail(FTI_E_IO, "receiving into %s: %s", recv_path, fti_fs_strerror(rcv->err));
    return e;
}

static fti_err transfer(const fti_ring *r, const char *send_path, const fti_file_image *image,
                        int to, const char *recv_path, int from, size_t chunk,
                        fti_file_stream *check);

fti_err fti_ring_transfer(const fti_ring *r, const char *send_path, int to, const char *recv_path,
                          int from, size_t chunk)
{
    return transfer(r, send_path, NULL, to, recv_path, from, chunk, NULL);
}

fti_err fti_ring_transfer_image(const fti_ring *r, const char *send_path,
                                const fti_file_image *image, int to, const char *recv_path,
                                int from, size_t chunk)
{
    return transfer(r, send_path, image, to, recv_path, from, chunk, NULL);
}

fti_err fti_ring_transfer_checked(const fti_ring *r, const char *send_path, int to,
                                  const char *recv_path, int from, size_t chunk,
                                  fti_file_stream *check)
{
    return transfer(r, send_path, NULL, to, recv_path, from, chunk, check);
}

static fti_err transfer(const fti_ring *r, const char *send_path, const fti_file_image *image,
                        int to, const char *recv_path, int from, size_t chunk,
                        fti_file_stream *check)
{
    if (chunk > FTI_RING_MESSAGE_MAX) /* both peers cap alike: same config, same rule */
        chunk = FTI_RING_MESSAGE_MAX;
    side snd = {.image = image}, rcv = {.check = check};
    snd.req[0] = snd.req[1] = rcv.req[0] = rcv.req[1] = MPI_REQUEST_NULL;
    open_sides(r, &snd, send_path, to, &rcv, recv_path, from, chunk);
    snd.nchunks = (snd.size + chunk - 1) / chunk;
    rcv.nchunks = (rcv.size + chunk - 1) / chunk;
    uint64_t n = snd.nchunks > rcv.nchunks ? snd.nchunks : rcv.nchunks;
    fti_job_thread w = {0}; /* zeroed: jobs run inline */
    store_job jobs[2] = {{&rcv, chunk, 0, {0, 0}}, {&rcv, chunk, 0, {0, 0}}};
    if (r->overlap && rcv.nchunks > 1) /* else nothing to overlap, or no CPU for it */
        fti_job_thread_start(&w);
    if (w.running)
        fti_log(FTI_LOG_DEBUG, "ring transfer: %s is written by a job thread while the next "
                "message travels", recv_path);
    if (rcv.nchunks)
        post_recv(&rcv, r, from, chunk, 0);
    if (snd.nchunks)
        post_send(&snd, r, to, chunk, 0);
    /* Message k+1 travels (both ways) while the writer stores message k.
     * The waits yield the core between polls: with more ranks than cores
     * (and on a single host MPI's copy between processes is CPU work) a
     * spinning wait took the time slices of the ranks it waited for, 10-20%
     * of the post at 4 x 512 MiB on 2 cores. */
    for (uint64_t k = 0; k < n; k++) {
        double t0 = fti_now();
        fti_watched_wait(&rcv.req[k & 1], r->comm, "ring transfer (message from the left)");
        t0 = fti_phase_since(FTI_PP_RECV, t0);
        fti_watched_wait(&snd.req[k & 1], r->comm, "ring transfer (message to the right)");
        t0 = fti_phase_since(FTI_PP_SEND, t0);
        sent(&snd, k);
        fti_phase_since(FTI_PP_READ, t0);
        if (k + 1 < snd.nchunks)
            post_send(&snd, r, to, chunk, k + 1);
        fti_job_thread_wait(&w); /* message k-1 is stored: its buffer is free */
        if (k + 1 < rcv.nchunks)
            post_recv(&rcv, r, from, chunk, k + 1);
        if (k < rcv.nchunks) {
            jobs[k & 1].k = k;
            fti_job_thread_post(&w, store_job_run, &jobs[k & 1]);
        }
    }
    fti_job_thread_stop(&w);
    if (snd.image != NULL)
        fti_log_rank0(FTI_LOG_DEBUG, "ring transfer: %llu of %llu messages of %s sent from "
                      "the application's buffers", (unsigned long long)snd.from_memory,
                      (unsigned long long)snd.nchunks, send_path);
    /* the writer's busy seconds: they overlapped the transfer */
    fti_phase_add(FTI_PP_WRITE, jobs[0].secs[0] + jobs[1].secs[0]);
    fti_phase_add(FTI_PP_VERIFY, jobs[0].secs[1] + jobs[1].secs[1]);
    for (int i = 0; i < 2; i++) {
        free(snd.buf[i]);
        free(rcv.buf[i]);
    }
    return finish(&snd, send_path, &rcv, recv_path);
}
