//===- TestProgramBuilder.cpp - build .strata buffers in tests ------------===//
#include "TestProgramBuilder.h"

#include <map>

namespace strata::runtime::testing {

namespace fbs = strata::fb;

static flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::Param>>>
buildParams(flatbuffers::FlatBufferBuilder &fbb,
            const std::vector<Param> &params) {
  std::vector<flatbuffers::Offset<fbs::Param>> out;
  for (const Param &p : params) {
    auto name = fbb.CreateString(p.name);
    flatbuffers::Offset<flatbuffers::String> str;
    flatbuffers::Offset<flatbuffers::Vector<int64_t>> ints;
    flatbuffers::Offset<flatbuffers::Vector<double>> floats;
    if (p.kind == Param::Kind::String)
      str = fbb.CreateString(p.stringValue);
    if (p.kind == Param::Kind::IntList)
      ints = fbb.CreateVector(p.ints);
    if (p.kind == Param::Kind::FloatList)
      floats = fbb.CreateVector(p.floats);
    out.push_back(
        fbs::CreateParam(fbb, name, static_cast<fbs::ParamKind>(p.kind),
                         p.intValue, p.floatValue, str, ints, floats));
  }
  return fbb.CreateVector(out);
}

std::vector<uint8_t> TestProgramBuilder::build(uint64_t alignment) const {
  flatbuffers::FlatBufferBuilder fbb;
  // Segment 0: constants; then one segment per delegate blob.
  std::vector<std::vector<uint8_t>> segments;
  std::vector<flatbuffers::Offset<fbs::Constant>> constants;
  if (!constants_.empty()) {
    std::vector<uint8_t> seg;
    for (const Constant &c : constants_) {
      seg.resize(alignTo(seg.size(), 64));
      uint64_t offset = seg.size();
      seg.insert(seg.end(), c.data.begin(), c.data.end());
      auto type = fbs::CreateTensorTypeDirect(
          fbb, static_cast<fbs::ScalarType>(c.dtype), &c.shape);
      constants.push_back(fbs::CreateConstantDirect(fbb, c.name.c_str(), type,
                                                    0, offset, c.data.size()));
    }
    segments.push_back(std::move(seg));
  }
  std::vector<flatbuffers::Offset<fbs::Delegate>> delegates;
  for (const Delegate &d : delegates_) {
    if (inlineBlobs) {
      delegates.push_back(fbs::CreateDelegate(
          fbb, fbb.CreateString(d.name), fbb.CreateString(d.backend),
          buildParams(fbb, d.specs), fbb.CreateVector(d.blob), -1));
      continue;
    }
    segments.push_back(d.blob);
    delegates.push_back(fbs::CreateDelegate(
        fbb, fbb.CreateString(d.name), fbb.CreateString(d.backend),
        buildParams(fbb, d.specs), 0,
        static_cast<int32_t>(segments.size() - 1)));
  }
  std::map<std::string, uint32_t> opIndex;
  std::vector<flatbuffers::Offset<fbs::Operator>> operators;
  std::vector<flatbuffers::Offset<fbs::Value>> values;
  for (const Value &v : values_) {
    auto type = fbs::CreateTensorTypeDirect(
        fbb, static_cast<fbs::ScalarType>(v.dtype), &v.shape,
        v.dimRegisters.empty() ? nullptr : &v.dimRegisters);
    values.push_back(v.constant
                         ? fbs::CreateValue(fbb, type, fbs::ValueKind::Constant,
                                            0, 0, v.constantIndex)
                         : fbs::CreateValue(fbb, type, fbs::ValueKind::Arena,
                                            v.memoryId, v.offset));
  }
  std::vector<flatbuffers::Offset<fbs::Instruction>> instructions;
  std::vector<flatbuffers::Offset<fbs::DebugHandle>> handles;
  for (size_t i = 0; i < instructions_.size(); ++i) {
    const Instruction &inst = instructions_[i];
    std::vector<uint32_t> ins(inst.ins.begin(), inst.ins.end());
    std::vector<uint32_t> outs(inst.outs.begin(), inst.outs.end());
    if (inst.kind == 0) {
      auto [it, inserted] = opIndex.emplace(inst.kernel, opIndex.size());
      if (inserted)
        operators.push_back(
            fbs::CreateOperatorDirect(fbb, inst.kernel.c_str()));
      auto params = buildParams(fbb, inst.params);
      auto call = fbs::CreateKernelCall(
          fbb, it->second + operatorIndexBias, fbb.CreateVector(ins),
          fbb.CreateVector(outs), params,
          inst.binds.empty() ? 0 : fbb.CreateVector(inst.binds));
      instructions.push_back(fbs::CreateInstruction(
          fbb, fbs::InstructionArgs::KernelCall, call.Union()));
    } else if (inst.kind == 1) {
      auto call =
          fbs::CreateDelegateCallDirect(fbb, inst.delegate, &ins, &outs);
      instructions.push_back(fbs::CreateInstruction(
          fbb, fbs::InstructionArgs::DelegateCall, call.Union()));
    } else if (inst.kind == 3) {
      auto jump = fbs::CreateJumpIfFalse(fbb, ins[0], inst.delegate);
      instructions.push_back(fbs::CreateInstruction(
          fbb, fbs::InstructionArgs::JumpIfFalse, jump.Union()));
    } else if (inst.kind == 4) {
      auto jump = fbs::CreateJump(fbb, inst.delegate, inst.maxTrips);
      instructions.push_back(fbs::CreateInstruction(
          fbb, fbs::InstructionArgs::Jump, jump.Union()));
    } else {
      auto move = fbs::CreateMove(fbb, ins[0], outs[0]);
      instructions.push_back(fbs::CreateInstruction(
          fbb, fbs::InstructionArgs::Move, move.Union()));
    }
    if (!inst.nodes.empty()) {
      std::vector<flatbuffers::Offset<flatbuffers::String>> names;
      for (const std::string &n : inst.nodes)
        names.push_back(fbb.CreateString(n));
      handles.push_back(
          fbs::CreateDebugHandle(fbb, i, fbb.CreateVector(names)));
    }
  }
  for (const auto &[instruction, name] : extraDebugHandles) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> names = {
        fbb.CreateString(name)};
    handles.push_back(
        fbs::CreateDebugHandle(fbb, instruction, fbb.CreateVector(names)));
  }
  std::vector<uint64_t> arenas = {arenaSizeOverride
                                      ? arenaSizeOverride
                                      : std::max<uint64_t>(arenaSize_, 64)};
  std::vector<uint32_t> inputs(inputs_.begin(), inputs_.end());
  std::vector<uint32_t> outputs(outputs_.begin(), outputs_.end());
  std::vector<flatbuffers::Offset<fbs::DimSymbol>> symbols;
  for (const Symbol &symbol : symbols_)
    symbols.push_back(fbs::CreateDimSymbolDirect(fbb, symbol.name.c_str(),
                                                 symbol.min, symbol.max));
  std::vector<flatbuffers::Offset<fbs::ShapeInstruction>> shapeProgram;
  for (const ShapeInstruction &inst : shapeProgram_)
    shapeProgram.push_back(fbs::CreateShapeInstruction(fbb, inst.op, inst.lhs,
                                                       inst.rhs, inst.value));
  auto strings = [&](const std::vector<std::string> &names) {
    std::vector<flatbuffers::Offset<flatbuffers::String>> list;
    for (const std::string &name : names)
      list.push_back(fbb.CreateString(name));
    return list;
  };
  auto inputNameList = strings(inputNames),
       outputNameList = strings(outputNames);
  std::vector<flatbuffers::Offset<fbs::StateBinding>> bindings;
  for (const StateBinding &b : stateBindings)
    bindings.push_back(
        fbs::CreateStateBinding(fbb, b.state, b.input, b.output));
  std::vector<flatbuffers::Offset<fbs::Method>> methods;
  std::vector<std::string> names = {"forward"};
  names.insert(names.end(), extraMethodNames.begin(), extraMethodNames.end());
  for (const std::string &name : names)
    methods.push_back(fbs::CreateMethodDirect(
        fbb, name.c_str(), &inputs, &outputs, &values, &instructions,
        fbs::CreateMemoryPlanDirect(fbb, &arenas), &handles,
        symbols.empty() ? nullptr : &symbols,
        shapeProgram.empty() ? nullptr : &shapeProgram,
        inputNames.empty() ? nullptr : &inputNameList,
        outputNames.empty() ? nullptr : &outputNameList,
        bindings.empty() ? nullptr : &bindings));
  std::vector<flatbuffers::Offset<fbs::State>> stateList;
  for (const State &state : states) {
    auto type = fbs::CreateTensorTypeDirect(
        fbb, static_cast<fbs::ScalarType>(state.dtype), &state.capacity);
    stateList.push_back(fbs::CreateStateDirect(
        fbb, state.name.c_str(), type, &state.initial,
        state.permutation.empty() ? nullptr : &state.permutation));
  }
  std::vector<flatbuffers::Offset<fbs::Segment>> segs;
  uint64_t end = 0;
  std::vector<uint64_t> offsets;
  for (const auto &s : segments) {
    uint64_t off = alignTo(end, alignment);
    offsets.push_back(off);
    segs.push_back(fbs::CreateSegment(fbb, off, s.size()));
    end = off + s.size();
  }
  auto root = fbs::CreateProgramDirect(
      fbb, version, "test", &methods, &operators, &constants, &delegates, &segs,
      nullptr, stateList.empty() ? nullptr : &stateList);
  fbs::FinishProgramBuffer(fbb, root);

