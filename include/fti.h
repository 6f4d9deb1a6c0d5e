/**
 * fti - checkpoint/restart for MPI applications, FTI's C API
 *
 * libfti is source-compatible with FTI v1.4-v1.6: a program written for FTI
 * compiles against this fti.h and links against libfti without a change.
 * An application registers its state (FTI_Init, FTI_Protect), calls
 * FTI_Snapshot in its main loop, and the library checkpoints at the
 * intervals of the config file and restores everything on restart
 * (FTI_Status tells which; FTI_Recover restores explicitly).
 *
 * Return codes: FTI_SCES on success, FTI_NSCS on failure, FTI_NREC when a
 * recovery is impossible, FTI_DONE after a checkpoint was taken. On failure
 * the library logs the cause (file, key, rank, errno) on stderr; nothing
 * aborts. Every function but FTI_Init, FTI_Status and FTI_GetVersion
 * fails with FTI_NSCS (NULL, 0, a zeroed struct or FTI_SI_FAIL where it
 * returns no code) and a message naming it when called before a successful
 * FTI_Init or after FTI_Finalize.
 *
 * Collective calls are collective over FTI_COMM_WORLD (FTI_Init: over the
 * communicator given): every application rank must make them, in the same
 * order, and all ranks return the same code. Local calls involve no other
 * rank.
 *
 * Thread safety: the API is not thread safe; call it from one thread per
 * rank (FTI_GetVersion excepted). MPI_THREAD_SINGLE is enough.
 *
 * fti_compat.h (included by fti.h) holds FTI 1.6's level names, I/O modes,
 * head tokens and the FTIT_allConfiguration of FTI_GetConfig; fti_device.h
 * the device and FPGA extension; fti-intern.h the names FTI's internal
 * header gave applications. The user guide, USER_GUIDE.md (docs/ in the
 * source, share/doc/fti once installed), explains the config keys.
 *
 * See also: fti_compat(3), fti_device(3), FTI_Init(3), FTI_Protect(3),
 *   FTI_Snapshot(3)
 */
#ifndef FTI_H
#define FTI_H

#include <mpi.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * FTI_API - marks the exported symbols of libfti
 *
 * Expands to the visibility attribute that exports a declaration from the
 * shared library (the library is built with hidden symbols by default).
 */
#if defined(_WIN32)
#define FTI_API
#elif defined(__GNUC__)
#define FTI_API __attribute__((visibility("default")))
#else
#define FTI_API
#endif

/**
 * FTI_VERSION_MAJOR, FTI_VERSION_MINOR, FTI_VERSION_PATCH, FTI_VERSION_NUMBER - the version of this header
 *
 * The one place the library's version is set (CMake, the tools and the
 * packages read it from here); FTI_VERSION_NUMBER is MAJOR * 10000 +
 * MINOR * 100 + PATCH. 1.6.x is a drop-in for FTI 1.6. Compare with
 * FTI_GetVersion() to detect a header/library mismatch at run time.
 *
 * FTI 1.6: FTI's fti.h defines no version macros; these are ours.
 */
#define FTI_VERSION_MAJOR 1
#define FTI_VERSION_MINOR 6
#define FTI_VERSION_PATCH 1
#define FTI_VERSION_NUMBER (FTI_VERSION_MAJOR * 10000 + FTI_VERSION_MINOR * 100 + FTI_VERSION_PATCH)

/**
 * FTI_BUFS, FTI_WORD - FTI's buffer sizes
 *
 * FTI_BUFS (256) is the size of the name and path arrays of FTIT_H5Group,
 * FTIT_attribute and the FTI_GetConfig structs; FTI_WORD (16) FTI's short
 * string size. Kept with FTI's values for programs that size buffers with
 * them.
 */
#define FTI_BUFS 256
#define FTI_WORD 16

/**
 * FTI_DONE, FTI_SCES, FTI_NSCS, FTI_NREC, FTI_HEAD - return codes
 *
 * FTI's values. FTI_DONE: FTI_Checkpoint, FTI_Snapshot or FTI_FinalizeICP
 * took a checkpoint. FTI_SCES: success. FTI_NSCS: failure (the cause is on
 * stderr). FTI_NREC: a restart found no checkpoint it can recover.
 * FTI_HEAD: returned by FTI_Init to a head rank (head = 1) kept alive with
 * keep_heads_alive = 1, once the application finalized.
 */
#define FTI_DONE 1  /* a checkpoint was taken */
#define FTI_SCES 0  /* success */
#define FTI_NSCS -1 /* failure */
#define FTI_NREC -2 /* recovery impossible */
#define FTI_HEAD 2  /* returned to a head rank whose service has ended */

/**
 * FTI_DBUG, FTI_INFO, FTI_WARN, FTI_EROR - verbosity levels
 *
 * Values of the config key [basic] verbosity: 1 prints everything (debug),
 * 2 information and above, 3 warnings and errors, 4 errors only.
 */
#define FTI_DBUG 1
#define FTI_INFO 2
#define FTI_WARN 3
#define FTI_EROR 4

/**
 * FTI_SI_FAIL, FTI_SI_SCES, FTI_SI_ACTV, FTI_SI_PEND, FTI_SI_NINI - status of a staging request
 *
 * Values FTI_GetStageStatus returns for a request of FTI_SendFile: failed,
 * done, in progress, queued, unknown request. This library moves the file
 * inside FTI_SendFile, so a known request is FTI_SI_SCES or FTI_SI_FAIL.
 */
