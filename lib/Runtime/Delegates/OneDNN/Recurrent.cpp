//===- Recurrent.cpp - whole recurrent layers on oneDNN's RNN primitives --===//
//
// edge.rnn / edge.gru / edge.lstm as one vanilla_rnn_forward,
// gru_forward (linear_before_reset 0), lbr_gru_forward (1) or lstm_forward
// step. The blob holds the edge op's operands: X [S, N, I], W [D, I, G*H],
// R [D, H, G*H] and B [D, 2*G*H] in ONNX's gate order, the initial states
// [D, N, H]; the results Y [S, D, N, H], Y_h (and Y_c) [D, N, H]. The
// weights are repacked once into oneDNN's ldigo layout in its gate order
// (LSTM i, f, c, o from ONNX's i, o, f, c; GRU u, r, o is ONNX's z, r, h)
// and the biases summed into its ldgo layout (lbr_gru keeps Rb of the
// candidate apart as a fourth gate). X, the states and the results are
// used in place: tnc and ldnc are their row-major layouts, and Y's
// [S, D, N, H] is oneDNN's bidirectional_concat [S, N, D*H] when D or N
// is 1 (the only forms the compiler hands over).
//
//===----------------------------------------------------------------------===//
#include "GraphBuilder.h"

#include <cstring>

namespace strata::runtime::onednn {

using dnnl::memory;
using Tag = memory::format_tag;

namespace {

int64_t gatesOf(fbs::RecurrentCell cell) {
  switch (cell) {
  case fbs::RecurrentCell::Lstm:
    return 4;
  case fbs::RecurrentCell::Gru:
  case fbs::RecurrentCell::LbrGru:
    return 3;
  default:
    return 1;
  }
}

/// The ONNX gate oneDNN's gate `k` reads.
int64_t onnxGate(fbs::RecurrentCell cell, int64_t k) {
  static const int64_t lstm[4] = {0, 2, 3, 1};
  return cell == fbs::RecurrentCell::Lstm ? lstm[k] : k;
}

/// [D, rows, G*H] in ONNX's gate order as ldigo [1, D, rows, G, H] in
/// oneDNN's.
void packWeights(fbs::RecurrentCell cell, int64_t d, int64_t rows, int64_t h,
                 const float *in, float *out) {
  int64_t g = gatesOf(cell);
  for (int64_t dir = 0; dir < d; ++dir)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t k = 0; k < g; ++k)
        std::memcpy(out + ((dir * rows + i) * g + k) * h,
                    in + ((dir * rows + i) * g + onnxGate(cell, k)) * h,
                    sizeof(float) * h);
}

/// B [D, 2*G*H] (Wb, then Rb) as ldgo [1, D, G, H] (lbr_gru: G + 1).
void packBias(fbs::RecurrentCell cell, int64_t d, int64_t h, const float *in,
              float *out) {
  int64_t g = gatesOf(cell);
  bool lbr = cell == fbs::RecurrentCell::LbrGru;
  int64_t outGates = lbr ? g + 1 : g;
  for (int64_t dir = 0; dir < d; ++dir) {
    const float *wb = in + dir * 2 * g * h, *rb = wb + g * h;
    float *o = out + dir * outGates * h;
    for (int64_t k = 0; k < g; ++k) {
      int64_t s = onnxGate(cell, k);
      for (int64_t j = 0; j < h; ++j)
        o[k * h + j] = wb[s * h + j] + (lbr && k == 2 ? 0.0f : rb[s * h + j]);
    }
    if (lbr)
      std::memcpy(o + g * h, rb + 2 * h, sizeof(float) * h);
  }
}

} // namespace

