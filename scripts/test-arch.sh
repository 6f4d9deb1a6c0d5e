#!/usr/bin/env bash
# Builds libfti for another architecture and runs its tests under emulation:
#   scripts/test-arch.sh aarch64 [ctest args...]
# Default: the unit tests, then the l1 and l2 labels, each a timed ctest run.
# Cross-compiles with Debian's gcc-aarch64-linux-gnu against a private arm64
# sysroot (the arm64 .debs of the dependencies, unpacked with dpkg -x, never
# installed: multiarch installs of libmpich-dev:arm64 would remove the host's
# compilers and MPICH), then runs the tests with qemu-user-static. No binfmt
# registration is needed: each arm64 program in the build tree is moved to
# .aarch64/NAME and NAME becomes a two-line script that runs it under qemu, so
# ctest, the test scripts and the host's mpiexec (MPICH's hydra, same MPICH
# version as the arm64 libmpich) run emulated ranks unchanged.
# Needs root for apt-get (Debian 12); not part of the default CI run (slow).
# Environment: FTI_ARCH_DIR (work folder, default /tmp/fti-arch-<arch>),
# FTI_ARCH_JOBS (build and ctest jobs, default 2).
# --help prints the comment above (how to call it) and exits.
case "${1:-}" in -h|--help) sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;; esac
set -euo pipefail
arch="${1:-}"
[ "$arch" = aarch64 ] || { echo "usage: $0 aarch64 [ctest args...]" >&2; exit 2; }
shift
debarch=arm64 triple=aarch64-linux-gnu
SRC="$(cd "$(dirname "$0")/.." && pwd)"
W="${FTI_ARCH_DIR:-/tmp/fti-arch-$arch}"
J="${FTI_ARCH_JOBS:-2}"
SYSROOT="$W/sysroot" DEBS="$W/debs" B="$W/build"
start=$(date +%s)
say() { echo "== test-arch $arch ($(( $(date +%s) - start )) s): $*"; }

# ---- host tools: the cross compiler and the emulator -------------------------
need=()
command -v $triple-gcc > /dev/null || need+=(gcc-$triple)
command -v qemu-$arch-static > /dev/null || need+=(qemu-user-static)
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  apt-get install -y --no-install-recommends "${need[@]}"
fi

# ---- the sysroot: the target's libraries and headers, unpacked ---------------
# The minimal set: libc, MPICH and what libmpich12 needs at run time, and the
# library's and tests' dependencies (ISA-L left out: the portable
# Reed-Solomon path is the one this run exercises).
pkgs=(libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev libgcc-s1 libstdc++6 libgfortran5
  libmpich12 libmpich-dev libhwloc15 libudev1 libucx0 libibverbs1 librdmacm1 libnl-3-200
  libnl-route-3-200 libnuma1 zlib1g zlib1g-dev libxxhash0 libxxhash-dev libzstd1 libzstd-dev
  libcmocka0 libcmocka-dev)
