#!/usr/bin/env bash
# FTI 1.6's Fortran type functions (tid = FTI_InitType(size) and the
# composite types with scalar and vector fields): checkpoint, crash, restart,
# every field of every element checked.
source "$(dirname "$0")/lib_fortran.sh"

write_config "$T/composite.fti" restart.exec_id=composite
write_then_read test_f_composite composite "$T/composite.fti"
pass "composite types round trip"
