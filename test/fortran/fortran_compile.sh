#!/usr/bin/env bash
# Programs written as FTI users write them (ftistyle.f90: `use FTI` + `use
# MPI`, their own FTI_comm_world; ftistyle_f08.f90: mpi_f08 + fti_comm) build
# unchanged with nothing but mpif90, the module dir and the two libraries,
# as outside CMake, and then run on 4 ranks.
source "$(dirname "$0")/lib_fortran.sh"

MPIF90="${MPIF90:-mpif90}"
command -v "$MPIF90" > /dev/null || { echo "skip: $MPIF90 not found"; exit 77; }
LINK=(-L"$F_FLIBDIR" -lfti_f -L"$F_LIBDIR" -lfti -Wl,-rpath,"$F_FLIBDIR:$F_LIBDIR")
# A sanitized build (FTI_SANITIZE=ON) needs the same runtime in the program.
if ldd "$F_FLIBDIR/libfti_f.so" | grep -q libasan; then
  LINK+=(-fsanitize=address,undefined)
fi

# build_and_run PROG EXPECTED_LINE_REGEX
build_and_run() {
  local prog="$1" want="$2" dir="$T/$1"
  mkdir -p "$dir"
  run_logged "$dir/build.log" "$MPIF90" -I"$F_MODDIR" -o "$dir/$prog" "$F_SRC/$prog.f90" \
    "${LINK[@]}" || fail "$prog does not build with $MPIF90"
  # FTI codes open 'config.fti' in the working directory.
  write_config "$dir/config.fti" restart.exec_id="$prog" keep_last_ckpt=0
  (cd "$dir" && run_logged "$dir/run.log" run_nodes 4 1 "./$prog") || fail "$prog failed"
  grep -Eq "$want" "$dir/run.log" || { tail -n 20 "$dir/run.log" >&2; fail "$prog: no '$want'"; }
  pass "$prog builds unchanged and runs"
}

build_and_run ftistyle '^ftistyle: ok, total +51200\.000 status 0$'
build_and_run ftistyle_f08 '^ftistyle_f08: ok, 4 ranks, handle same T, checkpoint 1$'
