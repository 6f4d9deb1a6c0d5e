#include "core/cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/commit.h"
#include "runtime/job_claim.h"
#include "format/l4_kind.h"
#include "stores/l4_store.h"
#include "base/log.h"
#include "runtime/watchdog.h"

/* The level of one of our checkpoint files (layout.c's names), else 0. */
static int file_level(const char *name)
{
    int rank;
    return fti_name_ckpt(name, &rank);
}

/* Removes the files of dir that doomed(name, arg) picks. */
static void remove_where(const char *dir, int (*doomed)(const char *name, const int *arg),
                         const int *arg)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *ent;
    char path[FTI_PATH_MAX + 256];
    while ((ent = readdir(d)) != NULL) {
        if (!doomed(ent->d_name, arg))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            fti_log(FTI_LOG_WARN, "cannot remove %s: %s", path, strerror(errno));
    }
    closedir(d);
}

/* Local files of levels below arg[0], and of level 4 too when arg[1] is set. */
static int below_level(const char *name, const int *arg)
{
    int l = file_level(name);
    return l != 0 && (l < arg[0] || (l == 4 && arg[1]));
}

static int any_ckpt_file(const char *name, const int *arg)
{
    (void)arg;
    return file_level(name) != 0;
}

int fti_prunes_after(const fti_config *cfg, int level)
{
    return (level >= 2 && !cfg->keep_all_levels) || (level == 4 && !cfg->l4_local_copy);
}

void fti_prune_local(fti_ctx *ctx, int below, int l4)
{
    /* Every rank of the node has read what it needs of its files (its
     * header, for FTI_Recover) before they go, and none writes its next
     * local file before they are gone. */
    fti_watched_barrier(ctx->topo.app, "wait before removing older local files");
    if (ctx->topo.node_pos == 0)
        remove_where(ctx->dirs.local, below_level, (const int[2]){below, l4});
    fti_watched_barrier(ctx->topo.app, "wait for older local files to be removed");
}

/* The local files committed checkpoint c makes obsolete, as below_level's
 * argument: levels below rule[0], and level 4 too when rule[1]. Returns 0
 * when c removes nothing. With POSIX I/O, FTI's heads keep their L4 copy
 * in FTI's L1 directory, which a checkpoint of levels 1-3 replaces (other
 * I/O modes keep it apart, until the next L4 or FTI_Finalize). */
static int obsolete_after(const fti_config *cfg, const fti_commit *c, int rule[2])
{
    const fti_l4_kind *l4 = fti_l4_kind_for(cfg, 4);
    int heads_copy_goes = c->level < 4 && cfg->l4_local_copy == FTI_L4_COPY_UNTIL_FINALIZE &&
                          l4 != NULL && l4->heads_copy_in_l1;
    rule[0] = cfg->keep_all_levels ? 1 : c->level;
    rule[1] = (c->level == 4 && !cfg->l4_local_copy) || heads_copy_goes;
    if (fti_prunes_after(cfg, c->level))
        return 1;
    rule[0] = 1;
    return heads_copy_goes;
}

void fti_prune_after_commit(fti_ctx *ctx, const fti_commit *c)
{
    int rule[2];
    fti_l4_stores_clear_slot(ctx, c);
    if (obsolete_after(&ctx->cfg, c, rule))
        fti_prune_local(ctx, rule[0], rule[1]);
}

void fti_prune_node_lower(fti_ctx *ctx, const fti_commit *c)
{
    int rule[2];
    if (obsolete_after(&ctx->cfg, c, rule))
        remove_where(ctx->dirs.local, below_level, (const int[2]){rule[0], 0});
}

/* The L4 fan-out's folders of dir (layout.h fti_path_fanout_dir): their
 * checkpoint files, then the folders, where nothing else is left. */
static void remove_fanout(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    char path[FTI_PATH_MAX + 256];
    for (struct dirent *ent; (ent = readdir(d)) != NULL;) {
        if (!fti_name_fanout_dir(ent->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        remove_where(path, any_ckpt_file, NULL);
        rmdir(path);
    }
    closedir(d);
}

void fti_remove_ckpt_files(const char *dir)
{
    remove_fanout(dir);
    remove_where(dir, any_ckpt_file, NULL);
    rmdir(dir); /* only succeeds when nothing else is left */
}

fti_err fti_remove_checkpoints(fti_ctx *ctx)
{
    MPI_Comm app = ctx->topo.app;
    /* nobody reads checkpoint files any more */
    fti_watched_barrier(app, "FTI_Finalize: wait before removing checkpoints");
    if (fti_commit_record_remove(ctx) != FTI_E_OK)
        return FTI_E_IO; /* files stay, and so does the record naming them */
    /* each folder's lock file goes with its last files, so the folder can go */
    if (ctx->topo.node_pos == 0) {
        fti_job_claim_release_dir(ctx, ctx->dirs.local);
        fti_remove_ckpt_files(ctx->dirs.local);
    }
    if (ctx->topo.app_rank == 0) {
        fti_job_claim_release_dir(ctx, ctx->dirs.global);
        fti_remove_ckpt_files(ctx->dirs.global);
        fti_job_claim_release_dir(ctx, ctx->dirs.meta); /* the last file of the meta directory */
        rmdir(ctx->dirs.meta);
    }
    fti_watched_barrier(app, "FTI_Finalize: wait for checkpoints to be removed");
    return FTI_E_OK;
}
