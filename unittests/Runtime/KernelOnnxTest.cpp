//===- KernelOnnxTest.cpp - portable kernels vs ONNX node test data -------===//
//
// Each case runs one portable kernel on the inputs of an ONNX backend node
// test (Debian libonnx-testdata) and compares with the outputs ONNX's
// reference implementation wrote there. Attributes are restated here in the
// kernel ABI's form (edge op attribute names and conventions).
//
//===----------------------------------------------------------------------===//
#include "KernelTestUtils.h"

#include <sys/stat.h>

using namespace strata::runtime;
using namespace strata::runtime::testing;

namespace {

const char *kNodeDir = "/usr/share/libonnx-testdata/data/node/";

struct OnnxCase {
  const char *test;
  const char *kernel;
  std::vector<Param> params;
  /// Inputs of the node test to pass, in order (default: input_0 only).
  std::vector<int> inputs = {0};
  /// Shapes to view inputs with (rank-explicit broadcasting), when set.
  std::vector<std::vector<int64_t>> reshape = {};
};

std::ostream &operator<<(std::ostream &os, const OnnxCase &c) {
  return os << c.test;
}

class KernelOnnxTest : public ::testing::TestWithParam<OnnxCase> {};

TEST_P(KernelOnnxTest, MatchesReferenceOutput) {
  const OnnxCase &c = GetParam();
  std::string dir = std::string(kNodeDir) + c.test + "/test_data_set_0/";
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    GTEST_SKIP() << dir << " is not installed (libonnx-testdata)";
  std::vector<OwnedTensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    Result<OwnedTensor> t = readTensorFile(
        dir + "input_" + std::to_string(c.inputs[i]) + ".pb");
    ASSERT_TRUE(t.ok()) << t.error().toString();
    if (i < c.reshape.size() && !c.reshape[i].empty()) {
      ASSERT_EQ(numElements(c.reshape[i]), numElements(t->shape));
      t->shape = c.reshape[i];
    }
    inputs.push_back(std::move(*t));
  }
  Result<OwnedTensor> want = readTensorFile(dir + "output_0.pb");
  ASSERT_TRUE(want.ok()) << want.error().toString();
  Result<OwnedTensor> got =
      runKernel(c.kernel, inputs, want->dtype, want->shape,
                windowParams(c.kernel, c.params));
  ASSERT_TRUE(got.ok()) << got.error().toString();
  expectClose(*got, *want);
}

