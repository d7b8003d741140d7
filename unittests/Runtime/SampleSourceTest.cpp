//===- SampleSourceTest.cpp - input samples from files and random draws ---===//
//
// Each form SampleSource reads (test_data_set folder, folder of sample
// folders or files, stacked .npy, one file, given files, random specs); the
// range of each distribution for every element type; that the three users'
// default draws are the ones they made before the sample source existed
// (the former generators are copied here as the reference); and that errors
// name the file and what was expected.
//
//===----------------------------------------------------------------------===//
#include "strata/Runtime/SampleSource.h"
#include "strata/Runtime/HalfFloat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ftw.h>
#include <random>
#include <sys/stat.h>

using namespace strata::runtime;

namespace {

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// A fresh temporary folder, removed with everything in it at scope exit.
struct TempDir {
  std::string path;
  TempDir() {
    char pattern[] = "/tmp/strata-samples-XXXXXX";
    const char *dir = ::mkdtemp(pattern);
    EXPECT_NE(dir, nullptr);
    path = dir ? dir : "/tmp/strata-samples-failed";
  }
  ~TempDir() {
    ::nftw(
        path.c_str(),
        [](const char *file, const struct stat *, int, struct FTW *) {
          return ::remove(file);
        },
        16, FTW_DEPTH | FTW_PHYS);
  }
};

OwnedTensor f32Tensor(std::vector<int64_t> shape, float first) {
  OwnedTensor t;
  t.dtype = DType::F32;
  t.shape = std::move(shape);
  t.bytes.resize(numElements(t.shape) * 4);
  for (int64_t i = 0; i < numElements(t.shape); ++i) {
    float v = first + static_cast<float>(i);
    std::memcpy(t.bytes.data() + 4 * i, &v, 4);
  }
  return t;
}

void writePb(const std::string &path, OwnedTensor t) {
  ASSERT_TRUE(writeFileAtomic(path, serializeTensorProto(t.view(), "x")).ok());
}

float firstFloat(const OwnedTensor &t) {
  float v;
  std::memcpy(&v, t.bytes.data(), 4);
  return v;
}

/// Element `i` of `t` as a double, read in its dtype.
double elementOf(const OwnedTensor &t, int64_t i) {
  const uint8_t *at = t.bytes.data() + i * dtypeSize(t.dtype);
  auto load = [at](auto value) {
    std::memcpy(&value, at, sizeof(value));
    return value;
  };
  switch (t.dtype) {
  case DType::F32:
    return load(float());
  case DType::F64:
    return load(double());
  case DType::F16:
    return halfToFloat(load(Half()));
  case DType::BF16:
    return bfloat16ToFloat(load(BFloat16()));
  case DType::Bool:
  case DType::U8:
    return load(uint8_t());
  case DType::I8:
    return load(int8_t());
  case DType::I16:
    return load(int16_t());
  case DType::U16:
    return load(uint16_t());
  case DType::I32:
    return load(int32_t());
  case DType::U32:
    return load(uint32_t());
  case DType::I64:
    return static_cast<double>(load(int64_t()));
  case DType::U64:
    return static_cast<double>(load(uint64_t()));
  }
  return 0;
}

const DType kAllTypes[] = {DType::F32,  DType::F64, DType::F16, DType::BF16,
                           DType::Bool, DType::I8,  DType::U8,  DType::I16,
                           DType::U16,  DType::I32, DType::U32, DType::I64,
                           DType::U64};

std::vector<InputSpec> oneOfEach(int64_t elements) {
  std::vector<InputSpec> specs;
  for (DType dtype : kAllTypes)
    specs.push_back({dtype, {elements}});
  return specs;
}

//===----------------------------------------------------------------------===//
// The generators the sample source replaced, verbatim (the reference for
// "no behaviour change").
//===----------------------------------------------------------------------===//

/// lib/Calibration/Execute.cpp's writeRandomElement (strata-compile --verify).
void legacyVerifyElement(DType dtype, uint8_t *at, std::mt19937_64 &rng) {
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  auto store = [at](auto value) { std::memcpy(at, &value, sizeof(value)); };
  switch (dtype) {
  case DType::F32:
    return store(uniform(rng));
  case DType::F64:
    return store(static_cast<double>(uniform(rng)));
  case DType::F16:
    return store(floatToHalf(uniform(rng)));
  case DType::BF16:
    return store(floatToBFloat16(uniform(rng)));
  case DType::Bool:
    return store(static_cast<uint8_t>(rng() % 2));
  case DType::I8:
    return store(static_cast<int8_t>(rng() % 10));
  case DType::U8:
    return store(static_cast<uint8_t>(rng() % 10));
  case DType::I16:
    return store(static_cast<int16_t>(rng() % 10));
  case DType::U16:
    return store(static_cast<uint16_t>(rng() % 10));
  case DType::I32:
    return store(static_cast<int32_t>(rng() % 10));
  case DType::U32:
    return store(static_cast<uint32_t>(rng() % 10));
  case DType::I64:
    return store(static_cast<int64_t>(rng() % 10));
  case DType::U64:
    return store(static_cast<uint64_t>(rng() % 10));
  }
}

/// tools/strata-run/RunDriver.cpp's fillRandom.
void legacyRunFill(OwnedTensor &t, std::mt19937_64 &rng) {
  TensorView view = t.view();
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-8, 8);
  for (int64_t i = 0; i < view.numel(); ++i) {
    switch (view.dtype) {
    case DType::F32:
      view.as<float>()[i] = real(rng);
      break;
    case DType::F64:
      view.as<double>()[i] = real(rng);
      break;
    case DType::I32:
      view.as<int32_t>()[i] = small(rng);
      break;
    case DType::I64:
      view.as<int64_t>()[i] = small(rng);
      break;
    case DType::I8:
      view.as<int8_t>()[i] = static_cast<int8_t>(small(rng));
      break;
    case DType::U8:
      view.as<uint8_t>()[i] = static_cast<uint8_t>(small(rng) + 8);
      break;
    case DType::Bool:
      view.as<uint8_t>()[i] = small(rng) > 0;
      break;
    case DType::I16:
      view.as<int16_t>()[i] = static_cast<int16_t>(small(rng));
      break;
    case DType::U16:
      view.as<uint16_t>()[i] = static_cast<uint16_t>(small(rng) + 8);
      break;
    case DType::U32:
      view.as<uint32_t>()[i] = static_cast<uint32_t>(small(rng) + 8);
      break;
    case DType::U64:
      view.as<uint64_t>()[i] = static_cast<uint64_t>(small(rng) + 8);
      break;
    case DType::F16:
      view.as<Half>()[i] = floatToHalf(real(rng));
      break;
    case DType::BF16:
      view.as<BFloat16>()[i] = floatToBFloat16(real(rng));
      break;
    }
  }
}

