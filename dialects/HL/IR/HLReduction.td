//===- HLReduction.td - hl reductions --------------------*- tablegen -*-===//
//
// ReduceX ops in their opset-18 form (axes as an optional operand) and the
// index-returning ArgMax/ArgMin.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_REDUCTION
#define STRATA_HL_REDUCTION

include "HL/IR/HLBase.td"

def HL_ReduceSumOp : HL_ReduceOp<"reduce_sum", "ReduceSum", "Sum"> {
  let hasFolder = 1;
}
def HL_ReduceMeanOp : HL_ReduceOp<"reduce_mean", "ReduceMean", "Mean">;
def HL_ReduceMaxOp : HL_ReduceOp<"reduce_max", "ReduceMax", "Maximum"> {
  let hasFolder = 1;
}
def HL_ReduceMinOp : HL_ReduceOp<"reduce_min", "ReduceMin", "Minimum"> {
  let hasFolder = 1;
}
def HL_ReduceProdOp : HL_ReduceOp<"reduce_prod", "ReduceProd", "Product"> {
  let hasFolder = 1;
}
def HL_ReduceL1Op : HL_ReduceOp<"reduce_l1", "ReduceL1", "Sum of |x|">;
def HL_ReduceL2Op : HL_ReduceOp<"reduce_l2", "ReduceL2", "sqrt of the sum of x^2">;
def HL_ReduceLogSumOp : HL_ReduceOp<"reduce_log_sum", "ReduceLogSum",
                                    "ln of the sum">;
def HL_ReduceLogSumExpOp : HL_ReduceOp<"reduce_log_sum_exp",
                                       "ReduceLogSumExp", "ln of the sum of e^x">;
def HL_ReduceSumSquareOp : HL_ReduceOp<"reduce_sum_square", "ReduceSumSquare",
                                       "Sum of x^2">;

/// ArgMax / ArgMin.
class HL_ArgReduceOp<string mnemonic, string onnxName> : HL_Op<mnemonic, [Pure]> {
  let summary = "Index of the " # onnxName # " along an axis (ONNX " # onnxName # ")";
  let description = [{
    The result holds i64 indices; `select_last_index` picks the last of equal
    candidates.

    ```mlir
    %i = hl.}] # mnemonic # [{ %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
    ```
  }];
  let arguments = (ins HL_Tensor:$data, DefaultValuedAttr<I64Attr, "0">:$axis,
                       DefaultValuedAttr<I64Attr, "1">:$keepdims,
                       DefaultValuedAttr<I64Attr, "0">:$select_last_index);
  let results = (outs HL_I64Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def HL_ArgMaxOp : HL_ArgReduceOp<"arg_max", "ArgMax">;
def HL_ArgMinOp : HL_ArgReduceOp<"arg_min", "ArgMin">;

#endif // STRATA_HL_REDUCTION
