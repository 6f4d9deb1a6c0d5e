/* libFuzzer target: the checkpoint file reader. Any bytes as a checkpoint
 * file: a clear rejection or a consistent header, never a crash. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "format/ckpt_file.h"
#include "base/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char path[64];
    if (path[0] == '\0') {
        snprintf(path, sizeof path, "/tmp/fti-fuzz-ckpt-%d.fti", (int)getpid());
        fti_log_setup(0, FTI_LOG_ERROR + 1);
    }
    fti_file_header h;
    if (fti_file_header_decode(data, n, "fuzz", &h) == FTI_E_OK)
        fti_file_header_free(&h);
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 0;
    fwrite(data, 1, n, f);
    fclose(f);
    fti_err e = fti_file_verify(path, 0, 1, &h);
    if (e == FTI_E_OK) {
        for (uint32_t i = 0; i < h.nvars; i++) /* accepted: every variable inside the file */
            if (h.vars[i].offset + h.vars[i].nbytes > h.file_size)
                abort();
        fti_file_header_free(&h);
    } else if (fti_last_error()[0] == '\0') {
        abort();
    }
    return 0;
}
