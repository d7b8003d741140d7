//===- Passes.td - edge transformation passes --------------*- tablegen -*-===//
#ifndef STRATA_EDGE_PASSES
#define STRATA_EDGE_PASSES

include "mlir/Pass/PassBase.td"

def EdgeFuse : Pass<"strata-edge-fuse", "mlir::func::FuncOp"> {
  let summary = "Fuse the op chains a delegate runs as one step into fused "
                "edge forms";
  let description = [{
    Decides, once and in the IR, which chains of edge ops a delegate runs as
    one step; its partition writer then serializes one edge op at a time.
    The options say what the target takes (each delegate backend declares
    its set, `BackendHooks::fusions`, and strata-to-backend runs the pass on
    each of its partitions before preprocess). Two sweeps in program order:

    1. **Chains** (`chains`): GELU (erf form), SiLU, hardswish and
       LeakyRelu (`relu`: max(x, 0) + slope * min(x, 0), a relu whose
       alpha is the slope) spelled out in edge ops
       (EdgeActivationChains.h) become `edge.activation`,
       LayerNorm's nine ops `edge.layer_norm`, placed where the chain's
       first op stood (`chain-position=first`) or its last (`last`). With
       `exclusive-chains`, only chains whose input nothing else reads.
    2. **Post-ops** (`anchors`, `activations`, `fusions`): an anchor op
       (a convolution, matmul, binary, pooling or reduction op named in
       `anchors`) takes the chain its result alone feeds as `post_ops`
       (EdgePostOps.td), reading extra `post_operands`:
       - `conv-sum`: `conv2d -> add(r)`, `r` of the result's type defined
         before the convolution (a residual): a `sum` step;
       - `matmul-bias`: `matmul -> add(c)`, `c` a constant row `[1.., N]`:
         an `add` step;
       - `scale-shift`: `mul(x, s) -> add(c)`, `s` and `c` constants of one
         type (an unfolded BatchNormalization): an `add` step;
       - then one activation named in `activations` (`relu`, `clip`, or an
         `edge.activation` of kind `gelu_erf`, `swish`, `hardswish`);
       - `quantize`: after a binary op (scale-shift, or operands of the
         result's shape or one value per channel), a per-tensor
         quantization into s8 with a constant positive scale: a `quantize`
         step, the op then writes s8;
       - `int8-global-pool`: `dequantize -> reduce_mean(axes 2, 3) ->
         quantize` into s8 becomes one `reduce_mean` of the 8-bit values
         with `linear(in scale)` and `quantize(out scale)` steps.

    A link fuses only where the intermediate value has that single use, so
    a second reader blocks it. The portable kernels never see the fused
    forms: the pass runs on delegated partitions only.

    Before (`anchors=conv2d activations=relu fusions=conv-sum`):
    ```mlir
    %0 = edge.conv2d %x, %w, %b {...} : (...) -> tensor<1x8x4x4xf32>
    %1 = edge.add %0, %r : (...) -> tensor<1x8x4x4xf32>
    %2 = edge.relu %1 : tensor<1x8x4x4xf32>
    ```
    After:
    ```mlir
    %0 = edge.conv2d %x, %w, %b post(%r) {...,
           post_ops = [#edge.post_op<sum>, #edge.post_op<relu>]}
        : (...) -> tensor<1x8x4x4xf32>
    ```
  }];
  let options = [
    ListOption<"anchors", "anchors", "std::string",
               "Edge ops (by mnemonic) that take post-ops: conv2d, "
               "conv_transpose2d, matmul, add, sub, mul, div, maximum, "
               "minimum, max_pool2d, avg_pool2d, reduce_mean">,
    ListOption<"activations", "activations", "std::string",
               "Activations an anchor takes as a post-op: relu, clip, "
               "gelu_erf, swish, hardswish">,
    ListOption<"fusions", "fusions", "std::string",
               "Further fusions: conv-sum, matmul-bias, scale-shift, "
               "quantize, int8-global-pool">,
    ListOption<"chains", "chains", "std::string",
               "Chains formed as one op: gelu_erf, swish, hardswish, "
               "relu (LeakyRelu), layer_norm">,
    Option<"chainPosition", "chain-position", "std::string", [{"first"}],
           "Where a formed chain stands: 'first' or 'last' (its op's place)">,
    Option<"exclusiveChains", "exclusive-chains", "bool", "false",
           "Form an activation chain only where nothing else reads its "
           "input">,
  ];
  let dependentDialects = ["strata::edge::EdgeDialect"];
}

def EdgeQuantizeWeights : Pass<"strata-edge-quantize-weights",
                               "mlir::func::FuncOp"> {
  let summary = "Quantize constant matmul weights to 4 or 8 bits in groups "
                "along K";
  let description = [{
    Each `edge.matmul` of an f32 lhs by a constant f32 weight `[K, N]`
    (leading extents 1) becomes an `edge.weight_quantized_matmul`
    (EdgeQuant.td) whose weight is quantized per column and per group of
    `group-size` rows of K (EdgeQuantizedWeights.h gives the rounding).
    Activations stay f32: this is weight-only quantization, the decode-time
    format of ONNX Runtime's MatMulNBits and ExecuTorch's group-wise
    weights. A following `edge.add` of a constant row `[1.., N]`, the
    matmul's only reader, becomes the op's bias.

    `bits` is the default width (4 or 8); the function's
    `strata.weight_bits` dictionary (node name to width, written by the
    automatic choice of --weight-target-sqnr) overrides it, and
    `node-bits` overrides both per ONNX node (`NAME=BITS`, BITS 4, 8, or 0
    to keep the node in f32).
    Weights with a non-finite element, or fewer than `min-elements`
    elements, stay f32.

    ```mlir
    %y = edge.matmul %x, %w : (tensor<1x64xf32>, tensor<64x10xf32>) -> tensor<1x10xf32>
    ```
    becomes
    ```mlir
    %y = edge.weight_quantized_matmul %x, %q(%s, %z) {bits = 4 : i64, group_size = 32 : i64}
        : (tensor<1x64xf32>, tensor<1x8x128xui8>, tensor<1x2x32xf32>,
           tensor<1x2x32xui8>) -> tensor<1x10xf32>
    ```
  }];
  let options = [
    Option<"bits", "bits", "int64_t", "4", "Weight width: 4 or 8">,
    Option<"groupSize", "group-size", "int64_t", "32",
           "Rows of K sharing one scale and zero point (a multiple of 8)">,
    ListOption<"nodeBits", "node-bits", "std::string",
               "Per ONNX node: NAME=BITS (4, 8, or 0 for f32)">,
    Option<"minElements", "min-elements", "int64_t", "0",
           "Weights with fewer elements stay f32">,
    Option<"activationBits", "activation-bits", "int64_t", "0",
           "8: the matmuls quantize their lhs to int8 dynamically, per row "
           "and group (0: f32)">,
  ];
  let dependentDialects = ["strata::edge::EdgeDialect"];
}

def EdgeStateLayout : Pass<"strata-edge-state-layout", "mlir::func::FuncOp"> {
  let summary = "Store each growing state with its growing axis outermost, "
                "so a call appends to it in place";
  let description = [{
    A state (an input and the output that feeds it at the next call,
    `states` as `--state` gives them: `IN=OUT` or `past-present`) that
    grows along one dynamic axis, a KV cache `[batch, heads, past, dim]`
    growing along `past`, is stored with that axis first: `[past, batch,
    heads, dim]`. Its filled part is then one contiguous prefix of the
    state's buffer, and the concat that extends it writes only the new
    rows after it (the runtime runs that concat in the state's buffer: no
    copy of the cache per token).

    The function's argument and result take the stored layout; an
    `edge.transpose` gives the model's layout to the ops that read it,
    composed with the transposes already there (attention's transposed
    keys read the stored cache in one transpose), `edge.shape_of` and
    `tensor.dim` read the stored extents. A concat along the growing axis
    that returns the state becomes a concat along the stored first axis.
    The function's `strata.state_permutations` records each layout (name
    to permutation: stored dimension `d` is the model's `permutation[d]`);
    the program keeps it with the state, and the runtime's state API reads
    and writes the model's layout.

    A state whose extents before its growing axis are all 1, or that has no
    or several dynamic axes, keeps its layout.

    ```mlir
    func.func @f(%past: tensor<1x8x?x64xf32> {hl.name = "past.k"},
                 %new: tensor<1x8x1x64xf32>)
        -> (tensor<1x8x?x64xf32> {hl.name = "present.k"}) {
      %0 = edge.concat %past, %new {axis = 2 : i64} : ...
      return %0 : tensor<1x8x?x64xf32>
    }
    ```
    becomes (with `states=past-present`)
    ```mlir
    func.func @f(%past: tensor<?x1x8x64xf32> {hl.name = "past.k"}, ...)
        -> (tensor<?x1x8x64xf32> {hl.name = "present.k"})
        attributes {strata.state_permutations = {...}} {
      %t = edge.transpose %new {permutation = array<i64: 2, 0, 1, 3>} : ...
      %0 = edge.concat %past, %t {axis = 0 : i64} : ...
      return %0 : tensor<?x1x8x64xf32>
    }
    ```
  }];
  let options = [
    ListOption<"states", "states", "std::string",
               "State pairs: IN=OUT, or past-present">,
  ];
  let dependentDialects = ["strata::edge::EdgeDialect",
                           "mlir::tensor::TensorDialect"];
}

#endif // STRATA_EDGE_PASSES
