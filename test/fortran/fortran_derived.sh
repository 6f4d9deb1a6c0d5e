#!/usr/bin/env bash
# Derived types (FTI_InitType + FTI_Protect with a type id, generic and c_loc
# forms): checkpoint, crash, restart, every field of every element checked.
source "$(dirname "$0")/lib_fortran.sh"

write_config "$T/derived.fti" restart.exec_id=derived
write_then_read test_f_derived derived "$T/derived.fti"
pass "derived types round trip"