if [ ! -f "$SYSROOT/.complete" ]; then
  if ! dpkg --print-foreign-architectures | grep -qx $debarch; then
    say "dpkg --add-architecture $debarch (package lists only; nothing of $debarch is installed)"
    dpkg --add-architecture $debarch
  fi
  apt-get update > /dev/null
  rm -rf "$SYSROOT" "$DEBS" && mkdir -p "$SYSROOT" "$DEBS"
  say "apt-get download ${#pkgs[@]} $debarch packages"
  (cd "$DEBS" && apt-get download "${pkgs[@]/%/:$debarch}" > /dev/null)
  for d in "$DEBS"/*.deb; do dpkg -x "$d" "$SYSROOT"; done
  # Absolute symlinks of the packages (libfoo.so -> /lib/...) point into the sysroot.
  find "$SYSROOT" -type l -lname '/*' | while read -r l; do
    ln -sfn "$SYSROOT$(readlink "$l")" "$l"
  done
  touch "$SYSROOT/.complete"
fi

# ---- cross-compile ------------------------------------------------------------
cat > "$W/toolchain.cmake" <<TC
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $arch)
set(CMAKE_C_COMPILER $triple-gcc)
set(CMAKE_SYSROOT $SYSROOT)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR $W/emulator)
TC
# The emulator CMake and ctest put before a target's program: qemu for an
# ELF file, nothing for the wrapper scripts made below.
cat > "$W/emulator" <<EMU
#!/bin/sh
if [ "\$(head -c 4 "\$1" | od -An -tx1 | tr -d ' ')" = 7f454c46 ]; then
  exec qemu-$arch-static -L $SYSROOT "\$@"
fi
exec "\$@"
EMU
chmod +x "$W/emulator"
export PKG_CONFIG_SYSROOT_DIR="$SYSROOT"
export PKG_CONFIG_LIBDIR="$SYSROOT/usr/lib/$triple/pkgconfig:$SYSROOT/usr/share/pkgconfig"
# MPICH's compiler wrapper for the target, as FindMPI asks it (-show).
cat > "$W/mpicc" <<MPICC
#!/bin/sh
flags="-I$SYSROOT/usr/include/$triple/mpich -L$SYSROOT/usr/lib/$triple -lmpich"
if [ "\$1" = -show ]; then echo "$triple-gcc \$flags"; exit 0; fi
exec $triple-gcc --sysroot=$SYSROOT "\$@" \$flags
MPICC
chmod +x "$W/mpicc"
# Programs are looked up on the host (CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER),
# so two finds must be kept from taking the host's: FindHDF5 would take the
# host's h5pcc and link x86-64 HDF5 (the sysroot has no HDF5: ckpt_io = 5 is
# refused with its message, and the tests that need it say so), and the fuzz
# targets would be built for the host by its clang (no use here).
# A build folder configured from another checkout is started afresh.
if [ -f "$B/CMakeCache.txt" ] &&
   ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$SRC" "$B/CMakeCache.txt"; then
  say "$B was configured from another source folder: removed"
  rm -rf "$B"
fi
say "configure ($B)"
cmake -S "$SRC" -B "$B" -DCMAKE_TOOLCHAIN_FILE="$W/toolchain.cmake" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFTI_ENABLE_FORTRAN=OFF -DFTI_ENABLE_CUDA=OFF \
  -DFTI_ENABLE_XRT=OFF -DFTI_ENABLE_HDF5=OFF -DFTI_CLANG=FTI_CLANG-NOTFOUND \
  -DMPI_C_COMPILER="$W/mpicc" -DMPIEXEC_EXECUTABLE="$(command -v mpiexec)" \
  > "$W/configure.log" 2>&1 || { cat "$W/configure.log"; exit 1; }
grep -E "^--   " "$W/configure.log" || true
say "build"
cmake --build "$B" -j"$J" > "$W/build.log" 2>&1 || { tail -40 "$W/build.log"; exit 1; }

# ---- run arm64 programs under qemu ---------------------------------------------
# Each ELF executable of the target (e_machine 183, EM_AARCH64) moves to
# .$arch/NAME beside it (same name: messages that name the program still
# match), and NAME becomes a script that runs it emulated with the sysroot's
# libraries. A relinked program (a rerun) is wrapped again.
wrapped=0
while IFS= read -r -d '' f; do
  case "$f" in */."$arch"/*) continue ;; esac
  [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || continue
  [ "$(od -An -tu2 -j18 -N2 "$f" | tr -d ' ')" = 183 ] || continue
  d="$(dirname "$f")/.$arch" && mkdir -p "$d"
  mv -f "$f" "$d/"
  printf '#!/bin/sh\nexec qemu-%s-static -L %s "$(dirname "$0")/.%s/$(basename "$0")" "$@"\n' \
    "$arch" "$SYSROOT" "$arch" > "$f"
  chmod +x "$f"
  wrapped=$((wrapped + 1))
done < <(find "$B" -type f -perm -u+x ! -name '*.so*' ! -name '*.sh' -print0)
say "$wrapped programs wrapped for qemu-$arch-static"
file "$B/libfti.so."*.*.* | head -1
"$B/tools/fti-ckpt" --version

# ---- test -------------------------------------------------------------------------
# MPICH's UCX keeps to shared memory (UCX_TLS=self,sm), as it does on one
# host of real hardware. Under qemu-user UCX has no CMA (qemu does not implement
# process_vm_readv: ENOSYS), so it sends large messages (rendezvous) over its
# TCP transport, small ones still by shared memory. Once TCP has carried
# traffic, MPICH 4.0.2's MPI_Finalize can hang: one rank spins closing its
# endpoints, waiting for a peer that already sits in the launcher's barrier.
# Every L2 partner copy (one message of the whole file) set that off: 5
# tests hung. Not the library's: a 40-line MPI ring exchange of 70 KB hangs
# the same way under qemu, and natively on x86-64 with UCX_TLS=self,tcp even
# a 100-byte one does (docs/TROUBLESHOOTING.md).
export UCX_TLS="${UCX_TLS:-self,sm}"
# part NAME CTEST-ARGS...: one ctest run, timed; its tally goes to $W/parts.
part() {
  local name="$1" t0 prc=0; shift
  t0=$(date +%s)
  say "ctest $* (UCX_TLS=$UCX_TLS)"
  (cd "$B" && ctest -j"$J" --output-on-failure "$@") > "$W/ctest-$name.log" 2>&1 || prc=$?
  grep -E "tests passed|\*\*\*|Failed|Timeout|Not Run" "$W/ctest-$name.log" || true
  printf '%-8s %s, %d s\n' "$name" \
    "$(grep -Eo "[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+" "$W/ctest-$name.log" || echo "no tally")" \
    $(( $(date +%s) - t0 )) >> "$W/parts"
  [ "$prc" -eq 0 ] || { tail -60 "$W/ctest-$name.log"; rc=1; }
}
rc=0
: > "$W/parts"
echo "build and wrap: $(( $(date +%s) - start )) s" >> "$W/parts"
if [ $# -gt 0 ]; then
  part args "$@"
else
  # Default (issue 27): the unit tests and the l1 and l2 MPI labels, each timed.
  part unit -L '^unit$'
  part l1 -L '^l1$'
  part l2 -L '^l2$'
fi
say "done (ctest logs in $W; $([ $rc -eq 0 ] && echo passed || echo FAILED))"
cat "$W/parts"
exit $rc
