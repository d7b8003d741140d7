//===- DynamicShapesTest.cpp - methods with bounded dynamic dimensions ----===//
//
// A method whose values have dynamic dimensions runs at any input shape
// within its symbols' bounds (one Method, shapes changing between calls);
// shapes outside the bounds, inputs that disagree on a symbol and extents
// past a buffer's bound are errors naming the input, symbol or value, never
// a write past a buffer; damaged shape programs are refused at load.
// Expected values come from float64 loops written here, not from the kernels.
//
//===----------------------------------------------------------------------===//
#include "TestProgramBuilder.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Program.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>

using namespace strata::runtime;
using namespace strata::runtime::testing;
namespace fbs = strata::fb;

namespace {

const float kWeights[4 * 3] = {1.0f, -2.0f, 0.5f, 0.25f, 1.0f,  -1.0f,
                               2.0f, 0.0f,  1.0f, -0.5f, 0.75f, 3.0f};

/// x [batch <= 8, 4] and y [rows <= 6, 4] -> concat on rows (batch + rows)
/// -> matmul by a 4x3 constant; and relu(x).
TestProgramBuilder buildConcatMatmul() {
  TestProgramBuilder b;
  int batch = b.addSymbol("batch", 1, 8);
  int rows = b.addSymbol("rows", 1, 6);
  int sum = b.addShapeOp(fbs::ShapeOp::Add, batch, rows);
  int x = b.addInput(DType::F32, {8, 4});
  int y = b.addInput(DType::F32, {6, 4});
  b.setDimRegisters(x, {batch, -1});
  b.setDimRegisters(y, {rows, -1});
  int cat = b.addBuffer(DType::F32, {14, 4});
  b.setDimRegisters(cat, {sum, -1});
  int w = b.addConstant(DType::F32, {4, 3}, kWeights);
  int out = b.addBuffer(DType::F32, {14, 3});
  b.setDimRegisters(out, {sum, -1});
  int first = b.addBuffer(DType::F32, {8, 4});
  b.setDimRegisters(first, {batch, -1});
  b.addKernel("concat", {x, y}, {cat}, {intParam("axis", 0)});
  b.addKernel("matmul", {cat, w}, {out});
  b.addKernel("relu", {x}, {first});
  b.setOutputs({out, first});
  return b;
}

std::vector<float> ramp(int64_t count, float scale, float shift) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i)
    v[i] = std::sin(scale * static_cast<float>(i) + shift);
  return v;
}

struct Loaded {
  std::vector<uint8_t> bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::optional<Program> program;
};

Result<Method> load(Loaded &loaded, const TestProgramBuilder &b) {
  loaded.bytes = b.build();
  loaded.loader = std::make_unique<BufferDataLoader>(loaded.bytes.data(),
                                                     loaded.bytes.size());
  STRATA_ASSIGN_OR_RETURN(Program program,
                          Program::load(*loaded.loader, Verification::Full));
  loaded.program.emplace(std::move(program));
  return loaded.program->loadMethod("forward");
}

TEST(DynamicShapesTest, OneMethodRunsEveryShapeWithinTheBounds) {
  Loaded loaded;
  Result<Method> method = load(loaded, buildConcatMatmul());
  ASSERT_TRUE(method.ok()) << method.error().message();
  EXPECT_TRUE(method->isDynamic());
  EXPECT_EQ(method->inputTypeString(0), "f32[batch: 1..8, 4]");
  // Inputs start at their bounds.
  EXPECT_EQ(method->input(0)->shape, (std::vector<int64_t>{8, 4}));
  // The bounds, shapes between them, and a shape seen before.
  const std::pair<int64_t, int64_t> shapes[] = {{1, 1}, {8, 6}, {3, 5},
                                                {7, 2}, {3, 5}, {8, 6}};
  for (auto [batch, rows] : shapes) {
    SCOPED_TRACE("batch " + std::to_string(batch) + " rows " +
                 std::to_string(rows));
    std::vector<float> x = ramp(batch * 4, 0.7f, 0.1f * batch);
    std::vector<float> y = ramp(rows * 4, 1.3f, 0.2f * rows);
    ASSERT_TRUE(method->setInput(0, {DType::F32, {batch, 4}, x.data()}).ok());
    ASSERT_TRUE(method->setInput(1, {DType::F32, {rows, 4}, y.data()}).ok());
    Error error = method->execute();
    ASSERT_TRUE(error.ok()) << error.message();
    Result<TensorView> out = method->output(0);
    Result<TensorView> first = method->output(1);
    ASSERT_EQ(out->shape, (std::vector<int64_t>{batch + rows, 3}));
    ASSERT_EQ(first->shape, (std::vector<int64_t>{batch, 4}));
    for (int64_t r = 0; r < batch + rows; ++r)
      for (int64_t c = 0; c < 3; ++c) {
        double want = 0;
        for (int64_t k = 0; k < 4; ++k)
          want += double(r < batch ? x[r * 4 + k] : y[(r - batch) * 4 + k]) *
                  kWeights[k * 3 + c];
        EXPECT_NEAR(out->as<float>()[r * 3 + c], want, 1e-5)
            << "row " << r << " col " << c;
      }
    for (int64_t i = 0; i < batch * 4; ++i)
      EXPECT_EQ(first->as<float>()[i], std::max(x[i], 0.0f));
  }
}

