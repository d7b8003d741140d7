#===- StrataFlatBuffers.cmake - C++ headers generated from .fbs schemas ---===//
#
# strata_flatbuffers_header(<target> SCHEMA <file.fbs> OUTPUT_DIR <dir>
#                           COMMENT <text> [FLATC_ARGS <arg>...])
#
# Runs `flatc --cpp --scoped-enums <FLATC_ARGS>` on SCHEMA, writing
# <name>_generated.h into OUTPUT_DIR (a directory of the build tree's
# include/), and adds the custom target <target> that libraries including
# the header depend on. The program schema and each delegate's blob schema
# are generated this way.
#
#===----------------------------------------------------------------------===//
function(strata_flatbuffers_header target)
  cmake_parse_arguments(ARG "" "SCHEMA;OUTPUT_DIR;COMMENT" "FLATC_ARGS" ${ARGN})
  get_filename_component(name ${ARG_SCHEMA} NAME_WE)
  set(header ${ARG_OUTPUT_DIR}/${name}_generated.h)
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ARG_OUTPUT_DIR}
    COMMAND flatbuffers::flatc --cpp --scoped-enums ${ARG_FLATC_ARGS}
            -o ${ARG_OUTPUT_DIR} ${ARG_SCHEMA}
    DEPENDS ${ARG_SCHEMA} flatbuffers::flatc
    COMMENT "${ARG_COMMENT}")
  add_custom_target(${target} DEPENDS ${header})
endfunction()
