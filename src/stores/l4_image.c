#include "stores/l4_image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/ckpt_expect.h"
#include "format/fti_types_table.h"
#include "base/integrity.h"
#include "base/log.h"

int fti_l4_image_possible(const fti_registry *reg)
{
    for (int i = 0; i < reg->nvars; i++)
        if (reg->vars[i].dev != NULL)
            return 0;
    return 1;
}

fti_err fti_l4_image_open(fti_l4_image *im, const fti_ctx *ctx, const fti_commit *c)
{
    memset(im, 0, sizeof *im);
    im->reg = &ctx->reg;
    fti_expect_data_header(&im->hdr, c, ctx->topo.app_rank, ctx->dirs.exec_id);
    fti_err e = fti_file_plan(&ctx->reg, &im->hdr);
    if (e != FTI_E_OK)
        return e;
    for (uint32_t i = 0; i < im->hdr.nvars; i++)
        im->hdr.vars[i].checksum = fti_hash_buffer(ctx->reg.vars[i].ptr, im->hdr.vars[i].nbytes);
    im->head = malloc(im->hdr.data_offset);
    if (im->head == NULL)
        return fti_fail(FTI_E_NOMEM, "L4 rank %d: out of memory for the file header",
                        ctx->topo.app_rank);
    fti_file_header_encode(&im->hdr, im->head);
    return FTI_E_OK;
}

/* The bytes of [off, off + n) that lie in one piece: header, a variable or
 * the zero gap before the next one. Returns how many were copied. */
static size_t read_piece(const fti_l4_image *im, unsigned char *buf, size_t n, uint64_t off)
{
    const fti_file_header *h = &im->hdr;
    if (off < h->data_offset) {
        size_t k = h->data_offset - off < n ? (size_t)(h->data_offset - off) : n;
        memcpy(buf, im->head + off, k);
        return k;
    }
    uint64_t next = h->file_size;
    for (uint32_t i = 0; i < h->nvars; i++) {
        const fti_file_entry *v = &h->vars[i];
        if (off >= v->offset && off < v->offset + v->nbytes) {
            size_t k = v->offset + v->nbytes - off < n ? (size_t)(v->offset + v->nbytes - off) : n;
            memcpy(buf, (const char *)im->reg->vars[i].ptr + (off - v->offset), k);
            return k;
        }
        if (v->offset > off && v->offset < next)
            next = v->offset;
    }
    size_t k = next - off < n ? (size_t)(next - off) : n;
    memset(buf, 0, k);
    return k;
}

static int image_read(void *arg, void *buf, size_t n, uint64_t off)
{
    const fti_l4_image *im = arg;
    if (off > im->hdr.file_size || n > im->hdr.file_size - off) {
        errno = EIO;
        return -1;
    }
    for (size_t done = 0; done < n;)
        done += read_piece(im, (unsigned char *)buf + done, n - done, off + done);
    return 0;
}

static int image_write(void *arg, const void *buf, size_t n, uint64_t off)
{
    (void)arg, (void)buf, (void)n, (void)off;
    errno = EBADF; /* a source only */
    return -1;
}

void fti_l4_image_io(fti_l4_image *im, fti_l4_io *io)
{
    io->read = image_read;
    io->write = image_write;
    io->arg = im;
}

void fti_l4_image_take_header(fti_l4_image *im, fti_file_header *out)
{
    *out = im->hdr;
    im->hdr.vars = NULL;
}

void fti_l4_image_close(fti_l4_image *im)
{
    fti_file_header_free(&im->hdr);
    free(im->head);
    im->head = NULL;
}

int fti_l4_float_spans(const fti_file_header *h, fti_l4_span **out)
{
    int n = 0;
    *out = h->nvars > 0 ? calloc(h->nvars, sizeof **out) : NULL;
    for (uint32_t i = 0; *out != NULL && i < h->nvars; i++) {
        const fti_file_entry *v = &h->vars[i];
        uint32_t stride = v->type == FTI_TYPE_DBLE ? 8 : v->type == FTI_TYPE_SFLT ? 4 : 0;
        if (stride != 0 && v->nbytes > 0)
            (*out)[n++] = (fti_l4_span){v->offset, v->nbytes, stride};
    }
    return n;
}
