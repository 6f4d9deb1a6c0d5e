/* libFuzzer target: FTI 1.6's metadata file reader (format/fti16.c), the
 * input being <meta_dir>/<exec_id>/l4/sector0-group0.fti of a job whose
 * config and 64-byte data file Ckpt3-Rank0.fti are made once. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "format/fti16.h"

static char cfg[256], meta[256];

static void setup(void)
{
    char d[200], p[256];
    snprintf(d, sizeof d, "/tmp/fti-fuzz-fti16-%d", (int)getpid());
    const char *dirs[] = {"", "/meta", "/meta/e", "/meta/e/l4", "/global", "/global/e",
                          "/global/e/l4"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s%s", d, dirs[i]);
        mkdir(p, 0700);
    }
    snprintf(cfg, sizeof cfg, "%s/config.fti", d);
    FILE *f = fopen(cfg, "w");
    if (f != NULL) {
        fputs("[basic]\nhead = 0\nnode_size = 1\nckpt_dir = ./local\nglbl_dir = ./global\n"
              "meta_dir = ./meta\n[restart]\nexec_id = e\n",
              f);
        fclose(f);
    }
    snprintf(p, sizeof p, "%s/global/e/l4/Ckpt3-Rank0.fti", d);
    f = fopen(p, "w");
    if (f != NULL) {
        for (int i = 0; i < 64; i++)
            fputc(i, f);
        fclose(f);
    }
    snprintf(meta, sizeof meta, "%s/meta/e/l4/sector0-group0.fti", d);
    fti_log_setup(0, FTI_LOG_ERROR + 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    if (cfg[0] == '\0')
        setup();
    FILE *f = fopen(meta, "wb");
    if (f == NULL)
        return 0;
    fwrite(data, 1, n, f);
    fclose(f);
    fti16_ckpt c;
    if (fti16_open(cfg, &c) != FTI_E_OK)
        return 0;
    for (int i = 0; i < c.nranks; i++) {
        const fti16_rank *r = &c.ranks[i];
        for (int j = 0; j < r->nvars; j++) /* accepted: every variable inside its file */
            if (r->vars[j].pos + r->vars[j].size > r->size || r->vars[j].typesize == 0)
                abort();
        unsigned char *b = NULL;
        if (fti16_read_rank(&c, i, &b) == FTI_E_OK)
            free(b);
    }
    fti16_free(&c);
    return 0;
}
