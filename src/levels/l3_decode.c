/*
 * l3_decode.c - L3's rebuild stream. Per message, every picked survivor
 * reads its piece of its data and parity and adds its share of each lost
 * chunk, then sends the shares of each owner's lost chunks straight to that
 * owner, which sums them (XOR) and writes them: its data file (the lost
 * member's rebuilt file) and its parity, re-created in the same pass, so no
 * second encode follows the restart. Only lost chunks travel, in one hop
 * (a reduction tree took two, and MPI's generic XOR). Two messages are in
 * flight, as in the encode stream.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/collective.h"
#include "base/fio.h"
#include "format/gf_region.h"
#include "base/integrity.h"
#include "levels/l3_rs.h"
#include "runtime/watchdog.h"

#define SLICE ((size_t)1 << 20)

#define NREQ (2 * FTI_RS_MAX_G)

typedef struct rstage {
    unsigned char *mine[2]; /* this member's data and parity pieces (NULL: not picked) */
    unsigned char *acc;     /* the lost rows, L bytes apart, grouped by owner */
    unsigned char *in[FTI_RS_MAX_G]; /* as owner: member q's shares of its rows (NULL: none) */
    MPI_Request req[NREQ];  /* sends to owner m at m, receives from member q at G + q */
    uint64_t off;
    size_t len, L;
} rstage;

typedef struct dec {
    const fti_l3_job *j;
    const fti_rs_plan *plan;
    const fti_l3_io *io;
    int order[2 * FTI_RS_MAX_G];  /* plan rows in owner order */
    int first[FTI_RS_MAX_G + 1];  /* owner m's rows: order[first[m] .. first[m+1]) */
    int gives[FTI_RS_MAX_G];      /* member q holds a picked chunk: it has shares */
    int direct;                   /* an owner that gives none: the giver whose shares it
                                   * receives straight into its rows (else -1) */
    rstage st[2];
    fti_hash h;
    int err;
} dec;

static int rows_of(const dec *d, int m)
{
    return d->first[m + 1] - d->first[m];
}

static void note(dec *d, int rc)
{
    if (rc != 0 && d->err == 0)
        d->err = errno ? errno : EIO;
}

static void group_by_owner(dec *d)
{
    int n = 0, G = d->j->G;
    for (int m = 0; m < G; m++) {
        d->first[m] = n;
        for (int t = 0; t < d->plan->nlost; t++) /* data ids come first in plan->lost */
            if (d->plan->lost[t] % G == m)
                d->order[n++] = t;
    }
    d->first[G] = n;
    d->direct = -1;
    for (int q = G - 1; q >= 0; q--) {
        d->gives[q] = fti_rs_picked(d->plan, q) || fti_rs_picked(d->plan, G + q);
        if (d->gives[q] && q != d->j->r.pos)
            d->direct = q;
    }
    if (d->gives[d->j->r.pos])
        d->direct = -1;
}

/* Reads this member's data (which 0) or parity (1) piece of the message. */
static void read_piece(dec *d, rstage *s, int which, MPI_Request *other)
{
    const fti_l3_job *j = d->j;
    unsigned char *buf = s->mine[which];
    int fd = which ? d->io->parity_fd : d->io->data_fd;
    uint64_t base = which ? d->io->parity_off : 0;
    uint64_t end = which ? base + j->smax : j->size[j->r.pos];
    if (fd < 0 && d->err == 0)
        d->err = EBADF;
    for (size_t x = 0; x < s->L; x += SLICE) {
        size_t n = s->L - x < SLICE ? s->L - x : SLICE;
        if (d->err == 0)
            note(d, fti_read_padded(fd, end, buf + x, n, base + s->off + x));
        if (d->err) /* the reductions go on with harmless bytes */
            memset(buf + x, 0, n);
        fti_l3_poll(other, NREQ);
    }
}

