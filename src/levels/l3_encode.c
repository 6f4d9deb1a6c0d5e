/*
 * l3_encode.c - L3's encode stream. Per message, every member reads its
 * piece of its file into its slot of a gather buffer, sends it to every
 * other member and receives theirs into the other slots, and the member computes its parity row
 * over the G pieces (one dot product) and writes it. Two messages are in
 * flight: message k+1 is gathered while a job thread encodes and writes
 * message k (base/job_thread.h: local work in the caller, between MPI
 * calls, held up the gathers; it was done in slices with progress polls
 * between them).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/collective.h"
#include "base/fio.h"
#include "base/job_thread.h"
#include "base/log.h"
#include "format/gf_region.h"
#include "base/integrity.h"
#include "base/phase_clock.h"
#include "base/walltime.h"
#include "levels/l3_rs.h"
#include "runtime/watchdog.h"

#define MIB ((size_t)1 << 20)
/* Local work between two progress calls. */
#define SLICE MIB
/* Gathered pieces start at distinct page offsets: ISA-L's dot product
 * slows down when its inputs alias in the L1 sets (bench/rs_encode.c). */
#define STAGGER 256
/* Messages below this cost more in latency than they overlap. */
#define MIN_MESSAGE (256 * 1024)

size_t fti_l3_message(int G, uint64_t smax)
{
    /* Two gathers in flight of G pieces each: 32 MiB in all at any G (it
     * was 32 MiB per gather, 1 MiB pieces at least: 64 MiB at G = 4, more
     * at G = 32, in every rank's RSS). */
    size_t cap = (16 * MIB / (size_t)G) & ~(size_t)4095;
    cap = cap < MIN_MESSAGE ? MIN_MESSAGE : cap > 4 * MIB ? 4 * MIB : cap;
    /* small files still make a few messages, so something overlaps */
    uint64_t quarter = (smax / 4 + 4095) & ~(uint64_t)4095;
    size_t m = quarter < cap ? (size_t)quarter : cap;
    return m < MIN_MESSAGE ? MIN_MESSAGE : m;
}

void fti_l3_poll(MPI_Request *req, int n)
{
    for (int i = 0; i < n; i++) {
        int done;
        MPI_Test(&req[i], &done, MPI_STATUS_IGNORE);
    }
}

typedef struct stage {
    unsigned char *part; /* G pieces, `stride` bytes apart */
    const unsigned char *mine; /* this member's piece: its slot of part, or the
                                * application's buffer that holds those bytes */
    MPI_Request req[2 * FTI_RS_MAX_G]; /* the gather: a receive and a send per peer */
    int nreq;
    uint64_t off;
    size_t len, L; /* bytes of this message, and rounded up to FTI_GF_ALIGN */
} stage;

/* Seconds of the local work, wherever it ran (the job thread's clock is
 * not the caller's): read, encode, verify, write. */
enum { S_READ, S_ENCODE, S_VERIFY, S_WRITE, S_N };

typedef struct enc {
    const fti_l3_job *j;
    int data_fd, parity_fd;
    const fti_file_image *image; /* where the data file's bytes also lie in memory */
    uint64_t from_memory;        /* own pieces taken from there */
    uint64_t parity_off, n; /* n messages */
    size_t stride;
    stage st[2];
    unsigned char *out;
    fti_hash h;
    int err; /* first local errno; the collectives go on regardless */
    uint64_t k; /* the job thread's message */
    stage *poll; /* inline only: the gather in flight, progressed between slices */
    double secs[S_N];
} enc;

static void note(enc *e, int rc)
{
    if (rc != 0 && e->err == 0)
        e->err = errno ? errno : EIO;
}

/* Without a job thread the local work runs in the caller: between two
 * slices of it, the gather in flight moves on (MPI moves bytes only inside
 * MPI calls). On the job thread e->poll is NULL: it makes no MPI call. */
static void progress(enc *e)
{
    if (e->poll != NULL)
        fti_l3_poll(e->poll->req, e->poll->nreq);
}

