# Spack package for libfti: `spack repo add packaging/spack` then
# `spack install libfti+fortran`. Checked by test/packaging/spack_package.py.
from spack.package import *


class Libfti(CMakePackage):
    """Multilevel checkpoint/restart for MPI applications, source-compatible
    with FTI 1.6 (same fti.h, FTI_* names and config keys)."""

    # The public repository's address goes here when the project publishes one;
    # until then, point Spack at a local clone: `spack develop libfti@main`.
    homepage = "https://github.com/OWNER/libfti"
    git = "https://github.com/OWNER/libfti.git"
    license("BSD-3-Clause")

    version("main", branch="main")

    variant("fortran", default=True, description="Fortran module (fti.mod, libfti_f)")
    variant("cuda", default=False, description="CUDA backend for device variables")
    variant("hdf5", default=False, description="HDF5 checkpoint I/O (ckpt_io = 3)")
    variant("xrt", default=False, description="Xilinx XRT backend for FPGA kernels")
    variant("isal", default=True, description="Intel ISA-L Reed-Solomon for L3")

    depends_on("c", type="build")
    depends_on("fortran", type="build", when="+fortran")
    depends_on("cmake@3.18:", type="build")
    depends_on("pkgconfig", type="build")
    depends_on("python@3:", type="build")  # man pages from the tools' --help

    depends_on("mpi")
    depends_on("zlib-api")
    depends_on("zstd")
    depends_on("xxhash")
    depends_on("isa-l", when="+isal")
    depends_on("cuda", when="+cuda")
    depends_on("hdf5+mpi", when="+hdf5")
    # XRT is not packaged in Spack: an external (XILINX_XRT) is used.
    depends_on("cmocka", type="test")

    def cmake_args(self):
        return [
            self.define_from_variant("FTI_ENABLE_FORTRAN", "fortran"),
            self.define("FTI_ENABLE_CUDA", "ON" if self.spec.satisfies("+cuda") else "OFF"),
            self.define("FTI_ENABLE_HDF5", "ON" if self.spec.satisfies("+hdf5") else "OFF"),
            self.define("FTI_ENABLE_XRT", "ON" if self.spec.satisfies("+xrt") else "OFF"),
            self.define_from_variant("FTI_ENABLE_ISAL", "isal"),
            self.define("FTI_BUILD_TESTS", self.run_tests),
        ]

    def setup_run_environment(self, env):
        env.prepend_path("MANPATH", self.prefix.share.man)
