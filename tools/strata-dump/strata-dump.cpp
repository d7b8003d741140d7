//===- strata-dump.cpp - list the contents of a .strata program -----------===//
//
// strata-dump [--json] model.strata
// Verifies the program fully, then prints a readable listing (or JSON).
//
//===----------------------------------------------------------------------===//
#include "Dump.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Delegates/Linked.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace strata::runtime;

int main(int argc, char **argv) {
  bool json = false;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--json") == 0) {
      json = true;
    } else if (std::strcmp(argv[i], "--help") == 0 ||
               std::strcmp(argv[i], "-h") == 0) {
      std::printf("usage: strata-dump [--json] model.strata\n");
      return 0;
    } else if (argv[i][0] == '-' || !path.empty()) {
      std::fprintf(stderr, "strata-dump: unexpected argument '%s'\n", argv[i]);
      return 2;
    } else {
      path = argv[i];
    }
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: strata-dump [--json] model.strata\n");
    return 2;
  }
  Result<std::unique_ptr<MmapDataLoader>> loader = MmapDataLoader::open(path);
  if (!loader.ok()) {
    std::fprintf(stderr, "strata-dump: %s\n",
                 loader.error().toString().c_str());
    return 1;
  }
  Result<Program> program = Program::load(**loader, Verification::Full);
  if (!program.ok()) {
    std::fprintf(stderr, "strata-dump: %s\n",
                 program.error().toString().c_str());
    return 1;
  }
  // The delegates this tool knows describe their blobs op by op.
  BackendRegistry backends;
  if (Error e = registerLinkedDelegates(backends); !e.ok()) {
    std::fprintf(stderr, "strata-dump: %s\n", e.toString().c_str());
    return 1;
  }
  std::string text =
      json ? strata::tools::dumpJson(*program, (*loader)->size())
           : strata::tools::dumpText(*program, (*loader)->size(), &backends);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}