  FileHeader h{};
  std::memcpy(h.magic, kFileMagic, 8);
  h.headerSize = sizeof(FileHeader);
  h.headerVersion = kFileHeaderVersion;
  h.flatbufferOffset = sizeof(FileHeader);
  h.flatbufferSize = fbb.GetSize();
  h.segmentBaseOffset =
      alignTo(h.flatbufferOffset + h.flatbufferSize, alignment);
  h.segmentDataSize = end;
  h.segmentAlignment = alignment;
  std::vector<uint8_t> file(h.segmentBaseOffset + end, 0);
  std::memcpy(file.data(), &h, sizeof(h));
  std::memcpy(file.data() + h.flatbufferOffset, fbb.GetBufferPointer(),
              fbb.GetSize());
  for (size_t i = 0; i < segments.size(); ++i)
    if (!segments[i].empty()) // An empty constant's data may be null.
      std::memcpy(file.data() + h.segmentBaseOffset + offsets[i],
                  segments[i].data(), segments[i].size());
  return file;
}

std::vector<uint8_t> buildSampleNetwork() {
  TestProgramBuilder b;
  int x = b.addInput(DType::F32, {1, 1, 4, 4});
  std::vector<float> w(2 * 9);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = (i % 3 == 0) ? 1.0f : -0.5f;
  int wc = b.addConstant(DType::F32, {2, 1, 3, 3}, w.data(), "conv.weight");
  float bias[2] = {0.5f, -0.25f};
  int bc = b.addConstant(DType::F32, {2}, bias, "conv.bias");
  int c = b.addBuffer(DType::F32, {1, 2, 4, 4});
  b.addKernel("conv2d", {x, wc, bc}, {c},
              windowParams("conv2d", {intsParam("pads", {1, 1, 1, 1})}),
              {"Conv_0"});
  int r = b.addBuffer(DType::F32, {1, 2, 4, 4});
  b.addKernel("relu", {c}, {r}, {}, {"Relu_1"});
  int p = b.addBuffer(DType::F32, {1, 2, 2, 2});
  b.addKernel("max_pool2d", {r}, {p},
              windowParams("max_pool2d", {intsParam("kernel", {2, 2}),
                                          intsParam("strides", {2, 2})}),
              {"MaxPool_2"});
  int f = b.addBuffer(DType::F32, {1, 8});
  b.addKernel("reshape", {p}, {f}, {}, {"Flatten_3"});
  std::vector<float> m(8 * 3);
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = static_cast<float>(i % 5) * 0.1f - 0.2f;
  int mc = b.addConstant(DType::F32, {8, 3}, m.data(), "fc.weight");
  int l = b.addBuffer(DType::F32, {1, 3});
  b.addKernel("matmul", {f, mc}, {l}, {}, {"MatMul_4"});
  int s = b.addBuffer(DType::F32, {1, 3});
  b.addKernel("softmax", {l}, {s}, {intParam("axis", 1)}, {"Softmax_5"});
  b.setOutputs({s});
  return b.build();
}