/// lib/Calibration/Observation.cpp's random samples (f32, i32, i64).
std::vector<OwnedTensor>
legacyCalibrationSample(const std::vector<InputSpec> &specs, bool randomNormal,
                        uint64_t seed, int64_t index) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + index);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  std::vector<OwnedTensor> out;
  for (const InputSpec &spec : specs) {
    OwnedTensor t;
    t.dtype = spec.dtype;
    t.shape = spec.shape;
    t.bytes.resize(spec.numel() * dtypeSize(spec.dtype));
    for (int64_t e = 0, n = spec.numel(); e < n; ++e) {
      if (spec.dtype == DType::F32)
        reinterpret_cast<float *>(t.bytes.data())[e] =
            randomNormal ? normal(rng) : uniform(rng);
      else if (spec.dtype == DType::I64)
        reinterpret_cast<int64_t *>(t.bytes.data())[e] = rng() % 10;
      else
        reinterpret_cast<int32_t *>(t.bytes.data())[e] = rng() % 10;
    }
    out.push_back(std::move(t));
  }
  return out;
}

TEST(SampleSourceTest, VerifyDefaultDrawsAsBefore) {
  std::vector<InputSpec> specs = oneOfEach(37);
  std::vector<OwnedTensor> sample =
      makeRandomSample(specs, RandomDistribution::verifyDefault(), 7, 0);
  std::mt19937_64 rng(7);
  for (size_t i = 0; i < specs.size(); ++i) {
    std::vector<uint8_t> want(sample[i].bytes.size());
    size_t size = dtypeSize(specs[i].dtype);
    for (int64_t e = 0; e < 37; ++e)
      legacyVerifyElement(specs[i].dtype, want.data() + e * size, rng);
    EXPECT_EQ(sample[i].bytes, want) << dtypeName(specs[i].dtype);
  }
}

