/* libFuzzer target: the commit record reader. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/log.h"
#include "format/meta.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char path[64];
    if (path[0] == '\0') {
        snprintf(path, sizeof path, "/tmp/fti-fuzz-meta-%d", (int)getpid());
        fti_log_setup(0, FTI_LOG_ERROR + 1);
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 0;
    fwrite(data, 1, n, f);
    fclose(f);
    fti_meta m;
    int found = 0;
    fti_err e = fti_meta_load(path, &m, &found);
    if (e == FTI_E_OK && found) {
        fti_commit c[8];
        int k = fti_meta_candidates(&m, c);
        for (int i = 0; i < k; i++) /* accepted records hold only sane values */
            if (c[i].level < 1 || c[i].level > 4 || (c[i].slot != 0 && c[i].slot != 1))
                abort();
    }
    return 0;
}