TEST(DynamicShapesTest, InputsAreWrittenInPlaceAtAShapeSetFirst) {
  Loaded loaded;
  Result<Method> method = load(loaded, buildConcatMatmul());
  ASSERT_TRUE(method.ok()) << method.error().message();
  ASSERT_TRUE(method->setInputShape(0, {2, 4}).ok());
  ASSERT_TRUE(method->setInputShape(1, {1, 4}).ok());
  Result<TensorView> x = method->input(0);
  ASSERT_EQ(x->shape, (std::vector<int64_t>{2, 4}));
  for (int64_t i = 0; i < 8; ++i)
    x->as<float>()[i] = float(i) - 3.5f;
  std::fill_n(method->input(1)->as<float>(), 4, 1.0f);
  ASSERT_TRUE(method->execute().ok());
  EXPECT_EQ(method->output(1)->shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(method->output(1)->as<float>()[7], 3.5f);
  EXPECT_EQ(method->output(0)->shape, (std::vector<int64_t>{3, 3}));
}

TEST(DynamicShapesTest, ShapesOutsideTheBoundsNameTheInputAndSymbol) {
  Loaded loaded;
  Result<Method> method = load(loaded, buildConcatMatmul());
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<float> data(64, 0.0f);
  Error error = method->setInput(0, {DType::F32, {9, 4}, data.data()});
  EXPECT_EQ(error.message(),
            "input 0 of method 'forward' must be f32[batch: 1..8, 4], got "
            "f32[9, 4]: dim 0 ('batch') is 9, outside its bounds 1..8");
  error = method->setInputShape(1, {0, 4});
  EXPECT_NE(error.message().find("dim 0 ('rows') is 0, outside its bounds "
                                 "1..6"),
            std::string::npos)
      << error.message();
  error = method->setInput(0, {DType::F32, {2, 5}, data.data()});
  EXPECT_NE(error.message().find("dim 1 is fixed"), std::string::npos);
  error = method->setInput(0, {DType::F32, {2, 4, 1}, data.data()});
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  error = method->setInput(0, {DType::I32, {2, 4}, data.data()});
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  // The method still runs at the shapes it had.
  EXPECT_TRUE(method->execute().ok());
  EXPECT_EQ(method->output(0)->shape, (std::vector<int64_t>{14, 3}));
}

TEST(DynamicShapesTest, InputsNamingOneSymbolMustAgree) {
  TestProgramBuilder b;
  int batch = b.addSymbol("batch", 1, 4);
  int x = b.addInput(DType::F32, {4, 2});
  int y = b.addInput(DType::F32, {4, 2});
  int out = b.addBuffer(DType::F32, {4, 2});
  for (int v : {x, y, out})
    b.setDimRegisters(v, {batch, -1});
  b.addKernel("add", {x, y}, {out});
  b.setOutputs({out});
  Loaded loaded;
  Result<Method> method = load(loaded, b);
  ASSERT_TRUE(method.ok()) << method.error().message();
  ASSERT_TRUE(method->setInputShape(0, {3, 2}).ok());
  ASSERT_TRUE(method->setInputShape(1, {2, 2}).ok());
  Error error = method->execute();
  EXPECT_EQ(error.message(), "method 'forward': input 1 dim 0 is 2 but symbol "
                             "'batch' is 3 (input 0 dim 0)");
  ASSERT_TRUE(method->setInputShape(1, {3, 2}).ok());
  EXPECT_TRUE(method->execute().ok());
  EXPECT_EQ(method->output(0)->shape, (std::vector<int64_t>{3, 2}));
}

TEST(DynamicShapesTest, AKernelRefusingAShapeRefusesItOnEveryCall) {
  // add of [a] and [b]: a kernel error unless a == b (or one is 1).
  TestProgramBuilder b;
  int a = b.addSymbol("a", 1, 4);
  int c = b.addSymbol("b", 1, 4);
  int x = b.addInput(DType::F32, {4});
  int y = b.addInput(DType::F32, {4});
  int out = b.addBuffer(DType::F32, {4});
  b.setDimRegisters(x, {a});
  b.setDimRegisters(y, {c});
  b.setDimRegisters(out, {a});
  b.addKernel("add", {x, y}, {out});
  b.setOutputs({out});
  Loaded loaded;
  Result<Method> method = load(loaded, b);
  ASSERT_TRUE(method.ok()) << method.error().message();
  for (int attempt = 0; attempt < 2; ++attempt) {
    ASSERT_TRUE(method->setInputShape(0, {3}).ok());
    ASSERT_TRUE(method->setInputShape(1, {2}).ok());
    Error error = method->execute();
    EXPECT_NE(error.message().find("instruction 0 at the inputs' shapes"),
              std::string::npos)
        << error.message();
  }
  std::vector<float> x3 = {1, 2, 3}, y3 = {10, 20, 30};
  ASSERT_TRUE(method->setInput(0, {DType::F32, {3}, x3.data()}).ok());
  ASSERT_TRUE(method->setInput(1, {DType::F32, {3}, y3.data()}).ok());
  ASSERT_TRUE(method->execute().ok());
  EXPECT_EQ(method->output(0)->as<float>()[2], 33.0f);
}

TEST(DynamicShapesTest, AnExtentPastItsBufferIsAnErrorNotAWrite) {
  // rest's extent is 10 - batch, but its buffer holds 8 rows: fine at
  // batch 2..8 (the largest shapes, checked at load), past it at batch 1.
  TestProgramBuilder b;
  int batch = b.addSymbol("batch", 1, 8);
  int ten = b.addShapeOp(fbs::ShapeOp::Constant, 0, 0, 10);
  int restExtent = b.addShapeOp(fbs::ShapeOp::Sub, ten, batch);
  int x = b.addInput(DType::F32, {8, 2});
  b.setDimRegisters(x, {batch, -1});
  int rest = b.addBuffer(DType::F32, {8, 2});
  b.setDimRegisters(rest, {restExtent, -1});
  int out = b.addBuffer(DType::F32, {8, 2});
  b.setDimRegisters(out, {batch, -1});
  b.addKernel("relu", {x}, {out});
  b.setOutputs({out, rest});
  Loaded loaded;
  Result<Method> method = load(loaded, b);
  ASSERT_TRUE(method.ok()) << method.error().message();
  ASSERT_TRUE(method->setInputShape(0, {1, 2}).ok());
  Error error = method->execute();
  EXPECT_EQ(error.message(), "method 'forward': value 1 dim 0 is 9, outside "
                             "0..8 (its bound)");
}

TEST(DynamicShapesTest, ShapeProgramsThatCannotRunAreRefusedAtLoad) {
  auto loadError = [](const TestProgramBuilder &b) {
    Loaded loaded;
    Result<Method> method = load(loaded, b);
    return method.ok() ? std::string("loaded") : method.error().message();
  };
  auto contains = [](const std::string &message, const std::string &part) {
    return message.find(part) != std::string::npos;
  };
  {
    // Twice the batch does not fit the buffer at the largest batch.
    TestProgramBuilder b;
    int batch = b.addSymbol("batch", 1, 8);
    int two = b.addShapeOp(fbs::ShapeOp::Constant, 0, 0, 2);
    int twice = b.addShapeOp(fbs::ShapeOp::Mul, batch, two);
    int x = b.addInput(DType::F32, {8});
    b.setDimRegisters(x, {batch});
    int out = b.addBuffer(DType::F32, {8});
    b.setDimRegisters(out, {twice});
    b.addKernel("relu", {x}, {out});
    b.setOutputs({out});
    std::string message = loadError(b);
    EXPECT_TRUE(contains(message, "at its largest shapes") &&
                contains(message, "value 1 dim 0 is 16, outside 0..8"))
        << message;
  }
  {
    // A division by zero.
    TestProgramBuilder b;
    int batch = b.addSymbol("batch", 1, 8);
    int zero = b.addShapeOp(fbs::ShapeOp::Constant, 0, 0, 0);
    int ratio = b.addShapeOp(fbs::ShapeOp::FloorDiv, batch, zero);
    int x = b.addInput(DType::F32, {8});
    b.setDimRegisters(x, {batch});
    int out = b.addBuffer(DType::F32, {8});
    b.setDimRegisters(out, {ratio});
    b.addKernel("relu", {x}, {out});
    b.setOutputs({out});
    EXPECT_TRUE(contains(loadError(b), "shape instruction 2 overflows or "
                                       "divides by a non-positive extent"));
  }
  {
    // An instruction reading a register not yet written.
    TestProgramBuilder b;
    int batch = b.addSymbol("batch", 1, 8);
    b.addShapeOp(fbs::ShapeOp::Add, batch, 5);
    int x = b.addInput(DType::F32, {8});
    b.setDimRegisters(x, {batch});
    b.addKernel("relu", {x}, {x});
    b.setOutputs({x});
    EXPECT_TRUE(contains(loadError(b), "shape_program[1]: reads register 5, "
                                       "which is not written before it"));
  }
  {
    // A register out of range, and a dim_registers list of the wrong rank.
    TestProgramBuilder b;
    int batch = b.addSymbol("batch", 1, 8);
    int x = b.addInput(DType::F32, {8});
    b.setDimRegisters(x, {batch});
    int out = b.addBuffer(DType::F32, {8});
    b.setDimRegisters(out, {7});
    b.addKernel("relu", {x}, {out});
    b.setOutputs({out});
    EXPECT_TRUE(contains(loadError(b), "values[1]: dim 0 register 7 is out "
                                       "of range (1 shape instructions)"));
    b.setDimRegisters(out, {batch, -1});
    EXPECT_TRUE(
        contains(loadError(b), "values[1]: 2 dim_registers for rank 1"));
  }
  {
    // A symbol no input binds, and an input extent that is computed.
    TestProgramBuilder b;
    int batch = b.addSymbol("batch", 1, 8);
    int other = b.addSymbol("other", 1, 8);
    int sum = b.addShapeOp(fbs::ShapeOp::Add, batch, other);
    int x = b.addInput(DType::F32, {8});
    b.setDimRegisters(x, {batch});
    b.addKernel("relu", {x}, {x});
    b.setOutputs({x});
    EXPECT_TRUE(contains(loadError(b), "symbol 'other' is bound by no input"));
    int y = b.addInput(DType::F32, {16});
    b.setDimRegisters(y, {sum});
    EXPECT_TRUE(contains(loadError(b), "input 1 dim 0: a dynamic input extent "
                                       "must be a symbol"));
  }
  {
    // Bounds out of order, and an input bound other than its symbol's.
    TestProgramBuilder b;
    int batch = b.addSymbol("batch", 5, 2);
    int x = b.addInput(DType::F32, {8});
    b.setDimRegisters(x, {batch});
    b.addKernel("relu", {x}, {x});
    b.setOutputs({x});
    EXPECT_TRUE(contains(loadError(b), "bounds 5..2 of 'batch'"));
    TestProgramBuilder c;
    int n = c.addSymbol("n", 1, 4);
    int z = c.addInput(DType::F32, {8});
    c.setDimRegisters(z, {n});
    c.addKernel("relu", {z}, {z});
    c.setOutputs({z});
    EXPECT_TRUE(contains(loadError(c), "bound 8 differs from symbol 'n''s 4"));
  }
  {
    // A dynamic constant, and a delegate operand with dynamic dimensions.
    TestProgramBuilder b;
    int batch = b.addSymbol("batch", 1, 2);
    int x = b.addInput(DType::F32, {2});
    b.setDimRegisters(x, {batch});
    float two[2] = {1, 2};
    int c = b.addConstant(DType::F32, {2}, two);
    b.setDimRegisters(c, {batch});
    b.addKernel("relu", {x}, {x});
    b.setOutputs({x});
    EXPECT_TRUE(contains(loadError(b), "a constant cannot have dynamic "
                                       "dimensions"));
    TestProgramBuilder d;
    int m = d.addSymbol("m", 1, 2);
    int in = d.addInput(DType::F32, {2});
    d.setDimRegisters(in, {m});
    int del = d.addDelegate("xnn_0", "xnnpack", {1, 2, 3});
    d.addDelegateCall(del, {in}, {in});
    d.setOutputs({in});
    EXPECT_TRUE(contains(loadError(d), "delegate operand 0 has dynamic "
                                       "dimensions"));
  }
}

TEST(DynamicShapesTest, StaticMethodsAreUnchanged) {
  Loaded loaded;
  Result<Method> method = load(loaded, buildConcatMatmul());
  ASSERT_TRUE(method.ok());
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {2, 4});
  int out = b.addBuffer(DType::F32, {2, 4});
  b.addKernel("relu", {x}, {out});
  b.setOutputs({out});
  Loaded staticLoaded;
  Result<Method> fixed = load(staticLoaded, b);
  ASSERT_TRUE(fixed.ok());
  EXPECT_FALSE(fixed->isDynamic());
  EXPECT_EQ(fixed->inputTypeString(0), "f32[2, 4]");
  std::vector<float> data(8, 1.0f);
  Error error = fixed->setInput(0, {DType::F32, {1, 4}, data.data()});
  EXPECT_EQ(error.message(), "input 0 of method 'forward' must be f32[2, 4], "
                             "got f32[1, 4]");
}

} // namespace