#define FTI_SI_FAIL 0x4
#define FTI_SI_SCES 0x3
#define FTI_SI_ACTV 0x2
#define FTI_SI_PEND 0x1
#define FTI_SI_NINI 0x0

/**
 * fti_id_t, FTIT_type - identifier of a data type
 *
 * The id of a predefined type (FTI_INTG, FTI_DBLE, ...), of an opaque type
 * (FTI_InitType) or of a composite one (FTI_InitCompositeType). FTIT_type
 * is its name in FTI v1.4 and older.
 */
typedef int fti_id_t;
#define FTIT_type fti_id_t

/**
 * FTIT_hsize_t - a dimension of an HDF5 dataset
 *
 * 64 bits, as HDF5's hsize_t; defined here so that the HDF5 calls of fti.h
 * compile without HDF5's headers.
 */
typedef uint64_t FTIT_hsize_t;

/**
 * FTIT_H5Group - an HDF5 group of the checkpoint files
 *
 * Filled in by FTI_InitGroup and FTI_RenameGroup; the application passes
 * it to FTI_DefineDataset and FTI_DefineGlobalDataset. Fields as FTI's;
 * the library reads its name and id.
 */
typedef struct FTIT_H5Group {
    int id;
    int childrenNo;
    char name[FTI_BUFS];
    char fullName[FTI_BUFS];
    int childrenID[FTI_BUFS];
} FTIT_H5Group;

/**
 * FTIT_shape - the shape of a protected variable
 *
 * `ndims` dimensions (at most 32) of `count[i]` elements each; the `dim`
 * field of FTIT_attribute. FTIT_dimension is its FTI 1.6 name.
 */
typedef struct FTIT_shape {
    int ndims;
    int64_t count[32];
} FTIT_shape;

/**
 * FTIT_attribute, FTIT_attributeFlag, FTI_ATTRIBUTE_NAME, FTI_ATTRIBUTE_DIM - descriptive attributes of a protected variable
 *
 * Its name (stored in the checkpoint's variable table, shown by fti-ckpt)
 * and its shape. FTI_SetAttribute sets those named by the OR-ed flags.
 * Members in FTI 1.6's order, so positional initialisers carry over.
 */
typedef struct FTIT_attribute {
    FTIT_shape dim;
    char name[FTI_BUFS];
} FTIT_attribute;
typedef enum FTIT_attributeFlag {
    FTI_ATTRIBUTE_NAME = 0x1,
    FTI_ATTRIBUTE_DIM = 0x2
} FTIT_attributeFlag;

/* FTI 1.6 names user code sees through fti.h: tokens, levels, talloc,
 * FTIT_allConfiguration (fti_compat(3)). */
#include "fti_compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * FTI_COMM_WORLD - the application's communicator
 *
 * The communicator given to FTI_Init, minus the head ranks when head = 1;
 * the application communicates on it instead of MPI_COMM_WORLD. Valid
 * after FTI_Init, and still after FTI_Finalize: as in FTI 1.6, it is then
 * the application's, which may use or free it. On a head kept alive
 * (FTI_HEAD) it holds the head ranks.
 */
FTI_API extern MPI_Comm FTI_COMM_WORLD;

/**
 * FTI_CHAR, FTI_SHRT, FTI_INTG, FTI_LONG, FTI_UCHR, FTI_USHT, FTI_UINT, FTI_ULNG, FTI_SFLT, FTI_DBLE, FTI_LDBE - predefined type ids
 *
 * The ids of char, short, int, long, their unsigned forms, float, double
 * and long double, for FTI_Protect and the composite-type calls. Valid
 * before and after FTI_Init (variables, as in FTI, not constants).
 */
FTI_API extern fti_id_t FTI_CHAR;
FTI_API extern fti_id_t FTI_SHRT;
FTI_API extern fti_id_t FTI_INTG;
FTI_API extern fti_id_t FTI_LONG;
FTI_API extern fti_id_t FTI_UCHR;
FTI_API extern fti_id_t FTI_USHT;
FTI_API extern fti_id_t FTI_UINT;
FTI_API extern fti_id_t FTI_ULNG;
FTI_API extern fti_id_t FTI_SFLT;
FTI_API extern fti_id_t FTI_DBLE;
FTI_API extern fti_id_t FTI_LDBE;

/**
 * FTI_Init - start the library: read the config, build the topology, detect a restart
 *
 * Reads and validates the config file, splits the ranks into nodes, groups
 * and (head = 1) head ranks, creates the checkpoint directories, and looks
 * for a committed checkpoint of this exec_id in meta_dir: when one is
 * found, the run is a restart (FTI_Status is non-zero) and lost checkpoint
 * files are rebuilt where the level allows. FTI_COMM_WORLD is set here.
 *
 * Head ranks (head = 1) do not return while the application runs: they
 * serve post-processing, then call MPI_Finalize and exit, or, with
 * keep_heads_alive = 1, return FTI_HEAD. Calling FTI_Init again on a live
 * library changes nothing and returns FTI_SCES (FTI's test suites do it).
 *
 * Parameters:
 *   configFile  path of the INI config file (FTI's keys and sections)
 *   globalComm  the job's communicator, usually MPI_COMM_WORLD
 *
 * Returns: FTI_SCES; FTI_NSCS when MPI is not initialized, the config is
 *   rejected (the message names the file and key) or a directory cannot be
 *   created; FTI_NREC when a restart found checkpoints but none can be
 *   recovered (the run starts fresh, or fails with [basic] restart =
 *   required); FTI_HEAD on a head kept alive.
 * Scope: collective over globalComm; every rank returns the same code.
 * FTI 1.6: same signature and codes.
 */
