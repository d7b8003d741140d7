//===- DataMovement.cpp - transpose, slice, reshape, concat, reorders -----===//
//
// Ops that move or convert bytes without arithmetic across elements:
// transposes and slices are reorders of a strided view, a reshape is a
// view of the same buffer, concat is oneDNN's or the delegate's copy (of
// contiguous ranges along whole channel blocks, of pixels channels-last),
// and an int8 quantize or dequantize is a reorder with one scale.
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <omp.h>

#include <algorithm>
#include <cstring>

namespace strata::runtime::onednn {

using dnnl::memory;

Error GraphBuilder::copyView(uint32_t src, const Desc &layout, const Desc &view,
                             uint32_t dst, const Desc &dstDesc) {
  STRATA_ASSIGN_OR_RETURN(Placement in, as(src, layout));
  Placement o = define(dst, dstDesc);
  addReorder(view, in.buffer, o.desc, o.buffer);
  return Error::success();
}

Error GraphBuilder::buildTranspose(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  Dims srcDims = dimsOf(src), dstDims = dimsOf(dst);
  size_t rank = srcDims.size();
  if (!op.axes() || op.axes()->size() != rank || dstDims.size() != rank)
    return fail("transpose permutation does not match the rank");
  // oneDNN's permutation sends source axis i to result axis moved[i]; the
  // op's sends source axis axes[i] to result axis i.
  std::vector<int> moved(rank, -1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t p = op.axes()->Get(i);
    if (p < 0 || p >= static_cast<int64_t>(rank) || moved[p] >= 0 ||
        dstDims[i] != srcDims[p])
      return fail("bad transpose permutation");
    moved[p] = static_cast<int>(i);
  }
  STRATA_ASSIGN_OR_RETURN(Placement in, placement(src));
  // The source's bytes seen with the axes permuted. Where that is a layout
  // the delegate's ops take as they are (row-major, or channels-last as a
  // convolution leaves it: ConvNeXt's NCHW <-> NHWC permutes), the
  // transpose is that view and moves nothing; else one reorder from the
  // view writes the result row-major.
  Desc view = in.desc.permute_axes(moved, /*allow_empty=*/true);
  if (view.is_zero())
    return copyView(src, plainOf(src), plainOf(src).permute_axes(moved), dst,
                    plainOf(dst));
  Desc plain = plainOf(dst);
  Desc channelsLast =
      rank == 4 ? Desc(dstDims, typeOf(dst), memory::format_tag::acdb) : plain;
  if (view == plain || view == channelsLast) {
    defineView(dst, Placement{view, in.buffer});
    return Error::success();
  }
  Placement o = define(dst, plain);
  addReorder(view, in.buffer, o.desc, o.buffer);
  return Error::success();
}

Error GraphBuilder::buildSlice(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  Dims srcDims = dimsOf(src), dstDims = dimsOf(dst);
  size_t rank = srcDims.size();
  if (!op.axes() || op.axes()->size() != rank || dstDims.size() != rank)
    return fail("slice starts do not match the rank");
  Dims starts(op.axes()->begin(), op.axes()->end());
  for (size_t i = 0; i < rank; ++i)
    if (starts[i] < 0 || starts[i] + dstDims[i] > srcDims[i])
      return fail("slice lies outside its input");
  Desc layout = plainDesc(srcDims);
  return copyView(src, layout, layout.submemory_desc(dstDims, starts), dst,
                  plainDesc(dstDims));
}

Error GraphBuilder::buildReshape(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  STRATA_ASSIGN_OR_RETURN(Placement view, plainView(src, dimsOf(dst)));
  defineView(dst, view);
  return Error::success();
}

Error GraphBuilder::buildConcat(const fbs::Op &op) {
  STRATA_ASSIGN_OR_RETURN(uint32_t dst, tensorAt(op.outputs(), 0, "outputs"));
  Dims dstDims = dimsOf(dst);
  if (!op.inputs() || op.inputs()->size() == 0 || op.axis() < 0 ||
      op.axis() >= static_cast<int64_t>(dstDims.size()))
    return fail("bad concat");
  // Concatenate in the inputs' own layout when they share one (the fire
  // modules of SqueezeNet: NHWC convolutions), else row-major.
  std::vector<uint32_t> srcs;
  for (size_t i = 0; i < op.inputs()->size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(uint32_t t, tensorAt(op.inputs(), i, "inputs"));
    srcs.push_back(t);
  }
  dnnl::primitive_attr attr = userScratchpadAttr();
  auto make = [&](bool own) -> Result<dnnl::concat::primitive_desc> {
    std::vector<Desc> descs;
    for (uint32_t t : srcs) {
      STRATA_ASSIGN_OR_RETURN(Placement p, placement(t));
      descs.push_back(own ? p.desc : plainOf(t));
    }
    Desc dstDesc = own && !isOutput(dst)
                       ? Desc(dstDims, typeOf(dst), memory::format_tag::any)
                       : plainOf(dst);
    return dnnl::concat::primitive_desc(dstDesc, static_cast<int>(op.axis()),
                                        descs, out.engine_, attr);
  };
  STRATA_ASSIGN_OR_RETURN(
      dnnl::concat::primitive_desc made,
      orElse([&] { return make(true); }, [&] { return make(false); }));
  dnnl::concat::primitive_desc pd = made;
  std::vector<int> srcMems;
  for (size_t i = 0; i < srcs.size(); ++i) {
    STRATA_ASSIGN_OR_RETURN(Placement p,
                            as(srcs[i], pd.src_desc(static_cast<int>(i))));
    srcMems.push_back(addMem(p.desc, p.buffer));
  }
  Placement o = define(dst, pd.dst_desc());
  // Along channels, with every part row-major or every part in nChw16c
  // (nChw8c on AVX2) of whole channel blocks, each image of the result is
  // the parts' images one after another: a copy of contiguous ranges.
  // oneDNN 2.6's concat of blocked layouts runs at a few GB/s (0.55 ms for
  // SqueezeNet's 2 x 64 x 55 x 55 in nChw16c).
  memory::data_type type = typeOf(dst);
  auto blockedBy = [&](const Desc &d, const Dims &dims) -> int64_t {
    if (dims.size() != 4)
      return 0;
    for (auto [block, blockTag] : {std::pair{16, memory::format_tag::aBcd16b},
                                   {8, memory::format_tag::aBcd8b}})
      if (dims[1] % block == 0 && d == Desc(dims, type, blockTag))
        return block;
    return 0;
  };
  int64_t block = blockedBy(pd.dst_desc(), dstDims);
  bool asRows = isPlain(pd.dst_desc());
  bool ranges = op.axis() == 1 && (block || asRows);
  for (size_t i = 0; i < srcs.size() && ranges; ++i) {
    Desc d = pd.src_desc(static_cast<int>(i));
    ranges = block ? blockedBy(d, dimsOf(srcs[i])) == block : isPlain(d);
  }
  // Along channels with the result and every part channels-last (the
  // layout of oneDNN's convolutions on AVX-512), each pixel of the result
  // is the parts' pixels one after another. oneDNN 2.6's concat there
  // copies at some 15 GB/s and no faster with a second thread
  // (SqueezeNet's 2 x 64 x 55 x 55: 0.20 ms at 1 and at 2 threads).
  auto channelsLast = [&](const Desc &d, const Dims &dims) {
    return dims.size() == 4 && d == Desc(dims, type, memory::format_tag::acdb);
  };
  bool pixels =
      !ranges && op.axis() == 1 && channelsLast(pd.dst_desc(), dstDims);
  for (size_t i = 0; i < srcs.size() && pixels; ++i)
    pixels = channelsLast(pd.src_desc(static_cast<int>(i)), dimsOf(srcs[i]));
  // Either way the result is `runs` equal runs of bytes, each the parts'
  // runs one after another: an image a run, or a pixel a run.
  int64_t runs = pixels ? dstDims[0] * dstDims[2] * dstDims[3] : dstDims[0];
  if ((ranges || pixels) && runs > 0) {
    std::vector<size_t> partBytes;
    for (size_t i = 0; i < srcs.size(); ++i)
      partBytes.push_back(pd.src_desc(static_cast<int>(i)).get_size() / runs);
    size_t runBytes = pd.dst_desc().get_size() / runs;
    // Of a single run, the parts that can be are written in place into the
    // result by their producers: only the rest is copied.
    std::vector<bool> inPlace(srcs.size(), false);
    if (runs == 1) {
      std::vector<int> partBuffers;
      for (int mem : srcMems)
        partBuffers.push_back(out.mems_[mem].buffer);
      inPlace = concatInPlace(partBuffers, partBytes, o.buffer);
    }
    bool allInPlace =
        std::find(inPlace.begin(), inPlace.end(), false) == inPlace.end();
    addKernelStep(
        allInPlace ? "strata:concat_in_place"
        : pixels   ? "strata:concat_pixels"
                   : "strata:concat_copy",
        [partBytes, runBytes, runs,
         inPlace, allInPlace](const std::unordered_map<int, memory> &args) {
          if (allInPlace)
            return;
          auto *to =
              static_cast<uint8_t *>(args.at(DNNL_ARG_DST).get_data_handle());
          std::vector<const uint8_t *> from(partBytes.size());
          for (size_t i = 0; i < partBytes.size(); ++i)
            from[i] = static_cast<const uint8_t *>(
                args.at(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i))
                    .get_data_handle());
          // The result's bytes in equal ranges, one a thread, each copied
          // from the parts that cover it (threads only for copies of at
          // least 256 KiB).
          size_t total = runBytes * static_cast<size_t>(runs);
#pragma omp parallel if (total >= (size_t(1) << 18))
          {
            size_t threads = static_cast<size_t>(omp_get_num_threads());
            size_t me = static_cast<size_t>(omp_get_thread_num());
            size_t begin = total * me / threads,
                   end = total * (me + 1) / threads;
            // From the run that holds `begin`; `at` is where the current
            // part starts in the result.
            int64_t n = static_cast<int64_t>(begin / runBytes);
            size_t at = static_cast<size_t>(n) * runBytes;
            for (; n < runs && at < end; ++n)
              for (size_t i = 0; i < partBytes.size() && at < end; ++i) {
                size_t lo = std::max(begin, at),
                       hi = std::min(end, at + partBytes[i]);
                if (lo < hi && !inPlace[i])
                  std::memcpy(to + lo, from[i] + n * partBytes[i] + (lo - at),
                              hi - lo);
                at += partBytes[i];
              }
          }
        },
        {{DNNL_ARG_DST, addMem(o.desc, o.buffer)}}, 0);
  } else if (isReference(pd.impl_info_str()) &&
             concatByReorders(srcs, srcMems, pd.dst_desc(), o.buffer,
                              op.axis())) {
    // oneDNN's concat of parts in other layouts than the result's (a
    // row-major constant beside channels-last features: tf2onnx writes a
    // channel Pad as a Concat with zeros) is its `ref` implementation, one
    // reorder per part into the result. The delegate runs those reorders
    // itself, each a step named for the implementation oneDNN picked for
    // it. Where a part cannot be written so (a result padded to whole
    // channel blocks, a part starting inside a block), oneDNN's concat runs.
    return Error::success();
  } else {
    addStep(dnnl::concat(pd), {{DNNL_ARG_DST, addMem(o.desc, o.buffer)}}, pd);
  }
  for (size_t i = 0; i < srcMems.size(); ++i)
    addArgs(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i), srcMems[i]);
  return Error::success();
}

