//===- ProgramTest.cpp - loading, verification, methods, delegates --------===//
//
// The loader never trusts a file: truncated, bit-flipped and out-of-range
// buffers are rejected with errors naming the field, never a crash. These
// tests are also built with ASan/UBSan (scripts/check-sanitizers.sh)
// so an out-of-bounds read fails them.
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include "strata/Runtime/Backend.h"

#include <cstdio>
#include <memory>
#include <optional>
#include <random>
#include <unistd.h>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

std::vector<uint8_t> buildSmallNet() { return buildSampleNetwork(); }

std::string writeTemp(const std::vector<uint8_t> &bytes) {
  char path[] = "/tmp/strata-program-XXXXXX";
  int fd = ::mkstemp(path);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(::write(fd, bytes.data(), bytes.size()),
            static_cast<ssize_t>(bytes.size()));
  ::close(fd);
  return path;
}

TEST(ProgramTest, RunsASmallNetwork) {
  std::vector<uint8_t> bytes = buildSmallNet();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  EXPECT_EQ(program->methodCount(), 1u);
  EXPECT_EQ(program->methodName(0), "forward");
  EXPECT_EQ(program->constantCount(), 3u);
  Result<Method> method = program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  ASSERT_EQ(method->inputCount(), 1u);
  ASSERT_EQ(method->outputCount(), 1u);
  OwnedTensor x = f32Tensor({1, 1, 4, 4}, std::vector<float>(16, 1.0f));
  ASSERT_TRUE(method->setInput(0, x.view()).ok());
  ASSERT_TRUE(method->execute().ok());
  TensorView out = *method->output(0);
  EXPECT_EQ(out.shape, (std::vector<int64_t>{1, 3}));
  float sum = 0;
  for (int i = 0; i < 3; ++i)
    sum += out.as<float>()[i];
  EXPECT_NEAR(sum, 1.0f, 1e-5f);
  EXPECT_EQ(method->instructionCount(), 6u);
  EXPECT_EQ(method->instructionLabel(0), "kernel conv2d");
  EXPECT_EQ(method->instructionNodeNames(5),
            std::vector<std::string>{"Softmax_5"});
}

TEST(ProgramTest, BoundInputIsReadWhereItIs) {
  std::vector<uint8_t> bytes = buildSmallNet();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  Result<Method> method = program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  // What the network gives on a copy of 0.5s everywhere.
  OwnedTensor half = f32Tensor({1, 1, 4, 4}, std::vector<float>(16, 0.5f));
  ASSERT_TRUE(method->setInput(0, half.view()).ok());
  ASSERT_TRUE(method->execute().ok());
  std::vector<float> want(method->output(0)->as<float>(),
                          method->output(0)->as<float>() + 3);
  EXPECT_NE(method->inputData(0), half.view().data);

  OwnedTensor x = f32Tensor({1, 1, 4, 4}, std::vector<float>(16, 1.0f));
  Result<bool> bound = method->setInput(0, x.view(), /*bind=*/true);
  ASSERT_TRUE(bound.ok()) << bound.error().toString();
  EXPECT_TRUE(*bound);
  EXPECT_EQ(method->inputData(0), x.view().data);
  // Changing the caller's memory changes what the next execute reads: no
  // copy was made.
  std::fill_n(x.view().as<float>(), 16, 0.5f);
  ASSERT_TRUE(method->execute().ok());
  for (int i = 0; i < 3; ++i)
    EXPECT_EQ(method->output(0)->as<float>()[i], want[i]) << i;
  EXPECT_EQ(x.view().as<float>()[7], 0.5f);
  method->releaseInputs();
  EXPECT_NE(method->inputData(0), x.view().data);

  // The method's own memory (an output, or its arena's input, fed back in)
  // is copied: the method overwrites it while it runs.
  Result<TensorView> in = method->input(0);
  ASSERT_TRUE(in.ok());
  TensorView arena = *in;
  bound = method->setInput(0, arena, /*bind=*/true);
  ASSERT_TRUE(bound.ok()) << bound.error().toString();
  EXPECT_FALSE(*bound);
}

