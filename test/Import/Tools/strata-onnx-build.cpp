//===- strata-onnx-build.cpp - text ModelProto to binary .onnx (tests) ----===//
//
// Test-only: `strata-onnx-build in.textproto -o out.onnx [--truncate N]`
// parses an ONNX ModelProto in protobuf text format and writes it in binary,
// optionally cut to its first N bytes (to test truncated files).
//
//===----------------------------------------------------------------------===//
#include "onnx/onnx_pb.h"

#include <google/protobuf/text_format.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char **argv) {
  const char *input = nullptr, *output = nullptr;
  long truncate = -1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "-o") && i + 1 < argc)
      output = argv[++i];
    else if (!std::strcmp(argv[i], "--truncate") && i + 1 < argc)
      truncate = std::atol(argv[++i]);
    else
      input = argv[i];
  }
  if (!input || !output) {
    std::cerr << "usage: strata-onnx-build in.textproto -o out.onnx "
                 "[--truncate N]\n";
    return 2;
  }
  std::ifstream in(input);
  std::stringstream text;
  text << in.rdbuf();
  onnx::ModelProto model;
  if (!in ||
      !google::protobuf::TextFormat::ParseFromString(text.str(), &model)) {
    std::cerr << "strata-onnx-build: cannot parse " << input << "\n";
    return 1;
  }
  std::string bytes = model.SerializeAsString();
  if (truncate >= 0 && static_cast<size_t>(truncate) < bytes.size())
    bytes.resize(truncate);
  std::ofstream out(output, std::ios::binary);
  out.write(bytes.data(), bytes.size());
  return out ? 0 : 1;
}
