#include "runtime/ulfm.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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
    if (cfg->spare_ranks >= comm_size)
        return fti_fail(FTI_E_CONFIG, "config %s: [basic] spare_ranks = %d leaves no rank for the "
                        "application: the job has %d ranks", cfg->file, cfg->spare_ranks, comm_size);
    return FTI_E_OK;
}
