# Spack package for libfti. No release tarball is published for download:
# make a local mirror first (README.md, "Spack"):
#   packaging/make-release-tarball.sh --mirror v1.6.1 "$PWD/spack-mirror"
#   spack mirror add libfti-local "file://$PWD/spack-mirror"
# then `spack repo add packaging/spack` and `spack install libfti` (or
# `libfti~fortran+hdf5`, ...); `spack test run libfti` runs the smoke test below. packaging/spack/verify.sh does all of it
# offline with Spack itself; test/packaging/spack_package.py checks this file
# against CMakeLists.txt without Spack.
import os
import shutil

import spack.util.elf
from spack.package import *

# The one smoke program of the stand-alone test: checkpoint on 2 ranks
# ("write"), then a second launch restarts from it ("check") and compares
# every restored value. It uses only the FTI API, as an application would.
SMOKE_C = r"""
#include <fti.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 64

static void die(const char *what)
{
    fprintf(stderr, "libfti smoke: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    int data[N], rank, bad = 0;
    MPI_Init(&argc, &argv);
    if (argc != 3)
        die("usage: smoke CONFIG write|check");
    if (FTI_Init(argv[1], MPI_COMM_WORLD) != FTI_SCES)
        die("FTI_Init failed");
    MPI_Comm_rank(FTI_COMM_WORLD, &rank);
    if (FTI_Protect(0, data, N, FTI_INTG) != FTI_SCES)
        die("FTI_Protect failed");
    if (strcmp(argv[2], "write") == 0) {
        if (FTI_Status() != 0)
            die("a fresh run restarted");
        for (int i = 0; i < N; i++)
            data[i] = rank * 1000 + i;
        if (FTI_Checkpoint(1, 1) != FTI_DONE)
            die("FTI_Checkpoint(1, 1) failed");
        printf("libfti smoke: rank %d checkpointed %d values\n", rank, N);
    } else {
        if (FTI_Status() == 0)
            die("the second launch did not restart");
        memset(data, 0, sizeof data);
        if (FTI_Recover() != FTI_SCES)
            die("FTI_Recover failed");
        for (int i = 0; i < N; i++)
            bad += data[i] != rank * 1000 + i;
        printf("libfti smoke: rank %d restored %d of %d values\n", rank, N - bad, N);
    }
    FTI_Finalize();
    MPI_Finalize();
    return bad != 0;
}
"""


