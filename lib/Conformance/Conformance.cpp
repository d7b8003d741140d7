//===- Conformance.cpp - the ONNX backend node-test runner ----------------===//
#include "strata/Conformance/Conformance.h"

#include "strata/Backends/Backend.h"
#include "strata/Calibration/Execute.h"
#include "strata/Compiler/Compiler.h"
#include "strata/Runtime/SampleSource.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace mlir;

namespace strata {

std::set<std::string> readListFile(const std::string &path) {
  std::set<std::string> entries;
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    StringRef text = StringRef(line).split('#').first.trim();
    if (!text.empty())
      entries.insert(text.split(' ').first.split('\t').first.str());
  }
  return entries;
}

namespace {

ConformanceRecord failed(const std::string &name, std::string failureClass,
                         std::string message) {
  return {name, "failed", std::move(failureClass), std::move(message)};
}

/// Which of `types` are bf16.
std::vector<bool> bf16Positions(TypeRange types) {
  std::vector<bool> positions;
  for (Type type : types)
    positions.push_back(getElementTypeOrSelf(type).isBF16());
  return positions;
}

/// The ONNX test data written before numpy-free bfloat16 support stores
/// bfloat16 tensors as UINT16 bit patterns (data_type 4). Where the graph
/// declares bf16, such a tensor is taken as the bf16 values it encodes.
void adoptBFloat16Bits(std::vector<runtime::OwnedTensor> &tensors,
                       const std::vector<bool> &isBF16) {
  for (size_t i = 0; i < tensors.size() && i < isBF16.size(); ++i)
    if (isBF16[i] && tensors[i].dtype == runtime::DType::U16)
      tensors[i].dtype = runtime::DType::BF16;
}

/// Static types of the graph inputs that no op reads (CastLike's `like`).
using UnreadInputs = std::vector<std::optional<RankedTensorType>>;
UnreadInputs unreadInputTypes(func::FuncOp func) {
  UnreadInputs types;
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    bool unread = arg.use_empty() && type && type.hasStaticShape();
    types.push_back(unread ? std::optional(type) : std::nullopt);
  }
  return types;
}

/// Some ONNX test models declare an input that no op reads with another
/// shape than their data has (test_castlike_*BFLOAT16*: `like` is declared
/// 3x4, stored as [1]). Only the type of such an input matters, so the
/// declared shape is fed instead, zero-filled.
void reshapeUnreadInputs(std::vector<runtime::OwnedTensor> &tensors,
                         const UnreadInputs &unread) {
  for (size_t i = 0; i < tensors.size() && i < unread.size(); ++i) {
    runtime::OwnedTensor &tensor = tensors[i];
    if (!unread[i] || ArrayRef<int64_t>(tensor.shape) == unread[i]->getShape())
      continue;
    tensor.shape.assign(unread[i]->getShape().begin(),
                        unread[i]->getShape().end());
    tensor.bytes.assign(runtime::numElements(tensor.shape) *
                            runtime::dtypeSize(tensor.dtype),
                        0);
  }
}

} // namespace

