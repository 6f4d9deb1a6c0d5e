/* libFuzzer target: the config parser. Any bytes as a config file must give
 * FTI_E_OK or FTI_E_CONFIG with a message, never a crash or a leak. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "format/config.h"
#include "base/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    static char path[64];
    if (path[0] == '\0') {
        snprintf(path, sizeof path, "/tmp/fti-fuzz-config-%d.fti", (int)getpid());
        fti_log_setup(0, FTI_LOG_ERROR + 1); /* silence */
    }
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 0;
    fwrite(data, 1, n, f);
    fclose(f);
    fti_config cfg;
    fti_err e = fti_config_load(&cfg, path);
    if (e != FTI_E_OK && e != FTI_E_CONFIG)
        abort(); /* only these two outcomes exist */
    if (e == FTI_E_CONFIG && fti_last_error()[0] == '\0')
        abort(); /* an error always says why */
    return 0;
}
