#include "runtime/say_once.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/xxh.h"

enum { SAY_MAX = 1024, H = 3 /* uint64 per rank: exact, shape, length */ };

/* Appends to buf at *at, never past len; leaves "..." when it does not fit. */
static void put(char *buf, size_t len, size_t *at, const char *s)
{
    size_t n = strlen(s);
    if (*at + n + 4 >= len) {
        if (*at + 4 < len)
            memcpy(buf + *at, "...", 4), *at += 3;
        *at = len; /* full: later parts are dropped */
        return;
    }
    memcpy(buf + *at, s, n + 1);
    *at += n;
}

void fti_ranks_phrase(const int *r, int n, char *buf, size_t len)
{
    char part[48];
    size_t at = 0;
    buf[0] = '\0';
    if (n == 1) {
        snprintf(buf, len, "rank %d", r[0]);
        return;
    }
    /* One run of ranks (all of them, say): "ranks A-B"; else the count,
     * then the runs: "a-b" for three or more, else each rank. */
    int one_run = r[n - 1] - r[0] == n - 1;
    if (one_run)
        snprintf(part, sizeof part, "ranks %d-%d", r[0], r[n - 1]);
    else
        snprintf(part, sizeof part, "%d ranks: ", n);
    put(buf, len, &at, part);
    for (int i = 0; !one_run && i < n && at < len;) {
        int j = i;
        while (j + 1 < n && r[j + 1] == r[j] + 1)
            j++;
        if (j - i >= 2)
            snprintf(part, sizeof part, "%s%d-%d", i ? ", " : "", r[i], r[j]);
        else
            snprintf(part, sizeof part, "%s%d", i ? ", " : "", r[i]), j = i;
        put(buf, len, &at, part);
        i = j + 1;
    }
}

/* Rank 0: prints each message once for the ranks whose messages share its
 * shape (the same words, numbers aside: each rank's own file, rank or node),
 * in the words of the first of them. h: per rank, {exact hash, shape hash,
 * length}; texts + at[k]: the words of rank k when it is the first of its
 * shape (send[k]). */
static void print_groups(int level, char *texts, const int *send, const int *at, const uint64_t *h,
                         int size)
{
    int *r = malloc(sizeof *r * (size_t)size);
    char ranks[256];
    for (int first = 0; r != NULL && first < size; first++) {
        if (!send[first]) /* not the first rank of its shape */
            continue;
        int n = 0, same = 1;
        for (int k = first; k < size; k++)
            if (h[H * k + 1] == h[H * first + 1]) {
                r[n++] = k;
                same = same && h[H * k] == h[H * first];
            }
        char *text = texts + at[first];
        text[h[H * first + 2]] = '\0'; /* as sent: the length, then its end */
        fti_ranks_phrase(r, n, ranks, sizeof ranks);
        if (size == 1)
            fti_log(level, "%s", text);
        else
            fti_log(level, "%s (on %s%s)", text, ranks, same ? "" : ", each with its own numbers");
    }
    free(r);
}

/* The hash 0 means "nothing to say"; a message never hashes to it. */
static uint64_t hash_of(const char *msg, size_t n)
{
    uint64_t h = fti_xxh3(msg, n);
    return h != 0 ? h : 1;
}

/* Per rank on the wire: the message's exact hash, the hash of its shape
 * (every run of digits read as one '#') and its length. {0, 0, 0} for no
 * message; a message never hashes to 0. */
static void hashes(const char *msg, uint64_t out[H])
{
    out[0] = out[1] = out[2] = 0;
    if (msg == NULL || msg[0] == '\0')
        return;
    char shape[SAY_MAX];
    size_t n = 0;
    for (const char *p = msg; *p != '\0' && n + 1 < sizeof shape; p++) {
        int digit = *p >= '0' && *p <= '9';
        if (!digit || n == 0 || shape[n - 1] != '#')
            shape[n++] = digit ? '#' : *p;
    }
    size_t len = strnlen(msg, SAY_MAX - 1);
    out[0] = hash_of(msg, len);
    out[1] = hash_of(shape, n);
    out[2] = len;
}

/* Rank 0: which ranks send their words (the first of each shape, send[k]),
 * how many bytes (count[k]) and where they land (at[k]). Returns
 * the total. */
static int plan_texts(const uint64_t *h, int size, int *send, int *count, int *at)
{
    int total = 0;
    for (int k = 0; k < size; k++) {
        send[k] = h[H * k + 1] != 0;
        for (int j = 0; j < k && send[k]; j++)
            send[k] = h[H * j + 1] != h[H * k + 1];
        count[k] = send[k] ? (int)h[H * k + 2] + 1 : 0;
        at[k] = total;
        total += count[k];
    }
    return total;
}

/* Collective, three steps, no message outside them (the comm may be the
 * application's): gather {hashes, length}; scatter "send your words" to the
 * first rank of each shape; gather those words. Rank 0 then prints. */
void fti_say_once(MPI_Comm comm, int level, const char *msg)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    uint64_t mine[H];
    hashes(msg, mine);
    uint64_t *h = NULL;
    int *send = NULL, *count = NULL, *at = NULL, total = 0;
    char *texts = NULL;
    if (rank == 0) { /* small: 40 bytes per rank, on a failure path only */
        h = calloc((size_t)size * H, sizeof *h);
        send = calloc((size_t)size * 3, sizeof *send);
        count = send + size, at = send + 2 * (size_t)size;
    }
    MPI_Gather(mine, H, MPI_UINT64_T, h, H, MPI_UINT64_T, 0, comm);
    if (rank == 0)
        total = plan_texts(h, size, send, count, at), texts = malloc((size_t)total + 1);
    int me = 0;
    MPI_Scatter(send, 1, MPI_INT, &me, 1, MPI_INT, 0, comm);
    MPI_Gatherv(msg, me ? (int)mine[2] + 1 : 0, MPI_CHAR, texts, count, at, MPI_CHAR, 0, comm);
    if (rank == 0)
        print_groups(level, texts, send, at, h, size);
    free(texts);
    free(send);
    free(h);
}
