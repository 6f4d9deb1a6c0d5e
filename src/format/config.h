/*
 * config.h - the INI config file (FTI's keys plus our documented additions),
 * parsed by ini.c (the one INI grammar) into one validated struct. Every key is in one table
 * with its type and bounds; errors name the file, the key and the value.
 */
#ifndef FTI_CONFIG_H
#define FTI_CONFIG_H

#include <limits.h>
#include <stdint.h>

#include "base/error.h"

#define FTI_PATH_MAX 4096
#define FTI_NAME_MAX 256
/* The most nodes in a group ([basic] group_size's upper bound). L2 and L3
 * size per-member arrays by it, so the bound is checked here, at config time. */
#define FTI_GROUP_MAX 32

typedef enum { FTI_RESTART_AUTO, FTI_RESTART_NEVER, FTI_RESTART_REQUIRED } fti_restart_mode;
typedef enum { FTI_CODEC_NONE, FTI_CODEC_ZLIB, FTI_CODEC_ZSTD } fti_codec;
/* [basic] device_backends: auto asks the device backends (CUDA, emu) whether
 * each FTI_Protect pointer is theirs, CUDA only once the process has loaded
 * CUDA itself; cuda also lets the CUDA backend load the runtime; off never
 * asks, so a CPU-only application on a GPU node creates no CUDA context. */
typedef enum { FTI_DEVICES_AUTO = 0, FTI_DEVICES_OFF, FTI_DEVICES_CUDA } fti_device_mode;

/* [basic] ckpt_io = 1, POSIX files (FTI-FF, 3, is stored as 1). */
#define FTI_CKPT_IO_POSIX 1

/* l4_local_copy's value where FTI's heads keep the local copy: kept while
 * the job runs, removed with local storage at FTI_Finalize (keep_last_ckpt). */
#define FTI_L4_COPY_UNTIL_FINALIZE 2

/* 1 when an L4 checkpoint's node-local file is kept for good
 * (l4_local_copy = 1). Otherwise it goes after the flush, or with the
 * heads' copy at FTI_Finalize: then its absence is by design (fti-ckpt
 * verify says "removed", not "missing"). */
#define FTI_L4_LOCAL_KEPT(cfg) ((cfg)->l4_local_copy == 1)

/* [advanced] l4_files_per_dir's default: at most this many rank files in
 * one L4 folder per checkpoint; jobs of up to this many ranks keep FTI's
 * flat layout. */
#define FTI_L4_FILES_PER_DIR 1024

typedef struct fti_config {
    char file[FTI_PATH_MAX]; /* the config file as given */

    /* [basic] (FTI keys) */
    int head;
    int node_size; /* 0: detect with MPI_Comm_split_type */
    char ckpt_dir[FTI_PATH_MAX];
    char glbl_dir[FTI_PATH_MAX];
    char meta_dir[FTI_PATH_MAX];
    int ckpt_min[5];  /* [1..4] interval in minutes, 0 = off */
    int dcp_l4_min;   /* dcp_l4: minutes between differential L4 checkpoints (FTI_Snapshot) */
    int inline_l[5];  /* [2..4] 1: post-processing inline */
    int keep_last_ckpt;
    int keep_l4_ckpt;
    int l4_local_copy;     /* (ours) 1: an L4 checkpoint keeps its local file too; not
                              given: FTI_L4_COPY_UNTIL_FINALIZE with heads flushing L4
                              (head = 1, inline_l4 = 0), as FTI, else 0 */
    int keep_all_levels;   /* (ours) 1: no checkpoint is removed or flushed by a later one */
    int staging_mib;       /* (ours) > 0: FTI_Checkpoint copies up to this many MiB per rank
                              and returns; the helper thread writes the copy */
    int keep_heads_alive; /* 1: heads return FTI_HEAD from FTI_Init instead of exiting */
    int group_size;
    int group_size_given; /* the key was in the file (else the default adapts to the job) */
    int max_sync_intv;
    int ckpt_io;      /* 1 POSIX, 2 MPI-IO (3 FTI-FF is stored as 1) */
    int ckpt_io_given; /* the value in the file (FTI_GetConfig reports it) */
    int enable_staging;
    int enable_dcp;
    int h5_single_file_enable; /* level 9 (FTI_L4_H5_SINGLE) writes one shared HDF5 file */
    int dcp_mode;
    int dcp_block_size;  /* bytes, 0: FTI_DCP_DEFAULT_BLOCK */
    int dcp_stack_size;  /* dCP layers per chain before a new full base, 0: default */
    int dcp_dirty_tracking; /* [advanced] (ours): 1 hashes only pages written since the last
                             * layer (data/dirty_pages.h); 0, the default, hashes everything */
    int cow_checkpoint;  /* [advanced] (ours): 1 makes an asynchronous checkpoint a
                          * copy-on-write snapshot (data/cow.h) instead of a copy */
    int cow_max_mib;     /* [advanced] (ours): pool of pages copied during a drain, per rank */
    int cow_huge_pages;  /* [advanced] (ours): 1, the default, puts the protected variables in
                          * transparent huge pages at their first snapshot (data/cow.h) */
    int verbosity;
    int log_style;          /* (ours) [advanced] log_style: fti_log_style, default fti */
    int64_t transfer_size;
    int64_t gpu_host_bufsize;

    /* [basic] (our additions, documented in config-templates/) */
    int ckpt_sec[5];  /* [1..4] interval in seconds */
    int ckpt_iter[5]; /* [1..4] interval in iterations of FTI_Snapshot */
    int dcp_l4_sec;   /* dcp_l4 in seconds */
    int dcp_l4_iter;  /* dcp_l4 in iterations of FTI_Snapshot */
    fti_restart_mode restart;
    fti_codec l4_codec;
    int l4_codec_level;
    char metrics_file[FTI_PATH_MAX];
    fti_device_mode device_backends;
    int online_recovery; /* 1: a failed rank is replaced while the job runs (ULFM, runtime/ulfm.h) */
    int spare_ranks;     /* the last N ranks of the communicator wait to replace a failed rank */

    /* [restart] */
    int failure;
    char exec_id[FTI_NAME_MAX];
    int exec_id_given;
    int update_config;      /* (ours) rewrite [restart] failure, exec_id as FTI does */

    /* [advanced] */
    int64_t block_size; /* bytes (the key is in KiB, as in FTI) */
    int mpi_tag;        /* also FTI's general_tag */
    int local_test;
    int group_shared_dirs; /* (ours) the job's existing folders may be its group's (safe_fs.h) */
    int l4_files_per_dir;  /* (ours) the L4 fan-out (layout.h fti_path_fanout_dir); 0: flat */
    int ckpt_tag, stage_tag, final_tag; /* FTI's; read and reported, our tags derive from mpi_tag */
    int fast_forward;   /* FTI's: FTI_Snapshot's time intervals are divided by it */

    /* [injection] (FTI's; read and reported by FTI_GetConfig, nothing injected) */
    int inj_rank, inj_index, inj_position, inj_number, inj_frequency;
} fti_config;

/* Loads and validates `path`. On error, returns FTI_E_CONFIG with a message
 * naming the file and the key (fti_last_error). Warns about unknown keys. */
fti_err fti_config_load(fti_config *cfg, const char *path);

/* Defaults for every key (used before parsing). */
void fti_config_defaults(fti_config *cfg);

#endif /* FTI_CONFIG_H */
