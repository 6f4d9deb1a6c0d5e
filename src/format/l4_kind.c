/*
 * l4_kind.c - the L4 stores as the config and the commit record name them
 * (l4_kind.h). MPI-free: fti-ckpt and config.c use it.
 */
#include "format/l4_kind.h"

#include <stddef.h>

#include "base/log.h"

#ifdef FTI_HAVE_HDF5
#define H5_BUILT 1
#else
#define H5_BUILT 0
#endif

/* Indexed by fti_l4_kind_id. The io numbers are on disk: never change them.
 * The levels are fti.h's FTI_L4_DCP and FTI_L4_H5_SINGLE (test_l4_store
 * checks; fti.h needs mpi.h, which this MPI-free module does without). */
const fti_l4_kind fti_l4_kinds[FTI_L4K_COUNT] = {
    /* id, io, name, config, built, level, restart_status, bytes_are_files,
       rank_file, any_ranks, heads_copy_in_l1, dataset_dims */
    {FTI_L4K_POSIX, 1, "POSIX", "[basic] ckpt_io = 1", 1, 4, 1, 1, 1, 0, 1, 0},
    {FTI_L4K_MPIIO, 2, "MPI-IO", "[basic] ckpt_io = 2", 1, 4, 1, 1, 1, 0, 0, 0},
    {FTI_L4K_DCP, 8, "dCP", "[basic] enable_dcp = 1 (level 8, ckpt_io = 1)", 1, 8, 1, 0, 1, 0, 0, 0},
    {FTI_L4K_H5, 5, "HDF5", "[basic] ckpt_io = 5", H5_BUILT, 4, 1, 0, 1, 0, 0, 0},
    {FTI_L4K_H5_SHARED, 9, "HDF5 shared file",
     "[basic] ckpt_io = 5, h5_single_file_enable = 1 (level 9)", H5_BUILT, 9, 3, 0, 0, 1, 0, 1},
};

/* [basic] ckpt_io: the value, what FTI calls it, the store (-1: none here). */
static const struct {
    int value;
    const char *name;
    int kind;
} ckpt_io_values[] = {
    {1, "POSIX", FTI_L4K_POSIX}, {2, "MPI-IO", FTI_L4K_MPIIO}, {3, "FTI-FF", FTI_L4K_POSIX},
    {4, "SIONlib", -1},          {5, "HDF5", FTI_L4K_H5},
};

const fti_l4_kind *fti_l4_kind_of(const fti_commit *c)
{
    if (c->level != 4)
        return NULL;
    for (int k = 0; k < FTI_L4K_COUNT; k++)
        if (fti_l4_kinds[k].io == c->io)
            return &fti_l4_kinds[k];
    return &fti_l4_kinds[FTI_L4K_POSIX];
}

/* The store [basic] ckpt_io selects, or NULL. */
static const fti_l4_kind *selected(const fti_config *cfg)
{
    for (size_t i = 0; i < sizeof ckpt_io_values / sizeof ckpt_io_values[0]; i++)
        if (ckpt_io_values[i].value == cfg->ckpt_io)
            return ckpt_io_values[i].kind < 0 ? NULL : &fti_l4_kinds[ckpt_io_values[i].kind];
    return NULL;
}

const fti_l4_kind *fti_l4_kind_for(const fti_config *cfg, int level)
{
    const fti_l4_kind *k = selected(cfg);
    if (level == 4 || k == NULL)
        return level == 4 ? k : NULL;
    const fti_l4_kind *dcp = &fti_l4_kinds[FTI_L4K_DCP], *h5s = &fti_l4_kinds[FTI_L4K_H5_SHARED];
    if (level == dcp->level && cfg->enable_dcp && k->id == FTI_L4K_POSIX)
        return dcp;
    if (level == h5s->level && cfg->h5_single_file_enable && k->id == FTI_L4K_H5 && k->built)
        return h5s;
    return NULL;
}

fti_err fti_l4_kind_settle(fti_config *cfg)
{
    const fti_l4_kind *k = selected(cfg);
    cfg->ckpt_io_given = cfg->ckpt_io;
    if (k == NULL || !k->built) {
        const char *name = "unknown";
        for (size_t i = 0; i < sizeof ckpt_io_values / sizeof ckpt_io_values[0]; i++)
            if (ckpt_io_values[i].value == cfg->ckpt_io)
                name = ckpt_io_values[i].name;
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] ckpt_io = %d (%s) is not supported by "
                        "this build; use 1 (POSIX) or 2 (MPI-IO)", cfg->file, cfg->ckpt_io, name);
    }
    if (k->io != cfg->ckpt_io) { /* FTI-FF */
        fti_log_rank0(FTI_LOG_INFO, "config %s: ckpt_io = %d (FTI-FF): our file format is already "
                      "self-describing; using POSIX files", cfg->file, cfg->ckpt_io);
        cfg->ckpt_io = k->io;
    }
    if (cfg->enable_dcp && k->id != FTI_L4K_POSIX)
        fti_log(FTI_LOG_WARN, "config %s: enable_dcp = 1 needs ckpt_io = 1 (POSIX); level 8 "
                "checkpoints are written as full L4 checkpoints", cfg->file);
    return FTI_E_OK;
}

int fti_commit_rank_file(const fti_commit *c)
{
    const fti_l4_kind *k = fti_l4_kind_of(c);
    return k == NULL || k->rank_file;
}

int fti_commit_any_ranks(const fti_commit *c)
{
    const fti_l4_kind *k = fti_l4_kind_of(c);
    return k != NULL && k->any_ranks;
}

int fti_commit_bytes_are_files(const fti_commit *c)
{
    const fti_l4_kind *k = fti_l4_kind_of(c);
    return k == NULL || k->bytes_are_files;
}

int fti_commit_shown_level(const fti_commit *c)
{
    const fti_l4_kind *k = fti_l4_kind_of(c);
    return k == NULL ? c->level : k->level;
}
