//===- WindowParams.cpp - the parameters of the 2-d window kernels --------===//
//
// Decoded once when a method is loaded, into the state of the typed
// convolution and pooling kernels. Every parameter is required: the edge
// ops state each one (EdgeNN.td), so an absent one is a malformed program,
// not a default to guess.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include "strata/Support/WindowExtent.h"

namespace strata::runtime::kernels {

Result<std::pair<int64_t, int64_t>> getPairParam(const Params &params,
                                                 const char *name) {
  STRATA_ASSIGN_OR_RETURN(std::vector<int64_t> values,
                          params.requireInts(name));
  if (values.size() != 2 || (values)[0] < 1 || (values)[1] < 1 ||
      (values)[0] > kMaxWindowParam || (values)[1] > kMaxWindowParam)
    return Error(ErrorCode::InvalidArgument,
                 std::string("parameter '") + name +
                     "' must be two integers in [1, 2^20]");
  return std::make_pair((values)[0], (values)[1]);
}

Result<WindowParams> readWindowParams(const Params &params) {
  STRATA_ASSIGN_OR_RETURN(auto strides, getPairParam(params, "strides"));
  STRATA_ASSIGN_OR_RETURN(auto dilations, getPairParam(params, "dilations"));
  STRATA_ASSIGN_OR_RETURN(std::vector<int64_t> pads,
                          params.requireInts("pads"));
  if (pads.size() != 4 || std::any_of(pads.begin(), pads.end(), [](int64_t p) {
        return p < 0 || p > kMaxWindowParam;
      }))
    return Error(ErrorCode::InvalidArgument,
                 "parameter 'pads' must be four integers in [0, 2^20] "
                 "[top, left, bottom, right]");
  WindowParams p;
  std::tie(p.strideH, p.strideW) = strides;
  std::tie(p.dilH, p.dilW) = dilations;
  p.padT = pads[0], p.padL = pads[1], p.padB = pads[2], p.padR = pads[3];
  return p;
}

int64_t windowOutExtent(int64_t in, int64_t kernel, int64_t stride,
                        int64_t dilation, int64_t padBegin, int64_t padEnd,
                        bool ceilMode) {
  return windowExtent(in, kernel, stride, dilation, padBegin, padEnd, ceilMode)
      .value_or(-1);
}

Result<Conv2dGeometry> readConv2dGeometry(const Params &params,
                                          const TensorView &in,
                                          const TensorView &weight,
                                          const TensorView &out) {
  if (in.rank() != 4 || weight.rank() != 4 || out.rank() != 4)
    return Error(ErrorCode::InvalidArgument,
                 "input, weight and result must be 4-d (NCHW, OIHW), got " +
                     in.typeString() + ", " + weight.typeString() + ", " +
                     out.typeString());
  STRATA_ASSIGN_OR_RETURN(WindowParams p, readWindowParams(params));
  STRATA_ASSIGN_OR_RETURN(int64_t group, params.requireInt("group"));
  Conv2dGeometry g;
  g.n = in.shape[0], g.c = in.shape[1], g.h = in.shape[2], g.w = in.shape[3];
  g.oc = weight.shape[0], g.kh = weight.shape[2], g.kw = weight.shape[3];
  g.oh = out.shape[2], g.ow = out.shape[3], g.group = group;
  g.strideH = p.strideH, g.strideW = p.strideW, g.dilH = p.dilH,
  g.dilW = p.dilW;
  g.padT = p.padT, g.padL = p.padL, g.padB = p.padB, g.padR = p.padR;
  if (g.group < 1 || g.group > g.c || g.c % g.group || g.oc % g.group ||
      weight.shape[1] != g.c / g.group)
    return Error(ErrorCode::InvalidArgument,
                 "group " + std::to_string(g.group) + " does not fit input " +
                     in.typeString() + " and weight " + weight.typeString());
  if (out.shape[0] != g.n || out.shape[1] != g.oc)
    return Error(ErrorCode::InvalidArgument,
                 "result " + out.typeString() + " does not match input " +
                     in.typeString() + " and weight " + weight.typeString());
  if (windowOutExtent(g.h, g.kh, g.strideH, g.dilH, g.padT, g.padB) != g.oh ||
      windowOutExtent(g.w, g.kw, g.strideW, g.dilW, g.padL, g.padR) != g.ow)
    return Error(ErrorCode::InvalidArgument,
                 "result " + out.typeString() +
                     " does not match the convolution of " + in.typeString() +
                     " by " + weight.typeString());
  return g;
}

} // namespace strata::runtime::kernels