FTI_API int FTI_Init(const char *configFile, MPI_Comm globalComm);

/**
 * FTI_Status - whether this run restarts from a checkpoint
 *
 * Returns: 0 on a fresh start, before FTI_Init, and once FTI_Recover (or
 *   FTI_Snapshot's recovery) restored the checkpoint; during a restart 1,
 *   2 when the previous run's FTI_Finalize kept its last checkpoint
 *   ([restart] failure = 2), or 3 for a FTI_L4_H5_SINGLE checkpoint (a
 *   restart on any number of ranks). FTI_RecoverVarFinalize leaves it
 *   unchanged.
 * Scope: local.
 * FTI 1.6: same values.
 */
FTI_API int FTI_Status(void);

/**
 * FTI_GetVersion - the version of the library linked at run time
 *
 * The header's version is FTI_VERSION_MAJOR/MINOR/PATCH; comparing both
 * detects a program built against another header than the library it runs
 * with.
 *
 * Returns: "MAJOR.MINOR.PATCH", a static string (never NULL, never freed).
 * Scope: local; callable before FTI_Init and after FTI_Finalize.
 * Thread safety: thread safe.
 * FTI 1.6: not in FTI; an addition of this library.
 */
FTI_API const char *FTI_GetVersion(void);

/**
 * FTI_RESUME_POINT - where the program goes on after an online recovery
 *
 * With [basic] online_recovery = 1 (an MPI with ULFM, spare_ranks > 0),
 * the program writes FTI_RESUME_POINT(); once, after its FTI_Protect calls
 * and before its main loop. When a rank of FTI_COMM_WORLD fails, the
 * library's error handler on FTI_COMM_WORLD sends every surviving rank
 * back to this point, a spare takes the failed rank's number (its
 * FTI_Init returns then, as on a restart), FTI_COMM_WORLD is the repaired
 * communicator, and FTI_Status() says a restart is pending: the loop's
 * first FTI_Snapshot (or FTI_Recover) restores the newest checkpoint every
 * rank can restore, as after a relaunch. Without online_recovery, or
 * without this line, a failure ends the job as before. The code between
 * FTI_Init and this point runs again only on a replacement rank: it must
 * not communicate. Locals of the enclosing function changed after the
 * point are indeterminate after a jump (setjmp's rule): keep the state in
 * protected variables.
 * Scope: the macro is local; the repair after a jump is collective.
 * FTI 1.6: not in FTI; an addition of this library.
 */
#define FTI_RESUME_POINT()                          \
    do {                                            \
        if (setjmp(*FTI_ResumeJmp()) != 0)          \
            FTI_Resumed();                          \
    } while (0)

/**
 * FTI_ResumeJmp - the jump buffer of FTI_RESUME_POINT
 *
 * Part of FTI_RESUME_POINT(), not called by programs: arms the resume point
 * (with online_recovery = 1, a failure then jumps back to it) and returns
 * the buffer its setjmp fills.
 *
 * Returns: the library's jump buffer (never NULL).
 * Scope: local.
 * FTI 1.6: not in FTI; an addition of this library.
 */
FTI_API jmp_buf *FTI_ResumeJmp(void);

/**
 * FTI_Resumed - repair the job after a jump to FTI_RESUME_POINT
 *
 * Part of FTI_RESUME_POINT(), not called by programs: after a failure the
 * surviving ranks and the spares repair the communicator (a spare takes
 * the failed rank's number), FTI_COMM_WORLD becomes the repaired one and a
 * restart is pending (FTI_Status() != 0), as after a relaunch. When no
 * spare is left or no checkpoint can be restored on every rank, it ends the
 * job with MPI_Abort, as a failure without online recovery does.
 *
 * Returns: nothing; it returns only once the job is repaired.
 * Scope: collective over every live rank of the job.
 * FTI 1.6: not in FTI; an addition of this library.
 */
FTI_API void FTI_Resumed(void);

/**
 * FTI_Protect - register a variable to checkpoint, or update one
 *
 * Registers `count` elements of type `tid` at `ptr` under `id`; checkpoints
 * write them and recovery writes them back. Calling it again with the same
 * id updates the pointer and count (e.g. after a reallocation); the type of
 * an id cannot change. `ptr` may be host memory or a CUDA device or managed
 * pointer (then copied through the host); a pointer the host cannot read
 * and no device backend knows is refused.
 *
 * Parameters:
 *   id     the variable's id, chosen by the application (any int; ids
 *          from 0x40000000 up are those FTI_setIDFromString gives out)
 *   ptr    the variable's memory; NULL only with count 0
 *   count  number of elements, >= 0
 *   tid    the element type: a predefined id (FTI_INTG, ...) or one of
 *          FTI_InitType / FTI_InitCompositeType
 *
 * Returns: FTI_SCES; FTI_NSCS for a negative count, NULL with a count, an
 *   unknown type, another type than the id's, an unreadable pointer, or no
 *   memory (the message names the variable).
 * Scope: local.
 * FTI 1.6: took an int32_t count; any such count converts to int64_t
 *   unchanged.
 */