/* This member's piece of message k for st[k & 1]: the application's bytes
 * where the image has all of them (no padding to add), else read into its
 * slot. */
static void read_piece(enc *e, uint64_t k)
{
    const fti_l3_job *j = e->j;
    stage *s = &e->st[k & 1];
    int p = j->r.pos;
    double t0 = fti_now();
    s->off = k * j->msg;
    s->len = (size_t)(j->smax - s->off < j->msg ? j->smax - s->off : j->msg);
    s->L = fti_gf_round(s->len);
    const char *mem = e->err == 0 && s->len == s->L && s->off + s->len <= j->size[p]
                          ? fti_file_image_at(e->image, s->off, s->len) : NULL;
    s->mine = (const unsigned char *)mem;
    if (mem != NULL) {
        e->from_memory++;
        return;
    }
    unsigned char *mine = s->part + (size_t)p * e->stride;
    s->mine = mine;
    for (size_t x = 0; x < s->L; x += SLICE) {
        size_t n = s->L - x < SLICE ? s->L - x : SLICE;
        if (e->err == 0)
            note(e, fti_read_padded(e->data_fd, j->size[p], mine + x, n, s->off + x));
        if (e->err) /* keep the collective going with harmless bytes */
            memset(mine + x, 0, n);
        progress(e);
    }
    e->secs[S_READ] += fti_now() - t0;
}

/* Posts the gather of message k, whose own piece was read: the piece goes
 * to every other member and theirs come in, all at once. A ring
 * all-gather moves the same bytes in G-1 steps, each waiting for the
 * previous one on two members: a member late to make progress (its MPI
 * calls come between slices of local work) held up the next step of the
 * whole group. Messages of one pair keep their order (MPI's non-overtaking
 * rule), so message k+1's never meet message k's receives. */
static void post_gather(enc *e, uint64_t k)
{
    const fti_l3_job *j = e->j;
    stage *s = &e->st[k & 1];
    int p = j->r.pos, n = (int)s->L;
    const unsigned char *mine = s->mine;
    s->nreq = 0;
    for (int d = 1; d < j->G; d++) { /* peers in ring order from each side: spread the load */
        int from = (p - d + j->G) % j->G, to = (p + d) % j->G;
        MPI_Irecv(s->part + (size_t)from * e->stride, n, MPI_BYTE, from, j->r.tag, j->r.comm,
                  &s->req[s->nreq++]);
        MPI_Isend(mine, n, MPI_BYTE, to, j->r.tag, j->r.comm, &s->req[s->nreq++]);
    }
}

/* Encodes this member's parity row of the gathered message k and writes
 * it, a slice at a time (the output buffer is one slice). */
static void encode(enc *e, uint64_t k)
{
    const fti_l3_job *j = e->j;
    stage *s = &e->st[k & 1];
    unsigned char *rows[FTI_RS_MAX_G];
    for (size_t x = 0; x < s->L; x += SLICE) {
        size_t n = s->L - x < SLICE ? s->L - x : SLICE;
        size_t keep = x >= s->len ? 0 : (s->len - x < n ? s->len - x : n);
        for (int i = 0; i < j->G; i++) /* read only: the codec's API is not const */
            rows[i] = (unsigned char *)(i == j->r.pos ? s->mine : s->part + (size_t)i * e->stride) + x;
        double t0 = fti_now(), t1, t2;
        fti_rs_parity(&j->code, j->r.pos, rows, e->out, n);
        t1 = t2 = fti_now();
        if (e->err == 0 && keep) {
            fti_hash_update(&e->h, e->out, keep);
            t2 = fti_now();
            note(e, fti_pwrite_full(e->parity_fd, e->out, keep, (off_t)(e->parity_off + s->off + x)));
        }
        e->secs[S_ENCODE] += t1 - t0;
        e->secs[S_VERIFY] += t2 - t1;
        e->secs[S_WRITE] += fti_now() - t2;
        progress(e);
    }
}

