//===- HTMLReport.h - the compile report as one HTML page -------*- C++ -*-===//
//
// strata-compile --report-html: one self-contained file (no network; inline
// style, script and SVG) that draws the report JSON: the model graph with
// each node coloured by where it runs and its pattern matches, the
// partitions, the memory plan as buffers over instruction indices, the
// compile stages, per-tensor SQNR for int8, the bisection and per-op times.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_COMPILER_HTMLREPORT_H
#define STRATA_COMPILER_HTMLREPORT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace strata {

/// The page for `report` (CompileReport::toJSON plus "graph", and
/// "bisect" and "profile" when present).
std::string renderHTMLReport(const llvm::json::Value &report);

/// Reads a `strata-run --profile-tsv` file as the report's "profile":
/// {"instructions": [{index, label, ns, nodes}], "steps": [{instruction,
/// step, op, implementation, layout, ns, nodes}]}.
llvm::Expected<llvm::json::Value> readProfileTSV(llvm::StringRef path);

} // namespace strata

#endif // STRATA_COMPILER_HTMLREPORT_H
