#include "format/file_image.h"

#include <stdlib.h>

#include "base/log.h"
#include "format/ckpt_file.h"

fti_err fti_file_image_of(const fti_registry *reg, fti_file_image *img)
{
    fti_file_header hdr = {0};
    img->nseg = 0;
    img->seg = NULL;
    fti_err e = fti_file_plan(reg, &hdr); /* the one layout rule of the format */
    if (e != FTI_E_OK)
        return e;
    img->file_size = hdr.file_size;
    img->seg = calloc(hdr.nvars ? hdr.nvars : 1, sizeof *img->seg);
    if (img->seg == NULL) {
        fti_file_header_free(&hdr);
        return fti_fail(FTI_E_NOMEM, "checkpoint: out of memory for the file's image");
    }
    for (uint32_t i = 0; i < hdr.nvars; i++) {
        const fti_var *v = &reg->vars[i];
        if (v->dev != NULL || v->ptr == NULL || hdr.vars[i].nbytes == 0)
            continue;
        img->seg[img->nseg++] = (fti_file_image_seg){hdr.vars[i].offset, hdr.vars[i].nbytes,
                                                     (const char *)v->ptr};
    }
    fti_file_header_free(&hdr);
    return FTI_E_OK;
}

const char *fti_file_image_at(const fti_file_image *img, uint64_t off, size_t n)
{
    if (img == NULL || n == 0)
        return NULL;
    int lo = 0, hi = img->nseg; /* segments are in file order: the last starting at or before off */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (img->seg[mid].off <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const fti_file_image_seg *s = &img->seg[lo - 1];
    return off - s->off + n <= s->len ? s->mem + (off - s->off) : NULL;
}

const fti_file_image *fti_file_image_for(const fti_file_image *img, uint64_t file_size)
{
    return img != NULL && img->file_size == file_size ? img : NULL;
}

void fti_file_image_free(fti_file_image *img)
{
    free(img->seg);
    img->seg = NULL;
    img->nseg = 0;
}
