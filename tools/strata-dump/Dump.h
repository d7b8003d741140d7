//===- Dump.h - readable and JSON listings of a .strata program -*- C++ -*-===//
#ifndef STRATA_TOOLS_STRATA_DUMP_DUMP_H
#define STRATA_TOOLS_STRATA_DUMP_DUMP_H

#include "strata/Runtime/Program.h"

#include <string>

namespace strata::tools {

/// A readable listing of `program` (`fileSize` bytes).
std::string dumpText(const runtime::Program &program, size_t fileSize);
/// The same content as JSON (one value or instruction per line).
std::string dumpJson(const runtime::Program &program, size_t fileSize);

} // namespace strata::tools

#endif // STRATA_TOOLS_STRATA_DUMP_DUMP_H
