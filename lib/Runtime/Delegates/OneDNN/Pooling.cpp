//===- Pooling.cpp - max and average pooling, reduce mean -----------------===//
//
// Pooling reads its input's layout when oneDNN accepts it (blocked layouts
// from convolutions), row-major otherwise, and a channel-blocked copy where
// oneDNN has only a generic kernel for the layout it has. A mean over H and
// W is global average pooling, a mean over axes with kept ones after them
// (an embedding bag's [bags, length, width] over the length) pools over the
// height of a channels-last view; other means are oneDNN reductions. Two
// row-major f32 averages run own loops: a global average pooling (one
// contiguous mean per plane) and an average over a window of rows of a
// one-channel tensor (LRN's sum across channels).
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <algorithm>
#include <memory>
#include <optional>

namespace strata::runtime::onednn {

using dnnl::memory;

namespace {
/// y[p] = the mean of x[p * area, (p + 1) * area), summed in 16 float
/// lanes (so that it vectorises; oneDNN's pooling sums in f32 too).
void planeMeans(const float *x, float *y, int64_t planes, int64_t area) {
  constexpr int64_t kLanes = 16;
  for (int64_t p = 0; p < planes; ++p) {
    const float *plane = x + p * area;
    float lanes[kLanes] = {};
    int64_t i = 0;
    for (; i + kLanes <= area; i += kLanes)
      for (int64_t l = 0; l < kLanes; ++l)
        lanes[l] += plane[i + l];
    for (int64_t l = 0; i + l < area; ++l)
      lanes[l] += plane[i + l];
    float sum = 0;
    for (int64_t l = 0; l < kLanes; ++l)
      sum += lanes[l];
    y[p] = sum / static_cast<float>(area);
  }
}
/// An average pooling of [images, 1, rows, width] over windows of `kernel`
/// rows (`padTop` before the first), stride 1.
struct RowWindow {
  int64_t images, rows, width, outRows, kernel, padTop;
  bool includePadding;
};

/// Each result row the mean of its window's input rows, summed in row
/// order in f32 (as oneDNN's pooling does), over whole rows so that the
/// loop vectorises.
void rowWindowMeans(const RowWindow &rw, const float *x, float *y) {
  for (int64_t n = 0; n < rw.images; ++n)
    for (int64_t r = 0; r < rw.outRows; ++r) {
      int64_t lo = std::max<int64_t>(0, r - rw.padTop),
              hi = std::min<int64_t>(rw.rows, r - rw.padTop + rw.kernel);
      float *out = y + (n * rw.outRows + r) * rw.width;
      const float *in = x + n * rw.rows * rw.width;
      std::fill(out, out + rw.width, 0.0f);
      for (int64_t k = lo; k < hi; ++k)
        for (int64_t i = 0; i < rw.width; ++i)
          out[i] += in[k * rw.width + i];
      float count = static_cast<float>(
          rw.includePadding ? rw.kernel : std::max<int64_t>(hi - lo, 1));
      for (int64_t i = 0; i < rw.width; ++i)
        out[i] /= count;
    }
}
} // namespace

void GraphBuilder::addOwnPool(const BlockedPool &pool, int srcMem, uint32_t dst,
                              const Desc &dstDesc) {
  Placement o = define(dst, dstDesc);
  auto kernel = std::make_shared<BlockedPool>(pool);
  addKernelStep(
      pool.kind == BlockedPool::Kind::Max ? "strata:max_pool"
                                          : "strata:avg_pool",
      [kernel](const std::unordered_map<int, memory> &args) {
        kernel->run(
            static_cast<const float *>(args.at(DNNL_ARG_SRC).get_data_handle()),
            static_cast<float *>(args.at(DNNL_ARG_DST).get_data_handle()));
      },
      {{DNNL_ARG_SRC, srcMem}, {DNNL_ARG_DST, addMem(o.desc, o.buffer)}}, 0);
}

Error GraphBuilder::buildPool(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  Dims dstDims = dimsOf(dst);
  if (dimsOf(src).size() != 4 || dstDims.size() != 4)
    return fail("pooling needs 4-D tensors");
  Window window = windowOf(op);
  dnnl::algorithm alg =
      op.kind() == fbs::OpKind::MaxPool ? dnnl::algorithm::pooling_max
      : op.count_include_pad() ? dnnl::algorithm::pooling_avg_include_padding
                               : dnnl::algorithm::pooling_avg_exclude_padding;
  STRATA_ASSIGN_OR_RETURN(Placement in, placement(src));
  // An average over a window of rows only, of a one-channel row-major f32
  // tensor (LRN's sum across channels, with the channels as its rows):
  // each result row the mean of whole input rows, where oneDNN would
  // reorder into and out of a blocked layout around its pooling.
  Dims srcDims = dimsOf(src);
  if (alg != dnnl::algorithm::pooling_max && srcDims[1] == 1 &&
      typeOf(src) == memory::data_type::f32 &&
      typeOf(dst) == memory::data_type::f32 && in.desc == plainDesc(srcDims) &&
      window.kernel[1] == 1 && window.strides[0] == 1 &&
      window.strides[1] == 1 && window.dilations[0] == 0 &&
      window.dilations[1] == 0 && window.padsBegin[1] == 0 &&
      window.padsEnd[1] == 0 && window.padsBegin[0] >= 0 &&
      window.padsBegin[0] < window.kernel[0] && dstDims[0] == srcDims[0] &&
      dstDims[1] == 1 && dstDims[3] == srcDims[3] &&
      dstDims[2] == srcDims[2] + window.padsBegin[0] + window.padsEnd[0] -
                        window.kernel[0] + 1) {
    Placement o = define(dst, plainDesc(dstDims));
    RowWindow rw{srcDims[0],
                 srcDims[2],
                 srcDims[3],
                 dstDims[2],
                 window.kernel[0],
                 window.padsBegin[0],
                 alg == dnnl::algorithm::pooling_avg_include_padding};
    addKernelStep(
        "strata:row_window_mean",
        [rw](const std::unordered_map<int, memory> &args) {
          rowWindowMeans(
              rw,
              static_cast<const float *>(
                  args.at(DNNL_ARG_SRC).get_data_handle()),
              static_cast<float *>(args.at(DNNL_ARG_DST).get_data_handle()));
        },
        {{DNNL_ARG_SRC, addMem(in.desc, in.buffer)},
         {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
        0);
    return Error::success();
  }
  // The result in the layout oneDNN picks for the input's (a graph output
  // is copied into the caller's row-major buffer afterwards): a row-major
  // result of a channels-last input has only the reference implementation
  // (Inception-v3's 192x71x71 max pooling: 46 ms instead of 0.2).
  auto make = [&](const Desc &srcDesc) {
    Desc dstDesc(dstDims, typeOf(dst), memory::format_tag::any);
    dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg,
                                     srcDesc, dstDesc, window.strides,
                                     window.kernel, window.dilations,
                                     window.padsBegin, window.padsEnd);
    return dnnl::pooling_v2_forward::primitive_desc(d, userScratchpadAttr(),
                                                    out.engine_);
  };
  dnnl::pooling_v2_forward::primitive_desc pd =
      orElse([&] { return make(in.desc); },
             [&] { return make(plainDesc(in.desc.dims())); });
  // A row-major input has only oneDNN's generic NCHW kernel (AlexNet's
  // first max pooling, after a convolution oneDNN runs as a GEMM: 4.1 ms
  // on Zen 3, against 0.1 ms and a 0.2 ms reorder in nChw8c). There the
  // input goes into the channel-blocked layout oneDNN's convolutions use
  // on this CPU, where a JIT kernel takes it.
  if (isReference(pd.impl_info_str()) ||
      std::string(pd.impl_info_str()).rfind("simple", 0) == 0) {
    memory::format_tag blocked =
        dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core
            ? memory::format_tag::aBcd16b
            : memory::format_tag::aBcd8b;
    try {
      dnnl::pooling_v2_forward::primitive_desc jit =
          make(Desc(dimsOf(src), typeOf(src), blocked));
      if (std::string(jit.impl_info_str()).rfind("jit", 0) == 0)
        pd = jit;
    } catch (const dnnl::error &) {
    }
  }
  STRATA_ASSIGN_OR_RETURN(Placement from, as(src, pd.src_desc()));
  // The own kernel (BlockedPool.h) where it takes the layouts oneDNN
  // chose: its JIT pooling is many times slower on AVX2.
  BlockedPool::Kind kind = alg == dnnl::algorithm::pooling_max
                               ? BlockedPool::Kind::Max
                           : alg == dnnl::algorithm::pooling_avg_include_padding
                               ? BlockedPool::Kind::AvgIncludePadding
                               : BlockedPool::Kind::AvgExcludePadding;
  if (std::optional<BlockedPool> own = BlockedPool::plan(
          kind, pd.src_desc(), pd.dst_desc(), window.strides, window.kernel,
          window.dilations, window.padsBegin)) {
    addOwnPool(*own, addMem(from.desc, from.buffer), dst, pd.dst_desc());
    return Error::success();
  }
  addUnaryStep(dnnl::pooling_v2_forward(pd), pd, addMem(from.desc, from.buffer),
               dst, pd.dst_desc());
  return Error::success();
}

/// For a mean over `src` that keeps `kept`: {outer, reduced, inner} when
/// the reduced extents (other than 1s) are one run of axes with a kept
/// extent other than 1 after it; none otherwise.
static std::optional<Dims> middleReductionRun(const Dims &src,
                                              const Dims &kept) {
  memory::dim outer = 1, reduced = 1, inner = 1;
  int phase = 0; // 0: before the run, 1: in it, 2: after it.
  for (size_t d = 0; d < src.size(); ++d) {
    if (src[d] == 1)
      continue;
    bool isReduced = kept[d] != src[d];
    if (isReduced && phase == 2)
      return std::nullopt;
    if (isReduced)
      phase = 1;
    else if (phase == 1)
      phase = 2;
    (phase == 0 ? outer : phase == 1 ? reduced : inner) *= src[d];
  }
  if (phase != 2 || inner == 1)
    return std::nullopt;
  return Dims{outer, reduced, inner};
}

Error GraphBuilder::buildReduceMean(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  Dims srcDims = dimsOf(src), kept = srcDims;
  if (op.axes())
    for (int64_t axis : *op.axes()) {
      if (axis < 0 || axis >= static_cast<int64_t>(kept.size()))
        return fail("reduce axis out of range");
      kept[axis] = 1;
    }
  if (plainDesc(kept).get_size() != plainDesc(dimsOf(dst)).get_size())
    return fail("reduce result shape does not match its axes");
  STRATA_ASSIGN_OR_RETURN(Placement in, placement(src));
  // Post-ops: an int8 mean's rescale into its result's scale.
  int sumInput = -1;
  STRATA_ASSIGN_OR_RETURN(dnnl::primitive_attr attr, attrOf(op, &sumInput));
  if (sumInput >= 0)
    return fail("a mean takes no sum post-op");
  if (srcDims.size() == 4 && kept[0] == srcDims[0] && kept[1] == srcDims[1] &&
      kept[2] == 1 && kept[3] == 1) {
    // Global average pooling: the pooling kernels read blocked layouts
    // (and are only fast writing the layout they read). s8 to s8 when
    // int8: the kernels sum in s32 and scale in f32.
    Desc dstDesc(kept, typeOf(dst), memory::format_tag::any);
    dnnl::pooling_v2_forward::desc d(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::pooling_avg_exclude_padding, in.desc, dstDesc, {1, 1},
        {srcDims[2], srcDims[3]}, {0, 0}, {0, 0}, {0, 0});
    dnnl::pooling_v2_forward::primitive_desc pd(d, attr, out.engine_);
    // f32 without a rescale: the own kernel, as for AveragePool.
    bool rescaled = (op.post_ops() && op.post_ops()->size() > 0) ||
                    (op.output_scales() && op.output_scales()->size() > 0);
    std::optional<BlockedPool> own;
    if (!rescaled)
      own = BlockedPool::plan(BlockedPool::Kind::AvgExcludePadding,
                              pd.src_desc(), pd.dst_desc(), {1, 1},
                              {srcDims[2], srcDims[3]}, {0, 0}, {0, 0});
    if (own) {
      addOwnPool(*own, addMem(in.desc, in.buffer), dst, pd.dst_desc());
      return Error::success();
    }
    // f32 row-major (the caller's tensor, or a plain producer's): each
    // result the mean of one contiguous plane, where oneDNN's kernel for
    // this layout takes about twice ONNX Runtime's time.
    if (!rescaled && typeOf(src) == memory::data_type::f32 &&
        typeOf(dst) == memory::data_type::f32 &&
        in.desc == plainDesc(srcDims)) {
      Placement o = define(dst, plainDesc(kept, typeOf(dst)));
      int64_t planes = srcDims[0] * srcDims[1], area = srcDims[2] * srcDims[3];
      addKernelStep(
          "strata:plane_mean",
          [planes, area](const std::unordered_map<int, memory> &args) {
            planeMeans(
                static_cast<const float *>(
                    args.at(DNNL_ARG_SRC).get_data_handle()),
                static_cast<float *>(args.at(DNNL_ARG_DST).get_data_handle()),
                planes, area);
          },
          {{DNNL_ARG_SRC, addMem(in.desc, in.buffer)},
           {DNNL_ARG_DST, addMem(o.desc, o.buffer)}},
          0);
      return Error::success();
    }
    addUnaryStep(dnnl::pooling_v2_forward(pd), pd, addMem(in.desc, in.buffer),
                 dst, pd.dst_desc());
    return Error::success();
  }
  // A mean over one run of axes with kept extents after it ([outer,
  // reduced, inner] row-major): oneDNN's reduction kernels take only
  // trailing runs and fall back to the reference code for these; its
  // pooling kernels read the same bytes as an nhwc tensor
  // {outer, inner, reduced, 1} and pool over the whole height.
  std::optional<Dims> run = middleReductionRun(srcDims, kept);
  if (run) {
    STRATA_ASSIGN_OR_RETURN(Placement plain, plainView(src, srcDims));
    memory::dim outer = (*run)[0], reduced = (*run)[1], inner = (*run)[2];
    Desc view({outer, inner, reduced, 1}, typeOf(src),
              Dims{reduced * inner, 1, inner, inner});
    Desc dstDesc({outer, inner, 1, 1}, typeOf(dst), memory::format_tag::acdb);
    dnnl::pooling_v2_forward::desc d(
        dnnl::prop_kind::forward_inference,
        dnnl::algorithm::pooling_avg_exclude_padding, view, dstDesc, {1, 1},
        {reduced, 1}, {0, 0}, {0, 0}, {0, 0});
    dnnl::pooling_v2_forward::primitive_desc pd(d, attr, out.engine_);
    if (!isReference(pd.impl_info_str())) {
      addUnaryStep(dnnl::pooling_v2_forward(pd), pd, addMem(view, plain.buffer),
                   dst, pd.dst_desc());
      return Error::success();
    }
  }
  auto make = [&](const Desc &s) {
    dnnl::reduction::desc d(dnnl::algorithm::reduction_mean, s,
                            plainDesc(kept, typeOf(dst)), 0.f, 0.f);
    return dnnl::reduction::primitive_desc(d, attr, out.engine_);
  };
  // In the layout the source has, unless only the reference code takes it
  // there (a channels-last or blocked source reduced over its spatial
  // extents): then row-major.
  dnnl::reduction::primitive_desc pd = orElse(
      [&] { return make(in.desc); }, [&] { return make(plainDesc(srcDims)); });
  if (isReference(pd.impl_info_str()) && in.desc != plainDesc(srcDims)) {
    dnnl::reduction::primitive_desc plain = make(plainDesc(srcDims));
    if (!isReference(plain.impl_info_str()))
      pd = plain;
  }
  STRATA_ASSIGN_OR_RETURN(Placement from, as(src, pd.src_desc()));
  // Written row-major with kept dims, then seen with the result's dims.
  addUnaryStep(dnnl::reduction(pd), pd, addMem(from.desc, from.buffer), dst,
               plainDesc(kept, typeOf(dst)));
  return Error::success();
}

} // namespace strata::runtime::onednn