FTI_API int FTI_Protect(int id, void *ptr, int64_t count, fti_id_t tid);

/**
 * FTI_SetAttribute - name a protected variable or give its shape
 *
 * Sets the attributes of `attribute` that `flag` names: the name (stored in
 * the checkpoint's variable table, shown by fti-ckpt) and/or the shape (the
 * dimensions of the HDF5 dataset). The name survives a later FTI_Protect of
 * the same id.
 *
 * Parameters:
 *   id         a protected variable
 *   attribute  the name and/or the shape (FTIT_attribute)
 *   flag       FTI_ATTRIBUTE_NAME, FTI_ATTRIBUTE_DIM, or both OR-ed
 *
 * Returns: FTI_SCES; FTI_NSCS when `id` is not protected or the shape has
 *   more than 32 dimensions.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_SetAttribute(int id, FTIT_attribute attribute, FTIT_attributeFlag flag);

/**
 * FTI_InitType - define an opaque data type of a given size
 *
 * Parameters:
 *   type  receives the new type's id
 *   size  bytes of one element, > 0
 *
 * Returns: FTI_SCES; FTI_NSCS when `type` is NULL, `size` is not positive
 *   or memory runs out.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_InitType(fti_id_t *type, int size);

/**
 * FTI_InitCompositeType - define a structured data type
 *
 * Creates an empty composite type of `size` bytes, whose fields
 * FTI_AddScalarField and FTI_AddVectorField describe.
 *
 * Parameters:
 *   name  the type's name
 *   size  bytes of one element (sizeof the struct)
 *   h5g   the HDF5 group of FTI's interface; ignored, may be NULL
 *
 * Returns: the new type's id (>= 0); FTI_NSCS when `size` is 0 or memory
 *   runs out.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API fti_id_t FTI_InitCompositeType(const char *name, size_t size, FTIT_H5Group *h5g);

/**
 * FTI_AddScalarField - add a scalar field to a composite type
 *
 * Parameters:
 *   id      a type of FTI_InitCompositeType
 *   name    the field's name
 *   fid     the field's type id
 *   offset  byte offset of the field in the struct (offsetof)
 *
 * Returns: FTI_SCES; FTI_NSCS when `id` is not a composite type, `fid` is
 *   unknown, or the field does not fit in the type's size.
 * Scope: local.
 * FTI 1.6: took a size_t offset; it converts unchanged (this signature is
 *   FTI master's).
 */
FTI_API int FTI_AddScalarField(fti_id_t id, const char *name, fti_id_t fid, int64_t offset);

/**
 * FTI_AddVectorField - add an array field to a composite type
 *
 * Parameters:
 *   id      a type of FTI_InitCompositeType
 *   name    the field's name
 *   tid     the type id of the array's elements
 *   offset  byte offset of the field in the struct (offsetof)
 *   ndims   number of dimensions, 0-8
 *   dims    the `ndims` dimensions
 *
 * Returns: FTI_SCES; FTI_NSCS when `id` is not a composite type, `tid` is
 *   unknown, a dimension is not positive, or the field does not fit.
 * Scope: local.
 * FTI 1.6: took (size_t offset, int ndims, int *dim_sizes). A call with an
 *   int array compiles unchanged: in C11 and C++ the array's type picks
 *   fti_compat_add_vector_field_int (see fti.h); the exported symbol keeps
 *   FTI master's int64_t form.
 */
FTI_API int FTI_AddVectorField(fti_id_t id, const char *name, fti_id_t tid, int64_t offset,
                               int ndims, int64_t *dims);

/**
 * FTI_Snapshot - checkpoint when an interval is due; restore on restart
 *
 * Call it once per iteration of the main loop. On the first call of a
 * restart it restores every protected variable (as FTI_Recover). Otherwise
 * it takes a checkpoint when one of the config's intervals (ckpt_l1 ..
 * ckpt_l4, dcp_l4) is due, at the highest level due, and polls background
 * post-processing.
 *
 * Returns: FTI_DONE when a checkpoint was taken; FTI_SCES when none was due
 *   or the restore succeeded; FTI_NREC or FTI_NSCS when a restore failed;
 *   FTI_NSCS when a checkpoint failed (the previous checkpoint stays).
 * Scope: collective over FTI_COMM_WORLD (the ranks agree on the elapsed
 *   time, and checkpoint together).
 * FTI 1.6: same codes.
 * See also: FTI_Checkpoint, FTI_Recover
 */
FTI_API int FTI_Snapshot(void);