/* This member's shares of every lost row of the message. */
static void add_shares(dec *d, rstage *s, MPI_Request *other)
{
    const fti_l3_job *j = d->j;
    int p = j->r.pos;
    for (int pos = 0; pos < d->plan->nlost; pos++) {
        unsigned char *row = s->acc + (size_t)pos * s->L;
        int t = d->order[pos];
        memset(row, 0, s->L);
        for (size_t x = 0; x < s->L; x += SLICE) {
            size_t n = s->L - x < SLICE ? s->L - x : SLICE;
            if (s->mine[0] != NULL)
                fti_rs_share(d->plan, t, p, s->mine[0] + x, row + x, n);
            if (s->mine[1] != NULL)
                fti_rs_share(d->plan, t, j->G + p, s->mine[1] + x, row + x, n);
            fti_l3_poll(other, NREQ);
        }
    }
}

/* Message k: posts this member's receives of the rows it owns, reads its
 * pieces, adds their shares to every lost row and sends each owner its
 * rows; `other` (the message in flight) progresses meanwhile. */
static void start_exchange(dec *d, uint64_t k, MPI_Request *other)
{
    const fti_l3_job *j = d->j;
    rstage *s = &d->st[k & 1];
    s->off = k * j->msg;
    s->len = (size_t)(j->smax - s->off < j->msg ? j->smax - s->off : j->msg);
    s->L = fti_gf_round(s->len);
    int p = j->r.pos;
    unsigned char *rows = s->acc + (size_t)d->first[p] * s->L;
    for (int q = 0; q < j->G; q++) /* the owner's receives first: the sends find them */
        if (q != p && d->gives[q] && rows_of(d, p) > 0)
            MPI_Irecv(q == d->direct ? rows : s->in[q], (int)((size_t)rows_of(d, p) * s->L),
                      MPI_BYTE, q, j->r.tag, j->r.comm, &s->req[j->G + q]);
    if (!d->gives[p])
        return;
    for (int which = 0; which < 2; which++)
        if (s->mine[which] != NULL)
            read_piece(d, s, which, other);
    add_shares(d, s, other);
    for (int m = 0; m < j->G; m++)
        if (m != p && rows_of(d, m) > 0)
            MPI_Isend(s->acc + (size_t)d->first[m] * s->L, (int)((size_t)rows_of(d, m) * s->L),
                      MPI_BYTE, m, j->r.tag, j->r.comm, &s->req[m]);
}

/* dst ^= src over n bytes (64-byte aligned buffers, n a multiple of 64). */
static void xor_into(unsigned char *dst, const unsigned char *src, size_t n)
{
    uint64_t *a = (uint64_t *)(void *)dst;
    const uint64_t *b = (const uint64_t *)(const void *)src;
    for (size_t i = 0; i < n / 8; i++)
        a[i] ^= b[i];
}

/* This owner's rows of the message: its own shares, or those of the
 * giver received straight into them (d->direct), plus every other
 * giver's, in place in acc. */
static void sum_shares(dec *d, rstage *s, MPI_Request *other)
{
    const fti_l3_job *j = d->j;
    int p = j->r.pos;
    size_t n = (size_t)rows_of(d, p) * s->L;
    unsigned char *rows = s->acc + (size_t)d->first[p] * s->L;
    for (int q = 0; q < j->G; q++) {
        if (q == p || q == d->direct || !d->gives[q])
            continue;
        for (size_t x = 0; x < n; x += SLICE) {
            size_t len = n - x < SLICE ? n - x : SLICE;
            xor_into(rows + x, s->in[q] + x, len);
            fti_l3_poll(other, NREQ);
        }
    }
}

