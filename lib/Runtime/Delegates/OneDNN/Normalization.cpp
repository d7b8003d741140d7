//===- Normalization.cpp - layer normalization ----------------------------===//
//
// LayerNorm over the last axis on oneDNN's layer_normalization, row-major,
// with separate scale and shift vectors (one per channel).
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

namespace strata::runtime::onednn {

using dnnl::memory;

Error GraphBuilder::buildLayerNorm(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  Dims dims = dimsOf(dst);
  if (dims.empty() || dims != dimsOf(src))
    return fail("layer normalization keeps its input's shape");
  size_t inputs = op.inputs()->size();
  if (inputs > 3)
    return fail("layer normalization takes x, gamma and beta");
  if (!(op.alpha() >= 0))
    return fail("layer normalization needs a non-negative epsilon");
  Dims channels{dims.back()};
  STRATA_ASSIGN_OR_RETURN(Placement in, plainView(src, dims));
  // Gamma and beta placed before the step, so that a reorder they might
  // need does not come between the step and its arguments.
  std::vector<int> affine;
  for (size_t i = 1; i < inputs; ++i) {
    STRATA_ASSIGN_OR_RETURN(uint32_t t, tensorAt(op.inputs(), i, "inputs"));
    if (numElementsOf(t) != dims.back())
      return fail("layer normalization's gamma and beta need one value per "
                  "channel");
    STRATA_ASSIGN_OR_RETURN(Placement p, plainView(t, channels));
    affine.push_back(addMem(p.desc, p.buffer));
  }
  auto flags = dnnl::normalization_flags::none;
  if (inputs > 1)
    flags |= dnnl::normalization_flags::use_scale;
  if (inputs > 2)
    flags |= dnnl::normalization_flags::use_shift;
  dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference,
                                            in.desc, op.alpha(), flags);
  dnnl::layer_normalization_forward::primitive_desc pd(
      d, userScratchpadAttr(), out.engine_);
  addUnaryStep(dnnl::layer_normalization_forward(pd), pd,
               addMem(in.desc, in.buffer), dst, pd.dst_desc());
  const int args[] = {DNNL_ARG_SCALE, DNNL_ARG_SHIFT};
  for (size_t i = 0; i < affine.size(); ++i)
    addArgs(args[i], affine[i]);
  return Error::success();
}

} // namespace strata::runtime::onednn