/* The job thread's work for message e->k: its parity, then the own piece
 * of message k+2 into the slot just freed, so the caller can post that
 * gather as soon as message k+1's has arrived. No MPI call here. */
static void encode_job(void *arg)
{
    enc *e = arg;
    encode(e, e->k);
    if (e->k + 2 < e->n)
        read_piece(e, e->k + 2);
}

static void enc_free(enc *e)
{
    free(e->st[0].part);
    free(e->st[1].part);
    free(e->out);
    fti_hash_free(&e->h);
}

/* The caller moves the bytes, the job thread does the local work: while
 * message k+1 is gathered, message k is encoded and written and the own
 * piece of k+2 read. Every rank posts the same gathers in the same order
 * whatever fails locally. */
static void stream(enc *e)
{
    fti_job_thread t = {0}; /* zeroed: jobs run inline */
    if (e->j->r.overlap)
        fti_job_thread_start(&t);
    if (t.running)
        fti_log(FTI_LOG_DEBUG, "L3: %s is encoded by a job thread while the next message is "
                "gathered", e->j->parity_path);
    for (uint64_t k = 0; k < 2 && k < e->n; k++) {
        e->poll = k == 1 ? &e->st[0] : NULL;
        read_piece(e, k);
        post_gather(e, k);
    }
    for (uint64_t k = 0; k < e->n; k++) {
        double t0 = fti_now();
        for (int i = 0; i < e->st[k & 1].nreq; i++)
            fti_watched_wait(&e->st[k & 1].req[i], e->j->r.comm, "L3 gather of the group's pieces");
        fti_phase_since(FTI_PP_GATHER, t0);
        fti_job_thread_wait(&t); /* message k-1 encoded, piece k+1 read */
        if (k >= 1 && k + 1 < e->n)
            post_gather(e, k + 1);
        e->k = k;
        e->poll = t.running ? NULL : &e->st[(k + 1) & 1];
        fti_job_thread_post(&t, encode_job, e);
    }
    fti_job_thread_stop(&t);
    fti_phase_add(FTI_PP_READ, e->secs[S_READ]);
    fti_phase_add(FTI_PP_ENCODE, e->secs[S_ENCODE]);
    fti_phase_add(FTI_PP_VERIFY, e->secs[S_VERIFY]);
    fti_phase_add(FTI_PP_WRITE, e->secs[S_WRITE]);
}

int fti_l3_encode(const fti_l3_job *j, int data_fd, const fti_file_image *image, int parity_fd,
                  uint64_t parity_off, uint64_t *sum)
{
    enc e = {.j = j, .data_fd = data_fd, .image = image, .parity_fd = parity_fd,
             .parity_off = parity_off};
    e.stride = j->msg + STAGGER;
    e.st[0].nreq = e.st[1].nreq = 0;
    e.st[0].part = fti_gf_alloc(e.stride * (size_t)j->G);
    e.st[1].part = fti_gf_alloc(e.stride * (size_t)j->G);
    e.out = fti_gf_alloc(SLICE < j->msg ? SLICE : j->msg);
    int ready = e.st[0].part && e.st[1].part && e.out && fti_hash_init(&e.h) == 0;
    if (!fti_all_ok(j->r.comm, ready)) { /* before the first collective: nobody waits */
        enc_free(&e);
        return ENOMEM;
    }
    if (data_fd < 0 || parity_fd < 0)
        e.err = EBADF;
    e.n = (j->smax + j->msg - 1) / j->msg;
    stream(&e);
    if (image != NULL)
        fti_log_rank0(FTI_LOG_DEBUG, "L3: %llu of %llu pieces of %s taken from the "
                      "application's buffers", (unsigned long long)e.from_memory,
                      (unsigned long long)e.n, j->data_path);
    *sum = e.err ? 0 : fti_hash_final(&e.h);
    enc_free(&e);
    return e.err;
}