std::vector<OnnxCase> cases() {
  auto pair = [](const char *n, int64_t a, int64_t b) {
    return intsParam(n, {a, b});
  };
  auto pads = [](int64_t t, int64_t l, int64_t b, int64_t r) {
    return intsParam("pads", {t, l, b, r});
  };
  return {
      // conv2d (weights are node inputs here).
      {"test_conv_with_strides_padding", "conv2d",
       {pair("strides", 2, 2), pads(1, 1, 1, 1)}, {0, 1}},
      {"test_conv_with_strides_no_padding", "conv2d",
       {pair("strides", 2, 2)}, {0, 1}},
      {"test_conv_with_strides_and_asymmetric_padding", "conv2d",
       {pair("strides", 2, 2), pads(1, 0, 1, 0)}, {0, 1}},
      {"test_conv_with_autopad_same", "conv2d",
       {pair("strides", 2, 2), pads(1, 1, 1, 1)}, {0, 1}},
      {"test_convtranspose", "conv_transpose2d", {}, {0, 1}},
      {"test_convtranspose_dilations", "conv_transpose2d",
       {pair("dilations", 2, 2)}, {0, 1}},
      {"test_convtranspose_pads", "conv_transpose2d",
       {pair("strides", 3, 2), pads(1, 2, 1, 2)}, {0, 1}},
      // matmul.
      {"test_matmul_2d", "matmul", {}, {0, 1}},
      {"test_matmul_3d", "matmul", {}, {0, 1}},
      {"test_matmul_4d", "matmul", {}, {0, 1}},
      // Binary elementwise, broadcasting made rank-explicit.
      {"test_add", "add", {}, {0, 1}},
      {"test_add_bcast", "add", {}, {0, 1}, {{}, {1, 1, 5}}},
      {"test_sub", "sub", {}, {0, 1}},
      {"test_sub_bcast", "sub", {}, {0, 1}, {{}, {1, 1, 5}}},
      {"test_mul", "mul", {}, {0, 1}},
      {"test_mul_bcast", "mul", {}, {0, 1}, {{}, {1, 1, 5}}},
      {"test_div", "div", {}, {0, 1}},
      {"test_div_bcast", "div", {}, {0, 1}, {{}, {1, 1, 5}}},
      // Unary.
      {"test_relu", "relu", {}},
      {"test_sigmoid", "sigmoid", {}},
      {"test_sigmoid_example", "sigmoid", {}},
      {"test_tanh", "tanh", {}},
      {"test_exp", "exp", {}},
      {"test_sqrt", "sqrt", {}},
      {"test_neg", "neg", {}},
      {"test_abs", "abs", {}},
      {"test_clip_example", "clip",
       {floatParam("min", -1.0), floatParam("max", 1.0)}},
      {"test_clip", "clip", {floatParam("min", -1.0), floatParam("max", 1.0)}},
      // Pooling.
      {"test_maxpool_2d_default", "max_pool2d", {pair("kernel", 2, 2)}},
      {"test_maxpool_2d_pads", "max_pool2d",
       {pair("kernel", 3, 3), pads(2, 2, 2, 2)}},
      {"test_maxpool_2d_strides", "max_pool2d",
       {pair("kernel", 5, 5), pair("strides", 3, 3)}},
      {"test_maxpool_2d_ceil", "max_pool2d",
       {pair("kernel", 3, 3), pair("strides", 2, 2),
        boolParam("ceil_mode", true)}},
      {"test_maxpool_2d_dilations", "max_pool2d",
       {pair("kernel", 2, 2), pair("dilations", 2, 2)}},
      {"test_maxpool_2d_precomputed_pads", "max_pool2d",
       {pair("kernel", 5, 5), pads(2, 2, 2, 2)}},
      {"test_maxpool_2d_precomputed_strides", "max_pool2d",
       {pair("kernel", 2, 2), pair("strides", 2, 2)}},
      {"test_averagepool_2d_default", "avg_pool2d", {pair("kernel", 2, 2)}},
      {"test_averagepool_2d_pads", "avg_pool2d",
       {pair("kernel", 3, 3), pads(2, 2, 2, 2)}},
      {"test_averagepool_2d_pads_count_include_pad", "avg_pool2d",
       {pair("kernel", 3, 3), pads(2, 2, 2, 2),
        boolParam("count_include_pad", true)}},
      {"test_averagepool_2d_precomputed_pads_count_include_pad", "avg_pool2d",
       {pair("kernel", 5, 5), pads(2, 2, 2, 2),
        boolParam("count_include_pad", true)}},
      {"test_averagepool_2d_strides", "avg_pool2d",
       {pair("kernel", 5, 5), pair("strides", 3, 3)}},
      {"test_averagepool_2d_ceil", "avg_pool2d",
       {pair("kernel", 3, 3), pair("strides", 2, 2),
        boolParam("ceil_mode", true)}},
      // Reductions and softmax.
      {"test_reduce_mean_keepdims_random", "reduce_mean",
       {intsParam("axes", {1}), boolParam("keep_dims", true)}},
      {"test_reduce_mean_do_not_keepdims_random", "reduce_mean",
       {intsParam("axes", {1}), boolParam("keep_dims", false)}},
      {"test_reduce_mean_default_axes_keepdims_random", "reduce_mean",
       {boolParam("keep_dims", true)}},
      {"test_reduce_mean_negative_axes_keepdims_random", "reduce_mean",
       {intsParam("axes", {-2}), boolParam("keep_dims", true)}},
      {"test_softmax_axis_0", "softmax", {intParam("axis", 0)}},
      {"test_softmax_axis_1", "softmax", {intParam("axis", 1)}},
      {"test_softmax_axis_2", "softmax", {intParam("axis", 2)}},
      {"test_softmax_default_axis", "softmax", {}},
      {"test_softmax_negative_axis", "softmax", {intParam("axis", -1)}},
      {"test_softmax_large_number", "softmax", {intParam("axis", -1)}},
      // Data movement.
      {"test_transpose_default", "transpose", {}},
      {"test_transpose_all_permutations_0", "transpose",
       {intsParam("permutation", {0, 1, 2})}},
      {"test_transpose_all_permutations_1", "transpose",
       {intsParam("permutation", {0, 2, 1})}},
      {"test_transpose_all_permutations_2", "transpose",
       {intsParam("permutation", {1, 0, 2})}},
      {"test_transpose_all_permutations_3", "transpose",
       {intsParam("permutation", {1, 2, 0})}},
      {"test_transpose_all_permutations_4", "transpose",
       {intsParam("permutation", {2, 0, 1})}},
      {"test_transpose_all_permutations_5", "transpose",
       {intsParam("permutation", {2, 1, 0})}},
      {"test_reshape_reordered_all_dims", "reshape", {}},
      {"test_reshape_negative_dim", "reshape", {}},
      {"test_concat_2d_axis_1", "concat", {intParam("axis", 1)}, {0, 1}},
      {"test_concat_3d_axis_0", "concat", {intParam("axis", 0)}, {0, 1}},
      {"test_concat_3d_axis_1", "concat", {intParam("axis", 1)}, {0, 1}},
      {"test_concat_3d_axis_2", "concat", {intParam("axis", 2)}, {0, 1}},
      {"test_concat_3d_axis_negative_2", "concat", {intParam("axis", -2)},
       {0, 1}},
  };
}

INSTANTIATE_TEST_SUITE_P(
    Node, KernelOnnxTest, ::testing::ValuesIn(cases()),
    [](const ::testing::TestParamInfo<OnnxCase> &info) {
      return std::string(info.param.test).substr(5);
    });

} // namespace
