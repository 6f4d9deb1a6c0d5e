/* Writes a valid seed for each fuzz target into DIR/{config,ckpt,meta,fti16}/, so
 * the fuzzers start from inputs that reach deep into the parsers. DIR is
 * created when missing (docs/FUZZING.md runs it in a fresh folder); every
 * failure prints one line naming the file and the reason. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "format/ckpt_file.h"
#include "format/meta.h"
#include "data/registry.h"

#define USAGE "usage: fuzz_seeds DIR\n" \
              "Writes one valid seed per fuzz target into DIR/config, DIR/ckpt, DIR/meta and\n" \
              "DIR/fti16 (DIR is created when missing); see docs/FUZZING.md.\n"

/* mkdir that accepts an existing folder; prints the reason otherwise. */
static int make_dir(const char *dir)
{
    if (mkdir(dir, 0700) == 0 || errno == EEXIST)
        return 0;
    fprintf(stderr, "fuzz_seeds: %s: cannot create the folder: %s\n", dir, strerror(errno));
    return -1;
}

/* out = dir/sub/name, with dir/sub created. */
static int path(char *out, const char *dir, const char *sub, const char *name)
{
    snprintf(out, 4096, "%s/%s", dir, sub);
    if (make_dir(out) != 0)
        return -1;
    snprintf(out, 4096, "%s/%s/%s", dir, sub, name);
    return 0;
}

/* Writes text into dir/sub/name. */
static int write_text(const char *dir, const char *sub, const char *name, const char *text)
{
    char p[4096];
    if (path(p, dir, sub, name) != 0)
        return -1;
    FILE *f = fopen(p, "w");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "fuzz_seeds: %s: cannot write: %s\n", p, strerror(errno));
        return -1;
    }
    return 0;
}

static int write_ckpt(const char *dir)
{
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
    char p[4096];
    int rc = path(p, dir, "ckpt", "seed.fti");
    if (rc == 0 && fti_file_write(p, &r, &h, 1 << 20) != FTI_E_OK) {
        fprintf(stderr, "fuzz_seeds: %s: cannot write the checkpoint seed\n", p);
        rc = -1;
    }
    fti_file_header_free(&h);
    fti_registry_free(&r);
    return rc;
}

static int write_meta(const char *dir)
{
    fti_meta m;
    memset(&m, 0, sizeof m);
    fti_commit c = {1, 1, 0, 4, 3, 3, 1.5, 4096, 0, 0, 0x0123456789abcdefull};
    fti_meta_commit(&m, &c);
    c.seq = 4, c.level = 2, c.slot = 1;
    fti_meta_commit(&m, &c);
    char p[4096];
    if (path(p, dir, "meta", "commit") != 0)
        return -1;
    if (fti_meta_store(p, &m) != FTI_E_OK) {
        fprintf(stderr, "fuzz_seeds: %s: cannot write the commit record seed\n", p);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '\0') {
        fputs(USAGE, stderr);
        return 2;
    }
    const char *dir = argv[1];
    if (make_dir(dir) != 0)
        return 1;
    int rc = write_text(dir, "config", "seed.fti",
        "[basic]\nhead = 0\nnode_size = 1\nckpt_dir = /tmp/a\nglbl_dir = /tmp/b\n"
        "ckpt_l1_iter = 5\nl4_compression = zstd:1\nrestart = auto\n[restart]\n"
        "exec_id = seed\n[advanced]\nblock_size = 64\n");
    if (rc == 0)
        rc = write_ckpt(dir);
    /* fuzz_fti16's job: 64 bytes, rank 0 */
    if (rc == 0)
        rc = write_text(dir, "fti16", "sector0-group0.fti",
            "[ckpt_info]\nckpt_type = full\nckpt_id = 3\n[0]\nckpt_file_name = Ckpt3-Rank0.fti\n"
            "ckpt_file_size = 64\nckpt_checksum = 00000000000000000000000000000000\n"
            "var0_id = 1\nvar0_typeid = 2\nvar0_typesize = 4\nvar0_size = 16\nvar0_pos = 0\n"
            "var1_id = 5\nvar1_typeid = -1\nvar1_typesize = 16\nvar1_size = 48\n"
            "var1_pos = 16\n");
    if (rc == 0)
        rc = write_meta(dir);
    return rc == 0 ? 0 : 1;
}