TEST(ProgramTest, InputTheMethodWritesIsCopied) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  int y = b.addBuffer(DType::F32, {4});
  b.addKernel("neg", {x}, {y});
  b.addMove(y, x);
  b.setOutputs({x});
  std::vector<uint8_t> bytes = b.build();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  Result<Method> method = program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  OwnedTensor value = f32Tensor({4}, {1, 2, 3, 4});
  Result<bool> bound = method->setInput(0, value.view(), /*bind=*/true);
  ASSERT_TRUE(bound.ok()) << bound.error().toString();
  EXPECT_FALSE(*bound);
  ASSERT_TRUE(method->execute().ok());
  EXPECT_EQ(method->output(0)->as<float>()[1], -2.0f);
  EXPECT_EQ(value.view().as<float>()[1], 2.0f);
}

TEST(ProgramTest, ConstantsPointIntoTheMappedFile) {
  std::vector<uint8_t> bytes = buildSmallNet();
  std::string path = writeTemp(bytes);
  Result<std::unique_ptr<MmapDataLoader>> loader = MmapDataLoader::open(path);
  ASSERT_TRUE(loader.ok()) << loader.error().toString();
  Result<Program> program = Program::load(**loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  const uint8_t *begin = (*loader)->mappingBegin();
  const uint8_t *end = begin + (*loader)->size();
  for (size_t i = 0; i < program->constantCount(); ++i) {
    Result<TensorView> c = program->constant(i);
    ASSERT_TRUE(c.ok()) << c.error().toString();
    const uint8_t *data = static_cast<const uint8_t *>(c->data);
    EXPECT_GE(data, begin) << program->constantName(i);
    EXPECT_LE(data + c->nbytes(), end) << program->constantName(i);
    // Segment 0 starts on a page boundary of the file, and of the mapping.
    EXPECT_EQ(reinterpret_cast<uintptr_t>(data) % 64, 0u);
  }
  Result<TensorView> first = program->constant(0);
  EXPECT_EQ(static_cast<const uint8_t *>(first->data) - begin,
            static_cast<ptrdiff_t>(program->header().segmentBaseOffset));
  EXPECT_EQ(program->header().segmentBaseOffset % 4096, 0u);
  // The method's constant operands are the same pointers: no copy at load.
  Result<Method> method = program->loadMethod("forward");
  ASSERT_TRUE(method.ok());
  ASSERT_TRUE(method->execute().ok());
  std::remove(path.c_str());
}

TEST(ProgramTest, FileLoaderCopiesButRunsTheSame) {
  std::vector<uint8_t> bytes = buildSmallNet();
  std::string path = writeTemp(bytes);
  Result<std::unique_ptr<FileDataLoader>> loader = FileDataLoader::open(path);
  ASSERT_TRUE(loader.ok());
  Result<Program> program = Program::load(**loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  Result<Method> method = program->loadMethod("forward");
  ASSERT_TRUE(method.ok());
  EXPECT_TRUE(method->execute().ok());
  std::remove(path.c_str());
  Result<std::unique_ptr<FileDataLoader>> missing =
      FileDataLoader::open(path + ".gone");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::IOError);
  EXPECT_NE(missing.error().message().find(".gone"), std::string::npos);
}

TEST(ProgramTest, RejectsEveryTruncation) {
  std::vector<uint8_t> bytes = buildSmallNet();
  for (size_t size = 0; size < bytes.size(); ++size) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + size);
    BufferDataLoader loader(prefix.data(), prefix.size());
    Result<Program> program = Program::load(loader, Verification::Full);
    ASSERT_FALSE(program.ok()) << "a " << size << "-byte prefix loaded";
    EXPECT_EQ(program.error().code(), ErrorCode::InvalidProgram);
  }
}