TEST(SampleSourceTest, RunDefaultDrawsAsBefore) {
  std::vector<InputSpec> specs = oneOfEach(37);
  SampleSource source =
      SampleSource::random(specs, RandomDistribution::runDefault(), 5, 1);
  Result<std::vector<OwnedTensor>> sample = source.get(0);
  ASSERT_TRUE(sample.ok());
  std::mt19937_64 rng(5);
  for (size_t i = 0; i < specs.size(); ++i) {
    OwnedTensor want = (*sample)[i];
    std::fill(want.bytes.begin(), want.bytes.end(), 0);
    legacyRunFill(want, rng);
    EXPECT_EQ((*sample)[i].bytes, want.bytes) << dtypeName(specs[i].dtype);
  }
}

TEST(SampleSourceTest, CalibrationDefaultsDrawAsBefore) {
  std::vector<InputSpec> specs = {{DType::F32, {2, 9}},
                                  {DType::I64, {5}},
                                  {DType::I32, {3}},
                                  {DType::F32, {4}}};
  for (const char *spec : {"random", "random-normal"}) {
    for (uint64_t seed : {0ull, 3ull}) {
      SampleSourceOptions options;
      options.random = RandomDistribution::calibrationDefault();
      options.seed = seed * 0x9E3779B97F4A7C15ull;
      options.randomSamples = 4;
      Result<SampleSource> source = SampleSource::open(spec, specs, options);
      ASSERT_TRUE(source.ok()) << source.error().toString();
      ASSERT_EQ(source->size(), 4);
      for (int64_t s = 0; s < 4; ++s) {
        Result<std::vector<OwnedTensor>> got = source->get(s);
        ASSERT_TRUE(got.ok());
        std::vector<OwnedTensor> want = legacyCalibrationSample(
            specs, std::string(spec) == "random-normal", seed, s);
        for (size_t i = 0; i < specs.size(); ++i)
          EXPECT_EQ((*got)[i].bytes, want[i].bytes)
              << spec << " seed " << seed << " sample " << s << " input " << i;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Distributions
//===----------------------------------------------------------------------===//

/// Every element of every type in range; floats spread over it (which also
/// shows that every byte of an f64/f16 element is written, not a first byte
/// over zeros: that reads as a denormal near 0).
void expectInRange(const RandomDistribution &dist, double lo, double hi,
                   int64_t intLo, int64_t intHi, int64_t uintLo,
                   int64_t uintHi) {
  std::vector<InputSpec> specs = oneOfEach(200);
  std::vector<OwnedTensor> sample = makeRandomSample(specs, dist, 11, 2);
  for (const OwnedTensor &t : sample) {
    double smallest = INFINITY, largest = -INFINITY;
    for (int64_t e = 0; e < 200; ++e) {
      double v = elementOf(t, e);
      smallest = std::min(smallest, v);
      largest = std::max(largest, v);
    }
    std::string type = dtypeName(t.dtype);
    bool isFloat = t.dtype == DType::F32 || t.dtype == DType::F64 ||
                   t.dtype == DType::F16 || t.dtype == DType::BF16;
    bool isUnsigned = t.dtype == DType::U8 || t.dtype == DType::U16 ||
                      t.dtype == DType::U32 || t.dtype == DType::U64;
    if (isFloat) {
      EXPECT_GE(smallest, lo) << type;
      EXPECT_LE(largest, hi) << type; // f16/bf16 may round up to hi.
      EXPECT_LT(smallest, lo + 0.1 * (hi - lo)) << type;
      EXPECT_GT(largest, hi - 0.1 * (hi - lo)) << type;
    } else if (t.dtype == DType::Bool) {
      EXPECT_EQ(smallest, 0) << type;
      EXPECT_EQ(largest, 1) << type;
    } else {
      int64_t a = isUnsigned ? uintLo : intLo, b = isUnsigned ? uintHi : intHi;
      EXPECT_EQ(smallest, a) << type;
      EXPECT_EQ(largest, b - 1) << type;
    }
  }
}

TEST(SampleSourceTest, VerifyDefaultRanges) {
  expectInRange(RandomDistribution::verifyDefault(), -1, 1, 0, 10, 0, 10);
}

TEST(SampleSourceTest, RunDefaultRanges) {
  expectInRange(RandomDistribution::runDefault(), -1, 1, -8, 9, 0, 17);
}

TEST(SampleSourceTest, CalibrationDefaultRanges) {
  expectInRange(RandomDistribution::calibrationDefault(), 0, 1, 0, 10, 0, 10);
}

TEST(SampleSourceTest, UniformSpecWithBounds) {
  Result<RandomDistribution> dist = parseRandomSpec(
      "random-uniform:-3,5", RandomDistribution::verifyDefault());
  ASSERT_TRUE(dist.ok()) << dist.error().toString();
  expectInRange(*dist, -3, 5, 0, 10, 0, 10);
}

TEST(SampleSourceTest, NormalSpec) {
  Result<RandomDistribution> dist =
      parseRandomSpec("random-normal:2,0.5", RandomDistribution());
  ASSERT_TRUE(dist.ok()) << dist.error().toString();
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    std::vector<OwnedTensor> sample =
        makeRandomSample({{dtype, {4000}}}, *dist, 1, 0);
    double sum = 0, squares = 0;
    for (int64_t e = 0; e < 4000; ++e) {
      double v = elementOf(sample[0], e);
      sum += v;
      squares += v * v;
    }
    double mean = sum / 4000, var = squares / 4000 - mean * mean;
    EXPECT_NEAR(mean, 2.0, 0.05) << dtypeName(dtype);
    EXPECT_NEAR(std::sqrt(var), 0.5, 0.05) << dtypeName(dtype);
  }
}

TEST(SampleSourceTest, SamplesDependOnSeedAndIndexOnly) {
  SampleSource source = SampleSource::random(
      {{DType::F32, {8}}}, RandomDistribution::verifyDefault(), 9, 3);
  Result<std::vector<OwnedTensor>> a = source.get(2), b = source.get(2),
                                   c = source.get(1);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ((*a)[0].bytes, (*b)[0].bytes);
  EXPECT_NE((*a)[0].bytes, (*c)[0].bytes);
  EXPECT_FALSE(source.get(3).ok());
}

TEST(SampleSourceTest, BadSpecsNameThemselves) {
  EXPECT_FALSE(isRandomSpec("randomness.npy"));
  Result<RandomDistribution> bad =
      parseRandomSpec("random-uniform:1,0", RandomDistribution());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("'random-uniform:1,0': expected "
                                       "random-uniform:LO,HI"),
            std::string::npos);
  bad = parseRandomSpec("random-normal:x", RandomDistribution());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message().find("random-normal:MEAN,STD"),
            std::string::npos);
  bad = parseRandomSpec("random-gamma", RandomDistribution());
  EXPECT_FALSE(bad.ok());
}

TEST(SampleSourceTest, BoundsMustHoldAsFloats) {
  // The draws are f32: bounds that overflow, collapse or underflow there
  // would break the distributions' preconditions.
  for (const char *spec :
       {"random-uniform:-1e300,1e300", "random-uniform:0,1e-50",
        "random-uniform:-3e38,3e38", "random-normal:0,1e-60",
        "random-normal:1e39,1"})
    EXPECT_FALSE(parseRandomSpec(spec, RandomDistribution()).ok()) << spec;
  EXPECT_TRUE(
      parseRandomSpec("random-uniform:-1e30,1e30", RandomDistribution()).ok());
}

//===----------------------------------------------------------------------===//
// Files and folders
//===----------------------------------------------------------------------===//

TEST(SampleSourceTest, TestDataSetFolderWithExpectedOutputs) {
  TempDir dirOwner;
  const std::string &dir = dirOwner.path;
  writePb(dir + "/input_0.pb", f32Tensor({2, 3}, 1));
  writePb(dir + "/input_1.pb", f32Tensor({4}, 10));
  writePb(dir + "/output_0.pb", f32Tensor({1}, 42));
  Result<SampleSource> source = SampleSource::open(dir, {});
  ASSERT_TRUE(source.ok()) << source.error().toString();
  ASSERT_EQ(source->size(), 1);
  Result<std::vector<OwnedTensor>> inputs = source->get(0);
  ASSERT_TRUE(inputs.ok());
  ASSERT_EQ(inputs->size(), 2u);
  EXPECT_EQ((*inputs)[0].shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(firstFloat((*inputs)[1]), 10.0f);
  ASSERT_TRUE(source->hasExpected(0));
  Result<std::vector<OwnedTensor>> outputs = source->expected(0);
  ASSERT_TRUE(outputs.ok());
  ASSERT_EQ(outputs->size(), 1u);
  EXPECT_EQ(firstFloat((*outputs)[0]), 42.0f);
  EXPECT_EQ(
      source->inputFiles(0),
      (std::vector<std::string>{dir + "/input_0.pb", dir + "/input_1.pb"}));
  // With specs, a tensor takes the spec's shape (same type and count).
  source =
      SampleSource::open(dir, {{DType::F32, {3, 2}}, {DType::F32, {2, 2}}});
  ASSERT_TRUE(source.ok());
  inputs = source->get(0);
  ASSERT_TRUE(inputs.ok());
  EXPECT_EQ((*inputs)[0].shape, (std::vector<int64_t>{3, 2}));
}

TEST(SampleSourceTest, FolderOfSampleFolders) {
  TempDir dirOwner;
  const std::string &dir = dirOwner.path;
  for (int s = 0; s < 3; ++s) {
    std::string set = dir + "/test_data_set_" + std::to_string(s);
    ASSERT_EQ(::mkdir(set.c_str(), 0755), 0);
    writePb(set + "/input_0.pb", f32Tensor({2}, 100.0f * s));
    writePb(set + "/output_0.pb", f32Tensor({1}, -1.0f * s));
  }
  Result<SampleSource> source = SampleSource::open(dir, {{DType::F32, {2}}});
  ASSERT_TRUE(source.ok()) << source.error().toString();
  ASSERT_EQ(source->size(), 3);
  for (int s = 0; s < 3; ++s) {
    Result<std::vector<OwnedTensor>> sample = source->get(s);
    ASSERT_TRUE(sample.ok());
    EXPECT_EQ(firstFloat((*sample)[0]), 100.0f * s);
    Result<std::vector<OwnedTensor>> want = source->expected(s);
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(firstFloat((*want)[0]), -1.0f * s);
  }
}

TEST(SampleSourceTest, FolderOfSampleFiles) {
  TempDir dirOwner;
  const std::string &dir = dirOwner.path;
  writePb(dir + "/a.pb", f32Tensor({4}, 1));
  ASSERT_TRUE(
      writeFileAtomic(dir + "/b.npy", serializeNpy(f32Tensor({2, 2}, 5).view()))
          .ok());
  ASSERT_TRUE(writeFileAtomic(dir + "/notes.txt", "ignored").ok());
  Result<SampleSource> source = SampleSource::open(dir, {{DType::F32, {1, 4}}});
  ASSERT_TRUE(source.ok()) << source.error().toString();
  ASSERT_EQ(source->size(), 2);
  Result<std::vector<OwnedTensor>> b = source->get(1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(firstFloat((*b)[0]), 5.0f);
  EXPECT_FALSE(source->hasExpected(0));
  // Loose files feed single-input models only.
  Result<SampleSource> two =
      SampleSource::open(dir, {{DType::F32, {4}}, {DType::F32, {4}}});
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message().find("a.pb' can feed only single-input"),
            std::string::npos);
}

TEST(SampleSourceTest, StackedNpy) {
  TempDir dirOwner;
  const std::string &dir = dirOwner.path;
  std::string path = dir + "/stack.npy";
  ASSERT_TRUE(
      writeFileAtomic(path, serializeNpy(f32Tensor({3, 2, 2}, 0).view())).ok());
  Result<SampleSource> source =
      SampleSource::open(path, {{DType::F32, {1, 4}}});
  ASSERT_TRUE(source.ok()) << source.error().toString();
  ASSERT_EQ(source->size(), 3);
  Result<std::vector<OwnedTensor>> row = source->get(2);
  ASSERT_TRUE(row.ok());
  EXPECT_EQ((*row)[0].shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(firstFloat((*row)[0]), 8.0f);
  EXPECT_TRUE(source->inputFiles(2).empty());
  // Rows of another size fail naming the file and both layouts.
  Result<SampleSource> wrong = SampleSource::open(path, {{DType::F32, {5}}});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.error().message(),
            path + ": expected one sample per leading index, each 5 f32 (the "
                   "model input), got f32 [3, 2, 2]");
  Result<SampleSource> two =
      SampleSource::open(path, {{DType::F32, {4}}, {DType::F32, {4}}});
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message().find(path + ": a .npy of stacked samples"),
            std::string::npos);
}

TEST(SampleSourceTest, SingleFileAndGivenFiles) {
  TempDir dirOwner;
  const std::string &dir = dirOwner.path;
  writePb(dir + "/x.pb", f32Tensor({6}, 3));
  Result<SampleSource> source =
      SampleSource::open(dir + "/x.pb", {{DType::F32, {2, 3}}});
  ASSERT_TRUE(source.ok());
  ASSERT_EQ(source->size(), 1);
  Result<std::vector<OwnedTensor>> sample = source->get(0);
  ASSERT_TRUE(sample.ok());
  EXPECT_EQ((*sample)[0].shape, (std::vector<int64_t>{2, 3}));

  SampleSource given =
      SampleSource::fromFiles({dir + "/x.pb", dir + "/x.pb"}, {});
  sample = given.get(0);
  ASSERT_TRUE(sample.ok());
  EXPECT_EQ(sample->size(), 2u);
}

TEST(SampleSourceTest, ErrorsNameTheFileAndField) {
  TempDir dirOwner;
  const std::string &dir = dirOwner.path;
  Result<SampleSource> missing = SampleSource::open(dir + "/nope", {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message(),
            "cannot read '" + dir + "/nope': no such file or folder");

  // A gap in the numbering.
  writePb(dir + "/input_0.pb", f32Tensor({2}, 0));
  writePb(dir + "/input_2.pb", f32Tensor({2}, 0));
  Result<SampleSource> gap = SampleSource::open(dir, {});
  ASSERT_FALSE(gap.ok());
  EXPECT_EQ(gap.error().message(), dir + ": input_1.pb is missing");

  // Fewer files than the model has inputs.
  TempDir setOwner;
  const std::string &set = setOwner.path;
  writePb(set + "/input_0.pb", f32Tensor({2}, 0));
  Result<SampleSource> few =
      SampleSource::open(set, {{DType::F32, {2}}, {DType::F32, {2}}});
  ASSERT_FALSE(few.ok());
  EXPECT_NE(few.error().message().find(set + ": input_1.pb is missing"),
            std::string::npos);

  // The wrong element type or count, found when the sample is read.
  Result<SampleSource> typed = SampleSource::open(set, {{DType::I64, {2}}});
  ASSERT_TRUE(typed.ok());
  Result<std::vector<OwnedTensor>> read = typed->get(0);
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.error().message(),
            set + "/input_0.pb: a sample must have the model input's type "
                  "and element count (2 i64), got 2 f32");

  // A damaged file.
  ASSERT_TRUE(writeFileAtomic(set + "/input_0.pb", "\x0a\xff").ok());
  read = SampleSource::open(set, {})->get(0);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message().find(set + "/input_0.pb"),
            std::string::npos);

  // No folder.
  Result<SampleSource> nodir = SampleSource::openTestDataSet(dir + "/x", {});
  ASSERT_FALSE(nodir.ok());
  EXPECT_NE(nodir.error().message().find(dir + "/x: cannot open folder"),
            std::string::npos);
}

} // namespace
