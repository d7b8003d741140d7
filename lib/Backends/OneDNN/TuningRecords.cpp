//===- TuningRecords.cpp - the onednn backend's tuning file ---------------===//
//
// Measured tuning is opt-in: `--backend-option tune=true` times each
// convolution's candidate implementations at compile time. With
// `tuning_file=PATH` the choices are kept in a JSON file, keyed by the
// convolution's signature, so that a later compile reads them instead of
// measuring again and gives the same bytes:
//
//   {"format": "strata-onednn-tuning", "version": 1,
//    "convolutions": {"conv src=1x64x56x56 w=...": {
//        "own_winograd": false, "winograd": false, "src_as_placed": true,
//        "index": 0, "impl": "brg:avx512_core"}, ...}}
//
// The signature holds the shapes, types, window, post-ops, input layout,
// thread count, ISA and oneDNN version, so a record never applies to a
// convolution it was not measured on.
//
//===----------------------------------------------------------------------===//
#include "OneDNNBackend.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace strata::onednn {

static constexpr const char *kTuningFormat = "strata-onednn-tuning";

FailureOr<runtime::onednn::TuningRecords>
readTuningRecords(StringRef path, bool mayBeMissing, std::string &error) {
  runtime::onednn::TuningRecords records;
  if (mayBeMissing && !llvm::sys::fs::exists(path))
    return records;
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path);
  if (!file) {
    error = "cannot read tuning file '" + path.str() +
            "': " + file.getError().message();
    return failure();
  }
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json) {
    error = "tuning file '" + path.str() +
            "' is not JSON: " + llvm::toString(json.takeError());
    return failure();
  }
  auto bad = [&](const std::string &what) {
    error = "tuning file '" + path.str() + "': " + what;
    return failure();
  };
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != kTuningFormat ||
      root->getInteger("version") != 1)
    return bad("not a version-1 " + std::string(kTuningFormat) + " file");
  const llvm::json::Object *convs = root->getObject("convolutions");
  if (!convs)
    return bad("no 'convolutions' object");
  for (const auto &[key, value] : *convs) {
    const llvm::json::Object *record = value.getAsObject();
    std::optional<bool> own, winograd, asPlaced;
    std::optional<int64_t> index;
    std::optional<StringRef> impl;
    if (record) {
      own = record->getBoolean("own_winograd");
      winograd = record->getBoolean("winograd");
      asPlaced = record->getBoolean("src_as_placed");
      index = record->getInteger("index");
      impl = record->getString("impl");
    }
    if (!own || !winograd || !asPlaced || !index || !impl || *index < 0 ||
        *index > 64)
      return bad("record '" + key.str() +
                 "' needs own_winograd, winograd, src_as_placed (booleans), "
                 "index (0-64) and impl (a string)");
    records[key.str()] = {*own, *winograd, *asPlaced, static_cast<int>(*index),
                          impl->str()};
  }
  return records;
}

LogicalResult writeTuningRecords(StringRef path,
                                 const runtime::onednn::TuningRecords &records,
                                 std::string &error) {
  llvm::json::Object convs;
  for (const auto &[key, r] : records)
    convs[key] = llvm::json::Object{{"own_winograd", r.ownWinograd},
                                    {"winograd", r.winograd},
                                    {"src_as_placed", r.srcAsPlaced},
                                    {"index", r.index},
                                    {"impl", r.impl}};
  llvm::json::Value root = llvm::json::Object{
      {"format", kTuningFormat},
      {"version", 1},
      {"convolutions", std::move(convs)}};
  // llvm::json::Object keeps its keys sorted when printed: the file is a
  // function of the records.
  if (llvm::Error e = llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
        os << llvm::formatv("{0:2}", root) << "\n";
        return llvm::Error::success();
      })) {
    error = "cannot write tuning file '" + path.str() +
            "': " + llvm::toString(std::move(e));
    return failure();
  }
  return success();
}

} // namespace strata::onednn