TEST(ProgramTest, SurvivesEveryBitFlipOfTheHeaderAndFlatbuffer) {
  std::vector<uint8_t> bytes = buildSmallNet();
  FileHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  size_t end = header.flatbufferOffset + header.flatbufferSize;
  size_t rejected = 0, flips = 0;
  for (size_t byte = 0; byte < end; ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      std::vector<uint8_t> damaged = bytes;
      damaged[byte] ^= static_cast<uint8_t>(1u << bit);
      ++flips;
      // Loading must return (error or not); running what loads must too.
      if (!loadAndRun(damaged).ok())
        ++rejected;
    }
  // Most flips hit offsets, sizes, indices or the identifier.
  EXPECT_GT(rejected, flips / 4) << rejected << " of " << flips;
}

TEST(ProgramTest, SurvivesRandomByteCorruption) {
  std::vector<uint8_t> bytes = buildSmallNet();
  std::mt19937 rng(1234);
  for (int round = 0; round < 2000; ++round) {
    std::vector<uint8_t> damaged = bytes;
    int count = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < count; ++i)
      damaged[rng() % (4096 + 64)] = static_cast<uint8_t>(rng());
    (void)loadAndRun(damaged);
  }
}

TEST(ProgramTest, RejectsOutOfRangeValueIndices) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  int y = b.addBuffer(DType::F32, {4});
  b.addKernel("relu", {x + 40}, {y});
  b.setOutputs({y});
  expectInvalid(b.build(),
                "instructions[0].ins[0]: value 40 is out of range (2 values)");
}

TEST(ProgramTest, RejectsOutOfRangeOutputs) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  b.setOutputs({x + 7});
  expectInvalid(b.build(), "outputs[0]: value 7 is out of range");
}

TEST(ProgramTest, RejectsOutOfRangeOperator) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  b.addKernel("relu", {x}, {x});
  b.operatorIndexBias = 3;
  expectInvalid(b.build(), "operator 3 is out of range (1 operators)");
}

TEST(ProgramTest, RejectsOutOfRangeConstant) {
  TestProgramBuilder b;
  int c = b.addConstantRef(DType::F32, {4}, 9);
  int y = b.addBuffer(DType::F32, {4});
  b.addKernel("relu", {c}, {y});
  expectInvalid(b.build(), "values[0].constant");
}

TEST(ProgramTest, RejectsMissingArena) {
  TestProgramBuilder b;
  int x = b.addArenaValue(DType::F32, {4}, 2, 0);
  b.setOutputs({x});
  expectInvalid(b.build(), "memory_id 2 has no arena");
}

TEST(ProgramTest, RejectsBufferPastItsArena) {
  TestProgramBuilder b;
  int x = b.addArenaValue(DType::F32, {4}, 0, 60);
  b.setOutputs({x});
  b.arenaSizeOverride = 64;
  expectInvalid(b.build(), "16 bytes at offset 60 lie outside arena 0");
}

TEST(ProgramTest, RejectsShapesWhoseElementCountOverflows) {
  // 2^33 * 2^32 elements wrap a 64-bit product to 0 (found by the fuzzer).
  TestProgramBuilder b;
  int x =
      b.addArenaValue(DType::F32, {int64_t(1) << 33, int64_t(1) << 32}, 0, 0);
  b.setOutputs({x});
  expectInvalid(b.build(), "tensor of more than 2^40 bytes");
}

TEST(ProgramTest, RejectsHugeArena) {
  TestProgramBuilder b;
  b.arenaSizeOverride = uint64_t(1) << 50;
  expectInvalid(b.build(), "is too large");
}

TEST(ProgramTest, RejectsWritesToConstants) {
  TestProgramBuilder b;
  float data[4] = {1, 2, 3, 4};
  int c = b.addConstant(DType::F32, {4}, data);
  int x = b.addInput(DType::F32, {4});
  b.addKernel("relu", {x}, {c});
  expectInvalid(b.build(), "is a constant and cannot be written");
}

TEST(ProgramTest, RejectsOutOfRangeDebugHandle) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  b.addKernel("relu", {x}, {x});
  b.extraDebugHandles.push_back({5, "Ghost"});
  expectInvalid(b.build(), "debug_handles[0]: instruction 5 is out of range");
}

