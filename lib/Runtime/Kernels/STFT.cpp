//===- STFT.cpp - short-time Fourier transform ----------------------------===//
//
// ONNX STFT whose frame step, frame length and window arrive at run time
// (constant ones lower to a strided convolution instead). Signal
// [batch, samples, c] (c = 1 real, 2 complex), result
// [batch, frames, bins, 2]; the run-time step and length must give the
// compiled frames and bins (bins = length / 2 + 1 when onesided). Each bin
// is a direct DFT of the windowed frame, accumulated in double with the
// twiddles of (k * j) mod length:
//   y_re[k] = sum_j w[j] (x_re[j] cos(t) + x_im[j] sin(t))
//   y_im[k] = sum_j w[j] (x_im[j] cos(t) - x_re[j] sin(t)), t = 2 pi k j / n
//
//===----------------------------------------------------------------------===//
#include "KernelUtils.h"

#include <cmath>

namespace strata::runtime::kernels {

namespace {
constexpr double kPi = 3.14159265358979323846;
} // namespace

Error stftKernel(KernelContext &ctx) {
  STRATA_RETURN_IF_ERROR(checkArity(ctx, 3, 4, 1));
  const TensorView &signal = ctx.ins[0], &stepIn = ctx.ins[1],
                   &lengthIn = ctx.ins[2], &out = ctx.outs[0];
  const TensorView *window = ctx.ins.size() == 4 ? &ctx.ins[3] : nullptr;
  STRATA_KERNEL_ASSIGN(onesided, ctx.params.getBool("onesided", true));
  if (signal.dtype != DType::F32 || out.dtype != DType::F32 ||
      stepIn.dtype != DType::I64 || lengthIn.dtype != DType::I64 ||
      stepIn.numel() != 1 || lengthIn.numel() != 1 || signal.rank() != 3 ||
      (signal.shape[2] != 1 && signal.shape[2] != 2) || out.rank() != 4 ||
      out.shape[0] != signal.shape[0] || out.shape[3] != 2 ||
      (window && (window->dtype != DType::F32 || window->rank() != 1)))
    return ctx.fail("takes f32 [batch, samples, 1 or 2], i64 step and "
                    "length and an optional f32 window to f32 [batch, "
                    "frames, bins, 2], got " +
                    signal.typeString() + " -> " + out.typeString());
  if (ctx.validateOnly || out.numel() == 0)
    return Error::success();

  int64_t step = stepIn.as<int64_t>()[0], length = lengthIn.as<int64_t>()[0];
  int64_t batch = signal.shape[0], samples = signal.shape[1];
  int64_t c = signal.shape[2], frames = out.shape[1], bins = out.shape[2];
  if (step < 1 || length < 1 || length > samples)
    return ctx.fail("frame step " + std::to_string(step) + " and length " +
                    std::to_string(length) + " do not fit a signal of " +
                    std::to_string(samples) + " samples");
  if (window && window->shape[0] != length)
    return ctx.fail("the window has " + std::to_string(window->shape[0]) +
                    " entries, the frame length is " + std::to_string(length));
  int64_t expectFrames = (samples - length) / step + 1;
  int64_t expectBins = onesided ? length / 2 + 1 : length;
  if (frames != expectFrames || bins != expectBins)
    return ctx.fail("frame step " + std::to_string(step) + " and length " +
                    std::to_string(length) + " give " +
                    std::to_string(expectFrames) + " frames of " +
                    std::to_string(expectBins) +
                    " bins, the compiled result "
                    "has " +
                    std::to_string(frames) + " of " + std::to_string(bins));
  std::vector<double> cosT(length), sinT(length), w(length, 1.0);
  for (int64_t j = 0; j < length; ++j) {
    double t = 2.0 * kPi * static_cast<double>(j) / static_cast<double>(length);
    cosT[j] = std::cos(t);
    sinT[j] = std::sin(t);
    if (window)
      w[j] = window->as<float>()[j];
  }
  const float *x = signal.as<float>();
  float *y = out.as<float>();
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t f = 0; f < frames; ++f) {
      const float *frame = x + (b * samples + f * step) * c;
      for (int64_t k = 0; k < bins; ++k) {
        double re = 0, im = 0;
        for (int64_t j = 0; j < length; ++j) {
          int64_t i = (k * j) % length;
          double xr = w[j] * frame[j * c];
          double xi = c == 2 ? w[j] * frame[j * c + 1] : 0.0;
          re += xr * cosT[i] + xi * sinT[i];
          im += xi * cosT[i] - xr * sinT[i];
        }
        float *o = y + ((b * frames + f) * bins + k) * 2;
        o[0] = static_cast<float>(re);
        o[1] = static_cast<float>(im);
      }
    }
  return Error::success();
}

} // namespace strata::runtime::kernels
