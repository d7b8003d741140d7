//===- EdgeRecurrent.td - whole recurrent layers -----------*- tablegen -*-===//
//
// One op per recurrent layer (ONNX RNN, GRU, LSTM) in the form the
// portable kernel and oneDNN's RNN primitives run as one step each: layout
// 0 ([seq, batch, ...]), weights transposed for row-vector products (the
// ldigo layout of oneDNN, in ONNX's gate order), every operand present. Forms these ops do not
// cover (peepholes, sequence_lens, clip, other activations) stay unrolled
// into matmuls and elementwise ops by the lowering.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_RECURRENT
#define STRATA_EDGE_RECURRENT

include "Edge/IR/EdgeBase.td"

/// The operands every recurrent layer has. `G` is the number of gates (RNN
/// 1, GRU 3, LSTM 4), `D` the number of directions (2 when
/// `direction` is "bidirectional", else 1).
defvar Edge_RecurrentOperands = (ins
    Edge_F32Tensor:$X, Edge_F32Tensor:$W, Edge_F32Tensor:$R,
    Edge_F32Tensor:$B, Edge_F32Tensor:$initial_h, StrAttr:$direction);

class Edge_RecurrentOp<string mnemonic>
    : Edge_Op<mnemonic, [Pure, Edge_KernelOpInterface, InferTypeOpAdaptor,
        DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_RNNOp : Edge_RecurrentOp<"rnn"> {
  let summary = "A vanilla RNN layer over a whole sequence";
  let description = [{
    `H[t] = f(X[t] W + H[t-1] R + Wb + Rb)` with `f` the `activation`
    ("tanh" or "relu"), run forward, reverse or in both directions
    (`direction`: "forward", "reverse", "bidirectional"). Shapes, with `S`
    steps, batch `N`, input size `I`, hidden size `H`, `D` directions:
    `X [S, N, I]`, `W [D, I, H]`, `R [D, H, H]`, `B [D, 2H]` (Wb then Rb),
    `initial_h [D, N, H]`; results `Y [S, D, N, H]` (every step's state)
    and `Y_h [D, N, H]` (the last step's state of each direction; the
    reverse direction's last step is t = 0).

    ```mlir
    %y, %yh = edge.rnn %x, %w, %r, %b, %h0
        {activation = "tanh", direction = "forward"}
        : (tensor<5x1x3xf32>, tensor<1x3x4xf32>, tensor<1x4x4xf32>,
           tensor<1x8xf32>, tensor<1x1x4xf32>)
        -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
    ```
  }];
  let arguments = !con(Edge_RecurrentOperands, (ins StrAttr:$activation));
  let results = (outs Edge_F32Tensor:$Y, Edge_F32Tensor:$Y_h);
}

def Edge_GRUOp : Edge_RecurrentOp<"gru"> {
  let summary = "A GRU layer over a whole sequence";
  let description = [{
    Gates in the order z (update), r (reset), h (candidate), each `H`
    columns of `W [D, I, 3H]` and `R [D, H, 3H]`; `B [D, 6H]` holds Wb
    then Rb in the same order. Per step, with `x = X[t]`, `h = H[t-1]`:
    `z = sigmoid(x Wz + h Rz + Wbz + Rbz)`, `r` likewise, the candidate
    `n = tanh(x Wh + r * (h Rh + Rbh) + Wbh)` with `linear_before_reset`,
    else `n = tanh(x Wh + (r * h) Rh + Rbh + Wbh)`, and
    `H[t] = (1 - z) * n + z * h`. Directions, shapes and results as
    `edge.rnn`.

    ```mlir
    %y, %yh = edge.gru %x, %w, %r, %b, %h0
        {direction = "forward", linear_before_reset = true}
        : (tensor<5x1x3xf32>, tensor<1x3x12xf32>, tensor<1x4x12xf32>,
           tensor<1x24xf32>, tensor<1x1x4xf32>)
        -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>)
    ```
  }];
  let arguments = !con(Edge_RecurrentOperands,
                       (ins BoolAttr:$linear_before_reset));
  let results = (outs Edge_F32Tensor:$Y, Edge_F32Tensor:$Y_h);
}

def Edge_LSTMOp : Edge_RecurrentOp<"lstm"> {
  let summary = "An LSTM layer (no peepholes) over a whole sequence";
  let description = [{
    Gates in ONNX's order i (input), o (output), f (forget), c (cell
    candidate), each `H` columns of `W [D, I, 4H]` and `R [D, H, 4H]`
    (oneDNN and PyTorch order them i, f, c, o); `B [D, 8H]` holds Wb then
    Rb in the same order. Per step, with `g = X[t] W + H[t-1] R +
    Wb + Rb`: `C[t] = sigmoid(g_f) * C[t-1] + sigmoid(g_i) * tanh(g_c)`,
    `H[t] = sigmoid(g_o) * tanh(C[t])`. `initial_c` and the result `Y_c`
    are `[D, N, H]` like `initial_h` and `Y_h`; directions, shapes and the
    other results as `edge.rnn`.

    ```mlir
    %y, %yh, %yc = edge.lstm %x, %w, %r, %b, %h0, %c0 {direction = "forward"}
        : (tensor<5x1x3xf32>, tensor<1x3x16xf32>, tensor<1x4x16xf32>,
           tensor<1x32xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
        -> (tensor<5x1x1x4xf32>, tensor<1x1x4xf32>, tensor<1x1x4xf32>)
    ```
  }];
  let arguments = !con((ins Edge_F32Tensor:$X, Edge_F32Tensor:$W,
                            Edge_F32Tensor:$R, Edge_F32Tensor:$B,
                            Edge_F32Tensor:$initial_h,
                            Edge_F32Tensor:$initial_c),
                       (ins StrAttr:$direction));
  let results = (outs Edge_F32Tensor:$Y, Edge_F32Tensor:$Y_h,
                      Edge_F32Tensor:$Y_c);
}

#endif // STRATA_EDGE_RECURRENT
