/*
 * ckpt_copy.h - the in-memory copy of the protected variables that an
 * asynchronous checkpoint is written from ([basic] staging_mib): the
 * application may change its buffers as soon as the copy is taken, while the
 * helper thread writes the checkpoint from the copy. Not FTI's file staging
 * (staging.c, FTI_SendFile).
 */
#ifndef FTI_CKPT_COPY_H
#define FTI_CKPT_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "data/capture.h"
#include "base/error.h"
#include "data/registry.h"

typedef struct fti_ckpt_copy {
    unsigned char *buf; /* grows to the largest copy taken, kept until freed */
    size_t cap;
    fti_registry reg;   /* the variables as they were, ptr into buf, host memory */
    int var_cap;
} fti_ckpt_copy;

/* Bytes of buffer a copy of reg's variables takes (each 64-byte aligned). */
uint64_t fti_ckpt_copy_need(const fti_registry *reg);

/* Copies every variable of reg into cp (device variables through the
 * capture pipeline of `sets`, chunks of gpu_bufsize). cp->reg then describes
 * them as host variables. Not thread-safe against a writer of cp->reg.
 * Returns FTI_E_OK, FTI_E_NOMEM or FTI_E_DEVICE (message recorded). */
fti_err fti_ckpt_copy_take(fti_ckpt_copy *cp, const fti_registry *reg, fti_capture_sets *sets,
                           size_t gpu_bufsize);

/* Frees the buffer and table; cp is empty afterwards. NULL is accepted. */
void fti_ckpt_copy_free(fti_ckpt_copy *cp);

#endif /* FTI_CKPT_COPY_H */