/**
 * FTI_Checkpoint - take a checkpoint now
 *
 * Writes every protected variable at `level` and commits the checkpoint
 * once every rank wrote its part; the previous checkpoint is removed only
 * after that.
 *
 * Parameters:
 *   id     the checkpoint's id, chosen by the application (shown by
 *          fti-ckpt, FTI's ckptId)
 *   level  1-4 (FTI_L1 .. FTI_L4); FTI's dCP levels 5-7 are taken as 1-3;
 *          8 (FTI_L4_DCP) is an L4 differential checkpoint with enable_dcp
 *          = 1 and ckpt_io = 1, else a full L4 one; 9 (FTI_L4_H5_SINGLE)
 *          writes the global datasets to one shared HDF5 file (ckpt_io = 5
 *          and h5_single_file_enable = 1, else refused)
 *
 * Returns: FTI_DONE; FTI_NSCS for a level not 1-9, a level this build or
 *   config lacks, a call between FTI_InitICP and FTI_FinalizeICP, or a
 *   failed write (the previous checkpoint stays).
 * Scope: collective over FTI_COMM_WORLD.
 * FTI 1.6: same codes.
 */
FTI_API int FTI_Checkpoint(int id, int level);

/**
 * FTI_Recover - restore every protected variable from the checkpoint
 *
 * Reads each protected variable from the checkpoint FTI_Init chose and
 * verifies its checksum. The variables must be protected with their stored
 * sizes (FTI_GetStoredSize, FTI_Realloc). FTI_Snapshot calls it on a
 * restart; a program may call it itself instead.
 *
 * The first recovery call of a restart (FTI_Recover, FTI_RecoverVarInit,
 * FTI_RecoverVar, or the restoring FTI_Snapshot) is collective: it checks
 * on every rank that the protected variables match the checkpoint, and
 * falls back to an older committed checkpoint that matches everywhere.
 * Later calls are local, so a rank whose variable did not match may call
 * FTI_Realloc and FTI_Recover again alone.
 *
 * Returns: FTI_SCES; FTI_NREC when there is no checkpoint to recover (a
 *   fresh start); FTI_NSCS when a variable is not in the checkpoint, has
 *   another size, or a file cannot be read or fails its checksum (the
 *   message names the variable and file).
 * Scope: collective on the first recovery call of a restart, local after.
 * FTI 1.6: same signature and codes.
 */
FTI_API int FTI_Recover(void);

/**
 * FTI_RecoverVarInit - start restoring variables one at a time
 *
 * Opens this rank's file of the checkpoint for FTI_RecoverVar; ends with
 * FTI_RecoverVarFinalize.
 *
 * Returns: FTI_SCES; FTI_NREC when there is no checkpoint to recover;
 *   FTI_NSCS when the file cannot be opened.
 * Scope: collective when it is the first recovery call of a restart (see
 *   FTI_Recover), local otherwise.
 * FTI 1.6: same.
 */
FTI_API int FTI_RecoverVarInit(void);

/**
 * FTI_RecoverVar - restore one protected variable
 *
 * Without FTI_RecoverVarInit, opens and closes the file itself.
 *
 * Parameters:
 *   id  a protected variable
 *
 * Returns: FTI_SCES; FTI_NSCS when `id` is not protected, not in the
 *   checkpoint, has another size, or fails its checksum; FTI_NREC when
 *   there is no checkpoint to recover.
 * Scope: collective when it is the first recovery call of a restart (see
 *   FTI_Recover), local otherwise.
 * FTI 1.6: same.
 */
FTI_API int FTI_RecoverVar(int id);

/**
 * FTI_RecoverVarFinalize - end restoring variables one at a time
 *
 * Closes the file of FTI_RecoverVarInit. The restart stays pending:
 * FTI_Status keeps its value and FTI_Snapshot still recovers; only
 * FTI_Recover (or FTI_Snapshot's recovery) ends it.
 *
 * Returns: FTI_SCES.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_RecoverVarFinalize(void);

/**
 * FTI_GetStoredSize - size of a variable in the checkpoint to recover
 *
 * Parameters:
 *   id  the variable's id
 *
 * Returns: its size in bytes; 0 when there is no checkpoint to recover or
 *   the variable is not in it.
 * Scope: local.
 * FTI 1.6: returned int32_t; a caller assigning to one gets the same value
 *   below 2 GiB.
 */
FTI_API int64_t FTI_GetStoredSize(int id);

/**
 * FTI_Realloc - resize a buffer to a variable's stored size and protect it
 *
 * realloc(3)s `ptr` to the size of variable `id` in the checkpoint to
 * recover and protects the result under `id`, keeping its type. `ptr`
 * must come from malloc, calloc or realloc (or be NULL): a pointer on the
 * stack or in static data is refused, where realloc(3) would abort. Device
 * variables are refused: reallocate them yourself.
 *
 * Parameters:
 *   id   a protected variable that is in the checkpoint
 *   ptr  its current buffer
 *
 * Returns: the new buffer; NULL (with `ptr` unchanged and still protected)
 *   when `id` is not protected or not in the checkpoint, `ptr` is not heap
 *   memory, or memory runs out.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API void *FTI_Realloc(int id, void *ptr);

/**
 * FTI_InitICP - start an incremental checkpoint
 *
 * Opens a checkpoint that FTI_AddVarICP fills variable by variable and
 * FTI_FinalizeICP commits. This library writes every protected variable at
 * FTI_FinalizeICP, in their state then.
 *
 * Parameters:
 *   id        the checkpoint's id
 *   level     as FTI_Checkpoint's
 *   activate  false: nothing happens (FTI's way to skip a checkpoint)
 *
 * Returns: FTI_SCES; FTI_NSCS for a level FTI_Checkpoint refuses, or a
 *   second FTI_InitICP before FTI_FinalizeICP.
 * Scope: local (the checkpoint is written, collectively, by
 *   FTI_FinalizeICP).
 * FTI 1.6: FTI writes each variable at FTI_AddVarICP; the result restored
 *   is the same.
 */
