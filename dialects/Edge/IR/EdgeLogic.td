//===- EdgeLogic.td - comparisons, logic and select --------*- tablegen -*-===//
//
// Comparisons (i1 results), boolean logic, select, integer modulo and bit
// shifts.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_LOGIC
#define STRATA_EDGE_LOGIC

include "Edge/IR/EdgeBase.td"

/// Comparison with rank-explicit broadcasting; the result is i1. `greater`
/// and `greater_equal` are `less` and `less_equal` with swapped operands.
class Edge_CompareOp<string mnemonic, string formula>
    : Edge_Op<mnemonic, [Pure, SameOperandsElementType, SameOperandsAndResultRank,
                         Edge_KernelOpInterface, InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let summary = "Elementwise comparison `" # formula # "`";
  let description = !strconcat(
      "Broadcasting as `add`; operands share one element type.\n\n```mlir\n",
      "%y = edge.", mnemonic, " %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) ",
      "-> tensor<2x3xi1>\n```");
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs);
  let results = (outs Edge_BoolTensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Edge_EqualOp : Edge_CompareOp<"equal", "a == b">;

def Edge_LessOp : Edge_CompareOp<"less", "a < b">;

def Edge_LessEqualOp : Edge_CompareOp<"less_equal", "a <= b">;

/// Logical op on i1 with rank-explicit broadcasting.
class Edge_LogicalOp<string mnemonic, string formula>
    : Edge_BinaryAnyTypeOp<mnemonic, [Commutative]> {
  let summary = "Elementwise logical `" # formula # "` of i1 tensors";
  let description = !strconcat(
      "Broadcasting as `add`.\n\n```mlir\n%y = edge.", mnemonic,
      " %a, %b : (tensor<2x3xi1>, tensor<1x3xi1>) -> tensor<2x3xi1>\n```");
  let arguments = (ins Edge_BoolTensor:$lhs, Edge_BoolTensor:$rhs);
  let results = (outs Edge_BoolTensor:$output);
}

def Edge_LogicalAndOp : Edge_LogicalOp<"logical_and", "a and b">;

def Edge_LogicalOrOp : Edge_LogicalOp<"logical_or", "a or b">;

def Edge_LogicalXorOp : Edge_LogicalOp<"logical_xor", "a xor b">;

def Edge_LogicalNotOp : Edge_UnaryElementwiseOp<"logical_not"> {
  let summary = "Elementwise logical negation of an i1 tensor";
  let description = [{
    ```mlir
    %y = edge.logical_not %x : tensor<2x3xi1>
    ```
  }];
  let arguments = (ins Edge_BoolTensor:$input);
  let results = (outs Edge_BoolTensor:$output);
}

def Edge_SelectOp : Edge_Op<"select", [Pure, SameOperandsAndResultRank,
                                       AllElementTypesMatch<["on_true", "on_false", "output"]>,
                                       Edge_KernelOpInterface,
                                       InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let summary = "Elementwise choice: condition ? on_true : on_false";
  let description = [{
    All three operands have the result's rank; each extent equals the
    result's or is 1.

    ```mlir
    %y = edge.select %c, %a, %b
        : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<1x1xf32>) -> tensor<2x3xf32>
    ```
  }];
  let arguments = (ins Edge_BoolTensor:$condition, Edge_Tensor:$on_true,
                       Edge_Tensor:$on_false);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_ModOp : Edge_BinaryAnyTypeOp<"mod"> {
  let summary = "Elementwise remainder";
  let description = [{
    With `fmod` the remainder takes the dividend's sign (C `fmod`);
    without it, the divisor's (Python `%`, integers only). Broadcasting as
    `add`.

    ```mlir
    %y = edge.mod %a, %b {fmod = false}
        : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$lhs, Edge_Tensor:$rhs, BoolAttr:$fmod);
  let hasVerifier = 1;
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def Edge_BitShiftOp : Edge_Op<"bit_shift", [Pure,
    SameOperandsAndResultElementType, SameOperandsAndResultRank,
    Edge_KernelOpInterface, InferTypeOpAdaptor]> {
  let summary = "Elementwise logical shift of unsigned integers";
  let description = [{
    `lhs << rhs` (`direction = "left"`) or `lhs >> rhs` (`"right"`) on
    unsigned integers; a shift by the bit width or more gives 0 (numpy's
    rule, which the ONNX reference follows). Broadcasting as `add`.

    ```mlir
    %y = edge.bit_shift %a, %b {direction = "left"}
        : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[UI8, UI16, UI32, UI64]>:$lhs,
                       StaticShapeTensorOf<[UI8, UI16, UI32, UI64]>:$rhs,
                       StrAttr:$direction);
  let results = (outs StaticShapeTensorOf<[UI8, UI16, UI32, UI64]>:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

/// Integer element types of the bitwise ops.
def Edge_IntegerTensor : StaticShapeTensorOf<[I8, I16, I32, I64, UI8, UI16,
                                              UI32, UI64]>;

/// Bitwise op on integers with rank-explicit broadcasting.
class Edge_BitwiseOp<string mnemonic, string formula>
    : Edge_BinaryAnyTypeOp<mnemonic, [Commutative]> {
  let summary = "Elementwise bitwise `" # formula # "` of integer tensors";
  let description = !strconcat(
      "Signed or unsigned integers of 8 to 64 bits; broadcasting as `add`.",
      "\n\n```mlir\n%y = edge.", mnemonic,
      " %a, %b : (tensor<2x3xi32>, tensor<1x3xi32>) -> tensor<2x3xi32>\n```");
  let arguments = (ins Edge_IntegerTensor:$lhs, Edge_IntegerTensor:$rhs);
  let results = (outs Edge_IntegerTensor:$output);
}

def Edge_BitwiseAndOp : Edge_BitwiseOp<"bitwise_and", "a & b">;

def Edge_BitwiseOrOp : Edge_BitwiseOp<"bitwise_or", "a | b">;

def Edge_BitwiseXorOp : Edge_BitwiseOp<"bitwise_xor", "a ^ b">;

def Edge_BitwiseNotOp : Edge_UnaryElementwiseOp<"bitwise_not"> {
  let summary = "Elementwise bitwise negation `~x` of an integer tensor";
  let description = [{
    ```mlir
    %y = edge.bitwise_not %x : tensor<2x3xui8>
    ```
  }];
  let arguments = (ins Edge_IntegerTensor:$input);
  let results = (outs Edge_IntegerTensor:$output);
}

#endif // STRATA_EDGE_LOGIC
