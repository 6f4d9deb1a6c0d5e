/*
 * fti_fortran_shim.c - the C side of the Fortran module `fti`.
 *
 * Fortran cannot name a C global without defining it, cannot convert an MPI
 * handle without MPI's C API, and sees an assumed-rank argument only through
 * its F2018 descriptor; these few functions do exactly that and nothing more.
 * They are internal to libfti_f (hidden visibility, prefix fti_f_).
 */
#include <ISO_Fortran_binding.h>
#include <fti.h>
#include <mpi.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Logs like the core library ("[FTI r<rank>] ERROR: ..."), so the Fortran
 * layer's own rejections look like every other error of the library. */
static void shim_error(const char *fmt, ...)
{
    int init = 0, fini = 0, rank = -1;
    MPI_Initialized(&init);
    MPI_Finalized(&fini);
    if (init && !fini)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char line[512];
    int n = snprintf(line, sizeof line, "[FTI r%d] ERROR: ", rank);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}

/* Error text composed on the Fortran side (already NUL-terminated). */
void fti_f_log_error(const char *msg)
{
    shim_error("%s", msg);
}

/* The predefined type ids and the C sizes behind them, in the order
 * CHAR SHRT INTG LONG UCHR USHT UINT ULNG SFLT DBLE LDBE. The ids are
 * variables of libfti, so they are read at run time, not assumed. */
void fti_f_c_types(int ids[11], int sizes[11])
{
    const fti_id_t id[11] = {FTI_CHAR, FTI_SHRT, FTI_INTG, FTI_LONG, FTI_UCHR, FTI_USHT,
                             FTI_UINT, FTI_ULNG, FTI_SFLT, FTI_DBLE, FTI_LDBE};
    const int size[11] = {sizeof(char),          sizeof(short),         sizeof(int),
                          sizeof(long),          sizeof(unsigned char), sizeof(unsigned short),
                          sizeof(unsigned int),  sizeof(unsigned long), sizeof(float),
                          sizeof(double),        sizeof(long double)};
    for (int i = 0; i < 11; i++) {
        ids[i] = id[i];
        sizes[i] = size[i];
    }
}

/* FTI_Init with a Fortran communicator handle. On success *comm becomes the
 * application communicator (FTI_COMM_WORLD), as FTI's Fortran users expect. */
int fti_f_init(const char *config, MPI_Fint *comm)
{
    int rc = FTI_Init(config, MPI_Comm_f2c(*comm));
    if (rc == FTI_SCES)
        *comm = MPI_Comm_c2f(FTI_COMM_WORLD);
    return rc;
}

/* Elements in the described array, or -1 for an assumed-size array (whose
 * last extent is unknown, so its storage cannot be protected). */
static int64_t desc_elements(const CFI_cdesc_t *d)
{
    int64_t n = 1;
    for (int r = 0; r < d->rank; r++) {
        if (d->dim[r].extent < 0)
            return -1;
        n *= d->dim[r].extent;
    }
    return n;
}

/* FTI_Protect for any Fortran object. `unit` is the byte size of type `tid`
 * (0 when unknown: one element of tid per Fortran element). A character(len=L)
 * element is L units of FTI_CHAR, a complex(8) element one unit of a 16-byte
 * type. The storage must be contiguous: the library writes and restores one
 * byte range, so a strided section would lose or overwrite other data. */
int fti_f_protect(int id, CFI_cdesc_t *data, int tid, int unit)
{
    int64_t n = desc_elements(data);
    if (n < 0) {
        shim_error("FTI_Protect (Fortran) id %d: assumed-size array (extent unknown); "
                   "pass an explicit-shape, assumed-shape or allocatable array", id);
        return FTI_NSCS;
    }
    if (n > 0 && !CFI_is_contiguous(data)) {
        shim_error("FTI_Protect (Fortran) id %d: rank-%d array is not contiguous (a strided "
                   "section or pointer slice); protect a contiguous array", id, (int)data->rank);
        return FTI_NSCS;
    }
    int64_t elem = (int64_t)data->elem_len;
    if (unit <= 0)
        unit = (int)elem;
    if (elem == 0 || elem % unit != 0) {
        shim_error("FTI_Protect (Fortran) id %d: element of %lld bytes is not a whole number "
                   "of type %d (%d bytes)", id, (long long)elem, tid, unit);
        return FTI_NSCS;
    }
    return FTI_Protect(id, data->base_addr, n * (elem / unit), tid);
}
