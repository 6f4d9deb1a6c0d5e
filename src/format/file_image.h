/*
 * file_image.h - where a checkpoint file this rank has just written also
 * lies in memory: the byte ranges of its host variables (the layout of
 * fti_file_plan), so that a synchronous post can send them from the
 * application's buffers instead of reading the file back (a copy of every
 * byte saved). Valid only while the buffers hold what was written: inside
 * the FTI_Checkpoint call that wrote the file, never after it returned.
 */
#ifndef FTI_FILE_IMAGE_H
#define FTI_FILE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "data/registry.h"

typedef struct fti_file_image_seg {
    uint64_t off, len;  /* in the file */
    const char *mem;    /* the same bytes in memory */
} fti_file_image_seg;

typedef struct fti_file_image {
    uint64_t file_size;
    int nseg;
    fti_file_image_seg *seg; /* host variables in file order; device ones left out */
} fti_file_image;

/* The image of the file fti_file_write makes of reg. FTI_E_NOMEM, or OK. */
fti_err fti_file_image_of(const fti_registry *reg, fti_file_image *img);

/* The n bytes at file offset off, when they lie in memory in one piece;
 * NULL otherwise (the header, padding, device variables, a range across
 * two variables): the caller reads the file. img may be NULL. */
const char *fti_file_image_at(const fti_file_image *img, uint64_t off, size_t n);

/* img when it describes a file of file_size bytes, else NULL (not the file
 * the image was made for: the caller reads that file). img may be NULL. */
const fti_file_image *fti_file_image_for(const fti_file_image *img, uint64_t file_size);

void fti_file_image_free(fti_file_image *img);

#endif
