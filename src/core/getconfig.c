/*
 * getconfig.c - FTI_GetConfig: the running library's settings and state in
 * FTI 1.6's FTIT_allConfiguration (include/fti_compat.h), filled from the
 * context. Fields FTI keeps for features this build does not have stay 0.
 */
#include <stdio.h>
#include <string.h>

#include "fti.h"

#include "core/context.h"
#include "core/staging.h"

/* FTI's char[FTI_BUFS] fields: longer paths are cut (FTI cuts them too). */
static void copy_cut(char *dst, size_t n, const char *src)
{
    size_t len = strnlen(src, n - 1);
    memcpy(dst, src, len);
    dst[len] = '\0';
}
#define COPY(dst, src) copy_cut((dst), sizeof(dst), (src))

/* Which features are on. */
static void fill_features(FTIT_configuration *c, const fti_config *cfg)
{
    c->stagingEnabled = cfg->enable_staging;
    c->dcpPosix = cfg->enable_dcp && cfg->ckpt_io_given != 3;
    c->dcpFtiff = cfg->enable_dcp && cfg->ckpt_io_given == 3;
    c->keepL4Ckpt = cfg->keep_l4_ckpt;
    c->keepHeadsAlive = cfg->keep_heads_alive;
    c->saveLastCkpt = cfg->keep_last_ckpt;
    c->test = cfg->local_test;
}

/* Modes and sizes of the checkpoint I/O. */
static void fill_io(FTIT_configuration *c, const fti_config *cfg)
{
    c->ioMode = 1000 + cfg->ckpt_io_given;
    c->blockSize = (int)cfg->block_size;
    c->transferSize = cfg->transfer_size > INT_MAX ? INT_MAX : (int)cfg->transfer_size;
    c->l3WordSize = FTI_WORD;
    c->cHostBufSize = cfg->gpu_host_bufsize;
    c->dcpMode = cfg->dcp_mode;
    c->dcpBlockSize = cfg->dcp_block_size;
    c->dcpInfoPosix.BlockSize = cfg->dcp_block_size > 0 ? (uint32_t)cfg->dcp_block_size : 0;
}

/* The MPI tags of the library's messages. */
static void fill_tags(FTIT_configuration *c, const fti_config *cfg)
{
    c->ckptTag = cfg->ckpt_tag;
    c->stageTag = cfg->stage_tag;
    c->finalTag = cfg->final_tag;
    c->generalTag = cfg->mpi_tag;
}

/* The config file and this execution's directories. */
static void fill_paths(FTIT_configuration *c, const fti_ctx *ctx)
{
    COPY(c->cfgFile, ctx->cfg.file);
    char stage[FTI_PATH_MAX + 8];
    fti_staging_path(ctx, stage, sizeof stage);
    COPY(c->stageDir, stage);
    COPY(c->localDir, ctx->dirs.local);
    COPY(c->glbalDir, ctx->dirs.global);
    COPY(c->metadDir, ctx->dirs.meta);
    COPY(c->suffix, "fti");
}

static void fill_configuration(FTIT_configuration *c, const fti_ctx *ctx)
{
    fill_features(c, &ctx->cfg);
    fill_io(c, &ctx->cfg);
    fill_tags(c, &ctx->cfg);
    fill_paths(c, ctx);
    c->verbosity = ctx->cfg.verbosity;
    c->maxVarId = INT_MAX; /* ids are not bounded by a table here */
}

/* The rank in the communicator given to FTI_Init and in FTI_COMM_WORLD. */
static void fill_ranks(FTIT_topology *t, const fti_topology *tp)
{
    t->nbProc = tp->global_size;
    t->myRank = tp->global_rank;
    t->splitSize = tp->app_size;
    t->splitRank = tp->app_rank;
    t->masterGlobal = tp->app_rank == 0;
}

/* Its node: the application ranks on it and their head. */
static void fill_node(FTIT_topology *t, const fti_topology *tp, int heads)
{
    t->nbNodes = tp->nnodes;
    t->nodeID = tp->node;
    t->nodeSize = tp->node_size;
    t->nbApprocs = tp->app_per_node;
    t->groupID = tp->node_pos;
    t->masterLocal = tp->node_pos == 0;
    t->nbHeads = heads;
    t->amIaHead = tp->is_head;
    t->headRank = tp->head_global;
    for (int p = 0; p < tp->app_per_node && p < FTI_BUFS; p++)
        t->body[p] = fti_topology_app_rank(tp, tp->node, p);
}

/* Its group of nodes (FTI's sector), across which L2 and L3 encode. */
static void fill_group(FTIT_topology *t, const fti_topology *tp)
{
    t->sectorID = tp->group;
    t->groupSize = tp->group_size;
    t->nodeRank = t->groupRank = tp->group_pos; /* the node's position in its group */
    if (!tp->is_head) { /* FTI's ring neighbours in the group, by plan.c's rule */
        t->left = fti_plan_ring_prev(&tp->shape, tp->group_pos);
        t->right = fti_plan_ring_next(&tp->shape, tp->group_pos);
    }
}

static void fill_topology(FTIT_topology *t, const fti_topology *tp, int heads)
{
    fill_ranks(t, tp);
    fill_node(t, tp, heads);
    fill_group(t, tp);
}

static void fill_levels(FTIT_checkpoint ckpt[5], const fti_ctx *ctx)
{
    for (int l = 1; l <= 4; l++) {
        FTIT_checkpoint *c = &ckpt[l];
        COPY(c->dir, l == 4 ? ctx->dirs.global : ctx->dirs.local);
        COPY(c->metaDir, ctx->dirs.meta);
        c->isInline = l == 1 ? 1 : ctx->cfg.inline_l[l];
        c->ckptIntv = ctx->cfg.ckpt_min[l] > 0 ? ctx->cfg.ckpt_min[l] : -1; /* FTI: 0 means -1 */
        c->hasCkpt = ctx->meta.cur[l].valid;
    }
}

static void fill_execution(FTIT_execution *x, const fti_ctx *ctx)
{
    COPY(x->id, ctx->dirs.exec_id);
    x->reco = ctx->rec.pending ? 1 : 0;
    x->syncIterMax = ctx->cfg.max_sync_intv;
    x->hasCkpt = ctx->rec.available;
    x->ckptId = (unsigned int)ctx->meta.last_seq;
    x->ckptCnt = (unsigned int)ctx->ckpt_count;
    x->nbVar = (unsigned int)ctx->reg.nvars;
    x->initSCES = 1;
    x->globalComm = ctx->topo.global;
    x->groupComm = ctx->topo.group_comm;
    x->nodeComm = MPI_COMM_NULL;
    x->fastForward = ctx->cfg.fast_forward;
}

static void fill_injection(FTIT_injection *in, const fti_config *cfg)
{
    in->rank = cfg->inj_rank;
    in->index = cfg->inj_index;
    in->position = cfg->inj_position;
    in->number = cfg->inj_number;
    in->frequency = cfg->inj_frequency;
}

FTIT_allConfiguration FTI_GetConfig(const char *configFile, MPI_Comm globalComm)
{
    (void)configFile, (void)globalComm;
    FTIT_allConfiguration all;
    memset(&all, 0, sizeof all);
    fti_ctx *ctx = fti_api_ctx("FTI_GetConfig");
    if (ctx == NULL)
        return all;
    fill_configuration(&all.configuration, ctx);
    fill_execution(&all.execution, ctx);
    fill_topology(&all.topology, &ctx->topo, ctx->cfg.head);
    fill_levels(all.checkpoint, ctx);
    fill_injection(&all.injection, &ctx->cfg);
    return all;
}