class Libfti(CMakePackage):
    """Multilevel checkpoint/restart for MPI applications, source-compatible
    with FTI 1.6 (same fti.h, FTI_* names and config keys)."""

    # Release tarballs are made by packaging/make-release-tarball.sh from the
    # tag v<version>; none is published at the url below yet. Spack looks in
    # its mirrors first, so a site (or verify.sh) that has the tarball in a
    # mirror installs offline:
    #   packaging/make-release-tarball.sh --mirror v1.6.1 /path/to/mirror
    #   spack mirror add libfti-local file:///path/to/mirror
    homepage = "https://github.com/libfti/libfti"
    url = "https://github.com/libfti/libfti/releases/download/v1.6.1/libfti-1.6.1.tar.gz"
    git = "https://github.com/libfti/libfti.git"
    license("BSD-3-Clause")

    version("main", branch="main")
    # sha256 of `packaging/make-release-tarball.sh v1.6.1` (tag v1.6.1).
    version("1.6.1", sha256="09d109f2729bc59460a7c258a87b7cf13fe363a3cab2c5d9b379147994b8a839")

    # Each variant sets its CMake option ON or OFF (never the AUTO default),
    # so the build does not depend on what else the machine has.
    variant("fortran", default=True, description="Fortran module (fti.mod, libfti_f)")
    variant("hdf5", default=False, description="HDF5 checkpoints (ckpt_io = 5), parallel HDF5")
    variant("zstd", default=True, description="zstd compression of L4 copies (zlib otherwise)")
    variant("isal", default=True, description="ISA-L Reed-Solomon kernels for L3 (own kernel otherwise)")
    variant("cuda", default=False, description="CUDA backend: protect device pointers")
    variant("xrt", default=False, description="Xilinx XRT backend for FPGA buffers")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    # fti-run and fti-fault are Python scripts; the man pages are made from
    # the tools' --help by tools/gen-man at build time.
    depends_on("python@3:", type=("build", "run"))

    depends_on("mpi")
    depends_on("zlib-api")
    # 1.6.1 links libxxhash; later versions (main included: Spack orders it
    # above every number) compile xxHash in from its header: build only.
    depends_on("xxhash@0.8:", when="@:1.6.1")
    depends_on("xxhash@0.8:", type="build", when="@1.6.2:")
    depends_on("zstd", when="+zstd")
    depends_on("isa-l", when="+isal")
    depends_on("hdf5+mpi", when="+hdf5")
    depends_on("cuda", when="+cuda")
    # XRT is not packaged in Spack: +xrt uses the one XILINX_XRT points at.
    # CMocka only for `spack install --test=root` (the unit tests).
    depends_on("cmocka", type="test")

    def cmake_args(self):
        args = [
            self.define_from_variant("FTI_ENABLE_FORTRAN", "fortran"),
            self.define_from_variant("FTI_ENABLE_HDF5", "hdf5"),
            self.define_from_variant("FTI_ENABLE_ZSTD", "zstd"),
            self.define_from_variant("FTI_ENABLE_ISAL", "isal"),
            self.define_from_variant("FTI_ENABLE_CUDA", "cuda"),
            self.define_from_variant("FTI_ENABLE_XRT", "xrt"),
            self.define("FTI_BUILD_TESTS", self.run_tests),
            self.define("FTI_BUILD_EXAMPLES", False),  # installed as sources anyway
        ]
        if self.spec.satisfies("+hdf5"):
            args.append(self.define("HDF5_ROOT", self.spec["hdf5"].prefix))
        if self.spec.satisfies("+cuda"):
            args.append(self.define("CUDAToolkit_ROOT", self.spec["cuda"].prefix))
        return args

    @property
    def libs(self):
        return find_libraries("libfti", root=self.prefix, shared=True, recursive=True)

    def setup_run_environment(self, env):
        env.prepend_path("MANPATH", self.prefix.share.man)

    # FTI_ENABLE_HDF5/ZSTD/ISAL=ON mean "use it when found": a variant whose
    # library CMake did not find would otherwise install without it, silently.
    @run_after("install")
    def check_variants_linked(self):
        needed = set()
        for lib in self.libs:
            with open(lib, "rb") as f:
                elf = spack.util.elf.parse_elf(f, dynamic_section=True)
            needed.update(n.decode() for n in elf.dt_needed_strs)
        for variant, soname in (("hdf5", "libhdf5"), ("zstd", "libzstd"), ("isal", "libisal")):
            if self.spec.satisfies("+" + variant) and not any(
                n.startswith(soname + ".") or n.startswith(soname + "_") for n in needed
            ):
                raise InstallError(
                    "libfti+%s: the installed libfti does not link %s (it links %s); "
                    "see the configure summary in the build log" % (variant, soname, sorted(needed))
                )

    def test_tools_version(self):
        """fti-ckpt and fti-run answer --version with the installed version"""
        for tool in ("fti-ckpt", "fti-run"):
            with test_part(self, "test_tools_version_" + tool, purpose=tool + " --version"):
                exe = which(join_path(self.prefix.bin, tool), required=True)
                out = exe("--version", output=str.split, error=str.split)
                expected = "%s (libfti) %s" % (tool, self.spec.version)
                if not self.spec.satisfies("@main") and out.strip() != expected:
                    raise RuntimeError("%s --version printed %r, not %r" % (tool, out, expected))

    def test_checkpoint_restart(self):
        """a program built against the install checkpoints on 2 ranks and a
        second launch restores every value"""
        work = os.getcwd()
        for d in ("local", "global", "meta"):  # a rerun starts fresh
            shutil.rmtree(join_path(work, d), ignore_errors=True)
        with open("smoke.c", "w") as f:
            f.write(SMOKE_C)
        mpi = self.spec["mpi"]
        libdir = self.libs.directories[0]
        cc = Executable(mpi.mpicc)
        cc(
            "-std=c11",
            "-o",
            "smoke",
            "smoke.c",
            "-I" + self.prefix.include,
            "-L" + libdir,
            "-Wl,-rpath," + libdir,
            "-lfti",
        )
        with open("smoke.fti", "w") as f:
            f.write(
                "[basic]\nhead = 0\nnode_size = 0\ngroup_size = 1\n"
                "ckpt_dir = %s/local\nglbl_dir = %s/global\nmeta_dir = %s/meta\n"
                "ckpt_l1 = 10\nkeep_last_ckpt = 1\nverbosity = 3\n"
                "[restart]\nexec_id = smoke\nupdate_config = 0\n" % (work, work, work)
            )
        mpiexec = Executable(join_path(mpi.prefix.bin, "mpiexec"))
        launch = ["-n", "2"]
        if mpi.name == "openmpi":
            launch = ["--oversubscribe"] + launch
        with test_part(self, "test_checkpoint_restart_write", purpose="checkpoint on 2 ranks"):
            out = mpiexec(*launch, "./smoke", "smoke.fti", "write", output=str, error=str)
            print(out)
            if out.count("checkpointed 64 values") != 2:
                raise RuntimeError("no checkpoint on both ranks:\n" + out)
        with test_part(self, "test_checkpoint_restart_check", purpose="restart, all values back"):
            out = mpiexec(*launch, "./smoke", "smoke.fti", "check", output=str, error=str)
            print(out)
            if out.count("restored 64 of 64 values") != 2:
                raise RuntimeError("the restart did not restore every value:\n" + out)