ConformanceRecord runConformanceTest(const std::string &testDir,
                                     const ConformanceOptions &options) {
  std::string name = llvm::sys::path::filename(testDir).str();
  if (options.skippedTests.count(name))
    return {name, "skipped", "out-of-scope", "listed as skipped"};
  SmallString<256> modelPath(testDir);
  llvm::sys::path::append(modelPath, "model.onnx");

  if (options.scope) {
    std::string reason = options.scope->outOfScopeReason(name, modelPath);
    if (!reason.empty())
      return {name, "skipped", "out-of-scope", reason};
  }

  MLIRContext context(MLIRContext::Threading::DISABLED);
  loadCompilerDialects(context);
  // Keep the first error as the record's message.
  std::string firstError;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error && firstError.empty())
      firstError = diag.str();
    return success();
  });

  CompileOptions compile;
  CompileReport report;
  if (!options.backends.empty()) {
    llvm::Expected<const std::vector<Backend> &> all = discoverBackends();
    if (!all)
      return failed(name, "lower", llvm::toString(all.takeError()));
    for (const std::string &wanted : options.backends) {
      auto it = llvm::find_if(
          *all, [&](const Backend &b) { return b.getName() == wanted; });
      if (it == all->end() || !it->getHooks().delegates())
        return failed(name, "lower",
                      "'" + wanted + "' is not a backend with a delegate");
      compile.delegateBackends.push_back(&*it);
    }
  }
  OwningOpRef<ModuleOp> module =
      importONNXFile(modelPath, &context, compile.import);
  if (!module)
    return failed(name, "import", firstError);
  std::vector<bool> bf16Inputs, bf16Outputs;
  UnreadInputs unreadInputs;
  for (auto func : module->getOps<func::FuncOp>()) {
    bf16Inputs = bf16Positions(func.getArgumentTypes());
    bf16Outputs = bf16Positions(func.getResultTypes());
    unreadInputs = unreadInputTypes(func);
    break;
  }
  if (mlir::failed(lowerToExec(*module, compile, report, EmitKind::Program)))
    return failed(name, "lower", firstError);
  std::string program;
  llvm::raw_string_ostream os(program);
  auto programs = module->getOps<exec::ProgramOp>();
  if (programs.empty() ||
      mlir::failed(emitProgram(*programs.begin(), os, compile.emitOptions)))
    return failed(name, "lower", "emission: " + firstError);
  os.flush();

  std::error_code ec;
  std::vector<std::string> dataSets;
  for (llvm::sys::fs::directory_iterator it(testDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (StringRef(llvm::sys::path::filename(it->path()))
            .starts_with("test_data_set_"))
      dataSets.push_back(it->path());
  llvm::sort(dataSets);
  for (const std::string &dataSet : dataSets) {
    auto source = runtime::SampleSource::openTestDataSet(dataSet, {});
    if (!source.ok())
      return failed(name, "run-error", source.error().toString());
    auto inputs = source->get(0);
    auto expected = source->expected(0);
    if (!inputs.ok() || !expected.ok())
      return failed(
          name, "run-error",
          (inputs.ok() ? expected.error() : inputs.error()).toString());
    adoptBFloat16Bits(*inputs, bf16Inputs);
    adoptBFloat16Bits(*expected, bf16Outputs);
    reshapeUnreadInputs(*inputs, unreadInputs);
    auto outputs = runProgram(program, *inputs);
    if (!outputs.ok()) {
      bool missing = outputs.error().code() == runtime::ErrorCode::NotFound;
      return failed(name, missing ? "kernel-missing" : "run-error",
                    outputs.error().toString());
    }
    if (outputs->size() != expected->size())
      return failed(name, "mismatch",
                    std::to_string(outputs->size()) + " outputs, expected " +
                        std::to_string(expected->size()));
    for (size_t i = 0; i < outputs->size(); ++i) {
      runtime::TensorComparison c =
          runtime::compareTensors((*outputs)[i].view(), (*expected)[i].view(),
                                  options.atol, options.rtol);
      if (!c.typeMismatch.empty())
        return failed(name, "mismatch",
                      "output " + std::to_string(i) + ": " + c.typeMismatch);
      if (c.mismatches)
        return failed(name, "mismatch",
                      llvm::formatv("{0}: output {1}: {2} elements outside "
                                    "tolerance, max_abs {3:e}, rel_l2 {4:e}",
                                    llvm::sys::path::filename(dataSet), i,
                                    c.mismatches, c.maxAbs, c.relL2)
                          .str());
    }
  }
  ConformanceRecord record{name, "passed", "", ""};
  if (!options.programsDir.empty()) {
    llvm::SmallString<256> path(options.programsDir);
    llvm::sys::path::append(path, name + ".strata");
    if (llvm::Error error = llvm::writeToOutput(path, [&](raw_ostream &out) {
          out << program;
          return llvm::Error::success();
        }))
      return failed(name, "run-error",
                    "cannot write " + path.str().str() + ": " +
                        llvm::toString(std::move(error)));
  }
  if (report.delegation)
    record.delegatedOps = report.delegation->delegatedCount();
  return record;
}

namespace {

/// Runs `testDir` in a child process; the child sends the record back as
/// JSON through a pipe.
ConformanceRecord runIsolated(const std::string &testDir,
                              const ConformanceOptions &options) {
  std::string name = llvm::sys::path::filename(testDir).str();
  int fds[2];
  if (pipe(fds) != 0)
    return runConformanceTest(testDir, options);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    alarm(options.timeoutSeconds);
    ConformanceRecord record = runConformanceTest(testDir, options);
    std::string json;
    llvm::raw_string_ostream os(json);
    os << toJSON({record});
    os.flush();
    for (size_t written = 0; written < json.size();) {
      ssize_t n = write(fds[1], json.data() + written, json.size() - written);
      if (n <= 0)
        break;
      written += n;
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string json;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) > 0;)
    json.append(buffer, n);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    int signal = WTERMSIG(status);
    if (signal == SIGALRM)
      return failed(name, "timeout",
                    "exceeded " + std::to_string(options.timeoutSeconds) +
                        " s");
    return failed(name, "crash", "killed by signal " + std::to_string(signal));
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return failed(name, "crash", "no result from the test process");
  }
  const llvm::json::Object *object =
      parsed->getAsArray() && !parsed->getAsArray()->empty()
          ? parsed->getAsArray()->front().getAsObject()
          : nullptr;
  if (!object)
    return failed(name, "crash", "malformed result from the test process");
  auto get = [&](StringRef key) {
    return object->getString(key).value_or("").str();
  };
  ConformanceRecord record{get("name"), get("status"), get("class"),
                           get("message")};
  record.delegatedOps =
      static_cast<int>(object->getInteger("delegated_ops").value_or(0));
  return record;
}

} // namespace

std::vector<ConformanceRecord>
runConformanceSuite(const ConformanceOptions &options) {
  std::vector<std::string> tests;
  std::error_code ec;
  llvm::Regex filter(options.filter);
  for (llvm::sys::fs::directory_iterator it(options.root, ec), end;
       it != end && !ec; it.increment(ec)) {
    StringRef name = llvm::sys::path::filename(it->path());
    if (!name.starts_with("test_"))
      continue;
    if (!options.filter.empty() && !filter.match(name))
      continue;
    tests.push_back(it->path());
  }
  llvm::sort(tests);
  std::vector<ConformanceRecord> records;
  for (const std::string &test : tests)
    records.push_back(runIsolated(test, options));
  return records;
}

llvm::json::Value toJSON(const std::vector<ConformanceRecord> &records) {
  llvm::json::Array array;
  for (const ConformanceRecord &record : records)
    array.push_back(llvm::json::Object{{"name", record.name},
                                       {"status", record.status},
                                       {"class", record.failureClass},
                                       {"message", record.message},
                                       {"delegated_ops", record.delegatedOps}});
  return array;
}

} // namespace strata
