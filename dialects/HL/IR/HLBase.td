//===- HLBase.td - hl dialect definition and base classes -*- tablegen -*-===//
#ifndef STRATA_HL_BASE
#define STRATA_HL_BASE

include "mlir/IR/OpBase.td"
include "mlir/Dialect/Quant/QuantOpsBase.td"
include "mlir/IR/AttrTypeBase.td"

def HL_Dialect : Dialect {
  let name = "hl";
  let cppNamespace = "::strata::hl";
  let summary = "Strata's high-level dialect: one op per ONNX operator";
  let description = [{
    `hl` holds a model as the ONNX importer produced it: one op per supported
    ONNX operator, with ONNX semantics (NumPy broadcasting, attribute
    defaults, optional inputs). Opset differences are normalised at import, so
    every op has exactly one form here whatever opset the model used. Shapes
    may be dynamic (`?`). Backend conversion, fusion and quantization patterns
    run on this dialect before it is legalized to `edge`.

    ```mlir
    %y = hl.conv %x, %w, %b {pads = array<i64: 1, 1, 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
        -> tensor<1x4x8x8xf32>
    %z = hl.relu %y : tensor<1x4x8x8xf32>
    ```
  }];
  let hasConstantMaterializer = 1;
}

/// Base class of every `hl` op.
class HL_Op<string mnemonic, list<Trait> traits = []>
    : Op<HL_Dialect, mnemonic, traits>;

/// Tensors `hl` carries: ONNX's numeric element types, possibly quantized.
def HL_Tensor : TensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger,
                          I1, quant_QuantizedType]>;
def HL_FloatTensor : TensorOf<[AnyFloat]>;
def HL_I64Tensor : TensorOf<[I64]>;

#endif // STRATA_HL_BASE