TEST(ProgramTest, RejectsOutOfRangeDelegate) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  b.addDelegateCall(2, {x}, {x});
  expectInvalid(b.build(), "delegate 2 is out of range (0 delegates)");
}

TEST(ProgramTest, RejectsMoveBetweenSizes) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  int y = b.addBuffer(DType::F32, {5});
  b.addMove(x, y);
  expectInvalid(b.build(), "move between buffers of different sizes");
}

TEST(ProgramTest, NamesItsInputsAndOutputs) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  int y = b.addBuffer(DType::F32, {4});
  b.addKernel("neg", {x}, {y});
  b.setOutputs({y});
  b.inputNames = {"pixels"};
  b.outputNames = {"logits"};
  std::vector<uint8_t> bytes = b.build();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  ASSERT_TRUE(program.ok()) << program.error().toString();
  Result<Method> method = program->loadMethod("forward");
  ASSERT_TRUE(method.ok()) << method.error().toString();
  EXPECT_EQ(method->inputName(0), "pixels");
  EXPECT_EQ(method->outputName(0), "logits");
  EXPECT_EQ(method->inputName(1), "");
}

TEST(ProgramTest, RejectsNamesThatDoNotMatchTheInputs) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  b.setOutputs({x});
  b.inputNames = {"a", "b"};
  expectInvalid(b.build(), "input_names: 2 names for 1 values");
}

TEST(ProgramTest, RejectsUnknownVersion) {
  TestProgramBuilder b;
  b.version = kStatefulProgramVersion + 1;
  expectInvalid(b.build(), "program version 3 is not supported");
}

TEST(ProgramTest, RejectsSegmentOutsideTheFile) {
  std::vector<uint8_t> bytes = buildSmallNet();
  FileHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  header.segmentDataSize += 1;
  std::memcpy(bytes.data(), &header, sizeof(header));
  expectInvalid(bytes, "header.segment_base_offset/segment_data_size");
}

TEST(ProgramTest, RejectsConstantOutsideItsSegment) {
  std::vector<uint8_t> bytes = buildSmallNet();
  // Shrink the declared segment data so that segment 0 no longer fits.
  FileHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  header.segmentDataSize -= 8;
  std::memcpy(bytes.data(), &header, sizeof(header));
  expectInvalid(bytes, "segments[0]");
}

TEST(ProgramTest, MinimalDefersMethodChecksToLoadMethod) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  b.addKernel("relu", {x + 10}, {x});
  std::vector<uint8_t> bytes = b.build();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> minimal = Program::load(loader, Verification::Minimal);
  ASSERT_TRUE(minimal.ok()) << minimal.error().toString();
  Result<Method> method = minimal->loadMethod("forward");
  ASSERT_FALSE(method.ok());
  EXPECT_NE(method.error().message().find("out of range"), std::string::npos);
  EXPECT_FALSE(Program::load(loader, Verification::Full).ok());
}

TEST(MethodTest, MissingKernelFailsAtLoadWithItsName) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  b.addKernel("gelu_v9", {x}, {x});
  expectInvalid(b.build(), "kernel 'gelu_v9' is not registered",
                ErrorCode::NotFound);
}

TEST(MethodTest, MismatchedKernelOperandsFailAtLoad) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {1, 1, 5, 5});
  int w = b.addInput(DType::F32, {1, 1, 3, 3});
  int y = b.addBuffer(DType::F32, {1, 1, 5, 5}); // needs pads for 5x5
  b.addKernel("conv2d", {x, w}, {y}, windowParams("conv2d", {}));
  expectInvalid(b.build(), "kernel 'conv2d' (instruction 0): result",
                ErrorCode::InvalidArgument);
}

TEST(MethodTest, CustomRegistryReplacesPortableKernels) {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {4});
  b.addKernel("relu", {x}, {x});
  std::vector<uint8_t> bytes = b.build();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  ASSERT_TRUE(program.ok());
  KernelRegistry empty;
  Result<Method> method = program->loadMethod("forward", &empty);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error().code(), ErrorCode::NotFound);
  KernelRegistry registry;
  ASSERT_TRUE(registerPortableKernels(registry).ok());
  EXPECT_FALSE(registerPortableKernels(registry).ok()) << "names are unique";
  EXPECT_TRUE(program->loadMethod("forward", &registry).ok());
}