TestProgramBuilder buildGrowingCache() {
  TestProgramBuilder b;
  int p = b.addSymbol("past", 0, 3);
  int one = b.addShapeOp(fbs::ShapeOp::Constant, 0, 0, 1);
  int total = b.addShapeOp(fbs::ShapeOp::Add, p, one);
  int past = b.addInput(DType::F32, {3, 2});
  b.setDimRegisters(past, {p, -1});
  int k = b.addInput(DType::F32, {1, 2});
  int present = b.addBuffer(DType::F32, {4, 2});
  b.setDimRegisters(present, {total, -1});
  b.addKernel("concat", {past, k}, {present}, {intParam("axis", 0)});
  b.setOutputs({present});
  b.version = kStatefulProgramVersion;
  b.states = {{"past", DType::F32, {4, 2}, {0, 2}}};
  b.stateBindings = {{0, 0, 0}};
  return b;
}

TestProgramBuilder buildStoredCache() {
  TestProgramBuilder b = buildGrowingCache();
  int q = b.addInput(DType::F32, {1, 2});
  int scores = b.addBuffer(DType::F32, {1, 4});
  // The present is value 2 (past, k, present, then q and scores).
  b.setDimRegisters(scores, {-1, 2});
  b.addKernel("matmul", {q, 2}, {scores},
              {intsParam("rhs_permutation", {1, 0})});
  b.setOutputs({2, scores});
  b.states[0].permutation = {1, 0};
  return b;
}

TestProgramBuilder buildCountingLoop(uint64_t maxTrips, int backTo) {
  TestProgramBuilder b;
  int n = b.addInput(DType::I64, {});
  int zero = b.addInput(DType::I64, {});
  int one = b.addInput(DType::I64, {});
  int i = b.addBuffer(DType::I64, {});
  int below = b.addBuffer(DType::Bool, {});
  int next = b.addBuffer(DType::I64, {});
  b.addMove(zero, i);                   // 0
  b.addKernel("less", {i, n}, {below}); // 1: header
  b.addJumpIfFalse(below, 6);           // 2
  b.addKernel("add", {i, one}, {next}); // 3: body
  b.addMove(next, i);                   // 4
  b.addJump(backTo, maxTrips);          // 5
  b.setOutputs({i});
  return b;
}

} // namespace strata::runtime::testing
