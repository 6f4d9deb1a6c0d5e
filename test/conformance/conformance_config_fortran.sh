#!/usr/bin/env bash
# FTI 1.6's Fortran forms for composite types (FTI_InitCompositeType,
# FTI_AddScalarField, FTI_AddVectorField as functions, sizes as default or
# GNU sizeof integers, a composite nested in another): a first launch
# checkpoints, a second one recovers and compares every field, on 4 ranks.
# Skipped (77) when the Fortran module is not built.
source "$(dirname "$0")/lib_config.sh"
P="$CPROGS/conformance_prog_conf_composite"
[ -x "$P" ] || { echo "SKIP: Fortran module not built"; exit 77; }

write_config "$T/c.fti" keep_last_ckpt=1
run4 "$P" "$T/c.fti" || { show; fail "first launch failed"; }
[ "$(count_in "$T/out" ": status 0 bad 0\$")" = 4 ] || { show; fail "first launch: not 4 clean ranks"; }
run4 "$P" "$T/c.fti" || { show; fail "second launch failed"; }
# FTI_Status 2: the first launch's FTI_Finalize kept its checkpoint (keep_last_ckpt), as FTI
[ "$(count_in "$T/out" ": status 2 bad 0\$")" = 4 ] || { show; fail "restart: fields not recovered"; }
pass "Fortran composite types in FTI 1.6's forms"
