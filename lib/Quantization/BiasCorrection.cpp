//===- BiasCorrection.cpp - removing the mean shift of quantized weights --===//
//
// Rounding a layer's weights W to Wq shifts the mean of its output: with
// E = Wq - W, output channel o moves on average by
//   delta_o = sum_k E[o, k] * mean(x_k)
// over the inputs k the weight row reads (for a convolution, k is an input
// channel and a kernel offset, and mean(x_k) the mean of that shifted
// window over the output positions, zero padding included). After a ReLU
// the inputs have a large mean, so this shift is a sizeable part of the
// weights' error, and it is constant: subtracting delta from the layer's
// bias (or adding it to its batch normalization's running mean) removes
// it. This is the empirical bias correction of Nagel et al., "Data-Free
// Quantization Through Weight Equalization and Bias Correction" (2019),
// with the input means measured on the calibration data.
//
//===----------------------------------------------------------------------===//
#include "strata/Quantization/Quantization.h"

#include "HL/IR/HLOps.h"

#include "mlir/IR/Builders.h"

namespace strata::quantization {

using namespace mlir;

namespace {

/// The group input `arg` stands for, when it is a block argument of the
/// group's body.
std::optional<unsigned> groupInputOf(hl::FusedOp group, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != &group.getBody().front())
    return std::nullopt;
  return arg.getArgNumber();
}

/// The f32 values of a 1-D constant group input with `n` elements, or of
/// one of shape [1, n].
std::optional<std::vector<float>> channelConstant(hl::FusedOp group,
                                                  unsigned input, int64_t n) {
  Value value = group.getInputs()[input];
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getNumElements() != n ||
      type.getDimSize(type.getRank() - 1) != n)
    return std::nullopt;
  return constantFloats(value);
}

/// The bias-correction site `group` forms, if any.
std::optional<BiasCorrectionSite> matchSite(hl::FusedOp group) {
  std::optional<ArrayAttr> points = group.getQdqPoints();
  if (!points)
    return std::nullopt;
  BiasCorrectionSite site;
  site.group = group;
  int64_t activation = -1, weight = -1;
  for (Attribute point : *points) {
    auto dict = cast<DictionaryAttr>(point);
    auto role = dict.getAs<StringAttr>("role");
    auto input = dict.getAs<IntegerAttr>("input");
    if (!role || !input)
      continue;
    if (role.getValue() == "activation" && activation < 0)
      activation = input.getInt();
    else if (role.getValue() == "weight")
      weight = input.getInt();
  }
  if (activation < 0 || weight < 0)
    return std::nullopt;
  // Both pairs in place: the float input and the quantized constant.
  auto xd = group.getInputs()[activation]
                .getDefiningOp<mlir::quant::DequantizeCastOp>();
  auto wd =
      group.getInputs()[weight].getDefiningOp<mlir::quant::DequantizeCastOp>();
  auto xq = xd ? xd.getArg().getDefiningOp<mlir::quant::QuantizeCastOp>()
               : nullptr;
  auto wq = wd ? wd.getArg().getDefiningOp<mlir::quant::QuantizeCastOp>()
               : nullptr;
  if (!xq || !wq || !constantFloats(wq.getArg()))
    return std::nullopt;
  site.input = xq.getArg();
  site.inputQuantize = xq;
  site.weight = wq;
  // The layer: the body op reading both.
  Operation *layer = nullptr;
  for (Operation &op : group.getBody().front().without_terminator()) {
    if (op.getNumOperands() < 2 ||
        groupInputOf(group, op.getOperand(0)) != activation ||
        groupInputOf(group, op.getOperand(1)) != weight)
      continue;
    layer = &op;
    break;
  }
  if (!layer || !layer->hasOneUse())
    return std::nullopt;
  auto xType = cast<RankedTensorType>(site.input.getType());
  auto wType = cast<RankedTensorType>(wq.getArg().getType());
  auto outType = cast<RankedTensorType>(layer->getResult(0).getType());
  if (!xType.hasStaticShape() || !outType.hasStaticShape())
    return std::nullopt;
  if (auto conv = dyn_cast<hl::ConvOp>(layer)) {
    if (xType.getRank() != 4 || conv.getAutoPad() != "NOTSET")
      return std::nullopt;
    site.kind = BiasCorrectionSite::Kind::Conv;
    site.groups = conv.getGroup();
    auto pick = [](std::optional<ArrayRef<int64_t>> a, size_t i,
                   int64_t fallback) {
      return a && a->size() > i ? (*a)[i] : fallback;
    };
    site.stride = {pick(conv.getStrides(), 0, 1),
                   pick(conv.getStrides(), 1, 1)};
    site.dilation = {pick(conv.getDilations(), 0, 1),
                     pick(conv.getDilations(), 1, 1)};
    site.padBegin = {pick(conv.getPads(), 0, 0), pick(conv.getPads(), 1, 0)};
    site.outputSize = {outType.getDimSize(2), outType.getDimSize(3)};
    site.channels = outType.getDimSize(1);
    // The shift lands before the conv's own bias, or its normalization.
    Operation *user = *layer->getUsers().begin();
    if (auto bn = dyn_cast<hl::BatchNormalizationOp>(user);
        bn && bn.getInput() == layer->getResult(0)) {
      std::optional<unsigned> mean = groupInputOf(group, bn.getMean());
      if (!mean)
        return std::nullopt;
      site.target = *mean;
      site.targetUse = &bn->getOpOperand(3);
      site.subtract = false;
    } else if (conv.getBias()) {
      std::optional<unsigned> bias = groupInputOf(group, conv.getBias());
      if (!bias)
        return std::nullopt;
      site.target = *bias;
      site.targetUse = &layer->getOpOperand(2);
    } else {
      return std::nullopt;
    }
  } else if (auto gemm = dyn_cast<hl::GemmOp>(layer)) {
    if (gemm.getTransA() || !gemm.getC() || gemm.getBeta().isZero() ||
        xType.getRank() != 2)
      return std::nullopt;
    std::optional<unsigned> c = groupInputOf(group, gemm.getC());
    if (!c)
      return std::nullopt;
    site.kind = BiasCorrectionSite::Kind::Linear;
    site.transposedWeight = gemm.getTransB() != 0;
    site.channels = outType.getDimSize(1);
    site.target = *c;
    site.targetUse = &layer->getOpOperand(2);
    site.targetScale = gemm.getAlpha().convertToDouble() /
                       gemm.getBeta().convertToDouble();
  } else if (isa<hl::MatMulOp>(layer) && wType.getRank() == 2) {
    // A bias added right after (a linear group).
    auto add = dyn_cast<hl::AddOp>(*layer->getUsers().begin());
    if (!add)
      return std::nullopt;
    Value other = add.getOperand(0) == layer->getResult(0)
                      ? add.getOperand(1)
                      : add.getOperand(0);
    std::optional<unsigned> bias = groupInputOf(group, other);
    if (!bias)
      return std::nullopt;
    site.kind = BiasCorrectionSite::Kind::Linear;
    site.channels = outType.getDimSize(outType.getRank() - 1);
    site.target = *bias;
    site.targetUse = &add->getOpOperand(add.getOperand(0) == other ? 0 : 1);
  } else {
    return std::nullopt;
  }
  if (!channelConstant(group, site.target, site.channels))
    return std::nullopt;
  site.kernelSize = {1, 1};
  if (site.kind == BiasCorrectionSite::Kind::Conv)
    site.kernelSize = {wType.getDimSize(2), wType.getDimSize(3)};
  site.inputChannels = site.kind == BiasCorrectionSite::Kind::Conv
                           ? xType.getDimSize(1)
                           : xType.getDimSize(xType.getRank() - 1);
  return site;
}

} // namespace