FTI_API int FTI_InitICP(int id, int level, bool activate);

/**
 * FTI_AddVarICP - add a variable to the incremental checkpoint
 *
 * Parameters:
 *   varID  a protected variable
 *
 * Returns: FTI_SCES; FTI_NSCS outside FTI_InitICP .. FTI_FinalizeICP or
 *   when `varID` is not protected.
 * Scope: local.
 * FTI 1.6: FTI writes the variable here; this library at FTI_FinalizeICP.
 */
FTI_API int FTI_AddVarICP(int varID);

/**
 * FTI_FinalizeICP - write and commit the incremental checkpoint
 *
 * Returns: FTI_DONE when the checkpoint was committed; FTI_SCES when no
 *   incremental checkpoint is open (FTI_InitICP with activate false);
 *   FTI_NSCS when the write failed (the previous checkpoint stays).
 * Scope: collective over FTI_COMM_WORLD.
 * FTI 1.6: same codes.
 */
FTI_API int FTI_FinalizeICP(void);

/**
 * FTI_setIDFromString - the variable id of a name, made up on first use
 *
 * Gives the same id for the same name on every call; the ids start at
 * 0x40000000, above those programs choose. The name is stored with the
 * variable, so FTI_getIDFromString finds it again after a restart.
 *
 * Parameters:
 *   name  the variable's name, 1 to 47 characters
 *
 * Returns: the id (>= 0); FTI_NSCS for an empty or too long name, or too
 *   many names.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_setIDFromString(const char *name);

/**
 * FTI_getIDFromString - the variable id given to a name
 *
 * Looks the name up among those of FTI_setIDFromString, then, during a
 * restart, in the checkpoint to recover.
 *
 * Parameters:
 *   name  a name given to FTI_setIDFromString (in this run or the one that
 *         wrote the checkpoint)
 *
 * Returns: the id; FTI_NSCS (-1) when the name is unknown.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_getIDFromString(const char *name);

/**
 * FTI_GetConfig - the settings and state of the running library
 *
 * Fills FTI 1.6's FTIT_allConfiguration (fti_compat(3)) with the values
 * FTI_Init read and the state since: configuration, execution, topology,
 * levels and injection settings.
 *
 * Parameters:
 *   configFile  ignored, as in FTI
 *   globalComm  ignored, as in FTI
 *
 * Returns: the struct, by value; every field zero (and an error logged)
 *   before FTI_Init or after FTI_Finalize.
 * Scope: local.
 * FTI 1.6: same; the structs carry the fields a program can read, not
 *   FTI's internal bookkeeping.
 */
FTI_API FTIT_allConfiguration FTI_GetConfig(const char *configFile, MPI_Comm globalComm);

/**
 * FTI_Finalize - end the library
 *
 * Waits for background post-processing, releases the head ranks, and keeps
 * the last checkpoint (keep_last_ckpt = 1, for a later restart) or removes
 * this run's checkpoints. Frees the library's communicators: FTI_COMM_WORLD
 * is again the communicator given to FTI_Init (MPI_COMM_NULL with heads).
 * Call it before MPI_Finalize.
 *
 * Returns: FTI_SCES; FTI_NSCS when post-processing or the final clean-up
 *   failed (the checkpoints then stay).
 * Scope: collective over FTI_COMM_WORLD.
 * FTI 1.6: same.
 */
FTI_API int FTI_Finalize(void);

/**
 * FTI_BitFlip - flip a bit of a protected variable (testing aid)
 *
 * Flips the lowest bit of the first byte of the variable's memory, to test
 * that a corrupted state is noticed.
 *
 * Parameters:
 *   datasetID  a protected, non-empty host variable
 *
 * Returns: FTI_SCES; FTI_NSCS when `datasetID` is not one.
 * Scope: local.
 * FTI 1.6: FTI flips the bit the [injection] section chooses (rank, index,
 *   position, number, frequency); this library flips bit 0 of byte 0 on
 *   the calling rank.
 */
FTI_API int FTI_BitFlip(int datasetID);

/**
 * FTI_GetStageDir - the folder for files to stage
 *
 * Creates this rank's staging folder (under ckpt_dir) and copies its path
 * into `stageDir`. Needs [basic] enable_staging = 1.
 *
 * Parameters:
 *   stageDir  receives the path
 *   maxLen    bytes of `stageDir`
 *
 * Returns: FTI_SCES; FTI_NSCS when staging is off, the buffer is too small
 *   or the folder cannot be created.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_GetStageDir(char *stageDir, int maxLen);

/**
 * FTI_GetStageStatus - status of a request of FTI_SendFile
 *
 * Parameters:
 *   ID  a request id of FTI_SendFile
 *
 * Returns: FTI_SI_SCES or FTI_SI_FAIL for a request of this run;
 *   FTI_SI_NINI for an unknown id; FTI_SI_FAIL before FTI_Init.
 * Scope: local.
 * FTI 1.6: FTI also returns FTI_SI_PEND and FTI_SI_ACTV while a head moves
 *   the file; here the move is done when FTI_SendFile returns.
 */
FTI_API int FTI_GetStageStatus(int ID);

