#===- StrataWarnings.cmake - the warning flags of Strata's own code -------===//
#
# Every target the project defines (libraries, tools, tests, benchmarks, the
# runtime and the compiler alike) compiles with -Wall -Wextra, and with
# -Werror when STRATA_WERROR is ON (scripts/test.sh turns it on). The flags
# are directory compile options set before any project directory is added,
# so no target can miss them; the project adds no third-party directories.
#
# Third-party headers do not count: MLIR/LLVM come in as SYSTEM includes
# (StrataMLIR.cmake), oneDNN through StrataDNNL's SYSTEM include directory,
# and FlatBuffers, protobuf/ONNX, gtest and Google Benchmark from
# /usr/include, a system directory of the compiler.
#
#===----------------------------------------------------------------------===//
option(STRATA_WERROR "Treat warnings in Strata's own code as errors" OFF)

set(STRATA_WARNING_FLAGS -Wall -Wextra)
if(STRATA_WERROR)
  list(APPEND STRATA_WARNING_FLAGS -Werror)
endif()
add_compile_options(${STRATA_WARNING_FLAGS})
