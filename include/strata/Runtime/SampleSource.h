//===- SampleSource.h - input samples from files or seeded random draws -*- C++ -*-===//
//
// The one place that turns "where the inputs come from" into input tensors,
// for strata-run, the conformance runner, strata-compile --verify and
// calibration (library StrataRuntimeIO: no MLIR, no LLVM). A source is
//
//   - a test_data_set folder (input_N.pb, and output_N.pb: expected outputs),
//     one sample;
//   - a folder of samples: test_data_set-style sub-folders, or .pb/.npy files
//     (one tensor each, single-input models), in name order;
//   - a .npy of stacked samples (one per leading index, single-input models);
//   - a single .pb file (one sample of a single-input model);
//   - given files, one per input (one sample);
//   - seeded random samples with a stated distribution (RandomDistribution),
//     named on command lines by a random spec: `random`, `random-uniform`,
//     `random-uniform:LO,HI`, `random-normal`, `random-normal:MEAN,STD`.
//
// Samples are read when asked for (`get`), so a large folder or .npy costs
// nothing up front; a .npy is mapped, not copied.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_SAMPLESOURCE_H
#define STRATA_RUNTIME_SAMPLESOURCE_H

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Error.h"
#include "strata/Runtime/TensorIO.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace strata::runtime {

/// The element type and shape one input of a sample must have.
struct InputSpec {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;

  /// The number of elements of `shape`.
  int64_t numel() const { return numElements(shape); }
};

/// How the elements of a random sample are drawn. Every element of every
/// type is written whole (all eight bytes of an f64, both of an f16).
///
/// Sample `i` draws from a std::mt19937_64 seeded with `seed + i`, one draw
/// per element, inputs in order and elements in order, so a sample depends
/// only on (distribution, seed, i).
struct RandomDistribution {
  /// The distribution of floating-point elements (f32, f64, f16, bf16):
  /// drawn as f32, then rounded to the element type.
  enum class Floats {
    /// Uniform in [a, b).
    Uniform,
    /// Normal with mean a and standard deviation b.
    Normal,
  };
  /// How an integer in [lo, hi) is drawn from the 64-bit generator.
  enum class IntegerDraw {
    /// lo + (draw mod (hi - lo)).
    Modulo,
    /// std::uniform_int_distribution (exactly uniform).
    Uniform,
  };

  Floats floats = Floats::Uniform;
  /// The floating-point parameters (see Floats).
  double a = -1.0, b = 1.0;
  IntegerDraw integerDraw = IntegerDraw::Modulo;
  /// Integers in [intLo, intHi); unsigned types take the range shifted up by
  /// -intLo when intLo is negative (so that it starts at 0).
  int64_t intLo = 0, intHi = 10;
  /// Booleans: true where an integer drawn in [boolLo, boolHi) is positive.
  int64_t boolLo = 0, boolHi = 2;

  /// strata-compile --verify's inputs: floats uniform in [-1, 1), integers
  /// in [0, 10) (valid indices and counts for most models), booleans 0 or 1
  /// with equal odds; integers by Modulo.
  static RandomDistribution verifyDefault() { return {}; }
  /// strata-run's inputs: floats uniform in [-1, 1); integers uniform in
  /// [-8, 8] (unsigned: [0, 16]); booleans true where a draw in [-8, 8] is
  /// positive (odds 8 in 17).
  static RandomDistribution runDefault();
  /// Calibration's `random`: floats uniform in [0, 1) (image-like data),
  /// integers in [0, 10), booleans 0 or 1; integers by Modulo.
  static RandomDistribution calibrationDefault();
  /// A one-line statement of the distribution (for messages and reports).
  std::string describe() const;
};

/// Whether `text` names random samples rather than a path: `random`, or
/// `random-uniform` / `random-normal`, optionally with `:P,Q`.
bool isRandomSpec(const std::string &text);

/// Parses a random spec. `random` is `defaults`; `random-uniform` is uniform
/// in [0, 1) and `random-uniform:LO,HI` in [LO, HI); `random-normal` is
/// N(0, 1) and `random-normal:MEAN,STD` N(MEAN, STD). Integers and booleans
/// keep `defaults`' ranges. Fails naming the spec and what was expected.
Result<RandomDistribution> parseRandomSpec(const std::string &text,
                                           const RandomDistribution &defaults);

/// Writes the inputs of random sample `index` (see RandomDistribution).
std::vector<OwnedTensor> makeRandomSample(const std::vector<InputSpec> &specs,
                                          const RandomDistribution &dist,
                                          uint64_t seed, int64_t index);

/// How SampleSource::open reads a random spec.
struct SampleSourceOptions {
  /// What `random` means for this user.
  RandomDistribution random;
  /// Seed of random samples (sample i draws from seed + i).
  uint64_t seed = 0;
  /// How many random samples there are.
  int64_t randomSamples = 1;
};

/// Input samples, read one at a time. Where the source was given input specs,
/// every tensor read from a file must have its spec's element type and
/// element count and is given the spec's shape; without specs (an empty
/// list) file tensors are returned as they are stored.
class SampleSource {
public:
  /// Opens `path` (see the file comment for the forms) for inputs `specs`.
  /// Fails naming the path (and the file and field at fault).
  static Result<SampleSource> open(const std::string &path,
                                   std::vector<InputSpec> specs,
                                   const SampleSourceOptions &options = {});
  /// One test_data_set folder: input_0.pb ... and output_0.pb ..., numbered
  /// without gaps (either list may be empty).
  static Result<SampleSource> openTestDataSet(const std::string &dir,
                                              std::vector<InputSpec> specs);
  /// One sample made of `files`, one per input (.pb or .npy).
  static SampleSource fromFiles(std::vector<std::string> files,
                                std::vector<InputSpec> specs);
  /// `samples` random samples of `specs` (see RandomDistribution).
  static SampleSource random(std::vector<InputSpec> specs,
                             const RandomDistribution &dist, uint64_t seed,
                             int64_t samples);

  /// The number of samples.
  int64_t size() const;
  /// The inputs of sample `index` (0 <= index < size()).
  Result<std::vector<OwnedTensor>> get(int64_t index) const;
  /// Whether sample `index` has expected outputs (test_data_set output_N.pb).
  bool hasExpected(int64_t index) const;
  /// The expected outputs of sample `index` (empty when it has none).
  Result<std::vector<OwnedTensor>> expected(int64_t index) const;
  /// The files of sample `index`'s inputs (empty for .npy rows and random
  /// samples): what messages about an input name.
  std::vector<std::string> inputFiles(int64_t index) const;
  /// Whether the samples are random draws.
  bool isRandom() const { return kind == Kind::Random; }

private:
  enum class Kind { Files, Npy, Random };
  /// One sample read from files.
  struct FileSample {
    std::vector<std::string> inputs;
    std::vector<std::string> outputs;
  };

  SampleSource() = default;
  Error openFolder(const std::string &path);
  Error openNpy(const std::string &path);
  Result<OwnedTensor> readInput(const std::string &file, size_t input) const;

  Kind kind = Kind::Files;
  std::vector<InputSpec> specs;
  std::vector<FileSample> files;
  std::shared_ptr<MmapDataLoader> npy;
  const uint8_t *npyData = nullptr;
  int64_t npySamples = 0;
  RandomDistribution dist;
  uint64_t seed = 0;
  int64_t randomSamples = 0;
};

} // namespace strata::runtime

#endif // STRATA_RUNTIME_SAMPLESOURCE_H
