//===- Recurrent.cpp - hl.rnn / hl.gru / hl.lstm -> edge ------------------===//
//
// A layer with the default activations (RNN: Tanh or Relu in every
// direction), no peepholes, no sequence_lens and no clip becomes one
// edge.rnn / edge.gru / edge.lstm (EdgeRecurrent.td): X and the results
// transposed to layout 0, W and R transposed to [D, in, G*H] (folded on
// constants), absent biases and initial states as zero constants.
//
// The fused op takes a dynamic batch (bounded dynamic shapes); the
// unrolled form needs static shapes.
//
// Every other layer unrolls over the static sequence length into edge
// matmuls, elementwise gate arithmetic and activations:
//   - the input projection of all time steps is one matmul,
//     X[S*B, I] x W^T[I, G*H] (+ Wb), sliced per step;
//   - each step adds H[t-1] x R^T (+ Rb), splits the gates, applies the
//     activations and updates H (and C);
//   - layout 1 ([batch, seq, ...]) transposes to layout 0 and back;
//   - sequence_lens (forward direction) masks finished sequences with
//     `select`: their state stops changing and their outputs are zero.
// Gate orders are ONNX's: GRU z, r, h; LSTM i, o, f, c (peepholes i, o, f).
// Activations: Sigmoid, Tanh and Relu; anything else fails to match with a
// message naming it.
//
//===----------------------------------------------------------------------===//
#include "PatternUtils.h"

#include "HL/IR/HLOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

#include <type_traits>

using namespace mlir;
using namespace strata;
using namespace strata::hl_to_edge;

namespace {

/// Builds the edge ops of one layer; all tensors share one element type.
class Emitter {
public:
  Emitter(OpBuilder &builder, Location loc, Type elementType)
      : b(builder), loc(loc), elementType(elementType) {}

  RankedTensorType type(ArrayRef<int64_t> shape) const {
    return RankedTensorType::get(shape, elementType);
  }
  static ArrayRef<int64_t> shape(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }

  /// v[starts : starts + sizes] with unit steps.
  Value slice(Value v, ArrayRef<int64_t> starts, ArrayRef<int64_t> sizes) {
    if (shape(v) == sizes)
      return v;
    SmallVector<int64_t> steps(starts.size(), 1);
    return b.create<edge::SliceOp>(loc, type(sizes), v, starts, steps);
  }
  Value reshape(Value v, ArrayRef<int64_t> to) {
    return reshapeTo(b, loc, v, to);
  }
  Value transpose(Value v, ArrayRef<int64_t> permutation) {
    SmallVector<int64_t> to;
    for (int64_t p : permutation)
      to.push_back(shape(v)[p]);
    return b.create<edge::TransposeOp>(loc, v, permutation);
  }
  /// a[M, K] x b[K, N].
  Value matmul(Value lhs, Value rhs) {
    return b.create<edge::MatMulOp>(loc, lhs, rhs);
  }
  /// Elementwise op with rank-explicit broadcasting (equal ranks).
  template <typename OpT> Value binary(Value lhs, Value rhs) {
    return b.create<OpT>(loc, lhs, rhs);
  }
  Value add(Value l, Value r) { return binary<edge::AddOp>(l, r); }
  Value mul(Value l, Value r) { return binary<edge::MulOp>(l, r); }
  Value sub(Value l, Value r) { return binary<edge::SubOp>(l, r); }
  Value concat(ArrayRef<Value> parts, int64_t axis) {
    if (parts.size() == 1)
      return parts[0];
    SmallVector<int64_t> to(shape(parts[0]));
    to[axis] = 0;
    for (Value p : parts)
      to[axis] += shape(p)[axis];
    return b.create<edge::ConcatOp>(loc, parts, axis);
  }
  Value zeros(ArrayRef<int64_t> to) {
    return b.create<edge::ConstantOp>(
        loc, DenseElementsAttr::get(type(to), b.getZeroAttr(elementType)));
  }
  Value clip(Value v, std::optional<float> limit) {
    if (!limit)
      return v;
    return b.create<edge::ClipOp>(loc, v, b.getF32FloatAttr(-*limit),
                                  b.getF32FloatAttr(*limit));
  }
  Value activation(StringRef name, Value v) {
    if (name == "Sigmoid")
      return b.create<edge::SigmoidOp>(loc, v);
    if (name == "Tanh")
      return b.create<edge::TanhOp>(loc, v);
    return b.create<edge::ReluOp>(loc, v);
  }
  /// Columns [j * h, (j + 1) * h) of a [rows, G * h] matrix.
  Value gate(Value v, int64_t j, int64_t h) {
    return slice(v, {0, j * h}, {shape(v)[0], h});
  }

