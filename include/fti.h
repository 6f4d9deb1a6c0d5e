/*
 * fti.h - public API of libfti, source-compatible with FTI v1.4-v1.6.
 *
 * An application registers its state (FTI_Init, FTI_Protect), calls
 * FTI_Snapshot in its main loop, and the library checkpoints at the intervals
 * of the config file and restores everything on restart.
 *
 * Return codes: FTI_SCES on success, FTI_NSCS on failure, FTI_NREC when a
 * recovery is impossible, FTI_DONE after a checkpoint was taken. On failure the
 * library logs the cause (file, key, rank, errno) on stderr; nothing aborts.
 *
 * Thread safety: the API is not thread safe; call it from one thread per rank.
 */
#ifndef FTI_H
#define FTI_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define FTI_API
#elif defined(__GNUC__)
#define FTI_API __attribute__((visibility("default")))
#else
#define FTI_API
#endif

/* The library's version: the one place it is set (CMake, the tools and the
 * packages read it from here). 1.6.x is a drop-in for FTI 1.6. Compare with
 * FTI_GetVersion() to detect a header/library mismatch at run time. */
#define FTI_VERSION_MAJOR 1
#define FTI_VERSION_MINOR 6
#define FTI_VERSION_PATCH 1
#define FTI_VERSION_NUMBER (FTI_VERSION_MAJOR * 10000 + FTI_VERSION_MINOR * 100 + FTI_VERSION_PATCH)

/* Buffer sizes (FTI compatibility). */
#define FTI_BUFS 256
#define FTI_WORD 16

/* Return codes. */
#define FTI_DONE 1  /* a checkpoint was taken */
#define FTI_SCES 0  /* success */
#define FTI_NSCS -1 /* failure */
#define FTI_NREC -2 /* recovery impossible */
#define FTI_HEAD 2  /* returned to a head rank whose service has ended */

/* Verbosity levels (config key `verbosity`). */
#define FTI_DBUG 1
#define FTI_INFO 2
#define FTI_WARN 3
#define FTI_EROR 4

/* Stage request status. */
#define FTI_SI_FAIL 0x4
#define FTI_SI_SCES 0x3
#define FTI_SI_ACTV 0x2
#define FTI_SI_PEND 0x1
#define FTI_SI_NINI 0x0

/* Identifier of a data type (predefined, FTI_InitType or composite). */
typedef int fti_id_t;
/* FTI v1.4 and older name of the type handle. */
#define FTIT_type fti_id_t

/* HDF5 dimension type; kept so HDF5-style calls compile without HDF5. */
typedef uint64_t FTIT_hsize_t;

/* HDF5 group description (FTI compatibility; only its name is used). */
typedef struct FTIT_H5Group {
    int id;
    int childrenNo;
    char name[FTI_BUFS];
    char fullName[FTI_BUFS];
    int childrenID[FTI_BUFS];
} FTIT_H5Group;

/* Descriptive attributes of a protected variable (FTI 1.6): its name and
 * its shape; which ones FTI_SetAttribute sets is given by OR-ed flags. */
typedef struct FTIT_shape {
    int ndims;
    int64_t count[32];
} FTIT_shape;

/* Member order as in FTI 1.6, so positional initialisers carry over. */
typedef struct FTIT_attribute {
    FTIT_shape dim;
    char name[FTI_BUFS];
} FTIT_attribute;

typedef enum FTIT_attributeFlag {
    FTI_ATTRIBUTE_NAME = 0x1,
    FTI_ATTRIBUTE_DIM = 0x2
} FTIT_attributeFlag;

/* FTI 1.6 names user code sees through fti.h: tokens, levels, talloc,
 * FTIT_allConfiguration. */