/**
 * FTI_SendFile - move a file to its destination (staging)
 *
 * Moves `lpath` to `rpath` (copied, synced, then removed), before
 * returning. A relative `rpath` is relative to the working directory.
 * Needs [basic] enable_staging = 1.
 *
 * Parameters:
 *   lpath  the file to move, usually in FTI_GetStageDir's folder
 *   rpath  its destination path
 *
 * Returns: a request id (>= 0) for FTI_GetStageStatus, whose status says
 *   whether the move succeeded; FTI_NSCS when staging is off, a path is
 *   NULL or memory runs out.
 * Scope: local.
 * FTI 1.6: FTI moves the file in the background (through a head with
 *   head = 1); the request id and statuses are the same.
 */
FTI_API int FTI_SendFile(const char *lpath, const char *rpath);

/* HDF5 checkpoints (ckpt_io = 5; docs/USER_GUIDE.md "HDF5 checkpoints").
 * Groups and FTI_DefineDataset place protected variables in the per-rank
 * HDF5 files; global datasets and subsets make the shared file of
 * FTI_L4_H5_SINGLE, from which a restart on any number of ranks reads each
 * rank's subsets. In a build without HDF5 every call below returns FTI_NSCS
 * (NULL for FTI_GetDatasetSpan) with a message. */

/**
 * FTI_InitGroup - create an HDF5 group for datasets
 *
 * Parameters:
 *   h5group  the group to fill in
 *   name     its name
 *   parent   the parent group, or NULL for the root
 *
 * Returns: FTI_SCES; FTI_NSCS for a bad name, a parent not made by
 *   FTI_InitGroup, a name the parent already has, or without HDF5.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_InitGroup(FTIT_H5Group *h5group, const char *name, FTIT_H5Group *parent);

/**
 * FTI_RenameGroup - rename an HDF5 group
 *
 * Parameters:
 *   h5group  a group of FTI_InitGroup
 *   name     its new name
 *
 * Returns: FTI_SCES; FTI_NSCS for an unknown group or bad name, or without
 *   HDF5.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_RenameGroup(FTIT_H5Group *h5group, const char *name);

/**
 * FTI_DefineDataset - give a protected variable its HDF5 shape, name and group
 *
 * Parameters:
 *   id         a protected variable
 *   rank       number of dimensions, 0-32
 *   dimLength  the `rank` dimensions; their product must be the
 *              variable's count
 *   name       the dataset's name, or NULL to keep the variable's
 *   h5group    its group, or NULL for the root
 *
 * Returns: FTI_SCES; FTI_NSCS when `id` is not protected, the dimensions
 *   do not hold the variable's count, the group is unknown, or without
 *   HDF5.
 * Scope: local.
 * FTI 1.6: took an int *dimLength. A call with an int array compiles
 *   unchanged: in C11 and C++ the array's type picks
 *   fti_compat_define_dataset_int (see fti.h); the exported symbol keeps
 *   FTI master's int64_t form.
 */
FTI_API int FTI_DefineDataset(int id, int rank, int64_t *dimLength, const char *name,
                              FTIT_H5Group *h5group);

/**
 * FTI_DefineGlobalDataset - define a dataset of the shared HDF5 file
 *
 * A global dataset is assembled from the subsets of all ranks
 * (FTI_AddSubset) in the one file of FTI_L4_H5_SINGLE checkpoints.
 *
 * Parameters:
 *   id         the dataset's id (did of the subset calls)
 *   rank       number of dimensions
 *   dimLength  the `rank` global dimensions
 *   name       the dataset's name
 *   h5group    its group, or NULL for the root
 *   tid        the type of its elements
 *
 * Returns: FTI_SCES; FTI_NSCS for an unknown type, a bad shape or group, an
 *   id defined twice, or without HDF5.
 * Scope: local; every rank defines the same global datasets.
 * FTI 1.6: same.
 */
FTI_API int FTI_DefineGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength, const char *name,
                                    FTIT_H5Group *h5group, fti_id_t tid);

