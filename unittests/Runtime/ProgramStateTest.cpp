//===- ProgramStateTest.cpp - what methods carry between calls ------------===//
//
// A stateful program's state feeds inputs before each call and takes
// outputs after it: an accumulator (y = x + h, h <- y) and a growing cache
// (present = concat(past, k), past <- present) checked against sums worked
// out by hand, shared between methods, reset, made anew, and refused where
// a caller or a file gets it wrong.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <memory>
#include <optional>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

/// y = x + h over f32[4], h fed from state "h" and replaced by y after each
/// call; methods "forward" and "decode" alike.
TestProgramBuilder buildAccumulator() {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  int h = b.addInput(DType::F32, {4});
  int y = b.addBuffer(DType::F32, {4});
  b.addKernel("add", {x, h}, {y});
  b.setOutputs({y});
  b.inputNames = {"x", "h"};
  b.outputNames = {"y"};
  b.version = kStatefulProgramVersion;
  b.states = {{"h", DType::F32, {4}, {4}}};
  b.stateBindings = {{0, 1, 0}};
  b.extraMethodNames = {"decode"};
  return b;
}

struct Loaded {
  std::vector<uint8_t> bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::optional<Program> program;
};

void load(Loaded &loaded, const TestProgramBuilder &b) {
  loaded.bytes = b.build();
  loaded.loader = std::make_unique<BufferDataLoader>(loaded.bytes.data(),
                                                     loaded.bytes.size());
  Result<Program> program = Program::load(*loaded.loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  loaded.program.emplace(std::move(*program));
}

/// Sets x and runs; returns y[0..3].
std::vector<float> step(Method &method, OwnedTensor &x) {
  EXPECT_TRUE(method.setInput(0, x.view()).ok());
  Error error = method.execute();
  EXPECT_TRUE(error.ok()) << error.toString();
  TensorView y = *method.output(0);
  return {y.as<float>(), y.as<float>() + 4};
}

TEST(ProgramStateTest, CarriesTheOutputIntoTheNextCall) {
  Loaded loaded;
  ASSERT_NO_FATAL_FAILURE(load(loaded, buildAccumulator()));
  Result<Method> method = loaded.program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  EXPECT_EQ(method->inputState(0), -1);
  EXPECT_EQ(method->inputState(1), 0);
  EXPECT_EQ(method->outputState(0), 0);
  OwnedTensor x = f32Tensor({4}, {1, 2, 3, 4});
  EXPECT_EQ(step(*method, x), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(step(*method, x), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(step(*method, x), (std::vector<float>{3, 6, 9, 12}));
  // The state is read where it lives, not copied into the arena.
  EXPECT_EQ(method->inputData(1), loaded.program->state()->view(0).data);
  EXPECT_EQ(loaded.program->state()->view(0).as<float>()[3], 12.0f);
  loaded.program->state()->reset();
  EXPECT_EQ(step(*method, x), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ProgramStateTest, MethodsShareTheProgramsStateUnlessGivenTheirOwn) {
  Loaded loaded;
  ASSERT_NO_FATAL_FAILURE(load(loaded, buildAccumulator()));
  Result<Method> forward = loaded.program->loadMethod("forward");
  Result<Method> decode = loaded.program->loadMethod("decode");
  std::shared_ptr<ProgramState> other = loaded.program->newState();
  Result<Method> apart =
      loaded.program->loadMethod("decode", nullptr, nullptr, other);
  ASSERT_TRUE(forward.ok() && decode.ok() && apart.ok());
  OwnedTensor x = f32Tensor({4}, {1, 1, 1, 1});
  step(*forward, x);
  step(*forward, x);
  EXPECT_EQ(step(*decode, x), (std::vector<float>{3, 3, 3, 3}));
  EXPECT_EQ(step(*apart, x), (std::vector<float>{1, 1, 1, 1}));
  EXPECT_EQ(forward->state(), decode->state());
  EXPECT_EQ(apart->state(), other.get());
}

TEST(ProgramStateTest, RefusesToSetAStatesInput) {
  Loaded loaded;
  ASSERT_NO_FATAL_FAILURE(load(loaded, buildAccumulator()));
  Result<Method> method = loaded.program->loadMethod("forward");
  ASSERT_TRUE(method.ok());
  OwnedTensor h = f32Tensor({4}, {9, 9, 9, 9});
  Error error = method->setInput(1, h.view());
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.message().find("input 1 ('h') is fed from state 'h'"),
            std::string::npos)
      << error.toString();
  // What a caller sets is the state itself.
  ASSERT_TRUE(loaded.program->state()->set(0, h.view()).ok());
  OwnedTensor x = f32Tensor({4}, {1, 2, 3, 4});
  EXPECT_EQ(step(*method, x), (std::vector<float>{10, 11, 12, 13}));
  OwnedTensor wrong = f32Tensor({5}, {1, 2, 3, 4, 5});
  Error tooBig = loaded.program->state()->set(0, wrong.view());
  EXPECT_NE(tooBig.message().find("state 'h' holds at most f32[4]"),
            std::string::npos)
      << tooBig.toString();
}

TEST(ProgramStateTest, StatesSwappedByAMethodKeepTheirValues) {
  // a' = b and b' = a: each output is the other state's input, read where
  // it lives; both must be read before either is written.
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {2});
  int y = b.addInput(DType::F32, {2});
  b.setOutputs({y, x});
  b.version = kStatefulProgramVersion;
  b.states = {{"a", DType::F32, {2}, {2}}, {"b", DType::F32, {2}, {2}}};
  b.stateBindings = {{0, 0, 0}, {1, 1, 1}};
  Loaded loaded;
  ASSERT_NO_FATAL_FAILURE(load(loaded, b));
  ProgramState &state = *loaded.program->state();
  OwnedTensor one = f32Tensor({2}, {1, 1}), two = f32Tensor({2}, {2, 2});
  ASSERT_TRUE(state.set(0, one.view()).ok());
  ASSERT_TRUE(state.set(1, two.view()).ok());
  Result<Method> method = loaded.program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  ASSERT_TRUE(method->execute().ok());
  EXPECT_EQ(state.view(0).as<float>()[0], 2.0f);
  EXPECT_EQ(state.view(1).as<float>()[0], 1.0f);
}

TEST(ProgramStateTest, RefusesAnotherProgramsState) {
  Loaded accumulator, cache;
  ASSERT_NO_FATAL_FAILURE(load(accumulator, buildAccumulator()));
  ASSERT_NO_FATAL_FAILURE(load(cache, buildGrowingCache()));
  Result<Method> method = accumulator.program->loadMethod(
      "forward", nullptr, nullptr, cache.program->newState());
  ASSERT_FALSE(method.ok());
  EXPECT_NE(method.error().message().find("not this program's"),
            std::string::npos)
      << method.error().toString();
}

TEST(ProgramStateTest, ACacheGrowsUntilItsBoundAndStaysWhole) {
  Loaded loaded;
  ASSERT_NO_FATAL_FAILURE(load(loaded, buildGrowingCache()));
  Result<Method> method = loaded.program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  ProgramState &state = *loaded.program->state();
  EXPECT_EQ(state.view(0).shape, (std::vector<int64_t>{0, 2}));
  // The concat on axis 0 appends to the state where it lives: the present
  // is the state's own bytes, nothing copied after the call.
  EXPECT_EQ(method->statesAppendedInPlace(),
            (std::vector<std::string>{"past"}));
  for (int call = 0; call < 4; ++call) {
    OwnedTensor k = f32Tensor({1, 2}, {float(call), float(10 * call)});
    ASSERT_TRUE(method->setInput(1, k.view()).ok());
    Error error = method->execute();
    ASSERT_TRUE(error.ok()) << error.toString();
    EXPECT_EQ(state.view(0).shape, (std::vector<int64_t>{call + 1, 2}));
    EXPECT_EQ(method->output(0)->data, state.view(0).data);
  }
  const float *rows = state.view(0).as<float>();
  EXPECT_EQ((std::vector<float>(rows, rows + 8)),
            (std::vector<float>{0, 0, 1, 10, 2, 20, 3, 30}));
  // Past holds at most 3 rows: the fifth call is refused, naming the state,
  // and the state keeps its four rows.
  Error full = method->execute();
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.message().find("state 'past' cannot feed input 0"),
            std::string::npos)
      << full.toString();
  EXPECT_EQ(state.view(0).shape, (std::vector<int64_t>{4, 2}));
  state.reset();
  EXPECT_EQ(state.view(0).shape, (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(state.view(0).nbytes(), 0u);
  ASSERT_TRUE(method->execute().ok());
  EXPECT_EQ(method->output(0)->shape, (std::vector<int64_t>{1, 2}));
}

// A state stored in another layout than the model's (a KV cache stored
// growing along its first axis): set, shape and read speak the model's
// layout, view the stored one; the method appends in place and reads the
// present through rhs_permutation; values worked by hand.
TEST(ProgramStateTest, AStoredCacheIsSetAndReadInTheModelsLayout) {
  Loaded loaded;
  ASSERT_NO_FATAL_FAILURE(load(loaded, buildStoredCache()));
  Result<Method> method = loaded.program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  EXPECT_EQ(method->statesAppendedInPlace(),
            (std::vector<std::string>{"past"}));
  ProgramState &state = *loaded.program->state();
  EXPECT_EQ(state.permutation(0), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(state.shape(0), (std::vector<int64_t>{2, 0}));
  OwnedTensor model = f32Tensor({2, 3}, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(state.set(0, model.view()).ok());
  EXPECT_EQ(state.view(0).shape, (std::vector<int64_t>{3, 2}));
  const float *stored = state.view(0).as<float>();
  EXPECT_EQ((std::vector<float>(stored, stored + 6)),
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
  OwnedTensor k = f32Tensor({1, 2}, {7, 8});
  OwnedTensor q = f32Tensor({1, 2}, {1, 10});
  ASSERT_TRUE(method->setInput(1, k.view()).ok());
  ASSERT_TRUE(method->setInput(2, q.view()).ok());
  Error error = method->execute();
  ASSERT_TRUE(error.ok()) << error.toString();
  EXPECT_EQ(state.shape(0), (std::vector<int64_t>{2, 4}));
  std::vector<float> read(8);
  state.read(0, read.data());
  EXPECT_EQ(read, (std::vector<float>{1, 2, 3, 7, 4, 5, 6, 8}));
  // q x the model's [2, 4]: 1 * row 0 + 10 * row 1.
  TensorView scores = *method->output(1);
  EXPECT_EQ((std::vector<float>(scores.as<float>(), scores.as<float>() + 4)),
            (std::vector<float>{41, 52, 63, 87}));
  // Over the capacity in the model's terms: refused, the state kept.
  OwnedTensor wide = f32Tensor({3, 1}, {0, 0, 0});
  Error refused = state.set(0, wide.view());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("holds at most f32[2, 4], not f32[3, 1]"),
            std::string::npos)
      << refused.toString();
  EXPECT_EQ(state.shape(0), (std::vector<int64_t>{2, 4}));
}

TEST(ProgramStateTest, RejectsDamagedStates) {
  {
    TestProgramBuilder b = buildStoredCache();
    b.states[0].permutation = {0, 0};
    expectInvalid(b.build(), "permutation: not a permutation of the 2");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.version = kProgramVersion;
    expectInvalid(b.build(), "program version 1 has states");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.states.clear();
    b.stateBindings.clear();
    expectInvalid(b.build(), "program version 2 names no states");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.stateBindings = {{1, 1, 0}};
    expectInvalid(b.build(), "state_bindings[0]: state 1 is out of range");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.stateBindings = {{0, 2, 0}};
    expectInvalid(b.build(), "must name one of the 2 inputs or 1 outputs");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.states.push_back({"g", DType::F32, {4}, {4}});
    b.stateBindings = {{0, 1, 0}, {1, 1, -1}};
    expectInvalid(b.build(), "input 1 is bound to a state twice");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.stateBindings = {{0, 1, -1}, {0, -1, 0}};
    expectInvalid(b.build(), "state 0 is bound twice");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.states[0].dtype = DType::I64;
    expectInvalid(b.build(), "does not fit state 'h'");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.states[0].initial = {5};
    expectInvalid(b.build(),
                  "initial_shape: extent 5 of dimension 0 lies outside");
  }
  {
    TestProgramBuilder b = buildAccumulator();
    b.states.push_back(b.states[0]);
    expectInvalid(b.build(), "name 'h' appears twice");
  }
}

} // namespace
