#!/usr/bin/env bash
# needed.sh BINARIES_LIST FTI_FORMAT_ARCHIVE: no MPI in the MPI-free half.
#  - fti_format's objects call no MPI function (nm: no undefined MPI_/PMPI_);
#  - each binary in the list (fti-ckpt, the unit tests linked with
#    fti_format) loads no MPI library: none in ldd's whole closure, or, for
#    fti-ckpt where HDF5 checkpoints are built (parallel HDF5 needs MPI's
#    runtime), none among its own NEEDED entries.
set -u
list="${1:?binaries list}" archive="${2:?fti_format archive}"
fail() { echo "FAIL: $*"; exit 1; }
# MPICH (libmpich, libmpi), Open MPI (libmpi, libopen-pal/rte, libpmix),
# their Fortran and C++ parts: a library whose name starts so.
mpi_re='^lib(p?mpi|mpich|mpifort|mpicxx|open-(pal|rte)|pmix)'

[ -f "$archive" ] || fail "$archive is not built"
calls=$("${FTI_NM:-nm}" -A "$archive" | awk '$(NF-1) == "U" && $NF ~ /^P?MPI_/ {print $1, $NF}')
[ -z "$calls" ] || fail "fti_format calls MPI: $calls"
echo "ok: $(basename "$archive"): no MPI call in $("${FTI_NM:-nm}" -A "$archive" | awk -F: '{print $2}' | sort -u | wc -l) objects"

n=0
while read -r bin; do
  [ -n "$bin" ] || continue
  [ -x "$bin" ] || fail "$bin is not built"
  name=$(basename "$bin")
  if [ "$name" = fti-ckpt ] && [ "${FTI_HAVE_HDF5:-OFF}" = ON ]; then
    libs=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
    how="NEEDED (parallel HDF5 brings MPI's runtime itself)"
  else
    # Captured before grep: under a closed pipe ldd would fail with SIGPIPE.
    libs=$(ldd "$bin" | awk '{print $1}')
    how="ldd"
  fi
  [ -n "$libs" ] || fail "$name: no libraries read ($how)"
  bad=$(grep -E "$mpi_re" <<< "$libs" | tr '\n' ' ')
  [ -z "$bad" ] || fail "$name needs MPI: $bad($how)"
  echo "ok: $name: no MPI library ($how: $(tr '\n' ' ' <<< "$libs"))"
  n=$((n + 1))
done < "$list"
# Every binary the build links with fti_format (fti-ckpt and the unit tests).
[ "$n" -eq "${FTI_EXPECT_BINARIES:?}" ] || fail "$n binaries in $list, expected $FTI_EXPECT_BINARIES"

echo "PASS: $n binaries without MPI"
