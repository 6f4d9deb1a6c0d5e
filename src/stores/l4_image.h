/*
 * l4_image.h - a rank's checkpoint file as fti_file_write would lay it out,
 * read straight from the protected variables in memory. L4 writes the
 * global copy from it when no local file is kept (l4_local_copy = 0), so
 * every byte is written once.
 */
#ifndef FTI_L4_IMAGE_H
#define FTI_L4_IMAGE_H

#include "core/context.h"
#include "format/l4_codec.h"

typedef struct fti_l4_image {
    const fti_registry *reg;
    fti_file_header hdr;   /* layout and checksums of the file */
    unsigned char *head;   /* its encoded header: hdr.data_offset bytes */
} fti_l4_image;

/* 1 when every protected variable is in host memory (the image reads it
 * directly; device variables need the capture pipeline of ckpt_file.c). */
int fti_l4_image_possible(const fti_registry *reg);

/* Plans the file and hashes every variable (one pass over memory). The
 * variables must not change until fti_l4_image_close. */
fti_err fti_l4_image_open(fti_l4_image *im, const fti_ctx *ctx, const fti_commit *c);

/* The image as a byte source (reads only; past the end fails with EIO). */
void fti_l4_image_io(fti_l4_image *im, fti_l4_io *io);

/* Hands the header (table and checksums) to *out; the image keeps none. */
void fti_l4_image_take_header(fti_l4_image *im, fti_file_header *out);

void fti_l4_image_close(fti_l4_image *im);

/* The floating-point variables of a file, for the shuffle filter: *out
 * (caller frees) gets one span per float or double variable; returns the
 * count (0 on allocation failure: no shuffling). */
int fti_l4_float_spans(const fti_file_header *h, fti_l4_span **out);

#endif /* FTI_L4_IMAGE_H */
