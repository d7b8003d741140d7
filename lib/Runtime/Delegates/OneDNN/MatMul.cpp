//===- MatMul.cpp - matrix products on oneDNN's matmul --------------------===//
//
// Gemm, MatMul and attention's products: row-major operands broadcast
// numpy-style, constant weights packed into the layout oneDNN picks (rows
// padded where that layout is row-major), an optional bias row, post-ops
// and int8 output scales.
//
//===----------------------------------------------------------------------===//
#include "BlockedGemv.h"
#include "GraphBuilder.h"

#include <algorithm>

namespace strata::runtime::onednn {

using dnnl::memory;

/// The own kernel for a product of a few f32 rows by constant f32 weights
/// that oneDNN packed in tiles (BlockedGemv.h), when every post-op is
/// elementwise (run after it, in place); none otherwise.
static std::optional<BlockedGemv>
ownGemv(const fbs::Op &op, int64_t rows, const dnnl::matmul::primitive_desc &pd,
        bool constantB, bool sourceZeroPoint) {
  if (!constantB || sourceZeroPoint || op.weights_zero_point() != 0 ||
      (op.output_scales() && op.output_scales()->size() != 0) ||
      pd.src_desc().data_type() != memory::data_type::f32 ||
      pd.dst_desc().data_type() != memory::data_type::f32 ||
      pd.src_desc().dims().size() != 2)
    return std::nullopt;
  if (op.post_ops())
    for (const fbs::PostOp *p : *op.post_ops())
      if (p->is_sum() || p->binary_input() >= 0)
        return std::nullopt;
  return BlockedGemv::plan(rows, pd.weights_desc());
}

Error GraphBuilder::buildMatMul(const fbs::Op &op) {
  STRATA_ASSIGN_OR_RETURN(PaddedOperands p, paddedOperands(op));
  uint32_t a = p.a, b = p.b, dst = p.dst;
  Dims aDims = p.aDims, bDims = p.bDims, dstDims = p.dstDims;
  size_t rank = dstDims.size();
  if (rank < 2 || aDims.size() != rank || bDims.size() != rank)
    return fail("matmul ranks do not line up");
  bool constantB = isConstant(b);
  // Constant weights shared by every batch: one 2-D product over all rows
  // (packed weights, one large GEMM instead of many thin ones).
  if (constantB && rank > 2 &&
      std::all_of(bDims.begin(), bDims.end() - 2,
                  [](int64_t d) { return d == 1; })) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < rank; ++i)
      rows *= aDims[i];
    aDims = {rows, aDims[rank - 1]};
    bDims = {bDims[rank - 2], bDims[rank - 1]};
    dstDims = {rows, dstDims[rank - 1]};
    rank = 2;
  }
  int sumInput = -1;
  STRATA_ASSIGN_OR_RETURN(dnnl::primitive_attr attr,
                          attrOf(op, &sumInput, 0, rank));
  if (sumInput >= 0)
    return fail("matmul has no sum post-op");
  // int8: s8/u8 rows, s8 weights, output scales per column (or one); a
  // run-time source zero point and a constant weights zero point (a
  // dynamically quantized input).
  STRATA_RETURN_IF_ERROR(setOutputScales(
      op, dstDims.back(), static_cast<int>(rank - 1), "output column", attr));
  int zeroPoint = op.src_zero_point();
  if (zeroPoint >= 0) {
    if (static_cast<size_t>(zeroPoint) >= placements.size() ||
        numElementsOf(zeroPoint) != 1 || typeOf(zeroPoint) != typeOf(a) ||
        typeOf(a) == memory::data_type::f32)
      return fail("the source zero point must be one value of the 8-bit "
                  "input's type");
    attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
  }
  if (op.weights_zero_point() != 0)
    attr.set_zero_points(DNNL_ARG_WEIGHTS, 0, {op.weights_zero_point()});
  Desc aDesc = plainDesc(aDims, typeOf(a)),
       dstDesc = plainDesc(dstDims, typeOf(dst));
  Desc bDesc = constantB ? Desc(bDims, typeOf(b), memory::format_tag::any)
                         : plainDesc(bDims, typeOf(b));
  STRATA_ASSIGN_OR_RETURN(int bias, optionalInput(op, 2));
  Desc biasDesc;
  if (bias >= 0) {
    Dims biasDims(rank, 1);
    biasDims.back() = dimsOf(bias).back();
    biasDesc = plainDesc(biasDims);
  }
  dnnl::matmul::desc d =
      bias >= 0 ? dnnl::matmul::desc(aDesc, bDesc, biasDesc, dstDesc)
                : dnnl::matmul::desc(aDesc, bDesc, dstDesc);
  dnnl::matmul::primitive_desc pd(d, attr, out.engine_);
  // Constant f32 weights that oneDNN keeps row-major (its AVX2 sgemm has no
  // packed layout) with rows a multiple of 64 floats apart: the sgemm's
  // packing reads rows that share L1 sets (4 KiB apart at 1024 columns), so
  // each row goes 16 floats further. Measured at 1 thread on Zen 3:
  // 197 x 768 x 3072 went from 31 to 72 GFLOP/s, 197 x 768 x 1024 from 35
  // to 73, 197 x 3072 x 768 from 72 to 85; a single row (a classifier's
  // matrix-vector product) reads the weights once and gains nothing.
  if (constantB && rank == 2 && typeOf(b) == memory::data_type::f32 &&
      aDims[0] >= 16 && bDims[1] % 64 == 0 &&
      pd.weights_desc() == plainDesc(bDims, typeOf(b))) {
    Desc padded(bDims, typeOf(b), Dims{bDims[1] + 16, 1});
    dnnl::matmul::desc withPadded =
        bias >= 0 ? dnnl::matmul::desc(aDesc, padded, biasDesc, dstDesc)
                  : dnnl::matmul::desc(aDesc, padded, dstDesc);
    try {
      pd = dnnl::matmul::primitive_desc(withPadded, attr, out.engine_);
    } catch (const dnnl::error &) {
    }
  }
  STRATA_ASSIGN_OR_RETURN(Placement ap, plainView(a, aDims));
  STRATA_ASSIGN_OR_RETURN(int bMem, weights(b, pd.weights_desc(), bDims));
  int aMem = addMem(ap.desc, ap.buffer);
  Placement o = define(dst, pd.dst_desc());
  int dMem = addMem(o.desc, o.buffer);
  STRATA_ASSIGN_OR_RETURN(
      int zeroPointMem, zeroPoint >= 0
                            ? sourceZeroPoint(static_cast<uint32_t>(zeroPoint))
                            : Result<int>(-1));
  if (std::optional<BlockedGemv> gemv =
          ownGemv(op, aDims[0], pd, constantB, zeroPoint >= 0)) {
    auto kernel = std::make_shared<BlockedGemv>(*gemv);
    addKernelStep(
        "strata:gemv",
        [kernel](const std::unordered_map<int, memory> &args) {
          kernel->run(
              floatsOf(args, DNNL_ARG_SRC), floatsOf(args, DNNL_ARG_WEIGHTS),
              floatsOf(args, DNNL_ARG_BIAS), floatsOf(args, DNNL_ARG_DST));
        },
        {{DNNL_ARG_SRC, aMem}, {DNNL_ARG_WEIGHTS, bMem}, {DNNL_ARG_DST, dMem}},
        0);
    STRATA_RETURN_IF_ERROR(addBias(bias, biasDesc.dims()));
    // The post-ops (all elementwise), in place on the product.
    for (uint32_t i = 0; op.post_ops() && i < op.post_ops()->size(); ++i) {
      const fbs::PostOp *p = op.post_ops()->Get(i);
      dnnl::eltwise_forward::primitive_desc epd = eltwiseInference(
          p->eltwise(), p->alpha(), p->beta(), dstDesc, out.engine_);
      addStep(dnnl::eltwise_forward(epd),
              {{DNNL_ARG_SRC, dMem}, {DNNL_ARG_DST, dMem}}, epd);
    }
    return Error::success();
  }
  addStep(
      dnnl::matmul(pd),
      {{DNNL_ARG_SRC, aMem}, {DNNL_ARG_WEIGHTS, bMem}, {DNNL_ARG_DST, dMem}},
      pd);
  if (zeroPointMem >= 0)
    addArgs(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, zeroPointMem);
  STRATA_RETURN_IF_ERROR(addPostOpInputs(op, rank));
  return addBias(bias, biasDesc.dims());
}

} // namespace strata::runtime::onednn
