//===- Execute.cpp - run compiled programs in-process and compare ---------===//
#include "strata/Compiler/Execute.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Program.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace strata::runtime;

namespace strata {

namespace {

Result<Method> loadFirstOrNamed(const Program &program,
                                const std::string &method) {
  std::string name = method;
  if (name.empty()) {
    if (program.methodCount() == 0)
      return Error(ErrorCode::InvalidProgram, "the program has no method");
    name = program.methodName(0);
  }
  return program.loadMethod(name, &portableKernelRegistry());
}

OwnedTensor copyOf(const TensorView &view) {
  OwnedTensor tensor;
  tensor.dtype = view.dtype;
  tensor.shape = view.shape;
  tensor.bytes.resize(view.nbytes());
  if (!tensor.bytes.empty())
    std::memcpy(tensor.bytes.data(), view.data, view.nbytes());
  return tensor;
}

/// Element `i` of `tensor` as a double.
double elementAt(const OwnedTensor &tensor, int64_t i) {
  const uint8_t *p = tensor.bytes.data();
  switch (tensor.dtype) {
  case DType::F32:
    return reinterpret_cast<const float *>(p)[i];
  case DType::F64:
    return reinterpret_cast<const double *>(p)[i];
  case DType::I8:
    return reinterpret_cast<const int8_t *>(p)[i];
  case DType::U8:
    return p[i];
  case DType::I16:
    return reinterpret_cast<const int16_t *>(p)[i];
  case DType::I32:
    return reinterpret_cast<const int32_t *>(p)[i];
  case DType::I64:
    return static_cast<double>(reinterpret_cast<const int64_t *>(p)[i]);
  case DType::Bool:
    return p[i] != 0;
  case DType::F16:
    break;
  }
  return std::nan("");
}

} // namespace

Result<std::vector<OwnedTensor>>
runProgram(const std::string &bytes, const std::vector<OwnedTensor> &inputs,
           const std::string &method) {
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader, Verification::Full);
  if (!program.ok())
    return program.takeError();
  Result<Method> loaded = loadFirstOrNamed(*program, method);
  if (!loaded.ok())
    return loaded.takeError();
  Method &m = *loaded;
  if (inputs.size() != m.inputCount())
    return Error(ErrorCode::InvalidArgument,
                 "method '" + m.name() + "' takes " +
                     std::to_string(m.inputCount()) + " inputs, got " +
                     std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    OwnedTensor input = inputs[i];
    STRATA_RETURN_IF_ERROR(m.setInput(i, input.view()));
  }
  STRATA_RETURN_IF_ERROR(m.execute());
  std::vector<OwnedTensor> outputs;
  for (size_t i = 0; i < m.outputCount(); ++i) {
    Result<TensorView> output = m.output(i);
    if (!output.ok())
      return output.takeError();
    outputs.push_back(copyOf(*output));
  }
  return outputs;
}

Result<std::vector<OwnedTensor>> makeRandomInputs(const std::string &bytes,
                                                  uint64_t seed,
                                                  const std::string &method) {
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader, Verification::Full);
  if (!program.ok())
    return program.takeError();
  Result<Method> loaded = loadFirstOrNamed(*program, method);
  if (!loaded.ok())
    return loaded.takeError();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<OwnedTensor> inputs;
  for (size_t i = 0; i < loaded->inputCount(); ++i) {
    Result<TensorView> view = loaded->input(i);
    if (!view.ok())
      return view.takeError();
    OwnedTensor tensor = copyOf(*view);
    for (int64_t e = 0, n = view->numel(); e < n; ++e) {
      uint8_t *p = tensor.bytes.data();
      switch (tensor.dtype) {
      case DType::F32:
        reinterpret_cast<float *>(p)[e] = uniform(rng);
        break;
      case DType::I64:
        reinterpret_cast<int64_t *>(p)[e] = rng() % 10;
        break;
      case DType::I32:
        reinterpret_cast<int32_t *>(p)[e] = rng() % 10;
        break;
      default:
        p[e * dtypeSize(tensor.dtype)] = rng() % 10;
        break;
      }
    }
    inputs.push_back(std::move(tensor));
  }
  return inputs;
}

Comparison compareTensors(const OwnedTensor &actual,
                          const OwnedTensor &expected, double atol,
                          double rtol) {
  Comparison result;
  if (actual.dtype != expected.dtype || actual.shape != expected.shape) {
    result.typeMismatch = std::string(dtypeName(actual.dtype)) +
                          shapeToString(actual.shape) + " vs expected " +
                          dtypeName(expected.dtype) +
                          shapeToString(expected.shape);
    return result;
  }
  double diffSquares = 0, refSquares = 0;
  for (int64_t i = 0, n = numElements(actual.shape); i < n; ++i) {
    double a = elementAt(actual, i), e = elementAt(expected, i);
    if (std::isnan(a) && std::isnan(e))
      continue;
    if (std::isinf(a) && std::isinf(e) && (a > 0) == (e > 0))
      continue;
    double diff = std::fabs(a - e);
    if (std::isnan(diff))
      diff = INFINITY;
    result.maxAbs = std::max(result.maxAbs, diff);
    diffSquares += diff * diff;
    refSquares += e * e;
    if (!(diff <= atol + rtol * std::fabs(e)))
      ++result.mismatches;
  }
  result.relL2 = refSquares > 0 ? std::sqrt(diffSquares / refSquares)
                                : std::sqrt(diffSquares);
  return result;
}

} // namespace strata