namespace {

/// x [12] f32 -> non_zero -> idx [1, count <= bound] (count bound by the
/// kernel) -> cast to f32 -> concat with a constant [1, 1] along axis 1:
/// [1, count + 1], an extent the shape program computes after the kernel.
TestProgramBuilder buildNonZeroChain(int64_t bound) {
  TestProgramBuilder b;
  int count = b.addSymbol("nz.count", 0, bound);
  int one = b.addShapeOp(fbs::ShapeOp::Constant, 0, 0, 1);
  int plusOne = b.addShapeOp(fbs::ShapeOp::Add, count, one);
  int x = b.addInput(DType::F32, {12});
  int idx = b.addBuffer(DType::I64, {1, bound});
  b.setDimRegisters(idx, {-1, count});
  int asFloat = b.addBuffer(DType::F32, {1, bound});
  b.setDimRegisters(asFloat, {-1, count});
  const float tail = -1.0f;
  int constant = b.addConstant(DType::F32, {1, 1}, &tail);
  int joined = b.addBuffer(DType::F32, {1, bound + 1});
  b.setDimRegisters(joined, {-1, plusOne});
  b.addKernel("non_zero", {x}, {idx}, {}, {"nz"});
  b.setBinds({0});
  b.addKernel("cast", {idx}, {asFloat});
  b.addKernel("concat", {asFloat, constant}, {joined}, {intParam("axis", 1)});
  b.setOutputs({idx, joined});
  return b;
}

} // namespace

