#include "runtime/ulfm.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/fault.h"
#include "base/log.h"

int fti_ulfm_built(void)
{
#ifdef FTI_HAVE_ULFM
    return 1;
#else
    return 0;
#endif
}

void fti_ulfm_mpi_name(char *out, size_t n)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    size_t k = 0;
    MPI_Get_library_version(v, &len);
    for (const char *p = v; *p && *p != '\n' && *p != ',' && k + 1 < n; p++) {
        int space = isspace((unsigned char)*p);
        if (space && (k == 0 || out[k - 1] == ' '))
            continue; /* MPICH pads "Version:" with a tab */
        out[k++] = space ? ' ' : *p;
    }
    while (k > 0 && out[k - 1] == ' ')
        k--;
    out[k] = '\0';
}

/* Open MPI turns ULFM on per job (mpiexec --with-ft ulfm sets its MCA
 * variable mpi_ft_enable): 1 on, 0 off, -1 when it cannot be asked. */
static int ft_enabled(void)
{
#ifdef FTI_HAVE_ULFM
    int provided, idx, count, on = -1;
    MPI_T_cvar_handle h;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return -1;
    if (MPI_T_cvar_get_index("mpi_ft_enable", &idx) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
        int v = 0; /* a bool, read as an int */
        if (MPI_T_cvar_read(h, &v) == MPI_SUCCESS)
            on = v != 0;
        MPI_T_cvar_handle_free(&h);
    }
    MPI_T_finalize();
    return on;
#else
    return -1;
#endif
}

fti_err fti_ulfm_check(const fti_config *cfg, int comm_size)
{
    if (!cfg->online_recovery)
        return FTI_E_OK;
    if (!fti_ulfm_built()) {
        char name[128];
        fti_ulfm_mpi_name(name, sizeof name);
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] online_recovery: not available with "
                        "this MPI (%s): it needs ULFM (MPIX_Comm_shrink, MPIX_Comm_agree), e.g. "
                        "Open MPI 5 run with mpiexec --with-ft ulfm; set online_recovery = 0",
                        cfg->file, name);
    }
    if (ft_enabled() == 0)
        fti_log_rank0(FTI_LOG_WARN, "config %s: [basic] online_recovery = 1 but this job runs "
                      "without MPI's fault tolerance (Open MPI: mpiexec --with-ft ulfm): a failed "
                      "rank ends the job", cfg->file);
    if (cfg->spare_ranks >= comm_size)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] spare_ranks = %d leaves no rank for the "
                        "application: the job has %d ranks", cfg->file, cfg->spare_ranks, comm_size);
    return FTI_E_OK;
}

/* ---- spares, repair and the failure handler ---------------------------- */

#ifdef FTI_HAVE_ULFM
#include <mpi-ext.h>
#include <stdlib.h>

#define CMD_RELEASE 1

static fti_ulfm *active; /* the one whose handler is installed (MPI gives it no argument) */

static int is_failure(int code)
{
    int cls = code;
    MPI_Error_class(code, &cls);
    return cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED ||
           cls == MPIX_ERR_PROC_FAILED_PENDING;
}

/* MPI calls this inside the failed call; the jump leaves it for the
 * program's resume point, where FTI_Resumed repairs (never inside MPI). */