  OpBuilder &b;
  Location loc;
  Type elementType;
};

/// The operands and attributes shared by RNN, GRU and LSTM.
struct Layer {
  enum Kind { RNN, GRU, LSTM } kind;
  Value x, w, r, bias, sequenceLens, initialH, initialC, peepholes;
  StringRef direction;
  int64_t layout = 0;
  std::optional<float> clip;
  bool linearBeforeReset = false;
  SmallVector<StringRef> activations;

  int64_t gates() const { return kind == RNN ? 1 : kind == GRU ? 3 : 4; }
  int64_t activationsPerDirection() const {
    return kind == RNN ? 1 : kind == GRU ? 2 : 3;
  }
};

/// Resolves defaults and checks what the unrolling supports; returns a
/// reason on failure.
std::string prepare(Layer &layer, std::optional<ArrayAttr> activations,
                    std::optional<ArrayRef<float>> alpha,
                    std::optional<ArrayRef<float>> beta) {
  int64_t directions = layer.direction == "bidirectional" ? 2 : 1;
  if (layer.direction != "forward" && layer.direction != "reverse" &&
      directions != 2)
    return "unknown direction '" + layer.direction.str() + "'";
  if ((alpha && !alpha->empty()) || (beta && !beta->empty()))
    return "activations with alpha/beta parameters are not supported";
  if (activations) {
    for (Attribute a : *activations)
      layer.activations.push_back(cast<StringAttr>(a).getValue());
  } else {
    static const StringRef defaults[3][3] = {
        {"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
    for (int64_t d = 0; d < directions; ++d)
      for (int64_t i = 0; i < layer.activationsPerDirection(); ++i)
        layer.activations.push_back(defaults[layer.kind][i]);
  }
  if (static_cast<int64_t>(layer.activations.size()) !=
      directions * layer.activationsPerDirection())
    return "expects " +
           std::to_string(directions * layer.activationsPerDirection()) +
           " activations";
  for (StringRef a : layer.activations)
    if (a != "Sigmoid" && a != "Tanh" && a != "Relu")
      return "activation '" + a.str() + "' is not supported";
  if (layer.sequenceLens && layer.direction != "forward")
    return "sequence_lens is supported for the forward direction only";
  for (Value v : {layer.x, layer.w, layer.r, layer.bias, layer.sequenceLens,
                  layer.initialH, layer.initialC, layer.peepholes})
    if (v && !isa<RankedTensorType>(v.getType()))
      return "needs ranked shapes";
  return "";
}

/// Whether the layer's shapes fit its lowering: the unrolled form needs
/// static ones; the fused op takes a dynamic batch (X and the initial
/// states open at the batch axis of the layer's layout, nothing else).
std::string shapeRefusal(const Layer &layer, bool fused) {
  int64_t batchAxis = layer.layout == 1 ? 0 : 1;
  for (Value v : {layer.x, layer.w, layer.r, layer.bias, layer.sequenceLens,
                  layer.initialH, layer.initialC, layer.peepholes}) {
    auto type = v ? cast<RankedTensorType>(v.getType()) : RankedTensorType();
    if (!type || type.hasStaticShape())
      continue;
    bool batchOnly =
        (v == layer.x || v == layer.initialH || v == layer.initialC) &&
        isRecurrentBatchOpen(type, batchAxis);
    if (!fused)
      return "needs static shapes (a dynamic batch is taken by the fused "
             "layer only, without peepholes, sequence_lens, clip or other "
             "activations)";
    if (!batchOnly)
      return "takes a dynamic batch only (the sequence and the sizes stay "
             "static)";
  }
  // X and the initial states share one batch extent, static or open (a
  // model whose inputs bound it differently cannot build the layer).
  int64_t batch =
      cast<RankedTensorType>(layer.x.getType()).getDimSize(batchAxis);
  for (Value state : {layer.initialH, layer.initialC}) {
    auto type =
        state ? cast<RankedTensorType>(state.getType()) : RankedTensorType();
    if (type && (type.getRank() != 3 || type.getDimSize(batchAxis) != batch))
      return "X and the initial states have different batch extents (give "
             "them the same --input-shape batch)";
  }
  return "";
}

/// Final H (and C) of one direction plus its per-step outputs [S, 1, B, H].
struct DirectionResult {
  Value y, h, c;
};

DirectionResult unroll(Emitter &e, const Layer &layer, int64_t d,
                       Value x /*[S, B, I]*/, Value h0, Value c0) {
  ArrayRef<int64_t> xs = Emitter::shape(x);
  int64_t s = xs[0], batch = xs[1], input = xs[2];
  int64_t hidden = Emitter::shape(layer.r)[2], g = layer.gates();
  StringRef f = layer.activations[d * layer.activationsPerDirection()];
  StringRef gAct =
      layer.kind == Layer::RNN
          ? f
          : layer.activations[d * layer.activationsPerDirection() + 1];
  StringRef hAct =
      layer.kind == Layer::LSTM ? layer.activations[d * 3 + 2] : StringRef();
  bool reverse = layer.direction == "reverse" || d == 1;

  // Weights of this direction, transposed for row-vector products.
  Value wT =
      e.transpose(e.reshape(e.slice(layer.w, {d, 0, 0}, {1, g * hidden, input}),
                            {g * hidden, input}),
                  {1, 0});
  Value rT = e.transpose(
      e.reshape(e.slice(layer.r, {d, 0, 0}, {1, g * hidden, hidden}),
                {g * hidden, hidden}),
      {1, 0});
  Value wb, rb;
  if (layer.bias) {
    Value both = e.slice(layer.bias, {d, 0}, {1, 2 * g * hidden});
    wb = e.slice(both, {0, 0}, {1, g * hidden});
    rb = e.slice(both, {0, g * hidden}, {1, g * hidden});
  }
  // Input projection of every step at once; GRU keeps Rb apart (its h gate
  // applies Rb inside the reset product).
  Value xw = e.matmul(e.reshape(x, {s * batch, input}), wT);
  if (wb)
    xw = e.add(xw, wb);
  if (rb && layer.kind != Layer::GRU)
    xw = e.add(xw, rb);
  xw = e.reshape(xw, {s, batch, g * hidden});

  Value pi, po, pf;
  if (layer.peepholes) {
    Value p = e.slice(layer.peepholes, {d, 0}, {1, 3 * hidden});
    pi = e.gate(p, 0, hidden);
    po = e.gate(p, 1, hidden);
    pf = e.gate(p, 2, hidden);
  }

  Value hPrev = h0, cPrev = c0;
  SmallVector<Value> outputs(s);
  for (int64_t step = 0; step < s; ++step) {
    int64_t t = reverse ? s - 1 - step : step;
    Value xt = e.reshape(e.slice(xw, {t, 0, 0}, {1, batch, g * hidden}),
                         {batch, g * hidden});
    Value hr = e.matmul(hPrev, rT);
    Value h, c;
    if (layer.kind == Layer::RNN) {
      h = e.activation(f, e.clip(e.add(xt, hr), layer.clip));
    } else if (layer.kind == Layer::GRU) {
      auto withRb = [&](Value v, int64_t j) {
        return rb ? e.add(v, e.gate(rb, j, hidden)) : v;
      };
      Value z = e.activation(f, e.clip(e.add(e.gate(xt, 0, hidden),
                                             withRb(e.gate(hr, 0, hidden), 0)),
                                       layer.clip));
      Value r = e.activation(f, e.clip(e.add(e.gate(xt, 1, hidden),
                                             withRb(e.gate(hr, 1, hidden), 1)),
                                       layer.clip));
      Value recurrent;
      if (layer.linearBeforeReset) {
        recurrent = e.mul(r, withRb(e.gate(hr, 2, hidden), 2));
      } else {
        Value rTh = e.slice(rT, {0, 2 * hidden}, {hidden, hidden});
        recurrent = withRb(e.matmul(e.mul(r, hPrev), rTh), 2);
      }
      Value candidate = e.activation(
          gAct, e.clip(e.add(e.gate(xt, 2, hidden), recurrent), layer.clip));
      // H = (1 - z) * candidate + z * H_prev = candidate + z * (H_prev -
      // candidate).
      h = e.add(candidate, e.mul(z, e.sub(hPrev, candidate)));
    } else {
      Value gates = e.add(xt, hr);
      Value i = e.gate(gates, 0, hidden), o = e.gate(gates, 1, hidden);
      Value fg = e.gate(gates, 2, hidden), cand = e.gate(gates, 3, hidden);
      if (pi) {
        i = e.add(i, e.mul(pi, cPrev));
        fg = e.add(fg, e.mul(pf, cPrev));
      }
      i = e.activation(f, e.clip(i, layer.clip));
      fg = e.activation(f, e.clip(fg, layer.clip));
      cand = e.activation(gAct, e.clip(cand, layer.clip));
      c = e.add(e.mul(fg, cPrev), e.mul(i, cand));
      if (po)
        o = e.add(o, e.mul(po, c));
      o = e.activation(f, e.clip(o, layer.clip));
      h = e.mul(o, e.activation(hAct, c));
    }
    Value out = h;
    if (layer.sequenceLens) {
      // Sequences with t >= length keep their state and output zeros.
      Type lensType = getElementTypeOrSelf(layer.sequenceLens.getType());
      auto tType = RankedTensorType::get({1}, lensType);
      Value tConst = e.b.create<edge::ConstantOp>(
          e.loc, DenseElementsAttr::get(
                     tType, e.b.getIntegerAttr(lensType, t).getValue()));
      Value live = e.b.create<edge::LessOp>(e.loc, tConst, layer.sequenceLens);
      live = reshapeTo(e.b, e.loc, live, {batch, 1});
      out = e.b.create<edge::SelectOp>(e.loc, live, h, e.zeros({1, 1}));
      h = e.b.create<edge::SelectOp>(e.loc, live, h, hPrev);
      if (c)
        c = e.b.create<edge::SelectOp>(e.loc, live, c, cPrev);
    }
    outputs[t] = e.reshape(out, {1, 1, batch, hidden});
    hPrev = h;
    cPrev = c;
  }
  return {e.concat(outputs, 0), hPrev, cPrev};
}

/// The layer seen time-major (layout 0): X [S, B, I] and its initial
/// states [D, B, H], zeros where the layer has none (the cell state only
/// for an LSTM).
struct TimeMajor {
  Value x, h0, c0;
  int64_t directions, batch, hidden;
};
TimeMajor toTimeMajor(Emitter &e, const Layer &layer) {
  TimeMajor t;
  t.directions = layer.direction == "bidirectional" ? 2 : 1;
  t.x = layer.layout == 1 ? e.transpose(layer.x, {1, 0, 2}) : layer.x;
  t.batch = Emitter::shape(t.x)[1];
  t.hidden = Emitter::shape(layer.r)[2];
  auto initial = [&](Value v) -> Value {
    if (!v && ShapedType::isDynamic(t.batch)) {
      // Zeros at the run-time batch.
      Value batch = e.b.create<tensor::DimOp>(e.loc, t.x, 1);
      return e.b.create<edge::FillOp>(
          e.loc, e.type({t.directions, t.batch, t.hidden}), ValueRange{batch},
          e.b.getF64FloatAttr(0.0));
    }
    if (!v)
      return e.zeros({t.directions, t.batch, t.hidden});
    return layer.layout == 1 ? e.transpose(v, {1, 0, 2}) : v;
  };
  t.h0 = initial(layer.initialH);
  if (layer.kind == Layer::LSTM)
    t.c0 = initial(layer.initialC);
  return t;
}

/// Y [S, D, B, H], Y_h and Y_c [D, B, H] (time-major) in the layer's
/// layout.
std::tuple<Value, Value, Value> inLayerLayout(Emitter &e, const Layer &layer,
                                              Value y, Value yh, Value yc) {
  if (layer.layout == 1) {
    y = e.transpose(y, {2, 0, 1, 3});
    yh = e.transpose(yh, {1, 0, 2});
    if (yc)
      yc = e.transpose(yc, {1, 0, 2});
  }
  return {y, yh, yc};
}

/// Lowers `layer` and returns Y [S, D, B, H], Y_h and Y_c [D, B, H] in the
/// layer's layout.
std::tuple<Value, Value, Value> lowerLayer(Emitter &e, const Layer &layer) {
  TimeMajor t = toTimeMajor(e, layer);
  Value x = t.x, h0 = t.h0, c0 = t.c0;
  int64_t directions = t.directions, batch = t.batch, hidden = t.hidden;
  SmallVector<Value> ys, hs, cs;
  for (int64_t d = 0; d < directions; ++d) {
    auto state = [&](Value all) {
      return e.reshape(e.slice(all, {d, 0, 0}, {1, batch, hidden}),
                       {batch, hidden});
    };
    DirectionResult r = unroll(e, layer, d, x, state(h0),
                               layer.kind == Layer::LSTM ? state(c0) : Value());
    ys.push_back(r.y);
    hs.push_back(e.reshape(r.h, {1, batch, hidden}));
    if (r.c)
      cs.push_back(e.reshape(r.c, {1, batch, hidden}));
  }
  Value yc = cs.empty() ? Value() : e.concat(cs, 0);
  return inLayerLayout(e, layer, e.concat(ys, 1), e.concat(hs, 0), yc);
}

/// Whether the whole layer can be one fused edge op; else the reason.
std::string fusedFormRefusal(const Layer &layer) {
  if (layer.peepholes)
    return "peepholes";
  if (layer.sequenceLens)
    return "sequence_lens";
  if (layer.clip)
    return "clip";
  int64_t per = layer.activationsPerDirection();
  for (size_t i = 0; i < layer.activations.size(); ++i) {
    StringRef a = layer.activations[i];
    if (layer.kind == Layer::RNN) {
      if (a != layer.activations[0])
        return "activations differing by direction";
      if (a != "Tanh" && a != "Relu")
        return "activation '" + a.str() + "'";
    } else if (a != (i % per == 0 ? "Sigmoid" : "Tanh")) {
      return "activation '" + a.str() + "'";
    }
  }
  return "";
}

/// Lowers `layer` to one edge.rnn / edge.gru / edge.lstm; returns Y, Y_h
/// and Y_c in the layer's layout.
template <typename OpT>
std::tuple<Value, Value, Value> lowerFused(Emitter &e, const Layer &layer) {
  TimeMajor t = toTimeMajor(e, layer);
  Value x = t.x, h0 = t.h0;
  Value w = e.transpose(layer.w, {0, 2, 1});
  Value r = e.transpose(layer.r, {0, 2, 1});
  Value bias = layer.bias
                   ? layer.bias
                   : e.zeros({t.directions, 2 * layer.gates() * t.hidden});
  StringAttr direction = e.b.getStringAttr(layer.direction);
  Value y, yh, yc;
  if constexpr (std::is_same_v<OpT, edge::LSTMOp>) {
    auto op =
        e.b.create<edge::LSTMOp>(e.loc, x, w, r, bias, h0, t.c0, direction);
    y = op.getY(), yh = op.getYH(), yc = op.getYC();
  } else if constexpr (std::is_same_v<OpT, edge::GRUOp>) {
    auto op = e.b.create<edge::GRUOp>(e.loc, x, w, r, bias, h0, direction,
                                      e.b.getBoolAttr(layer.linearBeforeReset));
    y = op.getY(), yh = op.getYH();
  } else {
    auto op = e.b.create<edge::RNNOp>(
        e.loc, x, w, r, bias, h0, direction,
        e.b.getStringAttr(layer.activations[0].lower()));
    y = op.getY(), yh = op.getYH();
  }
  return inLayerLayout(e, layer, y, yh, yc);
}

template <typename OpT, typename EdgeOpT, Layer::Kind kind>
struct RecurrentLowering : public OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  using OpAdaptor = typename OpT::Adaptor;

  LogicalResult
  matchAndRewrite(OpT op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Layer layer;
    layer.kind = kind;
    layer.x = adaptor.getX();
    layer.w = adaptor.getW();
    layer.r = adaptor.getR();
    layer.bias = adaptor.getB();
    layer.sequenceLens = adaptor.getSequenceLens();
    layer.initialH = adaptor.getInitialH();
    layer.direction = op.getDirection();
    layer.layout = op.getLayout();
    if (auto clip = op.getClip())
      layer.clip = clip->convertToFloat();
    if constexpr (kind == Layer::GRU)
      layer.linearBeforeReset = op.getLinearBeforeReset() != 0;
    if constexpr (kind == Layer::LSTM) {
      layer.initialC = adaptor.getInitialC();
      layer.peepholes = adaptor.getP();
      if (op.getInputForget() != 0)
        return rewriter.notifyMatchFailure(op, "input_forget is not supported");
    }
    std::string reason =
        prepare(layer, op.getActivations(), op.getActivationAlpha(),
                op.getActivationBeta());
    if (!reason.empty())
      return rewriter.notifyMatchFailure(op, reason);
    // Unrolling lives on the element type of X; the runtime's matmul is f32.
    Type elementType = getElementTypeOrSelf(layer.x.getType());
    if (!elementType.isF32())
      return rewriter.notifyMatchFailure(op, "supports f32 layers only");

    bool fused = fusedFormRefusal(layer).empty();
    reason = shapeRefusal(layer, fused);
    if (!reason.empty())
      return rewriter.notifyMatchFailure(op, reason);
    Emitter e(rewriter, op.getLoc(), elementType);
    auto [y, yh, yc] =
        fused ? lowerFused<EdgeOpT>(e, layer) : lowerLayer(e, layer);
    SmallVector<Value> results;
    if (op.getY())
      results.push_back(y);
    if (op.getYH())
      results.push_back(yh);
    if constexpr (kind == Layer::LSTM)
      if (op.getYC())
        results.push_back(yc);
    rewriter.replaceOp(op, results);
    return success();
  }
};

} // namespace

void hl_to_edge::populateRecurrentPatterns(TypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<RecurrentLowering<hl::RNNOp, edge::RNNOp, Layer::RNN>,
               RecurrentLowering<hl::GRUOp, edge::GRUOp, Layer::GRU>,
               RecurrentLowering<hl::LSTMOp, edge::LSTMOp, Layer::LSTM>>(
      converter, patterns.getContext());
}
