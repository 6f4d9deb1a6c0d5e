/*
 * ckpt_import.c - fti-ckpt import CONFIG --from FTI16_CONFIG: the newest
 * checkpoint an FTI 1.6 job left (src/format/fti16.h) becomes a level 4
 * checkpoint of ours (one global file per rank and a commit record) in
 * CONFIG's folders, so the application restarts under this library. The
 * one command that writes: every FTI file is checked (size, recorded md5)
 * before anything is created, and the files are renamed into place and the
 * commit record written only once every rank's file is written; a failure
 * leaves CONFIG's folders as they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "base/fio.h"
#include "base/log.h"
#include "ckpt_tool.h"
#include "format/fti16.h"
#include "format/l4_kind.h"

/* Every rank's FTI file checked (size, md5) before anything is written,
 * streamed: one chunk in memory at a time. */
static int check_all(const fti16_ckpt *c)
{
    for (int i = 0; i < c->nranks; i++)
        if (fti16_check_rank(c, i) != FTI_E_OK)
            return -1;
    return 0;
}

/* The type our file records for v: FTI 1.6's predefined ids are ours (the
 * same table, FTI_CHAR = 0 ... FTI_LDBE = 10) where the size agrees; any
 * other type (FTI_InitType's -1) gets an opaque type of its element size. */
static int import_type(fti_registry *reg, const fti16_var *v)
{
    if (v->type >= 0 && v->type < FTI_NPREDEFINED &&
        fti_registry_type(reg, v->type)->size == v->typesize)
        return v->type;
    for (int t = FTI_NPREDEFINED; t < reg->ntypes; t++)
        if (reg->types[t].size == v->typesize)
            return t;
    int t = -1;
    return fti_registry_new_type(reg, (size_t)v->typesize, "fti16", 0, &t) == FTI_E_OK ? t : -1;
}

/* Rank i's file of ours at tmp, from its FTI bytes streamed through the
 * writer's chunked pipeline (FTI16_CHUNK at a time) and checked against
 * FTI's md5 on the way; *bytes gets its size. */
static int write_rank(const fti16_ckpt *c, int i, const fti_commit *cm, const char *exec_id,
                      const char *tmp, uint64_t *bytes)
{
    fti16_source *src = NULL;
    if (fti16_source_open(c, i, &src) != FTI_E_OK)
        return -1;
    fti_registry reg;
    int rc = fti_registry_init(&reg) == FTI_E_OK ? 0 : -1;
    const fti16_rank *r = &c->ranks[i];
    for (int j = 0; rc == 0 && j < r->nvars; j++) {
        const fti16_var *v = &r->vars[j];
        int type = import_type(&reg, v);
        if (type < 0 || fti_registry_protect_device(&reg, v->id, fti16_source_ops(),
                                                    fti16_source_var(src, j), NULL,
                                                    (int64_t)(v->size / v->typesize),
                                                    type) != FTI_E_OK)
            rc = -1;
    }
    fti_file_header hdr;
    fti_expect_data_header(&hdr, cm, r->rank, exec_id);
    if (rc == 0 && fti_file_write(tmp, &reg, &hdr, FTI16_CHUNK) == FTI_E_OK) {
        *bytes = hdr.file_size;
        fti_file_header_free(&hdr);
    } else {
        rc = -1;
    }
    if (fti16_source_close(src) != FTI_E_OK)
        rc = -1;
    fti_registry_free(&reg);
    return rc;
}

static uint64_t new_nonce(void)
{
    uint64_t n = 0;
    if (getrandom(&n, sizeof n, 0) != (ssize_t)sizeof n)
        n = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
    return n != 0 ? n : 1;
}

/* The fan-out's folders of ranks [0, n) (layout.h), synced, or removed
 * (if empty) when `drop`: a refused import leaves no folder behind. */
static int fanout_dirs(const fti_layout *l, int n, int drop)
{
    int rc = 0;
    for (int i = l->l4_files_per_dir; l->l4_files_per_dir > 0 && i < n; i += l->l4_files_per_dir) {
        char dir[FTI_PATH_MAX];
        fti_path_fanout_dir(l, dir, l->global, i);
        if (drop)
            rmdir(dir);
        else if (fti_fsync_dir(dir) != 0)
            rc = -1;
    }
    return rc;
}

/* Writes every rank's file under a temporary name, then renames them into
 * place; on a failure the temporary files are removed. */