static void on_failure(MPI_Comm *comm, int *code, ...)
{
    fti_ulfm *u = active;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0, revoked = 0;
    MPI_Error_string(*code, msg, &len);
    /* Open MPI 5.0's nonblocking collectives (the watchdog's) say
     * MPI_ERR_OTHER on a revoked communicator: that is a failure too */
    MPIX_Comm_is_revoked(*comm, &revoked);
    int failure = is_failure(*code) || revoked;
    if (u == NULL || !failure || !u->armed) {
        fti_log(FTI_LOG_ERROR, "%s%s", msg, u != NULL && failure ?
                "; online recovery needs the program's FTI_RESUME_POINT() before its main "
                "loop: the job ends" : "");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    fti_log(FTI_LOG_DEBUG, "online recovery: %s", msg);
    MPIX_Comm_revoke(*comm);
    for (int i = 0; i < u->nrevoke; i++)
        MPIX_Comm_revoke(u->revoke[i]);
    MPIX_Comm_revoke(u->whole);
    u->armed = 0; /* until the program passes its resume point again */
    longjmp(u->resume, 1);
}

fti_err fti_ulfm_setup(fti_ulfm *u, const fti_config *cfg, MPI_Comm comm, MPI_Comm *work)
{
    memset(u, 0, sizeof *u);
    u->whole = MPI_COMM_NULL;
    *work = comm;
    if (!cfg->online_recovery)
        return FTI_E_OK;
    int rank, size;
    MPI_Comm_dup(comm, &u->whole);
    MPI_Comm_set_errhandler(u->whole, MPI_ERRORS_RETURN);
    MPI_Comm_rank(u->whole, &rank);
    MPI_Comm_size(u->whole, &size);
    u->on = 1;
    u->nwork = size - cfg->spare_ranks;
    u->role = rank < u->nwork ? rank : -1;
    MPI_Comm_create_errhandler(on_failure, &u->handler);
    active = u;
    /* A request the program left behind at the jump may fail later, with no
     * communicator to report on (Open MPI: "error after request freed"): not
     * fatal to a job that repaired itself. */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_split(u->whole, u->role < 0, rank, work);
    if (u->role < 0)
        MPI_Comm_free(work); /* spares get their communicator when they replace a rank */
    return FTI_E_OK;
}

int fti_ulfm_spare_wait(fti_ulfm *u)
{
    int cmd = 0;
    int rc = MPI_Bcast(&cmd, 1, MPI_INT, 0, u->whole);
    return rc == MPI_SUCCESS && cmd == CMD_RELEASE ? 0 : 1;
}

void fti_ulfm_release(fti_ulfm *u)
{
    if (!u->on)
        return;
    int cmd = CMD_RELEASE;
    MPI_Bcast(&cmd, 1, MPI_INT, 0, u->whole);
    fti_ulfm_forget(u);
    MPI_Comm_free(&u->whole);
    MPI_Errhandler_free(&u->handler);
    active = NULL;
    u->on = 0;
}

/* The new rank of each member of `comm` (n of them; roles: -1 spare):
 * survivors keep theirs, the k-th failed application rank goes to the k-th
 * spare, other spares follow the application ranks. -1: too few spares. */
static int assign(const int *roles, int n, int nwork, int me, int *key)
{
    char *alive = calloc((size_t)nwork, 1);
    int spare_pos = 0, failed_pos = 0, next = 0, nfailed = 0;
    if (alive == NULL)
        return -1;
    for (int i = 0; i < n; i++)
        if (roles[i] >= 0)
            alive[roles[i]] = 1;
    for (int r = 0; r < nwork; r++)
        nfailed += !alive[r];
    for (int i = 0; i < me; i++)
        spare_pos += roles[i] < 0;
    *key = roles[me];
    if (roles[me] < 0) { /* the spare_pos-th spare takes the spare_pos-th failed rank */
        for (next = 0; next < nwork; next++)
            if (!alive[next] && failed_pos++ == spare_pos)
                break;
        *key = next < nwork ? next : nwork + spare_pos - nfailed;
    }
    free(alive);
    return nfailed > n - (nwork - nfailed) ? -1 : nfailed; /* more failed than spares */
}

/* Every live rank of `comm` leaves with the same answer: ok on all. */
static int agreed(MPI_Comm comm, int ok)
{
    int flag = ok;
    return MPIX_Comm_agree(comm, &flag) == MPI_SUCCESS && flag;
}

/* One attempt on `comm` (revoked): shrink, roles, keys, split. Returns 1
 * when every rank got through, 0 for another attempt; *nfailed -1: too
 * few spares (the same on every rank: the roles were agreed). */
static int repair_once(fti_ulfm *u, MPI_Comm comm, MPI_Comm *shrunk, MPI_Comm *whole,
                       MPI_Comm *work, int *nfailed)
{
    int n, me, key = 0;
    *nfailed = 0;
    MPIX_Comm_shrink(comm, shrunk);
    MPI_Comm_set_errhandler(*shrunk, MPI_ERRORS_RETURN);
    fti_fault_phase(FTI_PHASE_REPAIR); /* tests: a rank killed while the others repair */
    MPI_Comm_size(*shrunk, &n);
    MPI_Comm_rank(*shrunk, &me);
    int *roles = malloc((size_t)n * sizeof *roles);
    int ok = roles != NULL &&
             MPI_Allgather(&u->role, 1, MPI_INT, roles, 1, MPI_INT, *shrunk) == MPI_SUCCESS;
    if (!agreed(*shrunk, ok)) {
        free(roles);
        return 0;
    }
    *nfailed = assign(roles, n, u->nwork, me, &key);
    free(roles);
    if (*nfailed < 0)
        return 0;
    ok = MPI_Comm_split(*shrunk, 0, key, whole) == MPI_SUCCESS &&
         MPI_Comm_split(*whole, key < u->nwork ? 0 : MPI_UNDEFINED, key, work) == MPI_SUCCESS;
    if (!agreed(*shrunk, ok))
        return 0;
    u->role = key < u->nwork ? key : -1;
    return 1;
}

fti_err fti_ulfm_repair(fti_ulfm *u, MPI_Comm *work)
{
    MPIX_Comm_revoke(u->whole); /* a spare may be the first to know */
    for (int attempt = 0; attempt < 16; attempt++) {
        MPI_Comm shrunk = MPI_COMM_NULL, whole = MPI_COMM_NULL;
        int nfailed = 0;
        *work = MPI_COMM_NULL;
        int ok = repair_once(u, u->whole, &shrunk, &whole, work, &nfailed);
        if (nfailed < 0) {
            MPI_Comm_free(&shrunk);
            return fti_fail(FTI_E_MPI, "online recovery: more ranks failed than spares are "
                            "left (spare_ranks); the job ends as without online recovery");
        }
        MPI_Comm_free(&u->whole);
        if (ok) {
            MPI_Comm_free(&shrunk);
            MPI_Comm_set_errhandler(whole, MPI_ERRORS_RETURN);
            u->whole = whole;
            u->replaced = nfailed;
            u->recoveries += nfailed;
            return FTI_E_OK;
        }
        /* another failure during the repair: again, from what survived */
        if (whole != MPI_COMM_NULL)
            MPI_Comm_free(&whole);
        if (*work != MPI_COMM_NULL)
            MPI_Comm_free(work);
        MPIX_Comm_revoke(shrunk);
        u->whole = shrunk;
    }
    return fti_fail(FTI_E_MPI, "online recovery: the repair failed 16 times in a row");
}

void fti_ulfm_watch(fti_ulfm *u, MPI_Comm comm)
{
    if (!u->on || comm == MPI_COMM_NULL)
        return;
    MPI_Comm_set_errhandler(comm, u->handler);
    if (u->nrevoke < FTI_ULFM_REVOKE_MAX)
        u->revoke[u->nrevoke++] = comm;
}

void fti_ulfm_forget(fti_ulfm *u)
{
    u->nrevoke = 0;
}

int fti_ulfm_settled(fti_ulfm *u, int ok)
{
    int flag = ok;
    /* Agreement tells every live rank the same: a process failed since
     * `whole` was made (an error, failures are not acknowledged), or not */
    if (MPIX_Comm_agree(u->whole, &flag) == MPI_SUCCESS)
        return flag != 0;
    MPIX_Comm_revoke(u->whole);
    return -1;
}

void fti_ulfm_revoke(MPI_Comm comm)
{
    if (comm != MPI_COMM_NULL)
        MPIX_Comm_revoke(comm);
}

#else /* no ULFM: online_recovery = 1 is refused by fti_ulfm_check */

fti_err fti_ulfm_setup(fti_ulfm *u, const fti_config *cfg, MPI_Comm comm, MPI_Comm *work)
{
    (void)cfg;
    memset(u, 0, sizeof *u);
    u->whole = MPI_COMM_NULL;
    *work = comm;
    return FTI_E_OK;
}

int fti_ulfm_spare_wait(fti_ulfm *u)
{
    (void)u;
    return 0;
}

void fti_ulfm_release(fti_ulfm *u)
{
    (void)u;
}

fti_err fti_ulfm_repair(fti_ulfm *u, MPI_Comm *work)
{
    (void)u;
    *work = MPI_COMM_NULL;
    return fti_fail(FTI_E_MPI, "online recovery: this library was built without ULFM");
}

void fti_ulfm_watch(fti_ulfm *u, MPI_Comm comm)
{
    (void)u, (void)comm;
}

void fti_ulfm_forget(fti_ulfm *u)
{
    (void)u;
}

int fti_ulfm_settled(fti_ulfm *u, int ok)
{
    (void)u;
    return ok != 0;
}

void fti_ulfm_revoke(MPI_Comm comm)
{
    (void)comm;
}
#endif
