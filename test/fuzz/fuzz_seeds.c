/* Writes a valid seed for each fuzz target into DIR/{config,ckpt,meta,fti16}/, so
 * the fuzzers start from inputs that reach deep into the parsers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/ckpt_file.h"
#include "format/meta.h"
#include "data/registry.h"

static void path(char *out, const char *dir, const char *sub, const char *name)
{
    snprintf(out, 4096, "%s/%s", dir, sub);
    mkdir(out, 0700);
    snprintf(out, 4096, "%s/%s/%s", dir, sub, name);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char p[4096];
    path(p, argv[1], "config", "seed.fti");
    FILE *f = fopen(p, "w");
    if (!f)
        return 1;
    fprintf(f, "[basic]\nhead = 0\nnode_size = 1\nckpt_dir = /tmp/a\nglbl_dir = /tmp/b\n"
               "ckpt_l1_iter = 5\nl4_compression = zstd:1\nrestart = auto\n[restart]\n"
               "exec_id = seed\n[advanced]\nblock_size = 64\n");
    fclose(f);

    fti_registry r;
    fti_registry_init(&r);
    double d[100];
    int i = 7;
    for (int k = 0; k < 100; k++)
        d[k] = k * 0.5;
    fti_registry_protect(&r, 0, &i, 1, 2);
    fti_registry_protect(&r, 1, d, 100, 9);
    fti_file_header h;
    memset(&h, 0, sizeof h);
    h.seq = 3;
    h.level = 1;
    path(p, argv[1], "ckpt", "seed.fti");
    if (fti_file_write(p, &r, &h, 1 << 20) != FTI_E_OK)
        return 1;
    fti_file_header_free(&h);
    fti_registry_free(&r);

    fti_meta m;
    memset(&m, 0, sizeof m);
    fti_commit c = {1, 1, 0, 4, 3, 3, 1.5, 4096, 0, 0, 0x0123456789abcdefull};
    fti_meta_commit(&m, &c);
    c.seq = 4, c.level = 2, c.slot = 1;
    fti_meta_commit(&m, &c);
    path(p, argv[1], "fti16", "sector0-group0.fti"); /* fuzz_fti16's job: 64 bytes, rank 0 */
    f = fopen(p, "w");
    if (!f)
        return 1;
    fprintf(f, "[ckpt_info]\nckpt_type = full\nckpt_id = 3\n[0]\nckpt_file_name = Ckpt3-Rank0.fti\n"
               "ckpt_file_size = 64\nckpt_checksum = 00000000000000000000000000000000\n"
               "var0_id = 1\nvar0_typeid = 2\nvar0_typesize = 4\nvar0_size = 16\nvar0_pos = 0\n"
               "var1_id = 5\nvar1_typeid = -1\nvar1_typesize = 16\nvar1_size = 48\n"
               "var1_pos = 16\n");
    fclose(f);
    path(p, argv[1], "meta", "commit");
    return fti_meta_store(p, &m) == FTI_E_OK ? 0 : 1;
}
