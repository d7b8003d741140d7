#===- StrataMLIR.cmake - find MLIR/LLVM 19 and set up TableGen ------------===//
#
# MLIR is found at its Debian location unless MLIR_DIR says otherwise.
# Every compiler target links the one MLIR shared library (libMLIR.so) and
# never the static MLIR* archives: mixing the two duplicates global state.
#
#===----------------------------------------------------------------------===//
find_package(MLIR REQUIRED CONFIG
  HINTS ${MLIR_DIR} /usr/lib/llvm-19/lib/cmake/mlir)
if(NOT LLVM_VERSION_MAJOR EQUAL 19)
  message(FATAL_ERROR "Strata needs MLIR/LLVM 19, found ${LLVM_PACKAGE_VERSION} "
                      "at ${MLIR_DIR}")
endif()
message(STATUS "Using MLIRConfig.cmake in: ${MLIR_DIR}")
message(STATUS "Using LLVMConfig.cmake in: ${LLVM_DIR}")

list(APPEND CMAKE_MODULE_PATH "${MLIR_CMAKE_DIR}" "${LLVM_CMAKE_DIR}")
set(LLVM_RUNTIME_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/bin)
set(LLVM_LIBRARY_OUTPUT_INTDIR ${CMAKE_BINARY_DIR}/lib)
set(MLIR_BINARY_DIR ${CMAKE_BINARY_DIR})

# With LLVM 19, CMP0116 NEW makes Ninja rerun every TableGen step on each
# build. Functions keep the policies in force where they are defined, so
# this must precede include(TableGen).
if(LLVM_VERSION_MAJOR LESS 20)
  cmake_policy(SET CMP0116 OLD)
endif()
include(TableGen)
include(AddLLVM)
include(AddMLIR)
include(HandleLLVMOptions)
# HandleLLVMOptions also sets LLVM's own warning policy, which turns some
# warnings off for LLVM's code base (-Wno-unused-parameter, ...). Strata's
# code keeps -Wall -Wextra whole (StrataWarnings.cmake): drop the -Wno-*
# flags; the extra warnings LLVM turns on stay.
string(REGEX REPLACE "(^| )-Wno-[^ ]+" "" CMAKE_C_FLAGS "${CMAKE_C_FLAGS}")
string(REGEX REPLACE "(^| )-Wno-[^ ]+" "" CMAKE_CXX_FLAGS "${CMAKE_CXX_FLAGS}")

include_directories(SYSTEM ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
include_directories(${STRATA_SOURCE_DIR}/include ${STRATA_BINARY_DIR}/include)
include_directories(${STRATA_SOURCE_DIR}/dialects ${STRATA_BINARY_DIR}/dialects)
link_directories(${LLVM_BUILD_LIBRARY_DIR})
separate_arguments(STRATA_LLVM_DEFINITIONS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
add_definitions(${STRATA_LLVM_DEFINITIONS})

set(STRATA_TOOLS_DIR ${CMAKE_BINARY_DIR}/bin)

# The imported `MLIR` target lists every static MLIR archive in its interface;
# linking it would pull both. Wrap the shared library alone instead.
get_target_property(STRATA_MLIR_DYLIB MLIR IMPORTED_LOCATION_RELWITHDEBINFO)
if(NOT STRATA_MLIR_DYLIB)
  find_library(STRATA_MLIR_DYLIB MLIR HINTS ${LLVM_LIBRARY_DIR} REQUIRED)
endif()
add_library(strata_mlir_dylib INTERFACE)
target_link_libraries(strata_mlir_dylib INTERFACE ${STRATA_MLIR_DYLIB} LLVM)

# strata_compiler_library(name SOURCES... [DEPENDS tblgen-targets] [LINK libs])
# A compiler library: static, linked against libMLIR.so.
function(strata_compiler_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK" ${ARGN})
  add_library(${name} STATIC ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC strata_mlir_dylib ${ARG_LINK})
endfunction()
