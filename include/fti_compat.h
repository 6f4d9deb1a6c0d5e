/**
 * fti_compat - FTI 1.6 names that fti.h gives programs: levels, I/O modes, FTI_GetConfig's structs
 *
 * The names FTI 1.6's fti.h gives user code through its internal header,
 * and that FTI's own programs use: the post-processing tokens, I/O mode
 * ids, level names, talloc, and FTIT_allConfiguration as returned by
 * FTI_GetConfig. Values and field names are FTI's; the structs carry the
 * fields a program can read, not FTI's internal bookkeeping.
 *
 * Included by fti.h; do not include it on its own.
 *
 * See also: fti(3), FTI_GetConfig(3), FTI_Checkpoint(3)
 */
#ifndef FTI_COMPAT_H
#define FTI_COMPAT_H

#ifndef FTI_H
#error "include <fti.h>, not <fti_compat.h>"
#endif

#include <stdlib.h>

/**
 * talloc - typed malloc
 *
 * Allocates `num` elements of `type` with malloc(3) and casts the result to
 * `type *` (FTI's helper macro); free it with free(3).
 */
#define talloc(type, num) (type *)malloc(sizeof(type) * ((size_t)(num)))

/**
 * FTI_IDCP - verbosity of FTI's dCP statistics
 *
 * FTI's message level for its differential-checkpoint statistics; kept for
 * programs that name it.
 */
#define FTI_IDCP 5

/**
 * FTI_BASE, FTI_CKTW, FTI_XORW, FTI_RSEW, FTI_PFSW, FTI_ENDW, FTI_REJW - tokens of FTI's head protocol
 *
 * FTI's values. FTI's test programs use FTI_ENDW as a "done" marker; this
 * library's heads speak their own protocol.
 */
#define FTI_BASE 990
#define FTI_CKTW 991
#define FTI_XORW 992
#define FTI_RSEW 993
#define FTI_PFSW 994
#define FTI_ENDW 995
#define FTI_REJW 996

/**
 * FTI_IO_POSIX, FTI_IO_MPI, FTI_IO_FTIFF, FTI_IO_SIONLIB, FTI_IO_HDF5, FTI_IO_IME - I/O mode ids
 *
 * 1000 + [basic] ckpt_io, as FTI_GetConfig reports it in
 * FTIT_configuration.ioMode.
 */
#define FTI_IO_POSIX 1001
#define FTI_IO_MPI 1002
#define FTI_IO_FTIFF 1003
#define FTI_IO_SIONLIB 1004
#define FTI_IO_HDF5 1005
#define FTI_IO_IME 1006

/**
 * FTI_FS_LOCAL, FTI_FS_GLOBAL - file system of an operation
 *
 * Node-local storage (ckpt_dir) or the global one (glbl_dir).
 */
#define FTI_FS_LOCAL 0
#define FTI_FS_GLOBAL 1

/**
 * FTIT_level, FTI_L1, FTI_L2, FTI_L3, FTI_L4, FTI_L1_DCP, FTI_L2_DCP, FTI_L3_DCP, FTI_L4_DCP, FTI_L4_H5_SINGLE, FTI_MIN_LEVEL_ID, FTI_MAX_LEVEL_ID - checkpoint levels
 *
 * The levels FTI_Checkpoint takes: L1 local, L2 partner copy, L3
 * Reed-Solomon encoded, L4 global file system. FTI_L1_DCP .. FTI_L3_DCP are
 * taken as levels 1-3; FTI_L4_DCP is a differential L4 checkpoint with
 * enable_dcp = 1 and ckpt_io = 1, else a full L4 one; FTI_L4_H5_SINGLE is
 * the shared HDF5 file (ckpt_io = 5, h5_single_file_enable = 1).
 */
typedef enum FTIT_level {
    FTI_L1 = 1,
    FTI_L2 = 2,
    FTI_L3 = 3,
    FTI_L4 = 4,
    FTI_L1_DCP = 5,
    FTI_L2_DCP = 6,
    FTI_L3_DCP = 7,
    FTI_L4_DCP = 8,
    FTI_L4_H5_SINGLE = 9,
    FTI_MIN_LEVEL_ID = FTI_L1,
    FTI_MAX_LEVEL_ID = FTI_L4_H5_SINGLE
} FTIT_level;

/**
 * FTIT_dimension - FTI 1.6's name of FTIT_shape
 *
 * The shape of a variable, FTIT_attribute.dim.
 */
typedef FTIT_shape FTIT_dimension;

/**
 * FTIT_dcpConfigurationPosix - dCP settings for POSIX I/O
 *
 * FTIT_configuration.dcpInfoPosix: the dCP block size and stack size of
 * the config; hashFunc is NULL in this build.
 */
typedef struct FTIT_dcpConfigurationPosix {
    unsigned int digestWidth;
    unsigned char *(*hashFunc)(const unsigned char *data, unsigned long nBytes,
                               unsigned char *hash); /* NULL in this build */
    unsigned int StackSize;
    uint32_t BlockSize;
    unsigned int cachedCkpt;
} FTIT_dcpConfigurationPosix;

/**
 * FTIT_configuration - the settings read from the config file
 *
 * FTIT_allConfiguration.configuration. Sizes in bytes; directories are
 * this execution's (.../<exec_id>).
 */