Result<int> GraphBuilder::recurrentConstant(
    uint32_t tensor, const Desc &packed,
    const std::function<void(const float *, float *)> &pack) {
  if (!isConstant(tensor))
    return fail("recurrent weights and biases must be constants");
  auto packer = [&](ByteSpan plain) {
    // A copy: the stored bytes need not be aligned for floats.
    std::vector<float> floats(plain.size / sizeof(float));
    std::memcpy(floats.data(), plain.data, plain.size);
    std::vector<uint8_t> bytes(packed.get_size());
    pack(floats.data(), reinterpret_cast<float *>(bytes.data()));
    return bytes;
  };
  STRATA_ASSIGN_OR_RETURN(
      int buffer,
      packedConstant(tensor, packed, plainOf(tensor).get_size(), packer,
                     /*reorderStored=*/false,
                     "recurrent weights are missing or in another layout; "
                     "recompile or set repack_on_isa_mismatch (needs "
                     "keep_plain_weights at compile time)",
                     "recurrent weights cannot be packed: the program holds "
                     "no plain copy (compile with keep_plain_weights=true)"));
  return addMem(packed, buffer);
}

Error GraphBuilder::buildRecurrent(const fbs::Op &op) {
  fbs::RecurrentCell cell = op.recurrent_cell();
  bool lstm = cell == fbs::RecurrentCell::Lstm;
  size_t ins = lstm ? 6 : 5, outs = lstm ? 3 : 2;
  if (!op.inputs() || op.inputs()->size() != ins ||
      op.outputs()->size() != outs)
    return fail("a recurrent layer takes " + std::to_string(ins) +
                " inputs and writes " + std::to_string(outs) + " results");
  std::vector<uint32_t> t;
  for (size_t i = 0; i < ins; ++i) {
    STRATA_ASSIGN_OR_RETURN(uint32_t v, tensorAt(op.inputs(), i, "inputs"));
    t.push_back(v);
  }
  for (size_t i = 0; i < outs; ++i) {
    STRATA_ASSIGN_OR_RETURN(uint32_t v, tensorAt(op.outputs(), i, "outputs"));
    t.push_back(v);
  }
  Dims x = dimsOf(t[0]), r = dimsOf(t[2]);
  if (x.size() != 3 || r.size() != 3)
    return fail("a recurrent layer's X and R have rank 3");
  int64_t s = x[0], n = x[1], in = x[2], d = r[0], h = r[1];
  int64_t g = gatesOf(cell), biasGates = cell == fbs::RecurrentCell::LbrGru
                                             ? g + 1
                                             : g;
  bool bidirectional =
      op.recurrent_direction() == fbs::RecurrentDirection::Bidirectional;
  if (d != (bidirectional ? 2 : 1) || (d == 2 && n != 1) ||
      dimsOf(t[1]) != Dims{d, in, g * h} || r != Dims{d, h, g * h} ||
      dimsOf(t[3]) != Dims{d, 2 * g * h} || dimsOf(t[4]) != Dims{d, n, h} ||
      (lstm && dimsOf(t[5]) != Dims{d, n, h}) ||
      dimsOf(t[ins]) != Dims{s, d, n, h} || dimsOf(t[ins + 1]) != Dims{d, n, h})
    return fail("the recurrent layer's operands do not have the shapes of "
                "its X and R");
  for (uint32_t v : t)
    if (typeOf(v) != memory::data_type::f32)
      return fail("recurrent layers run on f32");

  Desc src = plainDesc({s, n, in}), iter = plainDesc({1, d, n, h});
  Desc dst = plainDesc({s, n, d * h});
  Desc wLayer({1, d, in, g, h}, memory::data_type::f32, Tag::ldigo);
  Desc wIter({1, d, h, g, h}, memory::data_type::f32, Tag::ldigo);
  Desc bias({1, d, biasGates, h}, memory::data_type::f32, Tag::ldgo);
  dnnl::rnn_direction direction =
      bidirectional ? dnnl::rnn_direction::bidirectional_concat
      : op.recurrent_direction() == fbs::RecurrentDirection::Reverse
          ? dnnl::rnn_direction::unidirectional_right2left
          : dnnl::rnn_direction::unidirectional_left2right;
  auto inference = dnnl::prop_kind::forward_inference;
  dnnl::primitive_attr attr = userScratchpadAttr();
  dnnl::primitive primitive;
  Desc scratchpad;
  switch (cell) {
  case fbs::RecurrentCell::Lstm: {
    dnnl::lstm_forward::primitive_desc pd(
        dnnl::lstm_forward::desc(inference, direction, src, iter, iter,
                                 wLayer, wIter, bias, dst, iter, iter),
        attr, out.engine_);
    primitive = dnnl::lstm_forward(pd);
    scratchpad = pd.scratchpad_desc();
    break;
  }
  case fbs::RecurrentCell::Gru: {
    dnnl::gru_forward::primitive_desc pd(
        dnnl::gru_forward::desc(inference, direction, src, iter, wLayer, wIter,
                                bias, dst, iter),
        attr, out.engine_);
    primitive = dnnl::gru_forward(pd);
    scratchpad = pd.scratchpad_desc();
    break;
  }
  case fbs::RecurrentCell::LbrGru: {
    dnnl::lbr_gru_forward::primitive_desc pd(
        dnnl::lbr_gru_forward::desc(inference, direction, src, iter, wLayer,
                                    wIter, bias, dst, iter),
        attr, out.engine_);
    primitive = dnnl::lbr_gru_forward(pd);
    scratchpad = pd.scratchpad_desc();
    break;
  }
  case fbs::RecurrentCell::VanillaTanh:
  case fbs::RecurrentCell::VanillaRelu: {
    dnnl::vanilla_rnn_forward::primitive_desc pd(
        dnnl::vanilla_rnn_forward::desc(
            inference,
            cell == fbs::RecurrentCell::VanillaRelu
                ? dnnl::algorithm::eltwise_relu
                : dnnl::algorithm::eltwise_tanh,
            direction, src, iter, wLayer, wIter, bias, dst, iter),
        attr, out.engine_);
    primitive = dnnl::vanilla_rnn_forward(pd);
    scratchpad = pd.scratchpad_desc();
    break;
  }
  default:
    return fail("unknown recurrent cell");
  }

  // Weights and biases packed first, so that no step comes between the
  // layer's step and its arguments.
  STRATA_ASSIGN_OR_RETURN(
      int wMem, recurrentConstant(t[1], wLayer, [&](const float *a, float *b) {
        packWeights(cell, d, in, h, a, b);
      }));
  STRATA_ASSIGN_OR_RETURN(
      int rMem, recurrentConstant(t[2], wIter, [&](const float *a, float *b) {
        packWeights(cell, d, h, h, a, b);
      }));
  STRATA_ASSIGN_OR_RETURN(
      int bMem, recurrentConstant(t[3], bias, [&](const float *a, float *b) {
        packBias(cell, d, h, a, b);
      }));
  STRATA_ASSIGN_OR_RETURN(Placement xp, plainView(t[0], src.dims()));
  STRATA_ASSIGN_OR_RETURN(Placement hp, plainView(t[4], iter.dims()));
  int xMem = addMem(xp.desc, xp.buffer), hMem = addMem(hp.desc, hp.buffer);
  int cMem = -1;
  if (lstm) {
    STRATA_ASSIGN_OR_RETURN(Placement cp, plainView(t[5], iter.dims()));
    cMem = addMem(cp.desc, cp.buffer);
  }
  Placement y = define(t[ins], dst);
  Placement yh = define(t[ins + 1], iter);
  CompiledGraph::Step step;
  step.primitive = std::move(primitive);
  addStep(std::move(step),
          {{DNNL_ARG_SRC_LAYER, xMem},
           {DNNL_ARG_SRC_ITER, hMem},
           {DNNL_ARG_WEIGHTS_LAYER, wMem},
           {DNNL_ARG_WEIGHTS_ITER, rMem},
           {DNNL_ARG_BIAS, bMem},
           {DNNL_ARG_DST_LAYER, addMem(y.desc, y.buffer)},
           {DNNL_ARG_DST_ITER, addMem(yh.desc, yh.buffer)}},
          scratchpad);
  if (lstm) {
    Placement yc = define(t[ins + 2], iter);
    addArgs(DNNL_ARG_SRC_ITER_C, cMem);
    addArgs(DNNL_ARG_DST_ITER_C, addMem(yc.desc, yc.buffer));
  }
  return Error::success();
}

} // namespace strata::runtime::onednn
