#include "base/error.h"

const char *fti_err_name(fti_err e)
{
    switch (e) {
#define FTI_ERR_NAME(name, msg) case FTI_E_##name: return "FTI_E_" #name;
        FTI_ERRNO_MAP(FTI_ERR_NAME)
#undef FTI_ERR_NAME
    }
    return "FTI_E_UNKNOWN";
}

const char *fti_err_message(fti_err e)
{
    switch (e) {
#define FTI_ERR_MSG(name, msg) case FTI_E_##name: return msg;
        FTI_ERRNO_MAP(FTI_ERR_MSG)
#undef FTI_ERR_MSG
    }
    return "unknown error";
}