TEST(DynamicShapesTest, ValueDependentExtentsFollowTheDataOnEveryCall) {
  Loaded loaded;
  Result<Method> method = load(loaded, buildNonZeroChain(12));
  ASSERT_TRUE(method.ok()) << method.error().message();
  // Non-zero counts 3, 12, 0, 5, and 3 again.
  const std::vector<std::vector<int64_t>> patterns = {
      {1, 4, 10},
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
      {},
      {0, 2, 3, 7, 11},
      {2, 5, 6}};
  for (const std::vector<int64_t> &nonZero : patterns) {
    SCOPED_TRACE("count " + std::to_string(nonZero.size()));
    std::vector<float> x(12, 0.0f);
    for (int64_t i : nonZero)
      x[i] = 0.5f + static_cast<float>(i);
    ASSERT_TRUE(method->setInput(0, {DType::F32, {12}, x.data()}).ok());
    Error error = method->execute();
    ASSERT_TRUE(error.ok()) << error.message();
    int64_t count = static_cast<int64_t>(nonZero.size());
    Result<TensorView> idx = method->output(0);
    Result<TensorView> joined = method->output(1);
    ASSERT_EQ(idx->shape, (std::vector<int64_t>{1, count}));
    ASSERT_EQ(joined->shape, (std::vector<int64_t>{1, count + 1}));
    for (int64_t j = 0; j < count; ++j) {
      EXPECT_EQ(idx->as<int64_t>()[j], nonZero[j]);
      EXPECT_EQ(joined->as<float>()[j], static_cast<float>(nonZero[j]));
    }
    EXPECT_EQ(joined->as<float>()[count], -1.0f);
  }
}