#include "fti_compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The application communicator: the one given to FTI_Init, minus the head
 * ranks when head=1. Valid after FTI_Init, and still after FTI_Finalize
 * (as in FTI, the application's then: it may use or free it). */
FTI_API extern MPI_Comm FTI_COMM_WORLD;

/* Predefined type ids. Valid before and after FTI_Init. */
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

/* Collective over globalComm. Reads and validates the config, builds the
 * topology, creates directories and detects a restart (a committed checkpoint
 * in meta_dir for this exec_id). Rebuilds lost checkpoint files when needed.
 * Head ranks (head=1) serve post-processing here and return FTI_HEAD only once
 * the application finalized. Returns FTI_SCES, FTI_NSCS, or FTI_NREC when a
 * restart was required but no checkpoint can be recovered. */
FTI_API int FTI_Init(const char *configFile, MPI_Comm globalComm);

/* Local. 0 on a fresh start and once FTI_Recover (or FTI_Snapshot's recovery)
 * restored the checkpoint; during a restart 1, 2 when the previous run's
 * FTI_Finalize kept its last checkpoint ([restart] failure = 2), 3 for a
 * FTI_L4_H5_SINGLE checkpoint (restart on any number of ranks). As FTI's,
 * FTI_RecoverVarFinalize leaves it unchanged. */
FTI_API int FTI_Status(void);

/* Local, thread-safe, callable before FTI_Init. The version of the library
 * linked at run time, "MAJOR.MINOR.PATCH" (a static string); the header's
 * version is FTI_VERSION_MAJOR/MINOR/PATCH. */
FTI_API const char *FTI_GetVersion(void);

/* Local. Registers region `id` (or updates its pointer, count and type).
 * `ptr` may be host memory or a CUDA device/managed pointer. FTI 1.6 took an
 * int32_t count: any such count converts to int64_t unchanged. */
FTI_API int FTI_Protect(int id, void *ptr, int64_t count, fti_id_t tid);

/* Local. Sets the name (stored in the checkpoint's variable table, shown by
 * fti-ckpt) and/or the shape of protected variable `id`. */
FTI_API int FTI_SetAttribute(int id, FTIT_attribute attribute, FTIT_attributeFlag flag);

/* Local. Defines an opaque type of `size` bytes and stores its id in *type. */
FTI_API int FTI_InitType(fti_id_t *type, int size);

/* Local. Structured types: a composite of scalar and vector fields. Returns
 * the new type id, or FTI_NSCS. */
FTI_API fti_id_t FTI_InitCompositeType(const char *name, size_t size, FTIT_H5Group *h5g);
/* The signatures are FTI master's; FTI 1.6's (size_t offset, int *dims)
 * are accepted too: see "Both FTI 1.6's and master's signatures" below. */
FTI_API int FTI_AddScalarField(fti_id_t id, const char *name, fti_id_t fid, int64_t offset);
FTI_API int FTI_AddVectorField(fti_id_t id, const char *name, fti_id_t tid, int64_t offset,
                               int ndims, int64_t *dims);

/* Collective. On restart, recovers; otherwise takes a checkpoint when an
 * interval of the config is due. Returns FTI_SCES, FTI_DONE, or an error. */
FTI_API int FTI_Snapshot(void);

/* Collective. Takes a checkpoint now at `level` 1-4; FTI's 5-7 are 1-3; 8
 * (FTI_L4_DCP) is an L4 differential checkpoint with enable_dcp = 1 and
 * ckpt_io = 1, else a full L4 one; 9 (FTI_L4_H5_SINGLE) writes the global
 * datasets to one shared HDF5 file (ckpt_io = 5, h5_single_file_enable = 1,
 * else refused). Returns FTI_DONE on success. */
FTI_API int FTI_Checkpoint(int id, int level);

/* Collective. Restores every protected variable from the recovered
 * checkpoint, verifying checksums. */
FTI_API int FTI_Recover(void);

/* Restore variables one at a time (local after RecoverVarInit). */
FTI_API int FTI_RecoverVarInit(void);
FTI_API int FTI_RecoverVar(int id);
FTI_API int FTI_RecoverVarFinalize(void);

/* Local. Size in bytes of variable `id` in the recovered checkpoint; 0 when
 * there is none or the variable is not in it. FTI 1.6 returned int32_t: a
 * caller assigning to one gets the same value below 2 GiB. */
FTI_API int64_t FTI_GetStoredSize(int id);

/* Local. Resizes `ptr` (malloc'd by the caller) to the stored size of `id`
 * and re-protects it; returns the new pointer or NULL. */
FTI_API void *FTI_Realloc(int id, void *ptr);

/* Incremental checkpoint: variables are written one by one. Collective. */
FTI_API int FTI_InitICP(int id, int level, bool activate);
FTI_API int FTI_AddVarICP(int varID);
FTI_API int FTI_FinalizeICP(void);

/* Local. Name <-> id mapping for protected variables. */
FTI_API int FTI_setIDFromString(const char *name);
FTI_API int FTI_getIDFromString(const char *name);

/* Local. The settings and state of the running library, in FTI 1.6's
 * struct (fields of fti_compat.h). Both arguments are ignored, as in FTI:
 * the values are those FTI_Init read. Before FTI_Init (or after
 * FTI_Finalize) every field is zero and an error is logged. */
FTI_API FTIT_allConfiguration FTI_GetConfig(const char *configFile, MPI_Comm globalComm);

/* Collective. Finishes post-processing, releases heads, keeps or removes the
 * last checkpoint (keep_last_ckpt). */
FTI_API int FTI_Finalize(void);

/* Injects a bit flip into a protected dataset (FTI testing aid). */
FTI_API int FTI_BitFlip(int datasetID);

/* Staging (enable_staging). */
FTI_API int FTI_GetStageDir(char *stageDir, int maxLen);
FTI_API int FTI_GetStageStatus(int ID);
FTI_API int FTI_SendFile(const char *lpath, const char *rpath);

/* HDF5 checkpoints (ckpt_io = 5; docs/USER_GUIDE.md "HDF5 checkpoints").
 * Local. Groups and FTI_DefineDataset place protected variables in the
 * per-rank HDF5 files; global datasets and subsets make the shared file of
 * FTI_L4_H5_SINGLE, from which a restart on any number of ranks reads each
 * rank's subsets (FTI_RecoverDatasetDimension first gives back the stored
 * dimensions; FTI_GetDatasetSpan points into the library's copy). In a build
 * without HDF5 they return FTI_NSCS (NULL for the span) with a message. */
FTI_API int FTI_InitGroup(FTIT_H5Group *h5group, const char *name, FTIT_H5Group *parent);
FTI_API int FTI_RenameGroup(FTIT_H5Group *h5group, const char *name);
FTI_API int FTI_DefineDataset(int id, int rank, int64_t *dimLength, const char *name,
                              FTIT_H5Group *h5group);
FTI_API int FTI_DefineGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength, const char *name,
                                    FTIT_H5Group *h5group, fti_id_t tid);
FTI_API int FTI_AddSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did);
FTI_API int FTI_RecoverDatasetDimension(int did);
FTI_API FTIT_hsize_t *FTI_GetDatasetSpan(int did, int rank);
FTI_API int FTI_GetDatasetRank(int did);
FTI_API int FTI_UpdateGlobalDataset(int id, int rank, FTIT_hsize_t *dimLength);
FTI_API int FTI_UpdateSubset(int id, int rank, FTIT_hsize_t *offset, FTIT_hsize_t *count, int did);

/* FTI 1.6's forms of the two calls whose dimension arrays are int, not
 * int64_t (src/core/api_compat.c). Call them through their FTI names: the
 * dispatch below picks them for an int array. */
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
