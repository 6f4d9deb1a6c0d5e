#include "format/l4_shared.h"

#include <stdio.h>
#include <string.h>

#include "base/integrity.h"
#include "base/le_field.h"
#include "base/log.h"

typedef unsigned long long ull;

uint64_t fti_l4sh_align(uint64_t n)
{
    return (n + FTI_L4SH_ALIGN - 1) / FTI_L4SH_ALIGN * FTI_L4SH_ALIGN;
}

uint64_t fti_l4sh_data_offset(int nranks)
{
    return fti_l4sh_align(FTI_L4SH_HEADER + (uint64_t)nranks * FTI_L4SH_ENTRY);
}

void fti_l4sh_encode_header(unsigned char *h, int nranks, uint64_t seq, uint32_t codec)
{
    memset(h, 0, FTI_L4SH_HEADER);
    memcpy(h, FTI_L4SH_MAGIC, 8);
    fti_le_put32(h + 8, FTI_L4SH_VERSION);
    fti_le_put32(h + 12, (uint32_t)nranks);
    fti_le_put64(h + 16, seq);
    fti_le_put32(h + 24, codec);
    fti_le_put64(h + 32, fti_l4sh_data_offset(nranks));
    fti_le_put64(h + 56, fti_hash_buffer(h, 56));
}

void fti_l4sh_encode_entry(unsigned char *e, uint64_t offset, uint64_t length, int rank)
{
    memset(e, 0, FTI_L4SH_ENTRY);
    fti_le_put64(e, offset);
    fti_le_put64(e + 8, length);
    fti_le_put32(e + 16, (uint32_t)rank);
    fti_le_put64(e + 24, fti_hash_buffer(e, 24));
}

/* "who: " before the messages, or nothing. */
typedef struct sh_where {
    char who[96];
    const char *path;
} sh_where;

static fti_err check_header(const unsigned char *h, int nranks, uint64_t seq, const sh_where *w)
{
    if (memcmp(h, FTI_L4SH_MAGIC, 8) != 0 || fti_le_get64(h + 56) != fti_hash_buffer(h, 56))
        return fti_fail(FTI_E_CORRUPT, "%sshared global file %s: header corrupt", w->who, w->path);
    if (fti_le_get32(h + 8) != FTI_L4SH_VERSION || fti_le_get32(h + 12) != (uint32_t)nranks ||
        fti_le_get64(h + 16) != seq)
        return fti_fail(FTI_E_CORRUPT, "%sshared global file %s holds checkpoint #%llu of %u ranks "
                        "(version %u), expected #%llu of %d", w->who, w->path,
                        (ull)fti_le_get64(h + 16), fti_le_get32(h + 12), fti_le_get32(h + 8),
                        (ull)seq, nranks);
    return FTI_E_OK;
}

static fti_err check_entry(const unsigned char *e, int rank, const sh_where *w)
{
    if (fti_le_get64(e + 24) != fti_hash_buffer(e, 24) || fti_le_get32(e + 16) != (uint32_t)rank)
        return fti_fail(FTI_E_CORRUPT, "%sshared global file %s: index entry of rank %d corrupt",
                        w->who, w->path, rank);
    return FTI_E_OK;
}

fti_err fti_l4sh_find_piece(const fti_l4_io *src, uint64_t size, int nranks, uint64_t seq,
                            int rank, const char *who, const char *path, uint64_t *offset,
                            uint64_t *length)
{
    unsigned char h[FTI_L4SH_HEADER], ent[FTI_L4SH_ENTRY];
    sh_where w = {"", path};
    if (who != NULL)
        snprintf(w.who, sizeof w.who, "%s: ", who);
    if (size < fti_l4sh_data_offset(nranks) || src->read(src->arg, h, sizeof h, 0) != 0)
        return fti_fail(FTI_E_CORRUPT, "%sshared global file %s is truncated (%llu bytes, no "
                        "complete index)", w.who, path, (ull)size);
    fti_err e = check_header(h, nranks, seq, &w);
    if (e == FTI_E_OK &&
        src->read(src->arg, ent, sizeof ent, FTI_L4SH_HEADER + (uint64_t)rank * FTI_L4SH_ENTRY) != 0)
        e = fti_fail(FTI_E_IO, "%scannot read the index of %s", w.who, path);
    if (e == FTI_E_OK)
        e = check_entry(ent, rank, &w);
    if (e != FTI_E_OK)
        return e;
    *offset = fti_le_get64(ent);
    *length = fti_le_get64(ent + 8);
    if (*offset > size || *length > size - *offset)
        return fti_fail(FTI_E_CORRUPT, "%sshared global file %s is truncated: the piece of rank %d "
                        "ends at byte %llu, the file has %llu", w.who, path, rank,
                        (ull)(*offset + *length), (ull)size);
    return FTI_E_OK;
}
