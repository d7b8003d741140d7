//===- FuzzSeeds.cpp - write seed programs for the fuzzer
//------------------===//
//
// strata-fuzz-seeds DIR: writes programs made with TestProgramBuilder (no
// MLIR needed) into DIR; the sanitizer script adds programs emitted by
// strata-translate when the compiler is built.
//
//===----------------------------------------------------------------------===//
#include "TestProgramBuilder.h"

#include <cstdio>
#include <string>
#include <vector>

using namespace strata::runtime;
using namespace strata::runtime::testing;

static bool write(const std::string &path, const std::vector<uint8_t> &bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: strata-fuzz-seeds DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  bool ok =
      write(dir + "/sample-network.strata", buildSampleNetwork()) &&
      write(dir + "/sample-network-64.strata",
            [] {
              // Small segment alignment keeps the seed short.
              TestProgramBuilder b;
              int x = b.addInput(DType::F32, {2, 3});
              int y = b.addBuffer(DType::F32, {3, 2});
              b.addKernel("transpose", {x}, {y},
                          {intsParam("permutation", {1, 0})}, {"T"});
              int z = b.addBuffer(DType::F32, {3, 2});
              b.addMove(y, z);
              float c[6] = {1, 2, 3, 4, 5, 6};
              int k = b.addConstant(DType::F32, {3, 2}, c);
              int w = b.addBuffer(DType::F32, {3, 2});
              b.addKernel("add", {z, k}, {w});
              b.setOutputs({w});
              return b.build(64);
            }()) &&
      write(dir + "/integer-pow-64.strata",
            [] {
              // Integer Pow past the type's range wraps (a double pow
              // converted back was undefined); an input feeds the base.
              TestProgramBuilder b;
              int32_t bases[4] = {10, 2, -3, 7};
              int32_t exponents[4] = {40, 31, -3, 100};
              int base = b.addConstant(DType::I32, {4}, bases);
              int exponent = b.addConstant(DType::I32, {4}, exponents);
              int x = b.addInput(DType::I32, {4});
              int power = b.addBuffer(DType::I32, {4});
              int sum = b.addBuffer(DType::I32, {4});
              b.addKernel("pow", {base, exponent}, {power});
              b.addKernel("add", {power, x}, {sum});
              b.setOutputs({sum});
              return b.build(64);
            }()) &&
      write(dir + "/stored-cache-64.strata",
            // A state stored transposed, appended to in place and read
            // through a matmul's rhs_permutation: the fuzzer varies the
            // state's permutation, extents and bindings.
            buildStoredCache().build(64)) &&
      write(dir + "/weight-quantized-64.strata",
            [] {
              // A 4-bit weight in groups of 8 (K = 3, N = 2) with zero
              // points and a bias: the fuzzer varies the layout's extents.
              TestProgramBuilder b;
              std::vector<uint8_t> words(128, 0x5a);
              std::vector<float> scales(32, 0.25f);
              std::vector<uint8_t> zeros(32, 3);
              float bias[2] = {0.5f, -1.0f};
              int x = b.addInput(DType::F32, {2, 3});
              int w = b.addConstant(DType::U8, {1, 1, 128}, words.data());
              int s = b.addConstant(DType::F32, {1, 1, 32}, scales.data());
              int z = b.addConstant(DType::U8, {1, 1, 32}, zeros.data());
              int c = b.addConstant(DType::F32, {2}, bias);
              int y = b.addBuffer(DType::F32, {2, 2});
              b.addKernel("weight_quantized_matmul", {x, w, s, z, c}, {y},
                          {intParam("bits", 4), intParam("group_size", 8)});
              b.setOutputs({y});
              return b.build(64);
            }()) &&
      write(dir + "/weight-quantized-a8-64.strata",
            [] {
              // The same with int8 dynamic activations: the fuzzer varies
              // the activations' values (NaNs, infinities) and extents.
              TestProgramBuilder b;
              std::vector<uint8_t> words(128, 0xa5);
              std::vector<float> scales(32, 0.5f);
              std::vector<uint8_t> zeros(32, 7);
              int x = b.addInput(DType::F32, {2, 3});
              int w = b.addConstant(DType::U8, {1, 1, 128}, words.data());
              int s = b.addConstant(DType::F32, {1, 1, 32}, scales.data());
              int z = b.addConstant(DType::U8, {1, 1, 32}, zeros.data());
              int y = b.addBuffer(DType::F32, {2, 2});
              b.addKernel("weight_quantized_matmul", {x, w, s, z}, {y},
                          {intParam("bits", 4), intParam("group_size", 8),
                           intParam("activation_bits", 8)});
              b.setOutputs({y});
              return b.build(64);
            }()) &&
      write(dir + "/dynamic-64.strata",
            [] {
              // Dynamic dimensions: symbols, a shape program, extents.
              TestProgramBuilder b;
              int batch = b.addSymbol("batch", 1, 4);
              int two = b.addShapeOp(strata::fb::ShapeOp::Constant, 0, 0, 2);
              int rows = b.addShapeOp(strata::fb::ShapeOp::Mul, batch, two);
              int x = b.addInput(DType::F32, {4, 3});
              int y = b.addInput(DType::F32, {4, 3});
              int cat = b.addBuffer(DType::F32, {8, 3});
              int sum = b.addBuffer(DType::F32, {4, 3});
              int copy = b.addBuffer(DType::F32, {4, 3});
              for (int v : {x, y, sum, copy})
                b.setDimRegisters(v, {batch, -1});
              b.setDimRegisters(cat, {rows, -1});
              b.addKernel("concat", {x, y}, {cat}, {intParam("axis", 0)});
              b.addKernel("add", {x, y}, {sum});
              b.addMove(sum, copy);
              b.setOutputs({cat, copy});
              return b.build(64);
            }()) &&
      write(dir + "/value-dependent-64.strata",
            [] {
              // Extents the kernels bind from the data: NonZero of an
              // input with a dynamic batch, its indices read by a cast;
              // NonMaxSuppression's selections; a range's length.
              TestProgramBuilder b;
              int batch = b.addSymbol("batch", 1, 4);
              int count = b.addSymbol("nz.count", 0, 12);
              int selected = b.addSymbol("nms.count", 0, 8);
              int x = b.addInput(DType::F32, {4, 3});
              b.setDimRegisters(x, {batch, -1});
              int idx = b.addBuffer(DType::I64, {2, 12});
              b.setDimRegisters(idx, {-1, count});
              int asFloat = b.addBuffer(DType::F32, {2, 12});
              b.setDimRegisters(asFloat, {-1, count});
              b.addKernel("non_zero", {x}, {idx}, {}, {"nz"});
              b.setBinds({1});
              b.addKernel("cast", {idx}, {asFloat});
              int boxes = b.addInput(DType::F32, {1, 4, 4});
              int scores = b.addInput(DType::F32, {1, 2, 4});
              int64_t most = 4;
              float iou = 0.5f;
              int maxBoxes = b.addConstant(DType::I64, {1}, &most);
              int threshold = b.addConstant(DType::F32, {1}, &iou);
              int triples = b.addBuffer(DType::I64, {8, 3});
              b.setDimRegisters(triples, {selected, -1});
              b.addKernel("non_max_suppression",
                          {boxes, scores, maxBoxes, threshold}, {triples},
                          {intParam("center_point_box", 0)}, {"nms"});
              b.setBinds({2});
              // A range whose limit is an input: its length follows it.
              int length = b.addSymbol("arange.count", 0, 16);
              int limit = b.addInput(DType::I64, {});
              int64_t zero = 0, one = 1;
              int start = b.addConstant(DType::I64, {}, &zero);
              int step = b.addConstant(DType::I64, {}, &one);
              int sequence = b.addBuffer(DType::I64, {16});
              b.setDimRegisters(sequence, {length});
              b.addKernel("range", {start, limit, step}, {sequence},
                          {intParam("max_extent", 16)}, {"arange"});
              b.setBinds({3});
              b.setOutputs({asFloat, triples, sequence});
              return b.build(64);
            }()) &&
      write(dir + "/branches-64.strata",
            [] {
              // A run-time If: a flag input chooses the branch; each copies
              // what it yields (the kept elements, or none) into the result,
              // binding its extent.
              TestProgramBuilder b;
              int kept = b.addSymbol("filter.count", 0, 6);
              int result = b.addSymbol("guard.result0.dim0", 0, 6);
              int x = b.addInput(DType::F32, {6});
              int mask = b.addInput(DType::Bool, {6});
              int flag = b.addInput(DType::Bool, {});
              int selected = b.addBuffer(DType::F32, {6});
              b.setDimRegisters(selected, {kept});
              float none = 0.0f;
              int empty = b.addConstant(DType::F32, {0}, &none);
              int out = b.addBuffer(DType::F32, {6});
              b.setDimRegisters(out, {result});
              b.addKernel("compress", {x, mask}, {selected},
                          {intParam("axis", 0)}, {"filter"});
              b.setBinds({0});
              b.addJumpIfFalse(flag, 4);
              b.addKernel("branch_result", {empty}, {out}, {}, {"guard"});
              b.setBinds({1});
              b.addJump(5);
              b.addKernel("branch_result", {selected}, {out}, {}, {"guard"});
              b.setBinds({1});
              b.setOutputs({out});
              return b.build(64);
            }()) &&
      // A run-time loop whose jump back is bounded by 8: the fuzzer's
      // mutations of the bound, the target and the counter meet the
      // loader's and the runtime's checks.
      write(dir + "/loop-64.strata", buildCountingLoop(8).build(64)) &&
      // A state that grows by a row a call (a KV cache): the mutations of
      // the states and bindings meet the loader's checks, and the calls the
      // capacity's.
      write(dir + "/state-64.strata", buildGrowingCache().build(64));
  if (!ok) {
    std::fprintf(stderr, "strata-fuzz-seeds: cannot write to %s\n",
                 dir.c_str());
    return 1;
  }
  return 0;
}
