/*
 * context.h - the one library state struct. Every module works on it; the
 * public API (api.c) holds the single instance and checks the call order.
 */
#ifndef FTI_CONTEXT_H
#define FTI_CONTEXT_H

#include "data/capture.h"
#include "format/ckpt_file.h"
#include "format/config.h"
#include "format/job_lock.h"
#include "format/layout.h"
#include "format/meta.h"
#include "runtime/metrics.h"
#include "data/registry.h"
#include "core/schedule.h"
#include "runtime/topology.h"
#include "runtime/ulfm.h"

typedef enum { FTI_ST_UNINIT = 0, FTI_ST_READY, FTI_ST_FINALIZED } fti_state;

typedef struct fti_recovery {
    int pending;           /* restart: a checkpoint is to be restored */
    int available;         /* a recoverable checkpoint was chosen */
    fti_commit chosen;
    fti_file_header hdr;   /* table of this rank's file of the chosen checkpoint */
    fti_file_header l4_written; /* header of the L4 file just written with no local copy
                                   (stores/l4.c), until its commit tracks it */
    char path[FTI_PATH_MAX];
    int var_fd;            /* FTI_RecoverVarInit..Finalize */
    int extra_ok;          /* set by a level's rebuild: this rank's partner copy or parity is valid */
    fti_file_version verified; /* this rank's own file as FTI_Init verified every byte of it */
    fti_file_version rebuilt; /* this rank's rebuilt file as the level's rebuild checked every
                                 byte of it while writing it (ckpt_stream.c) */
    uint64_t start_seq;    /* last_seq of the commit record at start: commits up to it and
                              newer than `chosen` could not be restored (dCP builds no layer
                              on them) */
    int refused;           /* no checkpoint could be restored: this run started fresh (FTI_Init
                              returned FTI_NREC) and passes over every commit up to start_seq */
    int tables_checked;    /* the first recovery call compared the chosen checkpoint's tables
                              with the protected variables on every rank (recover.c) */
    int reprotect_due;     /* the restored checkpoint's level left re-creating its lost extra
                              files to the next checkpoint or FTI_Finalize */
    fti_commit reprotect;  /* that checkpoint */
} fti_recovery;

/* What conf_update.c last wrote into the config file. */
typedef struct fti_conf_record {
    int written, failure;
    int disabled; /* the file could not be rewritten: warned once */
} fti_conf_record;

/* FTI_SendFile's requests (staging.c): the outcome of each, by request id. */
typedef struct fti_stage_requests {
    int *result; /* FTI_SI_SCES or FTI_SI_FAIL */
    int n;
} fti_stage_requests;

/* Where the time of a dCP layer goes, in seconds (stores/dcp.c), for
 * bench_dcp and the debug line of each layer. */
enum {
    FTI_DCP_T_PREV,    /* reading the previous layer's map, planning this one */
    FTI_DCP_T_TRACK,   /* resetting (re-protecting) the page tracker */
    FTI_DCP_T_HASH,    /* hashing blocks */
    FTI_DCP_T_WRITE,   /* writing changed blocks */
    FTI_DCP_T_MAP,     /* checksums, map and header written, fsync */
    FTI_DCP_T_PUBLISH, /* rename and directory sync */
    FTI_DCP_T_COLLECT, /* after the commit: removing layers no chain needs */
    FTI_DCP_NT
};

/* This rank's share of its last dCP layer (stores/dcp.c): the changed bytes
 * it wrote and the protected bytes it covers, which fti_dcp_report sums. */
/* A variable whose pages are, for now, not tracked (stores/dcp.c: mostly
 * written between two layers). */
typedef struct fti_dcp_pause {
    int id;
    unsigned skip;    /* layers left that hash it whole */
    unsigned backoff; /* the last pause, doubled while it stays mostly written */
} fti_dcp_pause;

typedef struct fti_dcp_share {
    double t[FTI_DCP_NT]; /* the phases of the last layer (FTI_DCP_T_*) */
    fti_dcp_pause *paused; /* npaused entries */
    int npaused;
    struct fti_dcp_layer *kept; /* the last layer written, its map kept for the next one */
    struct fti_dcp_block *spare_map; /* the map array of the layer before, for the next map */
    uint64_t spare_blocks;           /* its entries */
    uint64_t changed, data;
    uint64_t hashed;      /* bytes hashed for the last layer (dirty tracking skips clean blocks) */
    uint64_t dirty_since; /* seq of the layer the page tracker was last reset for, 0: none */
    int dirty_noted;      /* the fallback of dirty tracking was logged once */
} fti_dcp_share;

typedef struct fti_post fti_post; /* asynchronous post-processing (post.c) */
struct fti_h5_groups;             /* HDF5 groups and dataset places (stores/hdf5/h5_groups.h) */
struct fti_l4_store;              /* an L4 store's hooks (stores/l4_store.h) */

typedef struct fti_ctx {
    fti_state state;
    fti_config cfg;
    fti_topology topo;
    fti_ulfm ulfm;          /* online recovery (runtime/ulfm.h, core/online.c) */
    fti_registry reg;
    fti_layout dirs;
    fti_job_lock locks[3];  /* job_claim.c: the folders of the checkpoint set this rank
                               locks (meta, global, node-local; held = 0: not this rank's) */
    uint64_t nonce;         /* this run's identity, in every file it writes (job_claim.c) */
    fti_meta meta;          /* the committed state, identical on every rank */
    fti_meta replaced;      /* restart = never: the record found at FTI_Init, which this run's
                             * first commit replaces; until then its slots are avoided */
    fti_schedule sched;
    fti_recovery rec;
    fti_post *post;
    int post_async[5];      /* [level 2-4]: post-processed off the application's path (head or
                               helper thread); decided once by fti_post_init (post.c), all 0
                               without it. The L4 stores ask it too (a direct write needs no
                               flush). */
    const struct fti_l4_store *l4[10]; /* the store of level 4, FTI_L4_DCP (8) and
                                        * FTI_L4_H5_SINGLE (9), chosen once from cfg;
                                        * NULL elsewhere (stores/l4_store.h) */
    MPI_Comm user_comm;     /* as given to FTI_Init (FTI's test programs talk to heads on it) */
    struct fti_h5_groups *h5; /* FTI_InitGroup / FTI_DefineDataset; NULL until first used */
    fti_stage_requests stage; /* FTI_SendFile (staging.c) */
    fti_dcp_share dcp_last; /* this rank's last dCP layer, for its report (stores/dcp.c) */
    int icp_active;         /* between FTI_InitICP and FTI_FinalizeICP */
    int icp_id, icp_level;
    uint64_t ckpt_count;    /* checkpoints taken by this run */
    fti_metrics_state metrics; /* metrics_file: timings in flight (metrics.c) */
    fti_conf_record conf_record; /* [restart] keys written back (conf_update.c) */
    fti_capture_sets capture; /* pinned buffers + streams for device variables, kept from
                                 the first capture to FTI_Finalize (capture.h) */
    const struct fti_file_image *post_image; /* during a synchronous post only: the local
                                 file just written, as it lies in the application's buffers
                                 (file_image.h); NULL elsewhere (staged, helper thread, head) */
} fti_ctx;

/* The live context for public entry points outside api.c (device/device_api.c,
 * device/fpga_monitor.c), after the call-order check; NULL with the error recorded
 * when the library is not initialised. */
fti_ctx *fti_api_ctx(const char *fn);

#endif /* FTI_CONTEXT_H */
