//===- KernelTestUtils.h - run one kernel as a program ----------*- C++ -*-===//
#ifndef STRATA_UNITTESTS_RUNTIME_KERNELTESTUTILS_H
#define STRATA_UNITTESTS_RUNTIME_KERNELTESTUTILS_H

#include "TestProgramBuilder.h"

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Program.h"
#include "strata/Runtime/TensorIO.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace strata::runtime::testing {

/// Builds a program calling `kernel` once on `inputs` (all method inputs)
/// into one result of `outDType`/`outShape`, runs it and returns the result
/// (or the load/execute error).
inline Result<OwnedTensor> runKernel(const std::string &kernel,
                                     std::vector<OwnedTensor> &inputs,
                                     DType outDType,
                                     std::vector<int64_t> outShape,
                                     std::vector<Param> params = {}) {
  TestProgramBuilder builder;
  std::vector<int> ins;
  for (OwnedTensor &t : inputs)
    ins.push_back(builder.addInput(t.dtype, t.shape));
  int out = builder.addBuffer(outDType, outShape);
  builder.addKernel(kernel, ins, {out}, std::move(params));
  builder.setOutputs({out});
  std::vector<uint8_t> bytes = builder.build();
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader, Verification::Full);
  if (!program.ok())
    return program.takeError();
  Result<Method> method = program->loadMethod("forward");
  if (!method.ok())
    return method.takeError();
  for (size_t i = 0; i < inputs.size(); ++i)
    STRATA_RETURN_IF_ERROR(method->setInput(i, inputs[i].view()));
  STRATA_RETURN_IF_ERROR(method->execute());
  TensorView view = *method->output(0);
  OwnedTensor result;
  result.dtype = view.dtype;
  result.shape = view.shape;
  result.bytes.assign(static_cast<uint8_t *>(view.data),
                      static_cast<uint8_t *>(view.data) + view.nbytes());
  return result;
}

/// An f32 tensor.
/// A tensor of `dtype` and `shape` holding `values` (stored as T).
template <typename T>
OwnedTensor tensorOf(DType dtype, std::vector<int64_t> shape,
                     std::vector<T> values) {
  OwnedTensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes.resize(values.size() * sizeof(T));
  if (!values.empty())
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

/// The elements of `t` read as T.
template <typename T> std::vector<T> valuesOf(const OwnedTensor &t) {
  std::vector<T> v(t.bytes.size() / sizeof(T));
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

inline OwnedTensor f32Tensor(std::vector<int64_t> shape,
                             std::vector<float> values) {
  OwnedTensor t;
  t.dtype = DType::F32;
  t.shape = std::move(shape);
  t.bytes.resize(values.size() * 4);
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

/// Float values of an f32 tensor.
inline std::vector<float> values(const OwnedTensor &t) {
  std::vector<float> v(t.bytes.size() / 4);
  std::memcpy(v.data(), t.bytes.data(), t.bytes.size());
  return v;
}

/// Expects every element of `got` within atol + rtol * |want|.
inline void expectClose(const OwnedTensor &got, const OwnedTensor &want,
                        float atol = 1e-5f, float rtol = 1e-4f) {
  ASSERT_EQ(got.shape, want.shape);
  std::vector<float> a = values(got), b = values(want);
  ASSERT_EQ(a.size(), b.size());
  int failures = 0;
  for (size_t i = 0; i < a.size() && failures < 5; ++i)
    if (!(std::fabs(a[i] - b[i]) <= atol + rtol * std::fabs(b[i]))) {
      ADD_FAILURE() << "element " << i << ": got " << a[i] << ", want " << b[i];
      ++failures;
    }
}

/// Loads (Full), loads every method and executes it; returns the first error.
inline Error loadAndRun(const std::vector<uint8_t> &bytes) {
  BufferDataLoader loader(bytes.data(), bytes.size());
  Result<Program> program = Program::load(loader, Verification::Full);
  if (!program.ok())
    return program.takeError();
  for (size_t i = 0; i < program->methodCount(); ++i) {
    Result<Method> method = program->loadMethod(program->methodName(i));
    if (!method.ok())
      return method.takeError();
    STRATA_RETURN_IF_ERROR(method->execute());
  }
  return Error::success();
}

/// Expects loading (Full) to fail with InvalidProgram mentioning `needle`.
inline void expectInvalid(const std::vector<uint8_t> &bytes,
                          const std::string &needle,
                          ErrorCode code = ErrorCode::InvalidProgram) {
  Error error = loadAndRun(bytes);
  ASSERT_FALSE(error.ok()) << "expected an error mentioning " << needle;
  EXPECT_EQ(error.code(), code) << error.toString();
  EXPECT_NE(error.message().find(needle), std::string::npos)
      << error.toString();
}

} // namespace strata::runtime::testing

#endif // STRATA_UNITTESTS_RUNTIME_KERNELTESTUTILS_H
