//===- EdgeBase.td - edge dialect definition --------------*- tablegen -*-===//
#ifndef STRATA_EDGE_BASE
#define STRATA_EDGE_BASE

include "mlir/IR/OpBase.td"
include "mlir/Dialect/Quant/QuantOpsBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "Edge/IR/EdgeInterfaces.td"

def Edge_Dialect : Dialect {
  let name = "edge";
  let cppNamespace = "::strata::edge";
  let summary = "Strata's core op set: the contract between compiler and backends";
  let description = [{
    `edge` is the smallest op set that every backend and the portable runtime
    must understand. Its verifiers are the contract: every tensor has a static
    shape, every attribute is explicit (no defaults, no `auto_pad`),
    layouts are fixed (NCHW activations, OIHW weights), and broadcasting is
    explicit in rank: both operands of a binary op have the result's rank and
    each extent equals the result's or is 1 (TOSA's rule), so a kernel never
    has to align ranks. Quantize/dequantize are explicit ops.

    ```mlir
    %y = edge.conv2d %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64,
                                 pads = array<i64: 1, 1, 1, 1>,
                                 strides = array<i64: 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>)
        -> tensor<1x4x8x8xf32>
    ```
  }];
  let hasConstantMaterializer = 1;
  let hasOperationAttrVerify = 1;
  let useDefaultAttributePrinterParser = 1;
}

include "Edge/IR/EdgePostOps.td"

/// Base class of every `edge` op.
class Edge_Op<string mnemonic, list<Trait> traits = []>
    : Op<Edge_Dialect, mnemonic, traits>;

/// Element types the core op set carries.
def Edge_ElementType : AnyTypeOf<[F32, F16, BF16, F64, I8, UI8, I16, UI16,
                                  I32, UI32, I64, UI64, I1,
                                  quant_QuantizedType]>;
/// Every `edge` tensor is ranked. A dynamic dimension (`?`) has a bound:
/// it comes from a function argument's bounded symbol (hl.dim_params /
/// hl.dim_bounds), and only ops that reify their result shapes
/// (ReifyRankedShapedTypeOpInterface) get one (docs/dynamic-shapes.md);
/// hl->edge refuses the rest.
def Edge_Tensor : RankedTensorOf<[Edge_ElementType]>;
def Edge_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
/// Floating-point tensors including f64 (math ops with f64 kernels).
def Edge_AnyFloatTensor : RankedTensorOf<[F32, F16, BF16, F64]>;
/// f32 only (kernels without other float variants).
def Edge_F32Tensor : RankedTensorOf<[F32]>;
def Edge_IndexTensor : RankedTensorOf<[I64]>;
def Edge_BoolTensor : RankedTensorOf<[I1]>;

/// Result extents reified from operands of the result's rank: a dynamic
/// extent is the first operand's dynamic extent at that dimension
/// (elementwise ops, with rank-explicit broadcasting).
defvar Edge_ReifyLikeOperandsDefinition = [{
  ::mlir::LogicalResult $cppClass::reifyResultShapes(::mlir::OpBuilder &builder,
      ::mlir::ReifiedRankedShapedTypeDims &shapes) {
    return ::strata::edge::detail::reifyLikeOperands(*this, builder, shapes);
  }
}];

//===----------------------------------------------------------------------===//
// Op classes shared by several op families
//===----------------------------------------------------------------------===//

class Edge_UnaryElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultType,
                                             Edge_KernelOpInterface,
        DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>])> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let arguments = (ins Edge_Tensor:$input);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

/// Binary elementwise op with rank-explicit broadcasting: operands have the
/// result's rank, each extent equal to the result's or 1.
class Edge_BinaryElementwiseOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits, [Pure,
                                             SameOperandsAndResultElementType,
                                             SameOperandsAndResultRank,
                                             Edge_KernelOpInterface,
                                             InferTypeOpAdaptor,
        DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>])> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

/// Binary arithmetic a delegate may fuse a post-op chain into
/// (strata-edge-fuse, EdgePostOps.td): `post_ops` applied to the result,
/// reading `post_operands` (of the result's rank) in order. Operands and
/// result share the element type, except that a chain ending in `quantize`
/// writes an 8-bit result: the inferred type is the unfused one, and an
/// 8-bit result of its shape is compatible with it (the verifier checks the
/// chain).
class Edge_FusibleBinaryOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits, [Pure, SameOperandsAndResultRank,
                                             Edge_KernelOpInterface,
                                             InferTypeOpAdaptorWithIsCompatible,
        DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>])> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs,
                       Variadic<Edge_Tensor>:$post_operands,
                       OptionalAttr<Edge_PostOpArrayAttr>:$post_ops);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs (`post` `(` $post_operands^ `)`)? attr-dict `:`
    functional-type(operands, results)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs), [{
      build($_builder, $_state, output, lhs, rhs, ::mlir::ValueRange(),
            ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs), [{
      build($_builder, $_state, lhs, rhs, ::mlir::ValueRange(),
            ::mlir::ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

/// Binary elementwise op over any element type, without a folder.
class Edge_BinaryAnyTypeOp<string mnemonic, list<Trait> traits = []>
    : Edge_Op<mnemonic, !listconcat(traits, [Pure,
                                             SameOperandsAndResultElementType,
                                             SameOperandsAndResultRank,
                                             Edge_KernelOpInterface,
                                             InferTypeOpAdaptor,
        DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>])> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

#endif // STRATA_EDGE_BASE
