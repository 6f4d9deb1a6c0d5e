#!/usr/bin/env bash
# Restart with reallocation: per-rank sizes recovered through
# FTI_GetStoredSize, allocate, FTI_Protect, FTI_RecoverVar / FTI_Recover.
source "$(dirname "$0")/lib_fortran.sh"

write_config "$T/realloc.fti" restart.exec_id=realloc
write_then_read test_f_realloc realloc "$T/realloc.fti"
pass "restart with reallocation"