std::vector<BiasCorrectionSite> findBiasCorrectionSites(Operation *root) {
  std::vector<BiasCorrectionSite> sites;
  root->walk([&](hl::FusedOp group) {
    if (std::optional<BiasCorrectionSite> site = matchSite(group))
      sites.push_back(std::move(*site));
  });
  return sites;
}

size_t BiasCorrectionSite::meanSize() const {
  return static_cast<size_t>(inputChannels * kernelSize[0] * kernelSize[1]);
}

void BiasCorrectionSite::accumulate(const float *data, size_t n,
                                    std::vector<double> &sums,
                                    double &count) const {
  if (kind == Kind::Linear) {
    size_t k = static_cast<size_t>(inputChannels);
    for (size_t row = 0; row + k <= n; row += k) {
      for (size_t j = 0; j < k; ++j)
        sums[j] += data[row + j];
      count += 1;
    }
    return;
  }
  auto xType = cast<RankedTensorType>(input.getType());
  int64_t batch = xType.getDimSize(0), c = xType.getDimSize(1),
          h = xType.getDimSize(2), w = xType.getDimSize(3);
  int64_t oh = outputSize[0], ow = outputSize[1];
  int64_t kh = kernelSize[0], kw = kernelSize[1];
  if (static_cast<size_t>(batch * c * h * w) != n)
    return;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t j = 0; j < c; ++j) {
      const float *plane = data + (b * c + j) * h * w;
      for (int64_t ky = 0; ky < kh; ++ky)
        for (int64_t kx = 0; kx < kw; ++kx) {
          // The window at kernel offset (ky, kx) over every output
          // position; padding contributes zeros.
          double sum = 0;
          for (int64_t y = 0; y < oh; ++y) {
            int64_t iy = y * stride[0] + ky * dilation[0] - padBegin[0];
            if (iy < 0 || iy >= h)
              continue;
            const float *row = plane + iy * w;
            for (int64_t x = 0; x < ow; ++x) {
              int64_t ix = x * stride[1] + kx * dilation[1] - padBegin[1];
              if (ix >= 0 && ix < w)
                sum += row[ix];
            }
          }
          sums[(j * kh + ky) * kw + kx] += sum;
        }
    }
    count += static_cast<double>(oh * ow);
  }
}

