//===- HLBase.td - hl dialect definition and base classes -*- tablegen -*-===//
#ifndef STRATA_HL_BASE
#define STRATA_HL_BASE

include "mlir/IR/OpBase.td"
include "mlir/Dialect/Quant/QuantOpsBase.td"
include "mlir/IR/AttrTypeBase.td"
include "HL/IR/HLInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

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

//===----------------------------------------------------------------------===//
// Shape rules
//===----------------------------------------------------------------------===//

/// An op's forward shape rule: the result shape its operands (their shapes,
/// constant shape-bearing operands) imply, through MLIR's
/// InferShapedTypeOpInterface. Only `inferReturnTypeComponents` is declared,
/// and not InferTypeOpInterface: a result type may stay less refined (`?`)
/// than the rule's shape. The op's C++ defines the rule next to its verifier,
/// or `extraClassDefinition` names a shared one (HL_SharedShapeRule).
defvar HL_InferShape = DeclareOpInterfaceMethods<InferShapedTypeOpInterface,
                                                 ["inferReturnTypeComponents"]>;

/// The definition of `inferReturnTypeComponents` that delegates to the
/// shared rule `rule` of HLShapeInference.h, for `extraClassDefinition`.
class HL_SharedShapeRule<string rule> {
  code definition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypeComponents(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> location,
        ::mlir::ValueShapeRange operands, ::mlir::DictionaryAttr,
        ::mlir::OpaqueProperties, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::ShapedTypeComponents> &shapes) {
      return ::strata::hl::detail::}] # rule # [{(location, operands, shapes);
    }
  }];
}

/// The definition of `inferReturnTypeComponents` that hands the op's adaptor
/// to the shared rule `rule` (a template of HLShapeInference.h), for rules
/// that read the op's attributes.
class HL_SharedAdaptorShapeRule<string rule> {
  code definition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypeComponents(
        ::mlir::MLIRContext *, ::std::optional<::mlir::Location> location,
        ::mlir::ValueShapeRange operands, ::mlir::DictionaryAttr attributes,
        ::mlir::OpaqueProperties properties, ::mlir::RegionRange regions,
        ::llvm::SmallVectorImpl<::mlir::ShapedTypeComponents> &shapes) {
      Adaptor op(operands.getValues(), attributes, properties, regions);
      return ::strata::hl::detail::}] # rule # [{(location, operands, op, shapes);
    }
  }];
}

/// The result has the shape of the first operand (elementwise ops, casts,
/// normalisations, scatters).
defvar HL_SameShapeRule =
    HL_SharedShapeRule<"inferSameShapeAsFirstOperand">.definition;
/// The result has the NumPy broadcast of all operands' shapes.
defvar HL_BroadcastShapeRule =
    HL_SharedShapeRule<"inferBroadcastShape">.definition;
/// Reductions over constant (or absent) axes.
defvar HL_ReductionShapeRule =
    HL_SharedAdaptorShapeRule<"inferReductionShape">.definition;
/// MaxPool and AveragePool: the sliding window over the input's channels.
defvar HL_PoolShapeRule =
    HL_SharedAdaptorShapeRule<"inferPoolShape">.definition;
/// Global pooling: `[N, C, D1, ...]` to `[N, C, 1, ...]`.
defvar HL_GlobalPoolShapeRule =
    HL_SharedShapeRule<"inferGlobalPoolShape">.definition;

/// Tensors `hl` carries: ONNX's numeric element types, possibly quantized.
def HL_Tensor : TensorOf<[AnyFloat, AnySignlessInteger, AnyUnsignedInteger,
                          I1, quant_QuantizedType]>;
def HL_FloatTensor : TensorOf<[AnyFloat]>;
def HL_I64Tensor : TensorOf<[I64]>;

def HL_IntTensor : TensorOf<[AnySignlessInteger, AnyUnsignedInteger]>;
def HL_BoolTensor : TensorOf<[I1]>;
/// Index tensors (ONNX `tensor(int32)` or `tensor(int64)`).
def HL_IndexTensor : TensorOf<[I32, I64]>;