TEST(DynamicShapesTest, AValueDependentExtentOverItsBoundIsAnErrorNotAWrite) {
  Loaded loaded;
  Result<Method> method = load(loaded, buildNonZeroChain(4));
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<float> x(12, 0.0f);
  for (int i : {0, 3, 5, 7})
    x[i] = 1.0f;
  ASSERT_TRUE(method->setInput(0, {DType::F32, {12}, x.data()}).ok());
  ASSERT_TRUE(method->execute().ok());
  EXPECT_EQ(method->output(1)->shape, (std::vector<int64_t>{1, 5}));
  // Six non-zero elements: the bound of 4 is too small. The buffer after
  // the indices (the cast's) is unchanged.
  std::vector<float> before(method->output(1)->as<float>(),
                            method->output(1)->as<float>() + 5);
  x[9] = x[10] = 2.0f;
  ASSERT_TRUE(method->setInput(0, {DType::F32, {12}, x.data()}).ok());
  Error error = method->execute();
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.message().find("6 non-zero elements exceed the bound of 4"),
            std::string::npos)
      << error.message();
  EXPECT_NE(error.message().find("(node 'nz')"), std::string::npos)
      << error.message();
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(method->output(1)->as<float>()[i], before[i]);
  // The next call within the bound runs.
  x[9] = x[10] = 0.0f;
  ASSERT_TRUE(method->setInput(0, {DType::F32, {12}, x.data()}).ok());
  ASSERT_TRUE(method->execute().ok());
  EXPECT_EQ(method->output(0)->shape, (std::vector<int64_t>{1, 4}));
}