bool GraphBuilder::concatByReorders(const std::vector<uint32_t> &srcs,
                                    const std::vector<int> &srcMems,
                                    const Desc &dstDesc, int dstBuffer,
                                    int64_t axis) {
  // A result with padding (a blocked layout over a partial block) would
  // need its padding zeroed as well: oneDNN's own concat does that.
  Dims dims = dstDesc.dims();
  if (dstDesc.get_size() != plainDesc(dims, dstDesc.data_type()).get_size())
    return false;
  Dims offsets(dims.size(), 0);
  std::vector<std::pair<dnnl::reorder::primitive_desc, int>> parts;
  for (size_t i = 0; i < srcs.size(); ++i) {
    Dims partDims = dimsOf(srcs[i]);
    Desc from = out.mems_[srcMems[i]].memory.get_desc();
    try {
      Desc into = dstDesc.submemory_desc(partDims, offsets);
      parts.push_back({dnnl::reorder::primitive_desc(out.engine_, from,
                                                     out.engine_, into,
                                                     userScratchpadAttr()),
                       srcMems[i]});
    } catch (const dnnl::error &) {
      return false; // a part inside a block, or no reorder between them
    }
    offsets[axis] += partDims[axis];
  }
  // Nothing is added until every part has its reorder.
  for (auto &[pd, from] : parts)
    addStep(dnnl::reorder(pd),
            {{DNNL_ARG_FROM, from},
             {DNNL_ARG_TO, addMem(pd.dst_desc(), dstBuffer)}},
            pd);
  return true;
}

/// A conversion to the result's element type with one scale (quantize:
/// 1 / scale into s8/u8, dequantize: scale into f32), in the input's layout
/// so that no reorder of the layout is needed around it.
Error GraphBuilder::buildReorder(const fbs::Op &op) {
  uint32_t src = 0, dst = 0;
  STRATA_RETURN_IF_ERROR(operands(op, {&src}, dst));
  if (dimsOf(src) != dimsOf(dst))
    return fail("a reorder keeps the shape");
  if (!op.output_scales() || op.output_scales()->size() != 1)
    return fail("a reorder takes one scale");
  STRATA_ASSIGN_OR_RETURN(Placement in, placement(src));
  Desc dstDesc = withType(in.desc, typeOf(dst));
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {op.output_scales()->Get(0)});
  Placement o = define(dst, dstDesc);
  addReorder(in.desc, in.buffer, dstDesc, o.buffer, attr);
  return Error::success();
}

} // namespace strata::runtime::onednn