//===----------------------------------------------------------------------===//
// Shared op classes
//===----------------------------------------------------------------------===//

/// Elementwise op of one operand, result type equal to the operand's. The
/// description is generated from `onnxName` and `formula`.
class HL_UnaryElementwiseOp<string mnemonic, list<Trait> traits = []>
    : HL_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                            HL_InferShape])> {
  let arguments = (ins HL_Tensor:$input);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDefinition = HL_SameShapeRule;
}

/// A unary elementwise op on floats: `summary` is `formula (ONNX name)`.
class HL_UnaryFloatOp<string mnemonic, string onnxName, string formula,
                      list<Trait> traits = []>
    : HL_UnaryElementwiseOp<mnemonic, traits> {
  let summary = formula # " elementwise (ONNX " # onnxName # ")";
  let description = "ONNX `" # onnxName # "`: " # formula # [{ on each
    element; the result has the operand's type.

    ```mlir
    %y = hl.}] # mnemonic # [{ %x : tensor<2x3xf32>
    ```
  }];
  let arguments = (ins HL_FloatTensor:$input);
  let results = (outs HL_FloatTensor:$output);
}

/// Elementwise op of two operands with ONNX multidirectional broadcasting.
class HL_BinaryBroadcastOp<string mnemonic, list<Trait> traits = []>
    : HL_Op<mnemonic, !listconcat(traits, [Pure, ResultsBroadcastableShape,
                                            SameOperandsAndResultElementType,
                                            HL_InferShape])> {
  let arguments = (ins HL_Tensor:$lhs, HL_Tensor:$rhs);
  let results = (outs HL_Tensor:$output);
  let extraClassDefinition = HL_BroadcastShapeRule;
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

/// A broadcasting binary op with a generated description.
class HL_BinaryOp<string mnemonic, string onnxName, string formula,
                  list<Trait> traits = []>
    : HL_BinaryBroadcastOp<mnemonic, traits> {
  let summary = formula # " elementwise with broadcasting (ONNX " # onnxName # ")";
  let description = "ONNX `" # onnxName # "`: " # formula # [{ with NumPy
    multidirectional broadcasting; both operands have one element type.

    ```mlir
    %y = hl.}] # mnemonic # [{ %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    ```
  }];
}

/// A broadcasting comparison or logical op: operands share an element type,
/// the result is `i1`.
class HL_CompareOp<string mnemonic, string onnxName, string formula,
                   list<Trait> traits = []>
    : HL_Op<mnemonic, !listconcat(traits, [Pure, ResultsBroadcastableShape,
                                            AllElementTypesMatch<["lhs", "rhs"]>,
                                            HL_InferShape])> {
  let summary = formula # " elementwise, boolean result (ONNX " # onnxName # ")";
  let description = "ONNX `" # onnxName # "`: " # formula # [{ with NumPy
    multidirectional broadcasting; the result is a boolean tensor.

    ```mlir
    %y = hl.}] # mnemonic # [{ %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    ```
  }];
  let arguments = (ins HL_Tensor:$lhs, HL_Tensor:$rhs);
  let results = (outs HL_BoolTensor:$output);
  let extraClassDefinition = HL_BroadcastShapeRule;
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

/// Reduction over `axes` (an optional 1-D i64 operand, the opset-18 form; the
/// attribute form of older opsets is normalised to it at import).
class HL_ReduceOp<string mnemonic, string onnxName, string formula>
    : HL_Op<mnemonic, [Pure, AllElementTypesMatch<["data", "output"]>,
                       HL_InferShape]> {
  let summary = formula # " over axes (ONNX " # onnxName # ")";
  let description = "ONNX `" # onnxName # "`: " # formula # [{ over the
    dimensions listed in `axes` (all when absent, unless
    `noop_with_empty_axes` is 1); reduced dimensions stay as 1 when
    `keepdims` is 1.

    ```mlir
    %y = hl.}] # mnemonic # [{ %x, %axes : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x1x4xf32>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, Optional<HL_I64Tensor>:$axes,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$noop_with_empty_axes);
  let results = (outs HL_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let extraClassDefinition = HL_ReductionShapeRule;
}

#endif // STRATA_HL_BASE
