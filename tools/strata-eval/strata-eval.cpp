//===- strata-eval.cpp - classification accuracy of a .strata program -----===//
//
// strata-eval model.strata --images images.npy --labels labels.npy
// Runs the program once per sample (the leading dimension of images.npy is
// the sample index; each sample must have the method input's shape without
// it, or with a leading 1), takes the argmax of output 0 and prints the
// accuracy. Runtime only: no MLIR.
//
//===----------------------------------------------------------------------===//
#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Delegates/Linked.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Program.h"
#include "strata/Runtime/TensorIO.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace strata::runtime;

static int fail(const std::string &message) {
  std::fprintf(stderr, "strata-eval: %s\n", message.c_str());
  return 1;
}

int main(int argc, char **argv) {
  std::string programPath, imagesPath, labelsPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--images" && i + 1 < argc)
      imagesPath = argv[++i];
    else if (arg == "--labels" && i + 1 < argc)
      labelsPath = argv[++i];
    else if (!arg.empty() && arg[0] != '-' && programPath.empty())
      programPath = arg;
    else
      return fail("usage: strata-eval MODEL.strata --images X.npy "
                  "--labels Y.npy");
  }
  if (programPath.empty() || imagesPath.empty() || labelsPath.empty())
    return fail("usage: strata-eval MODEL.strata --images X.npy --labels Y.npy");

  auto loader = MmapDataLoader::open(programPath);
  if (!loader.ok())
    return fail(loader.error().toString());
  auto program = Program::load(**loader, Verification::Full);
  if (!program.ok())
    return fail(program.error().toString());
  // The delegates this runtime links (a program compiled with
  // --backend onednn or xnnpack needs its delegate).
  BackendRegistry delegates;
  if (Error e = registerLinkedDelegates(delegates); !e.ok())
    return fail(e.toString());
  auto method = program->loadMethod(program->methodName(0),
                                    &portableKernelRegistry(), &delegates);
  if (!method.ok())
    return fail(method.error().toString());
  auto images = readTensorFile(imagesPath);
  auto labels = readTensorFile(labelsPath);
  if (!images.ok())
    return fail(images.error().toString());
  if (!labels.ok())
    return fail(labels.error().toString());
  if (labels->dtype != DType::I64 || labels->shape.size() != 1)
    return fail(labelsPath + ": labels must be a 1-d int64 array");
  auto input = method->input(0);
  if (!input.ok())
    return fail(input.error().toString());
  int64_t samples = labels->shape[0];
  if (images->shape.empty() || images->shape[0] != samples ||
      images->dtype != input->dtype)
    return fail(imagesPath + ": expected " + std::to_string(samples) +
                " samples of " + input->typeString() + ", got " +
                dtypeName(images->dtype) + shapeToString(images->shape));
  size_t sampleBytes = images->bytes.size() / samples;
  if (sampleBytes != input->nbytes())
    return fail(imagesPath + ": a sample has " + std::to_string(sampleBytes) +
                " bytes, the program's input " + input->typeString() +
                " needs " + std::to_string(input->nbytes()));

  const int64_t *expected = reinterpret_cast<const int64_t *>(labels->bytes.data());
  int64_t correct = 0;
  for (int64_t s = 0; s < samples; ++s) {
    std::memcpy(input->data, images->bytes.data() + s * sampleBytes,
                sampleBytes);
    if (Error error = method->execute())
      return fail("sample " + std::to_string(s) + ": " + error.toString());
    auto output = method->output(0);
    if (!output.ok() || output->dtype != DType::F32 || output->numel() == 0)
      return fail("output 0 must be a non-empty f32 tensor of scores");
    const float *scores = output->as<float>();
    int64_t best = 0;
    for (int64_t c = 1; c < output->numel(); ++c)
      if (scores[c] > scores[best])
        best = c;
    correct += best == expected[s];
  }
  std::printf("accuracy: %.5f (%lld/%lld)\n", double(correct) / samples,
              static_cast<long long>(correct), static_cast<long long>(samples));
  return 0;
}
