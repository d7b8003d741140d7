//===- ExecuteTest.cpp - the compiler's program runner
//---------------------===//
//
// makeRandomInputs on programs whose input is f64 or f16: every element is
// a value of the type in [-1, 1), not a first byte set over zeros (which
// reads as a denormal near 0 and made --verify compare programs on inputs
// of almost nothing).
//
//===----------------------------------------------------------------------===//
#include "strata/Calibration/Execute.h"
#include "strata/Compiler/Compiler.h"
#include "strata/Runtime/HalfFloat.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace strata;

namespace {

constexpr const char *kNodeTestDir = "/usr/share/libonnx-testdata/data/node";

/// The program of node test `name` (its model compiled for the portable
/// kernels), or "" when the test data is missing.
std::string compileNodeTest(const std::string &name) {
  std::string path = std::string(kNodeTestDir) + "/" + name + "/model.onnx";
  if (!llvm::sys::fs::exists(path))
    return "";
  mlir::MLIRContext context;
  loadCompilerDialects(context);
  std::string program;
  CompileReport report;
  EXPECT_TRUE(succeeded(
      compileONNXFile(path, CompileOptions(), context, program, report)));
  return program;
}

/// The elements of `tensor` as doubles, read in its dtype.
std::vector<double> valuesOf(const runtime::OwnedTensor &tensor) {
  std::vector<double> values;
  size_t count = tensor.bytes.size() / runtime::dtypeSize(tensor.dtype);
  for (size_t i = 0; i < count; ++i) {
    const uint8_t *at =
        tensor.bytes.data() + i * runtime::dtypeSize(tensor.dtype);
    if (tensor.dtype == runtime::DType::F64) {
      double v;
      std::memcpy(&v, at, sizeof(v));
      values.push_back(v);
    } else {
      runtime::Half h;
      std::memcpy(&h, at, sizeof(h));
      values.push_back(runtime::halfToFloat(h));
    }
  }
  return values;
}

void expectSpreadOverUnitRange(const std::string &test, runtime::DType dtype) {
  std::string program = compileNodeTest(test);
  if (program.empty())
    GTEST_SKIP() << "libonnx-testdata is not installed";
  auto inputs = makeRandomInputs(program, /*seed=*/7);
  ASSERT_TRUE(inputs.ok()) << inputs.error().message();
  ASSERT_EQ(inputs->size(), 1u);
  ASSERT_EQ((*inputs)[0].dtype, dtype);
  std::vector<double> values = valuesOf((*inputs)[0]);
  ASSERT_GE(values.size(), 12u);
  double largest = 0;
  for (double v : values) {
    EXPECT_GE(v, -1.0);
    EXPECT_LT(v, 1.0);
    largest = std::max(largest, std::abs(v));
  }
  // Twelve uniform draws all inside (-0.25, 0.25) happen once in 2^24.
  EXPECT_GT(largest, 0.25);
}

TEST(MakeRandomInputs, FillsF64Elements) {
  expectSpreadOverUnitRange("test_cast_DOUBLE_to_FLOAT", runtime::DType::F64);
}

TEST(MakeRandomInputs, FillsF16Elements) {
  expectSpreadOverUnitRange("test_cast_FLOAT16_to_FLOAT", runtime::DType::F16);
}

} // namespace
