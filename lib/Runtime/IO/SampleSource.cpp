//===- SampleSource.cpp - input samples from files or seeded random draws -===//
#include "strata/Runtime/SampleSource.h"

#include "strata/Runtime/HalfFloat.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <random>
#include <sys/stat.h>

namespace strata::runtime {

//===----------------------------------------------------------------------===//
// Random samples
//===----------------------------------------------------------------------===//

RandomDistribution RandomDistribution::runDefault() {
  RandomDistribution dist;
  dist.integerDraw = IntegerDraw::Uniform;
  dist.intLo = -8;
  dist.intHi = 9;
  dist.boolLo = -8;
  dist.boolHi = 9;
  return dist;
}

RandomDistribution RandomDistribution::calibrationDefault() {
  RandomDistribution dist;
  dist.a = 0.0;
  return dist;
}

static std::string formatNumber(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

std::string RandomDistribution::describe() const {
  std::string text =
      floats == Floats::Uniform
          ? "floats uniform in [" + formatNumber(a) + ", " + formatNumber(b) +
                ")"
          : "floats N(" + formatNumber(a) + ", " + formatNumber(b) + ")";
  return text + ", integers in [" + std::to_string(intLo) + ", " +
         std::to_string(intHi) + "), booleans from [" + std::to_string(boolLo) +
         ", " + std::to_string(boolHi) + ") > 0";
}

static bool startsWith(const std::string &text, const std::string &prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool isRandomSpec(const std::string &text) {
  return text == "random" || startsWith(text, "random-uniform") ||
         startsWith(text, "random-normal");
}

/// Parses "P,Q" into two numbers.
static bool parsePair(const std::string &text, double &p, double &q) {
  size_t comma = text.find(',');
  if (comma == std::string::npos)
    return false;
  std::string first = text.substr(0, comma), second = text.substr(comma + 1);
  char *end = nullptr;
  p = std::strtod(first.c_str(), &end);
  if (first.empty() || *end)
    return false;
  q = std::strtod(second.c_str(), &end);
  return !second.empty() && !*end;
}

Result<RandomDistribution> parseRandomSpec(const std::string &text,
                                           const RandomDistribution &defaults) {
  if (text == "random")
    return defaults;
  RandomDistribution dist = defaults;
  std::string kind = text.substr(0, text.find(':'));
  bool hasParams = kind.size() < text.size();
  dist.a = 0.0;
  dist.b = 1.0;
  if (kind == "random-uniform")
    dist.floats = RandomDistribution::Floats::Uniform;
  else if (kind == "random-normal")
    dist.floats = RandomDistribution::Floats::Normal;
  else
    return Error(ErrorCode::InvalidArgument,
                 "'" + text +
                     "': not a random spec (random, random-uniform[:LO,HI] "
                     "or random-normal[:MEAN,STD])");
  if (!hasParams)
    return dist;
  bool uniform = dist.floats == RandomDistribution::Floats::Uniform;
  // The draws are in float: the bounds must hold as floats too (finite,
  // ordered, a finite width; a positive deviation).
  auto valid = [&] {
    float a = static_cast<float>(dist.a), b = static_cast<float>(dist.b);
    if (!std::isfinite(a) || !std::isfinite(b))
      return false;
    return uniform ? a < b && std::isfinite(b - a) : b > 0;
  };
  if (!parsePair(text.substr(kind.size() + 1), dist.a, dist.b) || !valid())
    return Error(ErrorCode::InvalidArgument,
                 "'" + text + "': expected " +
                     (uniform ? "random-uniform:LO,HI with numbers LO < HI"
                              : "random-normal:MEAN,STD with STD > 0"));
  return dist;
}

namespace {

/// Draws elements of one sample; one generator for all of its inputs.
class RandomWriter {
public:
  RandomWriter(const RandomDistribution &dist, uint64_t seed)
      : dist(dist), rng(seed) {
    // Each parameter pair is checked by parseRandomSpec for its own kind.
    auto a = static_cast<float>(dist.a), b = static_cast<float>(dist.b);
    if (dist.floats == RandomDistribution::Floats::Normal)
      normal = std::normal_distribution<float>(a, b);
    else
      uniform = std::uniform_real_distribution<float>(a, b);
  }

  /// Writes one element of `dtype` at `at`, every byte of it.
  void write(DType dtype, uint8_t *at) {
    auto store = [at](auto value) { std::memcpy(at, &value, sizeof(value)); };
    int64_t lo = dist.intLo, hi = dist.intHi;
    // Unsigned types: the range shifted to start at 0.
    int64_t shift = lo < 0 ? -lo : 0;
    switch (dtype) {
    case DType::F32:
      return store(real());
    case DType::F64:
      return store(static_cast<double>(real()));
    case DType::F16:
      return store(floatToHalf(real()));
    case DType::BF16:
      return store(floatToBFloat16(real()));
    case DType::Bool:
      return store(static_cast<uint8_t>(integer(dist.boolLo, dist.boolHi) > 0));
    case DType::I8:
      return store(static_cast<int8_t>(integer(lo, hi)));
    case DType::I16:
      return store(static_cast<int16_t>(integer(lo, hi)));
    case DType::I32:
      return store(static_cast<int32_t>(integer(lo, hi)));
    case DType::I64:
      return store(static_cast<int64_t>(integer(lo, hi)));
    case DType::U8:
      return store(static_cast<uint8_t>(integer(lo + shift, hi + shift)));
    case DType::U16:
      return store(static_cast<uint16_t>(integer(lo + shift, hi + shift)));
    case DType::U32:
      return store(static_cast<uint32_t>(integer(lo + shift, hi + shift)));
    case DType::U64:
      return store(static_cast<uint64_t>(integer(lo + shift, hi + shift)));
    }
  }

private:
  float real() {
    return dist.floats == RandomDistribution::Floats::Normal ? normal(rng)
                                                             : uniform(rng);
  }
  /// An integer in [lo, hi) (lo when the range is empty).
  int64_t integer(int64_t lo, int64_t hi) {
    if (hi <= lo)
      return lo;
    if (dist.integerDraw == RandomDistribution::IntegerDraw::Modulo)
      return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
    return std::uniform_int_distribution<int64_t>(lo, hi - 1)(rng);
  }

  const RandomDistribution &dist;
  std::mt19937_64 rng;
  std::uniform_real_distribution<float> uniform{0.0f, 1.0f};
  std::normal_distribution<float> normal{0.0f, 1.0f};
};

} // namespace

std::vector<OwnedTensor> makeRandomSample(const std::vector<InputSpec> &specs,
                                          const RandomDistribution &dist,
                                          uint64_t seed, int64_t index) {
  RandomWriter writer(dist, seed + static_cast<uint64_t>(index));
  std::vector<OwnedTensor> sample;
  for (const InputSpec &spec : specs) {
    OwnedTensor tensor;
    tensor.dtype = spec.dtype;
    tensor.shape = spec.shape;
    size_t size = dtypeSize(spec.dtype);
    tensor.bytes.resize(spec.numel() * size);
    for (int64_t e = 0, n = spec.numel(); e < n; ++e)
      writer.write(spec.dtype, tensor.bytes.data() + e * size);
    sample.push_back(std::move(tensor));
  }
  return sample;
}

//===----------------------------------------------------------------------===//
// Files and folders
//===----------------------------------------------------------------------===//

namespace {

bool isDirectory(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool exists(const std::string &path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0;
}

bool endsWith(const std::string &text, const std::string &suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// The entries of `dir` (without . and ..), sorted by name.
Result<std::vector<std::string>> listFolder(const std::string &dir) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return Error(ErrorCode::IOError,
                 dir + ": cannot open folder: " + std::strerror(errno));
  std::vector<std::string> names;
  while (dirent *entry = ::readdir(d)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..")
      names.push_back(name);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

/// Files `prefix<N>.pb` of `dir`, ordered by N; fails on a gap.
Result<std::vector<std::string>>
numberedFiles(const std::string &dir, const std::vector<std::string> &names,
              const std::string &prefix) {
  std::vector<std::pair<long, std::string>> found;
  for (const std::string &name : names) {
    if (name.size() <= prefix.size() + 3 || !startsWith(name, prefix) ||
        !endsWith(name, ".pb"))
      continue;
    std::string digits =
        name.substr(prefix.size(), name.size() - prefix.size() - 3);
    if (digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    found.emplace_back(std::atol(digits.c_str()), dir + "/" + name);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> files;
  for (size_t i = 0; i < found.size(); ++i) {
    if (found[i].first != static_cast<long>(i))
      return Error(ErrorCode::InvalidArgument,
                   dir + ": " + prefix + std::to_string(i) + ".pb is missing");
    files.push_back(found[i].second);
  }
  return files;
}

std::string describeSpec(const InputSpec &spec) {
  return std::to_string(spec.numel()) + " " + dtypeName(spec.dtype);
}

} // namespace

Result<SampleSource>
SampleSource::openTestDataSet(const std::string &dir,
                              std::vector<InputSpec> specs) {
  STRATA_ASSIGN_OR_RETURN(std::vector<std::string> names, listFolder(dir));
  FileSample sample;
  STRATA_ASSIGN_OR_RETURN(sample.inputs, numberedFiles(dir, names, "input_"));
  STRATA_ASSIGN_OR_RETURN(sample.outputs, numberedFiles(dir, names, "output_"));
  if (!specs.empty() && sample.inputs.size() < specs.size())
    return Error(ErrorCode::InvalidArgument,
                 dir + ": input_" + std::to_string(sample.inputs.size()) +
                     ".pb is missing (" + std::to_string(specs.size()) +
                     " inputs)");
  if (!specs.empty() && sample.inputs.size() > specs.size())
    return Error(ErrorCode::InvalidArgument,
                 dir + ": " + std::to_string(sample.inputs.size()) +
                     " input_N.pb files, the model takes " +
                     std::to_string(specs.size()) + " inputs");
  SampleSource source;
  source.specs = std::move(specs);
  source.files.push_back(std::move(sample));
  return source;
}

SampleSource SampleSource::fromFiles(std::vector<std::string> files,
                                     std::vector<InputSpec> specs) {
  SampleSource source;
  source.specs = std::move(specs);
  source.files.push_back({std::move(files), {}});
  return source;
}

SampleSource SampleSource::random(std::vector<InputSpec> specs,
                                  const RandomDistribution &dist, uint64_t seed,
                                  int64_t samples) {
  SampleSource source;
  source.kind = Kind::Random;
  source.specs = std::move(specs);
  source.dist = dist;
  source.seed = seed;
  source.randomSamples = samples;
  return source;
}

Result<SampleSource> SampleSource::open(const std::string &path,
                                        std::vector<InputSpec> specs,
                                        const SampleSourceOptions &options) {
  if (isRandomSpec(path)) {
    STRATA_ASSIGN_OR_RETURN(RandomDistribution dist,
                            parseRandomSpec(path, options.random));
    return random(std::move(specs), dist, options.seed, options.randomSamples);
  }
  if (!exists(path))
    return Error(ErrorCode::NotFound,
                 "cannot read '" + path + "': no such file or folder");
  SampleSource source;
  source.specs = std::move(specs);
  if (isDirectory(path)) {
    if (exists(path + "/input_0.pb") || exists(path + "/output_0.pb"))
      return openTestDataSet(path, std::move(source.specs));
    STRATA_RETURN_IF_ERROR(source.openFolder(path));
  } else if (endsWith(path, ".npy")) {
    STRATA_RETURN_IF_ERROR(source.openNpy(path));
  } else {
    source.files.push_back({{path}, {}});
  }
  return source;
}

Error SampleSource::openFolder(const std::string &path) {
  STRATA_ASSIGN_OR_RETURN(std::vector<std::string> names, listFolder(path));
  for (const std::string &name : names) {
    std::string entry = path + "/" + name;
    if (isDirectory(entry)) {
      STRATA_ASSIGN_OR_RETURN(SampleSource set, openTestDataSet(entry, specs));
      files.push_back(std::move(set.files.front()));
    } else if (endsWith(name, ".pb") || endsWith(name, ".npy")) {
      if (specs.size() != 1)
        return Error(ErrorCode::InvalidArgument,
                     "sample file '" + entry +
                         "' can feed only single-input models; use one "
                         "folder per sample with input_N.pb");
      files.push_back({{entry}, {}});
    }
  }
  if (files.empty())
    return Error(ErrorCode::NotFound,
                 "no samples (.pb, .npy or sample folders) in '" + path + "'");
  return Error::success();
}

Error SampleSource::openNpy(const std::string &path) {
  if (specs.size() != 1)
    return Error(ErrorCode::InvalidArgument,
                 path +
                     ": a .npy of stacked samples feeds single-input "
                     "models; this one has " +
                     std::to_string(specs.size()) +
                     " inputs (use a folder of test_data_set-style folders)");
  STRATA_ASSIGN_OR_RETURN(std::unique_ptr<MmapDataLoader> loader,
                          MmapDataLoader::open(path));
  STRATA_ASSIGN_OR_RETURN(ByteSpan bytes, loader->load(0, loader->size()));
  STRATA_ASSIGN_OR_RETURN(
      NpyLayout layout,
      parseNpyHeader(reinterpret_cast<const char *>(bytes.data), bytes.size,
                     path));
  const InputSpec &spec = specs[0];
  int64_t per = 1;
  for (size_t d = 1; d < layout.shape.size(); ++d)
    per *= layout.shape[d];
  if (layout.shape.empty() || layout.dtype != spec.dtype || per != spec.numel())
    return Error(ErrorCode::InvalidArgument,
                 path + ": expected one sample per leading index, each " +
                     describeSpec(spec) + " (the model input), got " +
                     dtypeName(layout.dtype) + " " +
                     shapeToString(layout.shape));
  kind = Kind::Npy;
  npy = std::move(loader);
  npyData = bytes.data + layout.dataOffset;
  npySamples = layout.shape[0];
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Reading samples
//===----------------------------------------------------------------------===//

int64_t SampleSource::size() const {
  switch (kind) {
  case Kind::Random:
    return randomSamples;
  case Kind::Npy:
    return npySamples;
  case Kind::Files:
    break;
  }
  return static_cast<int64_t>(files.size());
}

Result<OwnedTensor> SampleSource::readInput(const std::string &file,
                                            size_t input) const {
  STRATA_ASSIGN_OR_RETURN(OwnedTensor tensor, readTensorFile(file));
  if (specs.empty())
    return tensor;
  if (input >= specs.size())
    return Error(ErrorCode::InvalidArgument,
                 file + ": input " + std::to_string(input) +
                     " given, the model takes " + std::to_string(specs.size()) +
                     " inputs");
  const InputSpec &spec = specs[input];
  if (tensor.dtype != spec.dtype || tensor.view().numel() != spec.numel())
    return Error(ErrorCode::InvalidArgument,
                 file +
                     ": a sample must have the model input's type and "
                     "element count (" +
                     describeSpec(spec) + "), got " +
                     std::to_string(tensor.view().numel()) + " " +
                     dtypeName(tensor.dtype));
  tensor.shape = spec.shape;
  return tensor;
}

Result<std::vector<OwnedTensor>> SampleSource::get(int64_t index) const {
  if (index < 0 || index >= size())
    return Error(ErrorCode::InvalidArgument, "sample " + std::to_string(index) +
                                                 " of " +
                                                 std::to_string(size()));
  if (kind == Kind::Random)
    return makeRandomSample(specs, dist, seed, index);
  std::vector<OwnedTensor> sample;
  if (kind == Kind::Npy) {
    const InputSpec &spec = specs[0];
    OwnedTensor tensor;
    tensor.dtype = spec.dtype;
    tensor.shape = spec.shape;
    size_t bytes = spec.numel() * dtypeSize(spec.dtype);
    const uint8_t *data = npyData + index * bytes;
    tensor.bytes.assign(data, data + bytes);
    sample.push_back(std::move(tensor));
    return sample;
  }
  const std::vector<std::string> &inputs = files[index].inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(OwnedTensor tensor, readInput(inputs[i], i));
    sample.push_back(std::move(tensor));
  }
  return sample;
}

bool SampleSource::hasExpected(int64_t index) const {
  return kind == Kind::Files && index >= 0 && index < size() &&
         !files[index].outputs.empty();
}

Result<std::vector<OwnedTensor>> SampleSource::expected(int64_t index) const {
  std::vector<OwnedTensor> outputs;
  if (!hasExpected(index))
    return outputs;
  for (const std::string &file : files[index].outputs) {
    STRATA_ASSIGN_OR_RETURN(OwnedTensor tensor, readTensorFile(file));
    outputs.push_back(std::move(tensor));
  }
  return outputs;
}

std::vector<std::string> SampleSource::inputFiles(int64_t index) const {
  if (kind != Kind::Files || index < 0 || index >= size())
    return {};
  return files[index].inputs;
}

} // namespace strata::runtime