TEST(DynamicShapesTest, KernelBoundSymbolsAreCheckedAtLoad) {
  // A symbol bound both by an input and by a kernel.
  {
    TestProgramBuilder b;
    int n = b.addSymbol("n", 0, 4);
    int x = b.addInput(DType::F32, {4});
    b.setDimRegisters(x, {n});
    int idx = b.addBuffer(DType::I64, {1, 4});
    b.setDimRegisters(idx, {-1, n});
    b.addKernel("non_zero", {x}, {idx});
    b.setBinds({0});
    b.setOutputs({idx});
    Loaded loaded;
    Result<Method> method = load(loaded, b);
    ASSERT_FALSE(method.ok());
    EXPECT_NE(method.error().message().find("is bound by a kernel call, not "
                                            "by inputs"),
              std::string::npos)
        << method.error().message();
  }
  // A bound symbol that is no extent of the call's outputs, and one out of
  // range.
  for (uint32_t symbol : {1u, 7u}) {
    TestProgramBuilder b;
    int n = b.addSymbol("n", 0, 4);
    b.addSymbol("other", 0, 4);
    int x = b.addInput(DType::F32, {4});
    int idx = b.addBuffer(DType::I64, {1, 4});
    b.setDimRegisters(idx, {-1, n});
    b.addKernel("non_zero", {x}, {idx});
    b.setBinds({symbol});
    b.setOutputs({idx});
    Loaded loaded;
    Result<Method> method = load(loaded, b);
    ASSERT_FALSE(method.ok());
    EXPECT_NE(method.error().message().find(symbol == 1 ? "which is no extent "
                                                          "of its outputs"
                                                        : "out of range"),
              std::string::npos)
        << method.error().message();
  }
}

TEST(DynamicShapesTest, ABoundSymbolLargerThanItsBufferIsRefusedAtLoad) {
  // A damaged program: the symbol allows 12 but the indices buffer holds 4
  // columns. The method is refused at load (its shapes at the symbols'
  // largest leave the buffer), so the kernel never gets a capacity past
  // the buffer.
  TestProgramBuilder b;
  int count = b.addSymbol("nz.count", 0, 12);
  int x = b.addInput(DType::F32, {12});
  int idx = b.addBuffer(DType::I64, {1, 4});
  b.setDimRegisters(idx, {-1, count});
  b.addKernel("non_zero", {x}, {idx}, {}, {"nz"});
  b.setBinds({0});
  b.setOutputs({idx});
  Loaded loaded;
  Result<Method> method = load(loaded, b);
  ASSERT_FALSE(method.ok());
  EXPECT_NE(method.error().message().find("is 12, outside 0..4 (its bound)"),
            std::string::npos)
      << method.error().message();
}