typedef struct FTIT_configuration {
    bool stagingEnabled;
    bool dcpFtiff;
    bool dcpPosix;
    bool keepL4Ckpt;
    bool keepHeadsAlive;
    int dcpMode;
    int dcpBlockSize;
    char cfgFile[FTI_BUFS];
    int saveLastCkpt; /* [basic] keep_last_ckpt */
    int verbosity;
    int blockSize;
    int transferSize;
    int maxVarId;
    int ckptTag;
    int stageTag;
    int finalTag;
    int generalTag;
    int test; /* [advanced] local_test */
    int l3WordSize;
    int ioMode; /* FTI_IO_POSIX .. FTI_IO_IME */
    bool h5SingleFileEnable;
    bool h5SingleFileKeep;
    bool h5SingleFileIsInline;
    char h5SingleFileDir[FTI_BUFS];
    char h5SingleFilePrefix[FTI_BUFS];
    char stageDir[FTI_BUFS];
    char stashDir[FTI_BUFS];
    char stashDirGlobal[FTI_BUFS];
    char localDir[FTI_BUFS];
    char glbalDir[FTI_BUFS];
    char StashDirGlobalBase[FTI_BUFS];
    char metadDir[FTI_BUFS];
    char lTmpDir[FTI_BUFS];
    char gTmpDir[FTI_BUFS];
    char mTmpDir[FTI_BUFS];
    int64_t cHostBufSize;
    char suffix[4];
    FTIT_dcpConfigurationPosix dcpInfoPosix;
} FTIT_configuration;

/**
 * FTIT_topology - where this rank sits: ranks, nodes, heads, groups
 *
 * FTIT_allConfiguration.topology.
 */
typedef struct FTIT_topology {
    int nbProc;    /* ranks of the communicator given to FTI_Init */
    int nbNodes;
    int myRank;    /* rank in that communicator */
    int splitRank; /* rank in FTI_COMM_WORLD (-1 on a head) */
    int splitSize; /* size of FTI_COMM_WORLD */
    int nodeSize;
    int nbHeads;
    int nbApprocs; /* application ranks per node */
    int groupSize;
    int sectorID;  /* group of nodes this node belongs to */
    int nodeID;
    int groupID;   /* position among the application ranks of the node */
    int amIaHead;
    bool masterLocal;
    bool masterGlobal;
    int headRank;  /* global rank of this node's head, -1 without heads */
    int headRankNode;
    int nodeRank;  /* position of this node in its group */
    int groupRank;
    int right;
    int left;
    int body[FTI_BUFS]; /* application ranks (FTI_COMM_WORLD) of this node */
} FTIT_topology;

/**
 * FTIT_checkpoint - one level's settings and state
 *
 * FTIT_allConfiguration.checkpoint[1..4], indexed by level.
 */
typedef struct FTIT_checkpoint {
    char dir[FTI_BUFS];
    char L4Replica[FTI_BUFS];
    char dcpDir[FTI_BUFS];
    char archDir[FTI_BUFS];
    char archMeta[FTI_BUFS];
    char metaDir[FTI_BUFS];
    char dcpName[FTI_BUFS];
    bool isDcp;
    bool recoIsDcp;
    bool hasDcp;
    bool hasCkpt;     /* a committed checkpoint of this level exists */
    int isInline;
    int ckptIntv;     /* minutes; -1 when off */
    int ckptCnt;
    int ckptDcpIntv;
    int ckptDcpCnt;
    bool localReplica;
} FTIT_checkpoint;

/**
 * FTIT_injection - the [injection] section of the config
 *
 * FTIT_allConfiguration.injection: FTI's bit-flip injection settings.
 */
typedef struct FTIT_injection {
    int rank;
    int index;
    int position;
    int number;
    int frequency;
    int counter;
    double timer;
} FTIT_injection;

/**
 * FTIT_execution - the execution: its id, restart state and counters
 *
 * FTIT_allConfiguration.execution.
 */
typedef struct FTIT_execution {
    char id[FTI_BUFS];     /* exec_id */
    int reco;              /* 1 when this launch restarts from a checkpoint */
    int ckptLvel;          /* level of the last checkpoint */
    int ckptIntv;
    int lastCkptLvel;
    int wasLastOffline;
    double iterTime;
    double lastIterTime;
    double meanIterTime;
    double globMeanIter;
    double totalIterTime;
    unsigned int syncIter;
    int syncIterMax;       /* [basic] max_sync_intv */
    unsigned int minuteCnt;
    bool hasCkpt;
    bool h5SingleFile;
    unsigned int ckptCnt;
    unsigned int ckptIcnt;
    unsigned int ckptId;   /* id of the last (or recovered) checkpoint */
    unsigned int ckptNext;
    unsigned int ckptLast;
    int64_t ckptSize;
    unsigned int nbVar;    /* protected variables */
    unsigned int nbVarStored;
    int nbGroup;
    int initSCES;          /* 1 after a successful FTI_Init */
    MPI_Comm globalComm;
    MPI_Comm groupComm;
    MPI_Comm nodeComm;
    int fastForward;
} FTIT_execution;

/**
 * FTIT_allConfiguration - everything FTI_GetConfig reports
 *
 * The settings, execution state, topology, levels (index = level, 1-4)
 * and injection settings, as FTI 1.6's struct of that name.
 */
typedef struct FTIT_allConfiguration {
    FTIT_configuration configuration;
    FTIT_execution execution;
    FTIT_topology topology;
    FTIT_checkpoint checkpoint[5]; /* index = level, 1-4 */
    FTIT_injection injection;
} FTIT_allConfiguration;

#endif /* FTI_COMPAT_H */