namespace {

/// Gives `site`'s target (its bias or running mean) the values `values`:
/// a new constant, as a new group input when the body also reads the old
/// one elsewhere.
void replaceTarget(const BiasCorrectionSite &site, ArrayRef<float> values) {
  hl::FusedOp group = site.group;
  Value old = group.getInputs()[site.target];
  OpBuilder b(group);
  auto type = cast<RankedTensorType>(old.getType());
  auto constant = b.create<hl::ConstantOp>(
      old.getLoc(), DenseElementsAttr::get(type, values));
  Block &body = group.getBody().front();
  BlockArgument arg = body.getArgument(site.target);
  if (arg.hasOneUse()) {
    group->setOperand(site.target, constant.getResult());
  } else {
    // The body reads this input elsewhere too (equal constants merged: a
    // normalization's zero bias and zero mean): a new input for this use.
    group->insertOperands(group->getNumOperands(), constant.getResult());
    site.targetUse->set(body.addArgument(type, old.getLoc()));
  }
  if (old.use_empty())
    old.getDefiningOp()->erase();
}

} // namespace

LogicalResult applyBiasCorrection(const BiasCorrectionSite &site,
                                  ArrayRef<double> means) {
  hl::FusedOp group = site.group;
  mlir::quant::QuantizeCastOp weight = site.weight;
  if (means.size() != site.meanSize())
    return group->emitError("bias correction: expected ")
           << site.meanSize() << " input means, got " << means.size();
  std::optional<std::vector<float>> w = constantFloats(weight.getArg());
  auto wType = cast<RankedTensorType>(weight.getArg().getType());
  std::optional<TypeQuantization> q = getTypeQuantization(
      cast<RankedTensorType>(weight.getType()).getElementType());
  std::optional<std::vector<float>> target =
      channelConstant(group, site.target, site.channels);
  if (!w || !q || !target)
    return group->emitError("bias correction: the weight or the bias "
                            "is no longer a readable constant");
  // delta_o = sum_k (Wq - W)[o, k] * mean_k.
  std::vector<double> delta(site.channels, 0.0);
  ArrayRef<int64_t> shape = wType.getShape();
  int64_t perGroupOut = site.channels / std::max<int64_t>(site.groups, 1);
  for (size_t i = 0; i < w->size(); ++i) {
    const QuantParams &p = q->params[channelOf(i, shape, q->axis)];
    double error = p.fakeQuantize((*w)[i]) - (*w)[i];
    if (error == 0)
      continue;
    int64_t o, k;
    if (site.kind == BiasCorrectionSite::Kind::Conv) {
      // [O, C/groups, KH, KW]: the input index is the group's channel.
      int64_t inner = shape[1] * shape[2] * shape[3];
      o = static_cast<int64_t>(i) / inner;
      int64_t rest = static_cast<int64_t>(i) % inner;
      k = (o / perGroupOut) * shape[1] * shape[2] * shape[3] + rest;
    } else if (site.transposedWeight) { // [N, K]
      o = static_cast<int64_t>(i) / shape[1];
      k = static_cast<int64_t>(i) % shape[1];
    } else { // [K, N]
      k = static_cast<int64_t>(i) / shape[1];
      o = static_cast<int64_t>(i) % shape[1];
    }
    delta[o] += error * means[k];
  }
  for (int64_t o = 0; o < site.channels; ++o) {
    double shift = delta[o] * site.targetScale;
    (*target)[o] = static_cast<float>(site.subtract ? (*target)[o] - shift
                                                    : (*target)[o] + shift);
  }
  replaceTarget(site, *target);
  return success();
}

LogicalResult snapBiasToAccumulator(const BiasCorrectionSite &site) {
  hl::FusedOp group = site.group;
  mlir::quant::QuantizeCastOp input = site.inputQuantize, weight = site.weight;
  if (!site.subtract)
    return group->emitError("int32 bias: the layer's bias is a "
                            "normalization's mean; fold it first");
  std::optional<TypeQuantization> x = getTypeQuantization(
      cast<RankedTensorType>(input.getType()).getElementType());
  std::optional<TypeQuantization> w = getTypeQuantization(
      cast<RankedTensorType>(weight.getType()).getElementType());
  std::optional<std::vector<float>> bias =
      channelConstant(group, site.target, site.channels);
  if (!x || x->params.size() != 1 || !w || !bias ||
      (w->params.size() != 1 &&
       static_cast<int64_t>(w->params.size()) != site.channels))
    return group->emitError("int32 bias: the input, weight or bias "
                            "quantization is not readable");
  for (int64_t o = 0; o < site.channels; ++o) {
    double step = x->params.front().scale *
                  w->params[w->params.size() == 1 ? 0 : o].scale *
                  site.targetScale;
    double levels = std::nearbyint((*bias)[o] / step);
    if (std::fabs(levels) > 2147483647.0)
      return group->emitError("int32 bias: channel ")
             << o << "'s bias " << (*bias)[o] << " needs more than 32 bits "
             << "at the accumulator's step " << step;
    (*bias)[o] = static_cast<float>(levels * step);
  }
  replaceTarget(site, *bias);
  return success();
}

} // namespace strata::quantization