static int write_files(const fti16_ckpt *c, const fti_layout *l, const fti_config *cfg,
                       fti_commit *cm)
{
    char(*tmp)[FTI_PATH_MAX] = calloc((size_t)c->nranks, sizeof *tmp);
    if (tmp == NULL)
        return -1;
    int done = 0, rc = 0;
    for (; done < c->nranks && rc == 0; done++) {
        char path[FTI_PATH_MAX];
        uint64_t bytes = 0;
        fti_path_global(l, path, cm->slot, done);
        fti_path_temp(tmp[done], path, "import");
        if (fti_layout_create_fanout(l, cfg, done) != FTI_E_OK) {
            ckpt_error("%s", fti_last_error());
            rc = -1;
            break;
        }
        rc = write_rank(c, done, cm, l->exec_id, tmp[done], &bytes);
        cm->bytes += bytes;
    }
    for (int i = 0; i < done; i++) {
        char path[FTI_PATH_MAX];
        fti_path_global(l, path, cm->slot, i);
        if (rc != 0) {
            unlink(tmp[i]);
        } else if (rename(tmp[i], path) != 0) {
            ckpt_error("%s: cannot rename to %s: %s", tmp[i], path, strerror(errno));
            rc = -1;
        }
    }
    free(tmp);
    if (rc == 0 && (fanout_dirs(l, c->nranks, 0) != 0 || fti_fsync_dir(l->global) != 0))
        rc = -1;
    if (rc != 0)
        fanout_dirs(l, c->nranks, 1);
    return rc;
}

static void report(const fti16_ckpt *c, const fti_commit *cm, const ckpt_opts *o,
                   const fti_layout *l)
{
    printf("imported FTI 1.6 checkpoint %" PRId64 " (level %d, %s, %d ranks) from %s\n", c->id,
           c->level, c->shared ? "MPI-IO shared file" : "one file per rank", c->nranks, o->from);
    printf("as level 4 checkpoint id %" PRId64 " seq %" PRIu64 " (%" PRIu64 " bytes) in %s, "
           "commit record %s\n",
           cm->id, cm->seq, cm->bytes, l->global, l->commit);
}

int ckpt_cmd_import(const ckpt_opts *o)
{
    if (o->from == NULL) {
        ckpt_error("import needs --from FTI16_CONFIG (the config the FTI 1.6 job ran with)");
        return CKPT_EXIT_USAGE;
    }
    if (o->exec_id != NULL || o->nodes != NULL || o->has_id || o->has_rank || o->has_var) {
        ckpt_error("import takes only --from: the checkpoint goes to CONFIG's own exec_id "
                   "(set [restart] exec_id there to choose it)");
        return CKPT_EXIT_USAGE;
    }
    fti_config cfg;
    fti_layout l;
    if (fti_config_load(&cfg, o->path) != FTI_E_OK || fti_layout_init(&l, &cfg) != FTI_E_OK)
        return CKPT_EXIT_USAGE;
    fti_meta m;
    int found = 0;
    if (fti_meta_load(l.commit, &m, &found) != FTI_E_OK)
        return CKPT_EXIT_USAGE;
    if (found) { /* never replaces checkpoints of ours */
        ckpt_error("%s: %s already has a commit record (%s); import into a job without "
                   "checkpoints", o->path, l.exec_id, l.commit);
        return CKPT_EXIT_USAGE;
    }
    fti16_ckpt c;
    if (fti16_open(o->from, &c) != FTI_E_OK)
        return CKPT_EXIT_BAD;
    int rc = CKPT_EXIT_BAD;
    if (check_all(&c) != 0)
        goto out;
    if (fti_layout_create(&l, &cfg, 0, 1) != FTI_E_OK)
        goto out;
    fti_commit cm = {.valid = 1, .level = 4, .slot = 0, .nranks = c.nranks, .seq = 1,
                     .id = c.id, .time = (double)time(NULL), .codec = 0,
                     .io = fti_l4_kinds[FTI_L4K_POSIX].io, .nonce = new_nonce()};
    if (write_files(&c, &l, &cfg, &cm) != 0)
        goto out;
    memset(&m, 0, sizeof m);
    fti_meta_record(&m, &cm, 0);
    m.last_seq = cm.seq;
    if (fti_meta_store(l.commit, &m) != FTI_E_OK)
        goto out;
    report(&c, &cm, o, &l);
    rc = CKPT_EXIT_OK;
out:
    fti16_free(&c);
    return rc;
}
