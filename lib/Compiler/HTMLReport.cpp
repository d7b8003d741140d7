//===- HTMLReport.cpp - the compile report as one HTML page ---------------===//
#include "strata/Compiler/HTMLReport.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

namespace strata {
namespace {

constexpr llvm::StringLiteral kPage =
#include "ReportPage.inc"
    ;

constexpr llvm::StringLiteral kMarker = "__STRATA_REPORT_JSON__";

} // namespace

std::string renderHTMLReport(const llvm::json::Value &report) {
  // In a <script> element only "</" could end the data early; '<' appears
  // in JSON only inside strings, where \u003c means the same.
  std::string json = llvm::formatv("{0}", report).str();
  std::string escaped;
  escaped.reserve(json.size());
  for (char c : json) {
    if (c == '<')
      escaped += "\\u003c";
    else
      escaped += c;
  }
  llvm::StringRef page = kPage;
  size_t at = page.find(kMarker);
  return (page.take_front(at) + escaped +
          page.drop_front(at + kMarker.size()))
      .str();
}

llvm::Expected<llvm::json::Value> readProfileTSV(llvm::StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return llvm::make_error<llvm::StringError>(
        "cannot read '" + path + "': " + file.getError().message(),
        file.getError());
  llvm::json::Array instructions, steps;
  llvm::SmallVector<llvm::StringRef> lines;
  (*file)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (auto [number, line] : llvm::enumerate(lines)) {
    llvm::SmallVector<llvm::StringRef> fields;
    line.rtrim('\r').split(fields, '\t');
    auto bad = [&, number = number] {
      return llvm::make_error<llvm::StringError>(
          "'" + path + "' line " + std::to_string(number + 1) +
              ": not a strata-run --profile-tsv line",
          llvm::inconvertibleErrorCode());
    };
    auto nodesOf = [](llvm::StringRef joined) {
      llvm::SmallVector<llvm::StringRef> parts;
      joined.split(parts, '|', -1, /*KeepEmpty=*/false);
      llvm::json::Array nodes;
      for (llvm::StringRef part : parts)
        nodes.push_back(part.str());
      return nodes;
    };
    int64_t index = 0, step = 0, ns = 0;
    if (fields[0] == "instruction" && fields.size() >= 4) {
      if (fields[1].getAsInteger(10, index) || fields[3].getAsInteger(10, ns))
        return bad();
      instructions.push_back(llvm::json::Object{
          {"index", index},
          {"label", fields[2].str()},
          {"ns", ns},
          {"nodes", nodesOf(fields.size() > 4 ? fields[4] : "")}});
    } else if (fields[0] == "step" && fields.size() >= 7) {
      if (fields[1].getAsInteger(10, index) ||
          fields[2].getAsInteger(10, step) || fields[6].getAsInteger(10, ns))
        return bad();
      steps.push_back(llvm::json::Object{
          {"instruction", index},
          {"step", step},
          {"op", fields[3].str()},
          {"implementation", fields[4].str()},
          {"layout", fields[5].str()},
          {"ns", ns},
          {"nodes", nodesOf(fields.size() > 7 ? fields[7] : "")}});
    } else {
      return bad();
    }
  }
  return llvm::json::Object{{"instructions", std::move(instructions)},
                            {"steps", std::move(steps)}};
}

} // namespace strata