/**
 * FTI_AddSubset - place a protected variable in a global dataset
 *
 * Parameters:
 *   id      a protected variable
 *   rank    number of dimensions, the dataset's
 *   offset  where the variable starts in the dataset, per dimension
 *   count   its extent per dimension
 *   did     a dataset of FTI_DefineGlobalDataset
 *
 * Returns: FTI_SCES; FTI_NSCS when `id` is not protected, `did` is unknown,
 *   `rank` is not the dataset's, the variable already has a subset, or
 *   without HDF5. A subset outside the dataset fails the level 9
 *   checkpoint, naming the variable.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_AddSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did);

/**
 * FTI_RecoverDatasetDimension - read a global dataset's stored dimensions
 *
 * On a restart from an FTI_L4_H5_SINGLE checkpoint (FTI_Status 3), reads
 * the dimensions the dataset had in the shared file, which
 * FTI_GetDatasetSpan then gives, so that a run on another number of ranks
 * can size its subsets.
 *
 * Parameters:
 *   did  a dataset of FTI_DefineGlobalDataset
 *
 * Returns: FTI_SCES; FTI_NSCS when this run restores no checkpoint, the
 *   checkpoint is not of level 9 (the message names its level and store),
 *   `did` is unknown, or without HDF5.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_RecoverDatasetDimension(int did);

/**
 * FTI_GetDatasetSpan - the dimensions of a global dataset
 *
 * Parameters:
 *   did   a dataset of FTI_DefineGlobalDataset
 *   rank  its number of dimensions
 *
 * Returns: a pointer to the library's copy of the `rank` dimensions, valid
 *   until FTI_Finalize or the dataset's next update (do not free it); NULL
 *   when `did` is unknown, `rank` is not the dataset's, or without HDF5.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API FTIT_hsize_t *FTI_GetDatasetSpan(int did, int rank);

/**
 * FTI_GetDatasetRank - the number of dimensions of a global dataset
 *
 * Parameters:
 *   did  a dataset of FTI_DefineGlobalDataset
 *
 * Returns: its number of dimensions; FTI_NSCS when `did` is unknown or
 *   without HDF5.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_GetDatasetRank(int did);

/**
 * FTI_UpdateGlobalDataset - change the dimensions of a global dataset
 *
 * Parameters:
 *   id         a dataset of FTI_DefineGlobalDataset
 *   rank       its new number of dimensions
 *   dimLength  the new dimensions
 *
 * Returns: FTI_SCES; FTI_NSCS when `id` is unknown, the shape is bad, or
 *   without HDF5.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_UpdateGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength);

/**
 * FTI_UpdateSubset - change where a protected variable lies in a global dataset
 *
 * As FTI_AddSubset, for a variable already placed in the dataset.
 *
 * Parameters:
 *   id      a protected variable
 *   rank    number of dimensions, the dataset's
 *   offset  its new offset per dimension
 *   count   its new extent per dimension
 *   did     a dataset of FTI_DefineGlobalDataset
 *
 * Returns: FTI_SCES; FTI_NSCS as FTI_AddSubset.
 * Scope: local.
 * FTI 1.6: same.
 */
FTI_API int FTI_UpdateSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did);

/**
 * fti_compat_define_dataset_int, fti_compat_add_vector_field_int - FTI 1.6's int-array forms
 *
 * The forms of FTI_DefineDataset and FTI_AddVectorField whose dimension
 * arrays are int, as FTI 1.6 declares them (src/core/api_compat.c). Call
 * them through their FTI names: the dispatch at the end of fti.h picks
 * them for an int array.
 */
FTI_API int fti_compat_define_dataset_int(int id, int rank, int *dimLength, const char *name,
                                          FTIT_H5Group *h5group);
FTI_API int fti_compat_add_vector_field_int(fti_id_t id, const char *name, fti_id_t tid,
                                            int64_t offset, int ndims, int *dims);

#ifdef __cplusplus
}
#endif

/* Both FTI 1.6's and master's signatures. FTI 1.6 (the release projects
 * vendor) declares FTI_DefineDataset(int, int, int *dimLength, ...) and
 * FTI_AddVectorField(..., size_t offset, int ndims, int *dim_sizes); master
 * takes int64_t arrays. Scalars convert by themselves (int32_t counts,
 * size_t offsets); a pointer does not, and an int array read as int64_t
 * gives wrong dimensions, so the type of the array picks the entry point:
 * C++ overloads (a template taking int * only: NULL or nullptr still reach
 * the int64_t form), C11 _Generic macros (also in older GNU C modes). The
 * exported symbols FTI_DefineDataset and FTI_AddVectorField keep master's
 * types: `&FTI_DefineDataset`, Fortran bindings and dlsym get those. */
#ifdef __cplusplus
/* extern "C++": also where a C++ file includes fti.h inside extern "C". */
extern "C++" {
template <typename T> struct fti_int_array_ {};
template <> struct fti_int_array_<int> { typedef int type; };

template <typename T>
inline typename fti_int_array_<T>::type FTI_DefineDataset(int id, int rank, T *dimLength,
                                                           const char *name, FTIT_H5Group *h5group)
{
    return fti_compat_define_dataset_int(id, rank, dimLength, name, h5group);
}

template <typename T>
inline typename fti_int_array_<T>::type FTI_AddVectorField(fti_id_t id, const char *name,
                                                            fti_id_t tid, int64_t offset,
                                                            int ndims, T *dims)
{
    return fti_compat_add_vector_field_int(id, name, tid, offset, ndims, dims);
}
}
#elif (defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L) || defined(__clang__) || \
    (defined(__GNUC__) && (__GNUC__ > 4 || (__GNUC__ == 4 && __GNUC_MINOR__ >= 9)))
/* __extension__: no -pedantic warning in C99 mode. Library sources define
 * the functions as (FTI_DefineDataset)(...), which no macro expands. */
#if defined(__GNUC__)
#define FTI_EXTENSION_ __extension__
#else
#define FTI_EXTENSION_
#endif
#define FTI_DefineDataset(id, rank, dimLength, name, h5group)                                \
    (FTI_EXTENSION_ _Generic((dimLength), int *: fti_compat_define_dataset_int,              \
                            default: FTI_DefineDataset))(id, rank, dimLength, name, h5group)
#define FTI_AddVectorField(id, name, tid, offset, ndims, dims)                                \
    (FTI_EXTENSION_ _Generic((dims), int *: fti_compat_add_vector_field_int,                  \
                            default: FTI_AddVectorField))(id, name, tid, offset, ndims, dims)
#endif

#endif /* FTI_H */
