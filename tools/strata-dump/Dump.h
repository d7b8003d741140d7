//===- Dump.h - readable and JSON listings of a .strata program -*- C++ -*-===//
#ifndef STRATA_TOOLS_STRATA_DUMP_DUMP_H
#define STRATA_TOOLS_STRATA_DUMP_DUMP_H

#include "strata/Runtime/Program.h"

#include <string>

namespace strata::tools {

/// A readable listing of `program` (`fileSize` bytes). Each delegate whose
/// backend `backends` holds is listed op by op, with the implementation
/// its backend chose for each (Backend::describe).
std::string dumpText(const runtime::Program &program, size_t fileSize,
                     const runtime::BackendRegistry *backends = nullptr);
/// The same content as JSON (one value or instruction per line).
std::string dumpJson(const runtime::Program &program, size_t fileSize);

} // namespace strata::tools

#endif // STRATA_TOOLS_STRATA_DUMP_DUMP_H
