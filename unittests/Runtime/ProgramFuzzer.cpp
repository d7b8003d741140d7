//===- ProgramFuzzer.cpp - libFuzzer target for Program::load -------------===//
//
// Loads arbitrary bytes as a program (both verification levels); whatever
// loads has every method loaded and executed, a method with dynamic
// dimensions also at input shapes drawn from the bytes (refused or run),
// with input values drawn from the bytes too (the counts of value-dependent
// extents, indices, NaNs: each refused by its kernel or run). Built
// with ASan/UBSan by scripts/check-sanitizers.sh, which runs it on a seed
// corpus of emitted programs.
//
//===----------------------------------------------------------------------===//
#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Program.h"

#include <cstring>
#include <vector>

using namespace strata::runtime;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Program buffers are read in place: give them the alignment a mapping
  // or FileDataLoader would.
  std::vector<uint64_t> aligned((size + 7) / 8);
  if (size)
    std::memcpy(aligned.data(), data, size);
  BufferDataLoader loader(aligned.data(), size);
  for (Verification level : {Verification::Minimal, Verification::Full}) {
    Result<Program> program = Program::load(loader, level);
    if (!program.ok())
      continue;
    for (size_t i = 0; i < program->constantCount(); ++i)
      (void)program->constant(i);
    for (size_t i = 0; i < program->methodCount(); ++i) {
      Result<Method> method = program->loadMethod(program->methodName(i));
      if (!method.ok())
        continue;
      (void)method->execute();
      if (!method->isDynamic())
        continue;
      // Shapes from the input bytes, in or out of bounds: each refused by
      // setInputShape or execute, or run.
      size_t next = 0;
      for (int round = 0; round < 2; ++round) {
        for (size_t k = 0; k < method->inputCount(); ++k) {
          Result<TensorView> view = method->input(k);
          if (!view.ok())
            continue;
          std::vector<int64_t> shape = view->shape;
          for (int64_t &extent : shape)
            extent = size ? data[next++ % size] % (extent + 2) : extent;
          (void)method->setInputShape(k, shape);
          // Values from the bytes, written in place at the shape set.
          Result<TensorView> written = method->input(k);
          if (!written.ok() || !size)
            continue;
          auto *bytes = static_cast<uint8_t *>(written->data);
          for (size_t b = 0; b < written->nbytes(); ++b)
            bytes[b] = data[next++ % size];
        }
        (void)method->execute();
      }
    }
  }
  return 0;
}
