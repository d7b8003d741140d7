//===- HLRecurrent.td - hl recurrent layers --------------*- tablegen -*-===//
//
// RNN, GRU and LSTM with ONNX's operand order; absent optional operands and
// results are recorded in the segment sizes.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_RECURRENT
#define STRATA_HL_RECURRENT

include "HL/IR/HLBase.td"

/// Attributes every ONNX recurrent layer has.
class HL_RecurrentOp<string mnemonic, string onnxName> : HL_Op<mnemonic, [Pure,
    AttrSizedOperandSegments, AttrSizedResultSegments]> {
  let summary = "Recurrent layer over a sequence (ONNX " # onnxName # ")";
  let description = [{
    Input `X` is `[seq_length, batch, input_size]` (`layout = 0`) or
    `[batch, seq_length, input_size]` (`layout = 1`); `W`, `R` and `B` hold
    the weights of each direction. `activations` lists activation names as
    ONNX does. Every result is optional.

    ```mlir
    %y, %h = hl.}] # mnemonic # [{ %x, %w, %r {hidden_size = 4 : i64}
        : (tensor<1x3x2xf32>, tensor<1x4x2xf32>, tensor<1x4x4xf32>)
        -> (tensor<1x1x3x4xf32>, tensor<1x3x4xf32>)
    ```
  }];
  let assemblyFormat = [{
    $X `,` $W `,` $R (`B` $B^)? (`sequence_lens` $sequence_lens^)?
    (`initial_h` $initial_h^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

defvar HL_RecurrentCommonAttrs = (ins
    OptionalAttr<DenseF32ArrayAttr>:$activation_alpha,
    OptionalAttr<DenseF32ArrayAttr>:$activation_beta,
    OptionalAttr<StrArrayAttr>:$activations,
    OptionalAttr<F32Attr>:$clip,
    DefaultValuedStrAttr<StrAttr, "forward">:$direction,
    OptionalAttr<I64Attr>:$hidden_size,
    DefaultValuedAttr<I64Attr, "0">:$layout);

def HL_RNNOp : HL_RecurrentOp<"rnn", "RNN"> {
  let arguments = !con((ins HL_FloatTensor:$X, HL_FloatTensor:$W,
                            HL_FloatTensor:$R, Optional<HL_FloatTensor>:$B,
                            Optional<TensorOf<[I32]>>:$sequence_lens,
                            Optional<HL_FloatTensor>:$initial_h),
                       HL_RecurrentCommonAttrs);
  let results = (outs Optional<HL_FloatTensor>:$Y,
                      Optional<HL_FloatTensor>:$Y_h);
}

def HL_GRUOp : HL_RecurrentOp<"gru", "GRU"> {
  let arguments = !con((ins HL_FloatTensor:$X, HL_FloatTensor:$W,
                            HL_FloatTensor:$R, Optional<HL_FloatTensor>:$B,
                            Optional<TensorOf<[I32]>>:$sequence_lens,
                            Optional<HL_FloatTensor>:$initial_h),
                       HL_RecurrentCommonAttrs,
                       (ins DefaultValuedAttr<I64Attr, "0">:$linear_before_reset));
  let results = (outs Optional<HL_FloatTensor>:$Y,
                      Optional<HL_FloatTensor>:$Y_h);
}

def HL_LSTMOp : HL_RecurrentOp<"lstm", "LSTM"> {
  let arguments = !con((ins HL_FloatTensor:$X, HL_FloatTensor:$W,
                            HL_FloatTensor:$R, Optional<HL_FloatTensor>:$B,
                            Optional<TensorOf<[I32]>>:$sequence_lens,
                            Optional<HL_FloatTensor>:$initial_h,
                            Optional<HL_FloatTensor>:$initial_c,
                            Optional<HL_FloatTensor>:$P),
                       HL_RecurrentCommonAttrs,
                       (ins DefaultValuedAttr<I64Attr, "0">:$input_forget));
  let results = (outs Optional<HL_FloatTensor>:$Y,
                      Optional<HL_FloatTensor>:$Y_h,
                      Optional<HL_FloatTensor>:$Y_c);
  let assemblyFormat = [{
    $X `,` $W `,` $R (`B` $B^)? (`sequence_lens` $sequence_lens^)?
    (`initial_h` $initial_h^)? (`initial_c` $initial_c^)?
    (`P` $P^)? attr-dict `:` functional-type(operands, results)
  }];
}

#endif // STRATA_HL_RECURRENT