/* Writes one re-created row: the data file up to its size, or parity. */
static void store_row(dec *d, rstage *s, int id, const unsigned char *row, MPI_Request *other)
{
    const fti_l3_job *j = d->j;
    int parity = id >= j->G;
    uint64_t limit = parity ? j->smax : j->size[j->r.pos];
    int fd = parity ? d->io->out_parity_fd : d->io->out_data_fd;
    uint64_t base = parity ? d->io->parity_off : 0;
    if (fd < 0 && d->err == 0)
        d->err = EBADF;
    for (size_t x = 0; x < s->len && s->off + x < limit; x += SLICE) {
        size_t n = s->len - x < SLICE ? s->len - x : SLICE;
        if (s->off + x + n > limit)
            n = (size_t)(limit - s->off - x);
        if (parity && d->err == 0)
            fti_hash_update(&d->h, row + x, n);
        if (d->err == 0)
            note(d, fti_pwrite_full(fd, row + x, n, (off_t)(base + s->off + x)));
        if (!parity && d->err == 0 && d->io->check != NULL) /* rows come in file order */
            fti_file_stream_feed(d->io->check, row + x, n);
        fti_l3_poll(other, NREQ);
    }
}

static void consume(dec *d, uint64_t k, MPI_Request *other)
{
    const fti_l3_job *j = d->j;
    rstage *s = &d->st[k & 1];
    int p = j->r.pos;
    for (int r = 0; r < NREQ; r++)
        fti_watched_wait(&s->req[r], d->j->r.comm, "L3 rebuild's exchange of shares");
    if (rows_of(d, p) > 0)
        sum_shares(d, s, other);
    for (int pos = d->first[p]; pos < d->first[p + 1]; pos++)
        store_row(d, s, d->plan->lost[d->order[pos]], s->acc + (size_t)pos * s->L, other);
}

static int stages_alloc(dec *d)
{
    const fti_l3_job *j = d->j;
    int p = j->r.pos, ok = 1;
    int use[2] = {fti_rs_picked(d->plan, p), fti_rs_picked(d->plan, j->G + p)};
    size_t in_len = j->msg * (size_t)rows_of(d, p);
    for (int i = 0; i < 2; i++) {
        rstage *s = &d->st[i];
        for (int r = 0; r < NREQ; r++)
            s->req[r] = MPI_REQUEST_NULL;
        for (int which = 0; which < 2; which++)
            if (use[which] && (s->mine[which] = fti_gf_alloc(j->msg)) == NULL)
                ok = 0;
        if ((s->acc = fti_gf_alloc(j->msg * (size_t)d->plan->nlost)) == NULL)
            ok = 0;
        for (int q = 0; q < j->G; q++)
            if (q != p && q != d->direct && d->gives[q] && in_len > 0 &&
                (s->in[q] = fti_gf_alloc(in_len)) == NULL)
                ok = 0;
    }
    return ok && fti_hash_init(&d->h) == 0;
}

static void stages_free(dec *d)
{
    for (int i = 0; i < 2; i++) {
        free(d->st[i].mine[0]);
        free(d->st[i].mine[1]);
        free(d->st[i].acc);
        for (int q = 0; q < FTI_RS_MAX_G; q++)
            free(d->st[i].in[q]);
    }
    fti_hash_free(&d->h);
}

int fti_l3_rebuild_stream(const fti_l3_job *j, const fti_rs_plan *plan, const fti_l3_io *io,
                          uint64_t *parity_sum)
{
    dec d = {.j = j, .plan = plan, .io = io};
    group_by_owner(&d);
    if (!fti_all_ok(j->r.comm, stages_alloc(&d))) {
        stages_free(&d);
        return ENOMEM;
    }
    uint64_t n = (j->smax + j->msg - 1) / j->msg;
    if (n > 0)
        start_exchange(&d, 0, d.st[1].req);
    for (uint64_t k = 0; k < n; k++) {
        if (k + 1 < n)
            start_exchange(&d, k + 1, d.st[k & 1].req);
        consume(&d, k, d.st[(k + 1) & 1].req);
    }
    *parity_sum = d.err ? 0 : fti_hash_final(&d.h);
    stages_free(&d);
    return d.err;
}
