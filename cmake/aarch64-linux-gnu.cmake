#===- aarch64-linux-gnu.cmake - cross toolchain for the aarch64 runtime ---===//
#
# Debian bookworm x86_64 host, aarch64-linux-gnu target: the compilers of
# crossbuild-essential-arm64, the target's libraries from the multiarch
# :arm64 packages (/usr/lib/aarch64-linux-gnu) and, for XNNPACK and
# pthreadpool (whose -dev packages are not multiarch: the arm64 ones would
# replace the host's), from their arm64 packages unpacked into
# STRATA_AARCH64_EXTRA_ROOT (scripts/cross-aarch64.sh does both). Programs
# that the build runs (flatc) come from the host; test binaries run under
# qemu-aarch64-static.
#
#===----------------------------------------------------------------------===//
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_AR aarch64-linux-gnu-ar CACHE FILEPATH "")
set(CMAKE_RANLIB aarch64-linux-gnu-ranlib CACHE FILEPATH "")
set(CMAKE_STRIP aarch64-linux-gnu-strip CACHE FILEPATH "")
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

if(NOT DEFINED STRATA_AARCH64_EXTRA_ROOT)
  set(STRATA_AARCH64_EXTRA_ROOT ${CMAKE_CURRENT_LIST_DIR}/../build-aarch64/sysroot)
endif()
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES STRATA_AARCH64_EXTRA_ROOT)

# "/" re-roots to the host's /usr/lib/aarch64-linux-gnu (multiarch);
# /usr/aarch64-linux-gnu holds the cross libc.
set(CMAKE_FIND_ROOT_PATH / /usr/aarch64-linux-gnu ${STRATA_AARCH64_EXTRA_ROOT})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The shared libraries' own dependencies (libXNNPACK -> libcpuinfo,
# libpthreadpool) at link time.
set(_strata_rpath_link "/usr/lib/aarch64-linux-gnu:/lib/aarch64-linux-gnu:${STRATA_AARCH64_EXTRA_ROOT}/usr/lib/aarch64-linux-gnu")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_strata_rpath_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-Wl,-rpath-link,${_strata_rpath_link}")

set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static;-L;/usr/aarch64-linux-gnu)