TEST(MethodTest, WrongInputShapeIsAClearError) {
  std::vector<uint8_t> bytes = buildSmallNet();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader);
  ASSERT_TRUE(program.ok());
  Result<Method> method = program->loadMethod("forward");
  ASSERT_TRUE(method.ok());
  OwnedTensor x = f32Tensor({1, 1, 4, 5}, std::vector<float>(20, 1.0f));
  Error error = method->setInput(0, x.view());
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "input 0 of method 'forward' must be "
                             "f32[1, 1, 4, 4], got f32[1, 1, 4, 5]");
  EXPECT_FALSE(method->setInput(3, x.view()).ok());
  EXPECT_FALSE(program->loadMethod("backward").ok());
}

//===----------------------------------------------------------------------===//
// Delegates
//===----------------------------------------------------------------------===//

/// A test backend: "executes" by scaling its input by the blob's first byte.
class FakeBackend final : public Backend {
public:
  struct Handle final : DelegateHandle {
    float scale = 1;
  };
  FakeBackend() {
    config_.declare("threads", ConfigOption::Type::Int, "1", "worker threads");
    config_.declare("mode", ConfigOption::Type::String, "\"fast\"",
                    "speed or accuracy");
  }
  const std::string &name() const override { return name_; }
  bool isAvailable() const override { return available; }
  Result<DelegateHandle *> init(ByteSpan processed, const Params &specs,
                                const NamedDataMap &) override {
    ++inits;
    if (processed.size < 1)
      return Error(ErrorCode::InvalidArgument, "empty blob");
    lastSpecs = specs.all().size();
    auto *handle = new Handle;
    handle->scale = processed.data[0];
    return static_cast<DelegateHandle *>(handle);
  }
  Error execute(DelegateHandle *handle, const std::vector<TensorView> &ins,
                const std::vector<TensorView> &outs) override {
    ++executes;
    float scale = static_cast<Handle *>(handle)->scale;
    for (int64_t i = 0; i < outs[0].numel(); ++i)
      outs[0].as<float>()[i] = ins[0].as<float>()[i] * scale;
    return Error::success();
  }
  void destroy(DelegateHandle *handle) override {
    ++destroys;
    delete handle;
  }
  BackendConfig &config() override { return config_; }

  bool available = true;
  int inits = 0, executes = 0, destroys = 0;
  size_t lastSpecs = 0;

private:
  std::string name_ = "fake";
  BackendConfig config_;
};

std::vector<uint8_t> buildDelegated(const std::string &backend,
                                    bool inlineBlob = false) {
  TestProgramBuilder b;
  b.inlineBlobs = inlineBlob;
  int x = b.addInput(DType::F32, {4});
  int y = b.addBuffer(DType::F32, {4});
  int z = b.addBuffer(DType::F32, {4});
  int d = b.addDelegate("fake_0", backend, {3},
                        {intParam("threads", 2), floatParam("eps", 0.5)});
  b.addDelegateCall(d, {x}, {y});
  b.addDelegateCall(d, {y}, {z});
  b.setOutputs({z});
  return b.build();
}

/// The program of buildDelegated, loaded, beside a registry that holds
/// `fake`.
class DelegateTest : public ::testing::Test {
protected:
  /// Builds and loads the program whose delegate names `backend`, then
  /// registers `fake`.
  void load(const std::string &backend, bool inlineBlob = false) {
    bytes = buildDelegated(backend, inlineBlob);
    loader = std::make_unique<BufferDataLoader>(bytes.data(), bytes.size());
    Result<Program> loaded = Program::load(*loader);
    ASSERT_TRUE(loaded.ok()) << loaded.error().toString();
    program.emplace(std::move(*loaded));
    ASSERT_TRUE(backends.add(&fake).ok());
  }
  /// Loads the program's method with the registered backends.
  Result<Method> loadMethod() {
    return program->loadMethod("forward", nullptr, &backends);
  }

