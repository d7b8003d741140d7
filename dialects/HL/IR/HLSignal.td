//===- HLSignal.td - hl signal-processing operations -----*- tablegen -*-===//
//
// DFT, STFT, window generators and MelWeightMatrix (opset 17). Complex
// values are a trailing dimension of 2 (real, imaginary), as in ONNX.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_SIGNAL
#define STRATA_HL_SIGNAL

include "HL/IR/HLBase.td"

def HL_DFTOp : HL_Op<"dft", [Pure, AllElementTypesMatch<["input", "output"]>]> {
  let summary = "Discrete Fourier transform along an axis (ONNX DFT)";
  let description = [{
    The input's last dimension is 1 (real) or 2 (complex).

    ```mlir
    %y = hl.dft %x {axis = 1 : i64} : (tensor<1x8x1xf32>) -> tensor<1x8x2xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input,
                       Optional<HL_IndexTensor>:$dft_length,
                       DefaultValuedAttr<I64Attr, "1">:$axis,
                       DefaultValuedAttr<I64Attr, "0">:$inverse,
                       DefaultValuedAttr<I64Attr, "0">:$onesided);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_STFTOp : HL_Op<"stft", [Pure, AttrSizedOperandSegments]> {
  let summary = "Short-time Fourier transform (ONNX STFT)";
  let description = [{
    ```mlir
    %y = hl.stft %x, %step window %w
        : (tensor<1x128x1xf32>, tensor<i64>, tensor<16xf32>) -> tensor<1x15x9x2xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$signal, HL_IndexTensor:$frame_step,
                       Optional<HL_FloatTensor>:$window,
                       Optional<HL_IndexTensor>:$frame_length,
                       DefaultValuedAttr<I64Attr, "1">:$onesided);
  let results = (outs HL_FloatTensor:$output);
  let assemblyFormat = [{
    $signal `,` $frame_step (`window` $window^)?
    (`frame_length` $frame_length^)? attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

/// Window generators: a 1-D window of `size` samples, the cosine sum
/// `a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N)` with N = size (periodic)
/// or size - 1 (symmetric); `coefficients` is the C++ initializer of
/// {a0, a1, a2}.
class HL_WindowOp<string mnemonic, string onnxName, string coefficients>
    : HL_Op<mnemonic, [Pure, HL_InferShape]> {
  let summary = onnxName # " of a given size (ONNX " # onnxName # ")";
  let description = [{
    The result's element type is ONNX's `output_datatype`. Folds to a
    constant when `size` is a constant equal to the static result extent.

    ```mlir
    %w = hl.}] # mnemonic # [{ %n : (tensor<i64>) -> tensor<10xf32>
    ```
  }];
  let arguments = (ins HL_IndexTensor:$size,
                       DefaultValuedAttr<I64Attr, "1">:$periodic);
  let results = (outs 1DTensorOf<[AnyType]>:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let extraClassDefinition =
      HL_SharedShapeRule<"inferWindowLengthShape">.definition;
  let extraClassDeclaration = [{
    /// {a0, a1, a2} of w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
    static std::array<double, 3> getCoefficients() {
      return }] # coefficients # [{;
    }
  }];
}

// Coefficients from the ONNX operator definitions.
def HL_HannWindowOp : HL_WindowOp<"hann_window", "HannWindow",
                                  "{0.5, 0.5, 0.0}">;
def HL_HammingWindowOp : HL_WindowOp<"hamming_window", "HammingWindow",
                                     "{25.0 / 46.0, 21.0 / 46.0, 0.0}">;
def HL_BlackmanWindowOp : HL_WindowOp<"blackman_window", "BlackmanWindow",
                                      "{0.42, 0.5, 0.08}">;

def HL_MelWeightMatrixOp : HL_Op<"mel_weight_matrix", [Pure]> {
  let summary = "Mel filter bank matrix (ONNX MelWeightMatrix)";
  let description = [{
    ```mlir
    %m = hl.mel_weight_matrix %bins, %len, %rate, %lo, %hi
        : (tensor<i64>, tensor<i64>, tensor<i64>, tensor<f32>, tensor<f32>) -> tensor<9x8xf32>
    ```
  }];
  let arguments = (ins HL_IndexTensor:$num_mel_bins, HL_IndexTensor:$dft_length,
                       HL_IndexTensor:$sample_rate,
                       HL_FloatTensor:$lower_edge_hertz,
                       HL_FloatTensor:$upper_edge_hertz);
  let results = (outs 2DTensorOf<[AnyType]>:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

#endif // STRATA_HL_SIGNAL
