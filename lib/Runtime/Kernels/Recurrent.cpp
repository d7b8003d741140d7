//===- Recurrent.cpp - rnn, gru and lstm layers (f32) ---------------------===//
//
// One kernel call per recurrent layer (EdgeRecurrent.td). Per direction:
// one GEMM projects the inputs of every step at once,
// X[S*N, I] x W[I, G*H], with the biases that do not depend on the state
// folded in; then each step multiplies the previous state by R[H, G*H]
// (for a batch of 1 a GEMV whose inner loop is a contiguous AXPY over a
// row of R) and applies the gate arithmetic in one pass over the gates,
// writing the new state straight into Y. Gate orders are ONNX's: GRU z,
// r, h; LSTM i, o, f, c.
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace strata::runtime::kernels {

namespace {

enum class Cell { RNN, GRU, LSTM };

/// A layer's extents and attributes, checked at load.
struct RecurrentState {
  Cell cell = Cell::RNN;
  int64_t steps = 0, batch = 0, input = 0, hidden = 0, directions = 1;
  int64_t gates = 1;
  bool reverseOnly = false;
  /// rnn: relu instead of tanh.
  bool relu = false;
  /// gru: the recurrent product before the reset gate.
  bool linearBeforeReset = false;
};

template <Cell C> Result<RecurrentState> prepareRecurrent(const KernelContext &ctx) {
  constexpr bool lstm = C == Cell::LSTM;
  STRATA_RETURN_IF_ERROR(checkArity(ctx, lstm ? 6 : 5, lstm ? 6 : 5,
                                    lstm ? 3 : 2));
  STRATA_RETURN_IF_ERROR(checkAllF32(ctx));
  RecurrentState st;
  st.cell = C;
  st.gates = C == Cell::RNN ? 1 : C == Cell::GRU ? 3 : 4;
  STRATA_KERNEL_ASSIGN(direction, ctx.params.getString("direction", ""));
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.fail("direction must be forward, reverse or bidirectional, "
                    "got '" + direction + "'");
  st.directions = direction == "bidirectional" ? 2 : 1;
  st.reverseOnly = direction == "reverse";
  if constexpr (C == Cell::RNN) {
    STRATA_KERNEL_ASSIGN(activation, ctx.params.getString("activation", ""));
    if (activation != "tanh" && activation != "relu")
      return ctx.fail("activation must be tanh or relu, got '" + activation +
                      "'");
    st.relu = activation == "relu";
  }
  if constexpr (C == Cell::GRU) {
    STRATA_KERNEL_ASSIGN(lbr, ctx.params.requireBool("linear_before_reset"));
    st.linearBeforeReset = lbr;
  }
  const TensorView &x = ctx.ins[0], &r = ctx.ins[2];
  if (x.rank() != 3 || r.rank() != 3)
    return ctx.fail("X " + x.typeString() + " and R " + r.typeString() +
                    " must have rank 3");
  st.steps = x.shape[0], st.batch = x.shape[1], st.input = x.shape[2];
  st.hidden = r.shape[1];
  int64_t d = st.directions, n = st.batch, h = st.hidden, g = st.gates;
  auto expect = [&](const TensorView &v, const char *name,
                    std::vector<int64_t> shape) -> Error {
    if (v.shape != shape)
      return ctx.fail(std::string(name) + " " + v.typeString() +
                      " should have shape " + shapeToString(shape));
    return Error::success();
  };
  STRATA_RETURN_IF_ERROR(expect(ctx.ins[1], "W", {d, st.input, g * h}));
  STRATA_RETURN_IF_ERROR(expect(r, "R", {d, h, g * h}));
  STRATA_RETURN_IF_ERROR(expect(ctx.ins[3], "B", {d, 2 * g * h}));
  STRATA_RETURN_IF_ERROR(expect(ctx.ins[4], "initial_h", {d, n, h}));
  STRATA_RETURN_IF_ERROR(expect(ctx.outs[0], "Y", {st.steps, d, n, h}));
  STRATA_RETURN_IF_ERROR(expect(ctx.outs[1], "Y_h", {d, n, h}));
  if constexpr (lstm) {
    STRATA_RETURN_IF_ERROR(expect(ctx.ins[5], "initial_c", {d, n, h}));
    STRATA_RETURN_IF_ERROR(expect(ctx.outs[2], "Y_c", {d, n, h}));
  }
  size_t scratch =
      static_cast<size_t>((st.steps * n + n + 2) * g * h + 2 * n * h);
  if (scratch > kMaxScratchFloats)
    return ctx.fail("needs more scratch memory than a kernel may use");
  return st;
}

inline float sigmoid(float v) { return 1.0f / (1.0f + std::exp(-v)); }

/// One direction `dir` of the layer, `reverse` when it runs from the last
/// step to the first.
void runDirection(const RecurrentState &st, KernelIO &io, int64_t dir,
                  bool reverse, float *xw, float *hr, float *bias,
                  float *hState, float *cState) {
  const int64_t s = st.steps, n = st.batch, in = st.input, h = st.hidden,
                g = st.gates, gh = g * h, d = st.directions;
  const float *x = io.ins[0].as<float>();
  const float *w = io.ins[1].as<float>() + dir * in * gh;
  const float *r = io.ins[2].as<float>() + dir * h * gh;
  const float *wb = io.ins[3].as<float>() + dir * 2 * gh, *rb = wb + gh;
  float *y = io.outs[0].as<float>();

  // The input projection of every step, plus Wb and (but for the GRU
  // candidate, whose Rb may sit inside the reset product) Rb.
  gemm(s * n, gh, in, x, in, w, gh, xw, gh);
  for (int64_t j = 0; j < gh; ++j)
    bias[j] = wb[j] + (st.cell == Cell::GRU && j >= 2 * h ? 0.0f : rb[j]);
  for (int64_t row = 0; row < s * n; ++row) {
    float *xr = xw + row * gh;
    for (int64_t j = 0; j < gh; ++j)
      xr[j] += bias[j];
  }
  std::memcpy(hState, io.ins[4].as<float>() + dir * n * h,
              sizeof(float) * n * h);
  if (cState)
    std::memcpy(cState, io.ins[5].as<float>() + dir * n * h,
                sizeof(float) * n * h);

  const float *rbh = rb + 2 * h;
  for (int64_t step = 0; step < s; ++step) {
    int64_t t = reverse ? s - 1 - step : step;
    const float *xt = xw + t * n * gh;
    // H[t-1] R; the GRU without linear_before_reset multiplies its
    // candidate columns by (r * H[t-1]) below instead.
    int64_t cols = st.cell == Cell::GRU && !st.linearBeforeReset ? 2 * h : gh;
    gemm(n, cols, h, hState, h, r, gh, hr, gh);
    for (int64_t b = 0; b < n; ++b) {
      const float *xg = xt + b * gh;
      float *hg = hr + b * gh, *hb = hState + b * h;
      switch (st.cell) {
      case Cell::RNN:
        for (int64_t j = 0; j < h; ++j) {
          float v = xg[j] + hg[j];
          hb[j] = st.relu ? std::max(v, 0.0f) : std::tanh(v);
        }
        break;
      case Cell::GRU:
        // z into hg[0, h), r into hg[h, 2h).
        for (int64_t j = 0; j < 2 * h; ++j)
          hg[j] = sigmoid(xg[j] + hg[j]);
        if (st.linearBeforeReset) {
          for (int64_t j = 0; j < h; ++j)
            hg[2 * h + j] = hg[h + j] * (hg[2 * h + j] + rbh[j]);
        } else {
          // (r * H[t-1]) Rh + Rbh, through the last h columns of hr.
          float *reset = hr + n * gh; // one row of scratch after hr
          for (int64_t j = 0; j < h; ++j)
            reset[j] = hg[h + j] * hb[j];
          gemm(1, h, h, reset, h, r + 2 * h, gh, hg + 2 * h, gh);
          for (int64_t j = 0; j < h; ++j)
            hg[2 * h + j] += rbh[j];
        }
        for (int64_t j = 0; j < h; ++j) {
          float cand = std::tanh(xg[2 * h + j] + hg[2 * h + j]);
          hb[j] = cand + hg[j] * (hb[j] - cand);
        }
        break;
      case Cell::LSTM: {
        float *cb = cState + b * h;
        for (int64_t j = 0; j < h; ++j) {
          float i = sigmoid(xg[j] + hg[j]);
          float o = sigmoid(xg[h + j] + hg[h + j]);
          float f = sigmoid(xg[2 * h + j] + hg[2 * h + j]);
          float c = std::tanh(xg[3 * h + j] + hg[3 * h + j]);
          cb[j] = f * cb[j] + i * c;
          hb[j] = o * std::tanh(cb[j]);
        }
        break;
      }
      }
      std::memcpy(y + ((t * d + dir) * n + b) * h, hb, sizeof(float) * h);
    }
  }
  std::memcpy(io.outs[1].as<float>() + dir * n * h, hState,
              sizeof(float) * n * h);
  if (cState)
    std::memcpy(io.outs[2].as<float>() + dir * n * h, cState,
                sizeof(float) * n * h);
}

Error executeRecurrent(const RecurrentState &st, KernelIO &io) {
  const int64_t n = st.batch, h = st.hidden, gh = st.gates * h;
  // xw [S*N, G*H], hr [N, G*H] plus one row, the bias row [G*H], the
  // states [N, H].
  float *xw = io.scratchFloats(
      static_cast<size_t>((st.steps * n + n + 2) * gh + 2 * n * h));
  float *hr = xw + st.steps * n * gh;
  float *bias = hr + (n + 1) * gh;
  float *hState = bias + gh;
  float *cState = st.cell == Cell::LSTM ? hState + n * h : nullptr;
  for (int64_t dir = 0; dir < st.directions; ++dir)
    runDirection(st, io, dir, st.reverseOnly || dir == 1, xw, hr, bias,
                 hState, cState);
  return Error::success();
}

} // namespace

KernelEntry rnnKernel() {
  return typedKernel<RecurrentState, prepareRecurrent<Cell::RNN>,
                     executeRecurrent>();
}
KernelEntry gruKernel() {
  return typedKernel<RecurrentState, prepareRecurrent<Cell::GRU>,
                     executeRecurrent>();
}
KernelEntry lstmKernel() {
  return typedKernel<RecurrentState, prepareRecurrent<Cell::LSTM>,
                     executeRecurrent>();
}

} // namespace strata::runtime::kernels
