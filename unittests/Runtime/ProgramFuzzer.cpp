//===- ProgramFuzzer.cpp - libFuzzer target for Program::load -------------===//
//
// Loads arbitrary bytes as a program (both verification levels); whatever
// loads has every method loaded and executed. Built with ASan/UBSan by
// scripts/check-sanitizers.sh, which runs it on a seed corpus of
// emitted programs.
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
      if (method.ok())
        (void)method->execute();
    }
  }
  return 0;
}
