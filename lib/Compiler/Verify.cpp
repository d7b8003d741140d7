//===- Verify.cpp - a program against its reference (--verify) ------------===//
#include "strata/Compiler/Verify.h"

#include "strata/Calibration/Execute.h"
#include "strata/Runtime/SampleSource.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace strata {
namespace {

/// Compares `actual` with `expected` output by output; prints one line each.
bool reportComparison(StringRef what,
                      const std::vector<runtime::OwnedTensor> &actual,
                      const std::vector<runtime::OwnedTensor> &expected,
                      double maxRelL2, VerifyResult &result, raw_ostream &outs,
                      raw_ostream &errs) {
  if (actual.size() != expected.size()) {
    errs << "verify (" << what << "): " << actual.size() << " outputs vs "
         << expected.size() << " expected\n";
    return false;
  }
  bool ok = true;
  for (size_t i = 0; i < actual.size(); ++i) {
    runtime::OwnedTensor got = actual[i], want = expected[i];
    runtime::TensorComparison c =
        runtime::compareTensors(got.view(), want.view(), 0, 0);
    if (!c.typeMismatch.empty()) {
      errs << "verify (" << what << "): output " << i << ": " << c.typeMismatch
           << "\n";
      ok = false;
      continue;
    }
    bool pass = c.relL2 <= maxRelL2;
    result.comparisons.push_back(
        {what.str(), static_cast<unsigned>(i), c.maxAbs, c.relL2, pass});
    outs << "verify (" << what << "): output " << i << " max_abs "
         << format("%.3g", c.maxAbs) << " rel_l2 " << format("%.3g", c.relL2)
         << (pass ? " ok" : " FAIL") << "\n";
    ok &= pass;
  }
  return ok;
}

/// The symbol extents --verify runs a dynamic program at: every symbol at
/// its smallest extent, at its largest, and at an odd extent between them
/// (a bug can hide at any one of them; docs/dynamic-shapes.md).
std::vector<std::vector<int64_t>>
verifyExtents(const std::vector<runtime::Method::DimSymbol> &symbols) {
  std::vector<int64_t> low, high, odd;
  for (const runtime::Method::DimSymbol &symbol : symbols) {
    // A value-dependent extent follows the data: no input sets it.
    if (symbol.boundByKernel) {
      low.push_back(symbol.max);
      high.push_back(symbol.max);
      odd.push_back(symbol.max);
      continue;
    }
    low.push_back(symbol.min);
    high.push_back(symbol.max);
    int64_t between = symbol.min + (symbol.max - symbol.min) * 2 / 3;
    if (between % 2 == 0 && between + 1 < symbol.max)
      ++between;
    else if (between % 2 == 0 && between - 1 > symbol.min)
      --between;
    odd.push_back(between);
  }
  std::vector<std::vector<int64_t>> extents = {low, high};
  if (odd != low && odd != high)
    extents.push_back(odd);
  return extents;
}

/// The program against the untransformed reference (the same
/// model compiled with no backend rewrites) on seeded random inputs (for a
/// dynamic program, at each of verifyExtents' shapes), and against
/// --verify-data's expected outputs. The inputs of the first comparison
/// that fails go to `failing` (what --bisect runs on).
bool verify(const std::string &program, const std::string &reference,
            const VerifyOptions &options, VerifyResult &result,
            raw_ostream &outs, raw_ostream &errs) {
  std::vector<runtime::OwnedTensor> &failing = result.failing;
  double verifyRelL2 = options.maxRelL2;
  uint64_t verifySeed = options.seed;
  const std::string &verifyData = options.dataDir;
  std::vector<runtime::Method::DimSymbol> symbols = programDimSymbols(program);
  std::vector<std::vector<int64_t>> shapes = {{}};
  if (llvm::any_of(symbols, [](const runtime::Method::DimSymbol &symbol) {
        return !symbol.boundByKernel;
      }))
    shapes = verifyExtents(symbols);
  bool ok = true;
  for (const std::vector<int64_t> &extents : shapes) {
    auto inputs = extents.empty()
                      ? makeRandomInputs(program, verifySeed)
                      : makeRandomInputsAt(program, verifySeed, extents);
    if (!inputs.ok()) {
      errs << "verify: " << inputs.error().toString() << "\n";
      return false;
    }
    auto actual = runProgram(program, *inputs);
    auto expected = runProgram(reference, *inputs);
    std::string what = "reference";
    for (size_t i = 0, shown = 0; i < extents.size(); ++i)
      if (!symbols[i].boundByKernel)
        what += (shown++ ? ", " : " at ") + symbols[i].name + "=" +
                std::to_string(extents[i]);
    // Both refusing the random inputs (a TopK's k past what a filter kept)
    // is agreement on inputs the model does not take, not a mismatch.
    if (!actual.ok() && !expected.ok()) {
      errs << "verify (" << what
           << "): both programs refuse these random inputs ("
           << actual.error().toString()
           << "); nothing to compare, give --verify-data\n";
      continue;
    }
    if (!actual.ok() || !expected.ok()) {
      errs << "verify: "
           << (actual.ok() ? expected.error() : actual.error()).toString()
           << "\n";
      return false;
    }
    if (!reportComparison(what, *actual, *expected, verifyRelL2, result, outs,
                          errs)) {
      if (ok)
        failing = *inputs;
      ok = false;
    }
  }
  if (verifyData.empty())
    return ok;
  auto dataSet = runtime::SampleSource::openTestDataSet(verifyData, {});
  if (!dataSet.ok()) {
    errs << "verify: " << dataSet.error().toString() << "\n";
    return false;
  }
  auto dataInputs = dataSet->get(0);
  auto dataOutputs = dataSet->expected(0);
  if (!dataInputs.ok() || !dataOutputs.ok()) {
    errs << "verify: "
         << (dataInputs.ok() ? dataOutputs.error() : dataInputs.error())
                .toString()
         << "\n";
    return false;
  }
  auto onData = runProgram(program, *dataInputs);
  if (!onData.ok()) {
    errs << "verify: " << onData.error().toString() << "\n";
    return false;
  }
  if (!reportComparison(verifyData, *onData, *dataOutputs, verifyRelL2, result,
                        outs, errs)) {
    if (ok)
      failing = std::move(*dataInputs);
    return false;
  }
  return ok;
}

} // namespace

llvm::json::Value VerifyResult::toJSON() const {
  llvm::json::Array list;
  for (const Comparison &c : comparisons)
    list.push_back(llvm::json::Object{{"against", c.against},
                                      {"output", c.output},
                                      {"max_abs", c.maxAbs},
                                      {"rel_l2", c.relL2},
                                      {"pass", c.pass}});
  return llvm::json::Object{{"ok", ok}, {"comparisons", std::move(list)}};
}

VerifyResult verifyProgram(const std::string &program,
                           const std::string &reference,
                           const VerifyOptions &options, raw_ostream &out,
                           raw_ostream &err) {
  VerifyResult result;
  result.ok = verify(program, reference, options, result, out, err);
  return result;
}

} // namespace strata