namespace {

/// A run-time If: x [4] f32, flag [] bool. flag true: y = relu(x) (then
/// branch, instructions 1-2); false: y = neg(x) (else, instruction 3).
/// y is written by whichever branch runs.
TestProgramBuilder buildBranches(int jumpTarget, int endTarget) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  int flag = b.addInput(DType::Bool, {});
  int y = b.addBuffer(DType::F32, {4});
  b.addJumpIfFalse(flag, jumpTarget);
  b.addKernel("relu", {x}, {y});
  b.addJump(endTarget);
  b.addKernel("neg", {x}, {y});
  b.setOutputs({y});
  return b;
}

} // namespace

TEST(DynamicShapesTest, OnlyTheBranchTakenRuns) {
  Loaded loaded;
  Result<Method> method = load(loaded, buildBranches(3, 4));
  ASSERT_TRUE(method.ok()) << method.error().message();
  std::vector<float> x = {-1.0f, 2.0f, -3.0f, 4.0f};
  for (bool flag : {true, false, true}) {
    ASSERT_TRUE(method->setInput(0, {DType::F32, {4}, x.data()}).ok());
    ASSERT_TRUE(method->setInput(1, {DType::Bool, {}, &flag}).ok());
    ASSERT_TRUE(method->execute().ok());
    const float *y = method->output(0)->as<float>();
    for (size_t i = 0; i < x.size(); ++i)
      EXPECT_EQ(y[i], flag ? std::max(x[i], 0.0f) : -x[i]) << i;
  }
}

TEST(DynamicShapesTest, JumpsThatCouldLoopOrLeaveAreRefusedAtLoad) {
  // Backward (a loop that might not end), onto itself, past the end.
  for (auto [target, end] :
       {std::pair(0, 4), std::pair(3, 2), std::pair(5, 4)}) {
    Loaded loaded;
    Result<Method> method = load(loaded, buildBranches(target, end));
    ASSERT_FALSE(method.ok()) << target << " " << end;
    EXPECT_NE(method.error().message().find("is not a later instruction"),
              std::string::npos)
        << method.error().message();
  }
  // A condition that is no single boolean.
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  int y = b.addBuffer(DType::F32, {4});
  b.addJumpIfFalse(x, 2);
  b.addKernel("relu", {x}, {y});
  b.setOutputs({y});
  Loaded loaded;
  Result<Method> method = load(loaded, b);
  ASSERT_FALSE(method.ok());
  EXPECT_NE(method.error().message().find("is f32[4], not one boolean element"),
            std::string::npos)
      << method.error().message();
}

TEST(DynamicShapesTest, ALoopRunsWithinItsBoundAndFailsPastIt) {
  Loaded loaded;
  Result<Method> method = load(loaded, buildCountingLoop(5));
  ASSERT_TRUE(method.ok()) << method.error().message();
  int64_t zero = 0, one = 1;
  ASSERT_TRUE(method->setInput(1, {DType::I64, {}, &zero}).ok());
  ASSERT_TRUE(method->setInput(2, {DType::I64, {}, &one}).ok());
  // Each call counts its trips from zero: 5, then 6 (past the bound),
  // then 3 again.
  for (int64_t n : {0, 3, 5, 6, 3}) {
    ASSERT_TRUE(method->setInput(0, {DType::I64, {}, &n}).ok());
    Error error = method->execute();
    if (n > 5) {
      ASSERT_FALSE(error.ok()) << n;
      EXPECT_NE(error.message().find("ran past its bound of 5 iterations"),
                std::string::npos)
          << error.message();
      continue;
    }
    ASSERT_TRUE(error.ok()) << n << ": " << error.message();
    EXPECT_EQ(*method->output(0)->as<int64_t>(), n);
  }
}

TEST(DynamicShapesTest, LoopBoundsAreCheckedAtLoad) {
  // No bound (the jump back of a damaged program), a bound past the
  // runtime's limit, and a forward jump that states one.
  for (auto [maxTrips, backTo, message] :
       {std::tuple(uint64_t{0}, 1, "is not a later instruction"),
        std::tuple(uint64_t{1} << 40, 1, "exceeds"),
        std::tuple(uint64_t{4}, 6, "a forward jump states a loop bound")}) {
    Loaded loaded;
    Result<Method> method = load(loaded, buildCountingLoop(maxTrips, backTo));
    ASSERT_FALSE(method.ok()) << maxTrips;
    EXPECT_NE(method.error().message().find(message), std::string::npos)
        << method.error().message();
  }
}
