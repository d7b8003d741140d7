//===- TypedKernelTest.cpp - kernels whose parameters are decoded at load -===//
//
// The convolution, pooling and matmul kernels are typed (Kernel.h): their
// parameters become a state struct when the method is loaded, and their
// execute function is handed that state and the operands, never the
// parameters, so it cannot look an attribute up by name. These tests show
// that property through the API, and that the Method prepares once and
// executes many times.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <type_traits>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

/// Whether T has a member called `params`.
template <typename T, typename = void> struct HasParams : std::false_type {};
template <typename T>
struct HasParams<T, std::void_t<decltype(std::declval<T &>().params)>>
    : std::true_type {};

// What a typed kernel's execute receives has no parameters to look up.
static_assert(std::is_same_v<KernelExecuteFn,
                             Error (*)(const KernelState &, KernelIO &)>);
static_assert(!HasParams<KernelIO>::value);
static_assert(HasParams<KernelContext>::value);

TEST(TypedKernelTest, WindowAndMatmulKernelsAreTyped) {
  const KernelRegistry &registry = portableKernelRegistry();
  for (const char *name :
       {"conv2d", "deform_conv2d", "conv_transpose2d", "max_pool2d",
        "avg_pool2d", "matmul", "quantized_conv2d", "quantized_matmul"}) {
    const KernelEntry *entry = registry.lookup(name);
    ASSERT_NE(entry, nullptr) << name;
    EXPECT_TRUE(entry->isTyped()) << name;
    EXPECT_EQ(entry->fn, nullptr) << name;
    EXPECT_NE(entry->execute, nullptr) << name;
  }
  // Every other kernel stays a legacy one.
  EXPECT_FALSE(registry.lookup("softmax")->isTyped());
}

/// A typed kernel that counts its calls: y = x * scale, `scale` decoded by
/// prepare.
int prepareCalls = 0, executeCalls = 0;
struct ScaleState {
  float scale;
};
Result<ScaleState> prepareScale(const KernelContext &ctx) {
  ++prepareCalls;
  Result<double> scale = ctx.params.getFloat("scale", 1.0);
  if (!scale.ok())
    return scale.takeError();
  return ScaleState{static_cast<float>(*scale)};
}
Error executeScale(const ScaleState &state, KernelIO &io) {
  ++executeCalls;
  for (int64_t i = 0; i < io.ins[0].numel(); ++i)
    io.outs[0].as<float>()[i] = io.ins[0].as<float>()[i] * state.scale;
  return Error::success();
}

TEST(TypedKernelTest, PreparesOnceAtLoadAndExecutesFromTheState) {
  KernelRegistry registry;
  ASSERT_TRUE(
      registry
          .add("scale", typedKernel<ScaleState, prepareScale, executeScale>())
          .ok());
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {2});
  int y = b.addBuffer(DType::F32, {2});
  b.addKernel("scale", {x}, {y}, {floatParam("scale", 3.0)});
  b.setOutputs({y});
  std::vector<uint8_t> bytes = b.build();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  prepareCalls = executeCalls = 0;
  Result<Method> method = program->loadMethod("forward", &registry);
  ASSERT_TRUE(method.ok()) << method.error().toString();
  EXPECT_EQ(prepareCalls, 1);
  EXPECT_EQ(executeCalls, 0);
  OwnedTensor in = f32Tensor({2}, {1.0f, -2.0f});
  ASSERT_TRUE(method->setInput(0, in.view()).ok());
  for (int i = 0; i < 10; ++i)
    ASSERT_TRUE(method->execute().ok());
  EXPECT_EQ(prepareCalls, 1);
  EXPECT_EQ(executeCalls, 10);
  OwnedTensor got;
  got.dtype = DType::F32;
  got.shape = {2};
  got.bytes.assign(static_cast<uint8_t *>(method->output(0)->data),
                   static_cast<uint8_t *>(method->output(0)->data) + 8);
  expectClose(got, f32Tensor({2}, {3.0f, -6.0f}));
}

TEST(TypedKernelTest, AnEntryNeedsPrepareAndExecute) {
  KernelRegistry registry;
  KernelEntry half;
  half.prepare = typedKernel<ScaleState, prepareScale, executeScale>().prepare;
  EXPECT_FALSE(registry.add("half", half).ok());
  EXPECT_EQ(registry.lookup("half"), nullptr);
}

/// A network of conv2d, max_pool2d and matmul (with relu, reshape and
/// softmax between) gives the same result on every execute: the state the
/// typed kernels prepared is all they need.
TEST(TypedKernelTest, ConvPoolMatmulNetworkRunsRepeatedly) {
  std::vector<uint8_t> bytes = buildSampleNetwork();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  Result<Method> method = program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  std::vector<float> input(16);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<float>(i) * 0.25f - 1.5f;
  OwnedTensor in = f32Tensor({1, 1, 4, 4}, input);
  ASSERT_TRUE(method->setInput(0, in.view()).ok());
  ASSERT_TRUE(method->execute().ok());
  TensorView out = *method->output(0);
  std::vector<float> first(out.as<float>(), out.as<float>() + out.numel());
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(method->execute().ok());
    ASSERT_EQ(
        std::vector<float>(out.as<float>(), out.as<float>() + out.numel()),
        first);
  }
}

/// A parameter the edge op always states is required: a program without it
/// fails at load with the parameter's name, instead of running with a
/// guessed default.
TEST(TypedKernelTest, MissingParametersFailAtLoadNamingThem) {
  struct Case {
    const char *kernel, *missing;
    std::vector<int64_t> weight, out;
  };
  for (const Case &c : std::vector<Case>{
           {"conv2d", "dilations", {1, 1, 3, 3}, {1, 1, 2, 2}},
           {"conv2d", "group", {1, 1, 3, 3}, {1, 1, 2, 2}},
           {"max_pool2d", "ceil_mode", {}, {1, 1, 2, 2}},
           {"avg_pool2d", "count_include_pad", {}, {1, 1, 2, 2}},
           {"conv_transpose2d", "output_padding", {1, 1, 3, 3}, {1, 1, 6, 6}},
       }) {
    std::vector<OwnedTensor> ins;
    ins.push_back(f32Tensor({1, 1, 4, 4}, std::vector<float>(16, 1.0f)));
    std::vector<Param> given;
    if (!c.weight.empty())
      ins.push_back(f32Tensor(c.weight, std::vector<float>(9, 1.0f)));
    else
      given.push_back(intsParam("kernel", {3, 3}));
    std::vector<Param> params;
    for (Param &p : windowParams(c.kernel, given))
      if (p.name != c.missing)
        params.push_back(p);
    Result<OwnedTensor> got =
        runKernel(c.kernel, ins, DType::F32, c.out, params);
    ASSERT_FALSE(got.ok()) << c.kernel << " without " << c.missing;
    EXPECT_NE(got.error().message().find(std::string("parameter '") +
                                         c.missing + "' is missing"),
              std::string::npos)
        << got.error().toString();
  }
}

} // namespace
