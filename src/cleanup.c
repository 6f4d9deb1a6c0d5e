#include "cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint.h"
#include "log.h"

static int is_ckpt_file(const char *name)
{
    size_t n = strlen(name);
    return name[0] == 'l' && n > 4 &&
           (strcmp(name + n - 4, ".fti") == 0 || strcmp(name + n - 3, ".h5") == 0);
}

void fti_remove_ckpt_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *ent;
    char path[FTI_PATH_MAX + 256];
    while ((ent = readdir(d)) != NULL) {
        if (!is_ckpt_file(ent->d_name))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            fti_log(FTI_LOG_WARN, "cannot remove %s: %s", path, strerror(errno));
    }
    closedir(d);
    rmdir(dir); /* only succeeds when nothing else is left */
}

fti_err fti_remove_checkpoints(fti_ctx *ctx)
{
    MPI_Comm app = ctx->topo.app;
    int ok = 1;
    MPI_Barrier(app); /* nobody reads checkpoint files any more */
    if (ctx->topo.app_rank == 0 && unlink(ctx->dirs.commit) != 0 && errno != ENOENT) {
        fti_fail(FTI_E_IO, "cannot remove the commit record %s: %s", ctx->dirs.commit, strerror(errno));
        ok = 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, app);
    if (!ok)
        return FTI_E_IO; /* files stay, and so does the record naming them */
    if (ctx->topo.node_pos == 0)
        fti_remove_ckpt_files(ctx->dirs.local);
    if (ctx->topo.app_rank == 0) {
        fti_remove_ckpt_files(ctx->dirs.global);
        rmdir(ctx->dirs.meta);
    }
    MPI_Barrier(app);
    return FTI_E_OK;
}