  std::vector<uint8_t> bytes;
  std::unique_ptr<BufferDataLoader> loader;
  std::optional<Program> program;
  FakeBackend fake;
  BackendRegistry backends;
};

TEST_F(DelegateTest, UnknownBackendFailsAtLoadWithItsName) {
  ASSERT_NO_FATAL_FAILURE(load("npu9000"));
  Result<Method> method = loadMethod();
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error().code(), ErrorCode::NotFound);
  EXPECT_NE(method.error().message().find(
                "delegate 'fake_0' needs backend 'npu9000', which is not "
                "registered (registered: fake)"),
            std::string::npos)
      << method.error().toString();
  EXPECT_EQ(fake.inits, 0);
}

TEST_F(DelegateTest, LifecycleInitOnceExecuteDestroy) {
  ASSERT_NO_FATAL_FAILURE(load("fake"));
  EXPECT_FALSE(backends.add(&fake).ok()) << "names are unique";
  {
    Result<Method> method = loadMethod();
    ASSERT_TRUE(method.ok()) << method.error().toString();
    EXPECT_EQ(fake.inits, 1) << "one delegate, called twice, inits once";
    EXPECT_EQ(fake.lastSpecs, 2u);
    OwnedTensor x = f32Tensor({4}, {1, 2, 3, 4});
    ASSERT_TRUE(method->setInput(0, x.view()).ok());
    ASSERT_TRUE(method->execute().ok());
    EXPECT_EQ(fake.executes, 2);
    TensorView out = *method->output(0);
    EXPECT_FLOAT_EQ(out.as<float>()[3], 36.0f); // 4 * 3 * 3
    EXPECT_EQ(method->instructionLabel(0), "delegate fake_0");
  }
  EXPECT_EQ(fake.destroys, 1);
}

TEST_F(DelegateTest, InlineBlobReachesInit) {
  ASSERT_NO_FATAL_FAILURE(load("fake", /*inlineBlob=*/true));
  Result<Method> method = loadMethod();
  ASSERT_TRUE(method.ok()) << method.error().toString();
  OwnedTensor x = f32Tensor({4}, {1, 1, 1, 1});
  ASSERT_TRUE(method->setInput(0, x.view()).ok());
  ASSERT_TRUE(method->execute().ok());
  EXPECT_FLOAT_EQ(method->output(0)->as<float>()[0], 9.0f);
}

TEST_F(DelegateTest, UnavailableBackendFailsAtLoad) {
  fake.available = false;
  ASSERT_NO_FATAL_FAILURE(load("fake"));
  Result<Method> method = loadMethod();
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error().code(), ErrorCode::NotSupported);
  EXPECT_NE(method.error().message().find("backend 'fake' is not available"),
            std::string::npos);
}

TEST(BackendConfigTest, RoundTripsThroughJsonAndDescribesItself) {
  FakeBackend fake;
  BackendConfig &config = fake.config();
  EXPECT_EQ(config.toJson(), "{\"threads\": 1, \"mode\": \"fast\"}");
  ASSERT_TRUE(
      config.fromJson("{ \"threads\": 4, \"mode\": \"accurate\" }").ok());
  EXPECT_EQ(*config.get("threads"), "4");
  std::string json = config.toJson();
  FakeBackend other;
  ASSERT_TRUE(other.config().fromJson(json).ok());
  EXPECT_EQ(other.config().toJson(), json);
  EXPECT_EQ(config.describe(),
            "threads (int) = 4: worker threads\n"
            "mode (string) = \"accurate\": speed or accuracy\n");
  Error unknown = config.fromJson("{\"cores\": 2}");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("unknown config option 'cores' (known: "
                                   "threads, mode)"),
            std::string::npos);
  EXPECT_FALSE(config.fromJson("{\"threads\": \"many\"}").ok());
  EXPECT_FALSE(config.fromJson("{\"threads\": 2").ok());
  EXPECT_FALSE(config.fromJson("[1, 2]").ok());
}

} // namespace
