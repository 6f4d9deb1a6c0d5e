#!/usr/bin/env bash
# fti.h takes FTI 1.6's released signatures (int *dimLength / int *dim_sizes,
# size_t offsets, int32_t counts and stored sizes) as well as FTI master's
# (int64_t): sig/sig_prog.c is compiled in each form, as C and as C++ (PDI's
# FTI plugin is C++), with -Werror -Wall -Wextra against the source tree's
# fti.h, then checkpoints on 2 ranks and restarts with every byte and stored
# size checked. With HDF5 (ckpt_io = 5) h5dump shows the shapes the library
# stored: an int array read as int64_t would give other dimensions.
source "$FTI_SOURCE_DIR/test/mpi/lib.sh"
SRC="$FTI_SOURCE_DIR/test/conformance/sig/sig_prog.c"
LIB=(-L"$FTI_BUILD_DIR" -Wl,-rpath,"$FTI_BUILD_DIR" -lfti)
WARN=(-Werror -Wall -Wextra -I"$FTI_SOURCE_DIR/include")
H5=0
if [ "${FTI_HAVE_HDF5:-OFF}" = ON ] && command -v h5dump > /dev/null; then H5=1; fi

# build NAME LANG FLAGS...: the program in one form; the compiler's words on failure.
build() {
  local name="$1" lang="$2"; shift 2
  if [ "$lang" = c ]; then
    "$FTI_MPICC" -std=c11 "${WARN[@]}" "$@" -o "$T/$name" "$SRC" "${LIB[@]}" > "$T/$name.cc" 2>&1
  else # the MPI C wrapper drives the C++ compiler (-x c++), as in a C++ project
    "$FTI_MPICC" -x c++ -std=c++11 "${WARN[@]}" "$@" -c -o "$T/$name.o" "$SRC" > "$T/$name.cc" 2>&1 &&
      "$FTI_MPICC" -o "$T/$name" "$T/$name.o" "${LIB[@]}" -lstdc++ >> "$T/$name.cc" 2>&1
  fi || { cat "$T/$name.cc"; fail "$name does not compile against fti.h without warnings"; }
}

# roundtrip NAME: write at level 4 on 2 ranks, restart, check; h5dump the shapes.
roundtrip() {
  local name="$1" io=1
  [ "$H5" = 1 ] && io=5
  rm -rf "$LOCAL_DIR" "$T/global" "$T/meta"; mkdir -p "$LOCAL_DIR" "$T/global" "$T/meta"
  write_config "$T/$name.fti" node_size=1 group_size=2 ckpt_io=$io
  run() { timeout 120 "$MPIEXEC" -n 2 -bind-to none "$T/$name" "$T/$name.fti" "$1" "$H5"; }
  run write > "$T/$name.w" 2>&1 || { cat "$T/$name.w"; fail "$name: checkpoint"; }
  grep -q "^PASS: write" "$T/$name.w" || { cat "$T/$name.w"; fail "$name: no 'PASS: write'"; }
  if [ "$H5" = 1 ]; then
    local f; f=$(ls "$T"/global/*/l4-s0-rank1.h5) || fail "$name: no HDF5 file"
    h5dump -H "$f" > "$T/$name.h" || fail "$name: h5dump -H $f"
    grep -Eq 'DATASPACE  SIMPLE \{ \( 4, 5 \) / \( 4, 5 \) \}' "$T/$name.h" ||
      { cat "$T/$name.h"; fail "$name: FTI_DefineDataset's 4x5 shape not stored"; }
    grep -Eq 'H5T_ARRAY \{ \[2\]\[3\] H5T_IEEE_F64LE \}' "$T/$name.h" ||
      { cat "$T/$name.h"; fail "$name: FTI_AddVectorField's 2x3 field not stored"; }
  fi
  run check > "$T/$name.r" 2>&1 || { cat "$T/$name.r"; fail "$name: restart"; }
  grep -q "^PASS: check" "$T/$name.r" || { cat "$T/$name.r"; fail "$name: no 'PASS: check'"; }
}

build c_v16 c -DFTI_SIG_V16
build c_master c
build cxx_v16 cxx -DFTI_SIG_V16
build cxx_master cxx
# C11 is not needed: a C99 (-pedantic) caller compiles too.
build c99_v16 c -std=c99 -pedantic -DFTI_SIG_V16
# C++ that includes fti.h inside extern "C" (MPI's C++ bindings off: they
# cannot be in extern "C" whatever fti.h does).
build cxx_v16_externc cxx -DFTI_SIG_V16 -DFTI_SIG_EXTERN_C -DMPICH_SKIP_MPICXX -DOMPI_SKIP_MPICXX
for name in c_v16 c_master cxx_v16 cxx_master c99_v16 cxx_v16_externc; do roundtrip "$name"; done
[ "$H5" = 1 ] || echo "note: no HDF5 (or no h5dump): shapes not read back"
pass "fti.h takes FTI 1.6's and master's signatures, in C and C++"
