//===- Elementwise.cpp - eltwise, binary and softmax ----------------------===//
//
// Element-wise ops run in their input's layout (no reorder around them)
// unless the result is a graph output or takes another shape, where they
// run row-major.
//
//===----------------------------------------------------------------------===//
#include "BroadcastBinary.h"
#include "ChannelScaleShift.h"
#include "GraphBuilder.h"

#include <memory>
#include <optional>

namespace strata::runtime::onednn {

using dnnl::memory;

static std::optional<BroadcastBinary>
ownBinary(const fbs::Op &op, const Desc &layout, const Dims &bDims);

/// The layout an element-wise op producing `dst` (of `dims`) runs in:
/// `input`'s, or row-major when the result is a graph output or has other
/// dims.
static Desc elementwiseLayout(const Desc &input, bool isOutput,
                              const Dims &dims) {
  if (isOutput || input.dims() != dims)
    return plainDesc(dims);
  return input;
}

Error GraphBuilder::buildEltwise(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  STRATA_ASSIGN_OR_RETURN(Placement in, placement(src));
  Desc desc = elementwiseLayout(in.desc, isOutput(dst), dimsOf(dst));
  STRATA_ASSIGN_OR_RETURN(Placement from, as(src, desc));
  dnnl::eltwise_forward::primitive_desc pd =
      eltwiseInference(op.eltwise(), op.alpha(), op.beta(), desc, out.engine_);
  addUnaryStep(dnnl::eltwise_forward(pd), pd, addMem(desc, from.buffer), dst,
               pd.dst_desc());
  return Error::success();
}

Error GraphBuilder::buildBinary(const fbs::Op &op) {
  STRATA_ASSIGN_OR_RETURN(PaddedOperands p, paddedOperands(op));
  uint32_t a = p.a, b = p.b, dst = p.dst;
  const Dims &aDims = p.aDims, &bDims = p.bDims, &dstDims = p.dstDims;
  if (aDims != dstDims)
    return fail("the first operand of a binary op must have the result's "
                "shape");
  int sumInput = -1;
  STRATA_ASSIGN_OR_RETURN(dnnl::primitive_attr attr, attrOf(op, &sumInput));
  STRATA_ASSIGN_OR_RETURN(Placement ap, placement(a));
  Desc aDesc = elementwiseLayout(ap.desc, isOutput(dst), dstDims);
  Desc bDesc = bDims == dstDims ? aDesc : plainDesc(bDims);
  // The result in a's layout, of the result's type: s8 when a quantization
  // was fused as the last post-op.
  dnnl::memory::data_type dstType = typeOf(dst);
  auto make = [&] {
    dnnl::binary::desc d(binaryAlgorithm(op.binary()), aDesc, bDesc,
                         withType(aDesc, dstType));
    return dnnl::binary::primitive_desc(d, attr, out.engine_);
  };
  dnnl::binary::primitive_desc pd = orElse(make, [&] {
    aDesc = plainDesc(dstDims);
    bDesc = plainDesc(bDims);
    return make();
  });
  // oneDNN's reference implementation is what it falls back on for
  // broadcasts its JIT kernels do not know: the own kernel takes those.
  std::optional<BroadcastBinary> own;
  if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0 &&
      bDims != dstDims && dstType == dnnl::memory::data_type::f32) {
    own = ownBinary(op, aDesc, bDims);
    if (!own && !isPlain(aDesc)) {
      aDesc = plainDesc(dstDims);
      own = ownBinary(op, aDesc, bDims);
    }
    if (own)
      bDesc = plainDesc(bDims);
  }
  STRATA_ASSIGN_OR_RETURN(Placement aIn, as(a, aDesc));
  STRATA_ASSIGN_OR_RETURN(
      Placement bIn, bDims == dstDims ? as(b, bDesc) : plainView(b, bDims));
  int aMem = addMem(aDesc, aIn.buffer);
  int bMem = addMem(bDesc, bIn.buffer);
  if (own) {
    // Over a where this is its last reader (a squeeze-excite scale: x is
    // read by its pooling, then here): one pass over the bytes less.
    Placement o{aDesc, aIn.buffer};
    if (mayOverwrite(a, aIn.buffer))
      defineView(dst, o);
    else
      o = define(dst, aDesc);
    auto kernel = std::make_shared<BroadcastBinary>(*own);
    addKernelStep(
        "strata:broadcast_binary",
        [kernel](const std::unordered_map<int, memory> &args) {
          kernel->run(
              static_cast<const float *>(
                  args.at(DNNL_ARG_SRC_0).get_data_handle()),
              static_cast<const float *>(
                  args.at(DNNL_ARG_SRC_1).get_data_handle()),
              static_cast<float *>(args.at(DNNL_ARG_DST).get_data_handle()));
        },
        {{DNNL_ARG_SRC_0, aMem},
         {DNNL_ARG_SRC_1, bMem},
         {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
        0);
    return Error::success();
  }
  Placement o = define(dst, pd.dst_desc());
  addStep(dnnl::binary(pd),
          {{DNNL_ARG_SRC_0, aMem},
           {DNNL_ARG_SRC_1, bMem},
           {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          pd);
  return Error::success();
}

/// The own kernel for scale-shift `op` of an x in `layout`: f32, scale
/// and shift one value per channel, post-ops at most one ReLU (slope in
/// [0, 1]) or clip.
static std::optional<ChannelScaleShift>
ownScaleShift(const fbs::Op &op, const Desc &layout, const Dims &sDims,
              memory::data_type dstType) {
  Dims dims = layout.dims();
  if (dims.size() != 4 || dstType != memory::data_type::f32 ||
      sDims != Dims{1, dims[1], 1, 1})
    return std::nullopt;
  std::optional<ChannelScaleShift> kernel = ChannelScaleShift::plan(layout);
  if (!kernel || !op.post_ops() || op.post_ops()->size() == 0)
    return kernel;
  const fbs::PostOp *p = op.post_ops()->Get(0);
  if (op.post_ops()->size() > 1 || p->is_sum())
    return std::nullopt;
  kernel->post = true;
  if (p->eltwise() == fbs::EltwiseKind::Relu && p->alpha() >= 0 &&
      p->alpha() <= 1) {
    kernel->slope = p->alpha();
  } else if (p->eltwise() == fbs::EltwiseKind::Clip) {
    kernel->slope = 1;
    kernel->low = p->alpha();
    kernel->high = p->beta();
  } else {
    return std::nullopt;
  }
  return kernel;
}

Error GraphBuilder::buildScaleShift(const fbs::Op &op) {
  uint32_t x = 0, scale = 0, shift = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&x, &scale, &shift}, dst));
  Dims dstDims = dimsOf(dst);
  size_t rank = dstDims.size();
  Dims xDims = padTo(dimsOf(x), rank), sDims = padTo(dimsOf(scale), rank);
  if (xDims != dstDims || padTo(dimsOf(shift), rank) != sDims)
    return fail("a scale-shift needs x of the result's shape, and scale and "
                "shift of one shape");
  // The add of the shift is a binary post-op, after it the op's eltwise
  // post-ops (a relu, say).
  dnnl::post_ops ops;
  ops.append_binary(dnnl::algorithm::binary_add, plainDesc(sDims));
  if (op.post_ops())
    for (const fbs::PostOp *p : *op.post_ops()) {
      if (p->is_sum())
        return fail("a scale-shift takes no sum post-op");
      ops.append_eltwise(1.f, eltwiseAlgorithm(p->eltwise()), p->alpha(),
                         p->beta());
    }
  dnnl::primitive_attr attr = userScratchpadAttr();
  attr.set_post_ops(ops);
  STRATA_ASSIGN_OR_RETURN(Placement xp, placement(x));
  Desc xDesc = elementwiseLayout(xp.desc, isOutput(dst), dstDims);
  Desc sDesc = plainDesc(sDims);
  STRATA_ASSIGN_OR_RETURN(Placement scaleIn, plainView(scale, sDims));
  STRATA_ASSIGN_OR_RETURN(Placement shiftIn, plainView(shift, sDims));
  // Per-channel f32 in a channel-blocked or channels-last x: the own
  // kernel, in x's layout (ChannelScaleShift.h).
  bool f32Factors = typeOf(scale) == memory::data_type::f32 &&
                    typeOf(shift) == memory::data_type::f32;
  if (std::optional<ChannelScaleShift> own =
          f32Factors ? ownScaleShift(op, xDesc, sDims, typeOf(dst))
                     : std::nullopt) {
    STRATA_ASSIGN_OR_RETURN(Placement xIn, as(x, xDesc));
    Placement o = define(dst, xDesc);
    auto kernel = std::make_shared<ChannelScaleShift>(*own);
    addKernelStep(
        "strata:scale_shift",
        [kernel](const std::unordered_map<int, memory> &args) {
          auto data = [&](int arg) {
            return static_cast<float *>(args.at(arg).get_data_handle());
          };
          kernel->run(data(DNNL_ARG_SRC_0), data(DNNL_ARG_SRC_1),
                      data(DNNL_ARG_SRC_2), data(DNNL_ARG_DST));
        },
        {{DNNL_ARG_SRC_0, addMem(xDesc, xIn.buffer)},
         {DNNL_ARG_SRC_1, addMem(sDesc, scaleIn.buffer)},
         {DNNL_ARG_SRC_2, addMem(sDesc, shiftIn.buffer)},
         {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
        0);
    return Error::success();
  }
  auto make = [&] {
    dnnl::binary::desc d(dnnl::algorithm::binary_mul, xDesc, sDesc,
                         withType(xDesc, typeOf(dst)));
    return dnnl::binary::primitive_desc(d, attr, out.engine_);
  };
  // x as it is placed when oneDNN has a JIT kernel for that, else
  // channels-last or row-major (2.6 on AVX2 has only its reference kernel
  // for a blocked x with these post-ops, 300x slower than a reorder and a
  // JIT kernel on densenet121).
  std::vector<Desc> layouts{xDesc};
  if (rank == 4 && !isOutput(dst))
    layouts.push_back(
        Desc(dstDims, xDesc.data_type(), memory::format_tag::acdb));
  layouts.push_back(plainDesc(dstDims));
  std::optional<dnnl::binary::primitive_desc> pd;
  Desc chosen;
  for (const Desc &layout : layouts) {
    xDesc = layout;
    try {
      dnnl::binary::primitive_desc candidate = make();
      bool reference = isReference(candidate.impl_info_str());
      if (!pd || (!reference && isReference(pd->impl_info_str())))
        pd = candidate, chosen = layout;
      if (!reference)
        break;
    } catch (const dnnl::error &) {
    }
  }
  if (!pd)
    return fail("oneDNN has no scale-shift for this tensor");
  xDesc = chosen;
  STRATA_ASSIGN_OR_RETURN(Placement xIn, as(x, xDesc));
  Placement o = define(dst, pd->dst_desc());
  addStep(dnnl::binary(*pd),
          {{DNNL_ARG_SRC_0, addMem(xDesc, xIn.buffer)},
           {DNNL_ARG_SRC_1, addMem(sDesc, scaleIn.buffer)},
           {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
            addMem(sDesc, shiftIn.buffer)},
           {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          *pd);
  return Error::success();
}

/// The own broadcasting kernel for binary `op` with its first operand and
/// result in `layout`: f32, and post-ops limited to one relu or clip.
static std::optional<BroadcastBinary>
ownBinary(const fbs::Op &op, const Desc &layout, const Dims &bDims) {
  BroadcastBinary::Kind kind;
  switch (op.binary()) {
  case fbs::BinaryKind::Add:
    kind = BroadcastBinary::Kind::Add;
    break;
  case fbs::BinaryKind::Sub:
    kind = BroadcastBinary::Kind::Sub;
    break;
  case fbs::BinaryKind::Mul:
    kind = BroadcastBinary::Kind::Mul;
    break;
  case fbs::BinaryKind::Div:
    kind = BroadcastBinary::Kind::Div;
    break;
  case fbs::BinaryKind::Max:
    kind = BroadcastBinary::Kind::Max;
    break;
  case fbs::BinaryKind::Min:
    kind = BroadcastBinary::Kind::Min;
    break;
  default:
    return std::nullopt;
  }
  BroadcastBinary::Post post = BroadcastBinary::Post::None;
  float alpha = 0, beta = 0;
  if (op.post_ops() && op.post_ops()->size()) {
    const fbs::PostOp *p = op.post_ops()->Get(0);
    if (op.post_ops()->size() > 1 || p->is_sum() ||
        (p->eltwise() != fbs::EltwiseKind::Relu &&
         p->eltwise() != fbs::EltwiseKind::Clip))
      return std::nullopt;
    post = p->eltwise() == fbs::EltwiseKind::Relu ? BroadcastBinary::Post::Relu
                                                  : BroadcastBinary::Post::Clip;
    alpha = p->alpha();
    beta = p->beta();
  }
  std::optional<BroadcastBinary> kernel = BroadcastBinary::plan(layout, bDims);
  if (kernel) {
    kernel->kind = kind;
    kernel->post = post;
    kernel->alpha = alpha;
    kernel->beta = beta;
    if (!kernel->padKeepsZero())
      return std::nullopt;
  }
  return kernel;
}

/// `dims` row-major except that `axis` is the innermost: the layout in
/// which oneDNN's softmax kernels run over any axis (in a plain layout
/// they take only the last one, and fall back to the reference code).
static Desc axisInnermostDesc(const Dims &dims, int axis,
                              dnnl::memory::data_type type) {
  Dims strides(dims.size(), 0);
  dnnl::memory::dim stride = dims[axis];
  strides[axis] = 1;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (d == axis)
      continue;
    strides[d] = stride;
    stride *= dims[d];
  }
  return Desc(dims, type, strides);
}

Error GraphBuilder::buildSoftmax(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  Dims dims = dimsOf(dst);
  if (op.axis() < 0 || op.axis() >= static_cast<int64_t>(dims.size()))
    return fail("softmax axis out of range");
  int axis = static_cast<int>(op.axis());
  STRATA_ASSIGN_OR_RETURN(Placement in, plainView(src, dims));
  if (op.kind() == fbs::OpKind::LogSoftmax)
    return addSoftmaxStep<dnnl::logsoftmax_forward>(src, dst, axis, in);
  return addSoftmaxStep<dnnl::softmax_forward>(src, dst, axis, in);
}

template <typename Primitive>
Error GraphBuilder::addSoftmaxStep(uint32_t src, uint32_t dst, int axis,
                                   Placement in) {
  auto make = [&](const Desc &desc) {
    typename Primitive::desc d(dnnl::prop_kind::forward_inference, desc, axis);
    return typename Primitive::primitive_desc(d, userScratchpadAttr(),
                                              out.engine_);
  };
  typename Primitive::primitive_desc pd = make(in.desc);
  if (isReference(pd.impl_info_str())) {
    // Over an axis that is not the innermost: reordered so that it is,
    // the result left in that layout for its readers.
    Desc inner = axisInnermostDesc(in.desc.dims(), axis, typeOf(src));
    typename Primitive::primitive_desc fast = make(inner);
    if (!isReference(fast.impl_info_str())) {
      STRATA_ASSIGN_OR_RETURN(in, as(src, inner));
      pd = fast;
    }
  }
  addUnaryStep(Primitive(pd), pd, addMem(in.desc, in.buffer), dst,
               pd.dst_desc());
  return Error::success();
}

} // namespace strata::runtime::onednn
