//===- EdgePostOps.td - fused post-op steps of edge ops ----*- tablegen -*-===//
//
// The post-op chain a delegate fuses into a convolution, matmul, binary,
// pooling or reduction op: what strata-edge-fuse writes and the delegate
// writers read. The portable kernels never see it (the pass runs on
// delegated partitions only).
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_POSTOPS
#define STRATA_EDGE_POSTOPS

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Edge_PostOpKind : I32EnumAttr<"PostOpKind", "a fused post-op step", [
    I32EnumAttrCase<"Relu", 0, "relu">,
    I32EnumAttrCase<"Clip", 1, "clip">,
    I32EnumAttrCase<"GeluErf", 2, "gelu_erf">,
    I32EnumAttrCase<"Swish", 3, "swish">,
    I32EnumAttrCase<"HardSwish", 4, "hardswish">,
    I32EnumAttrCase<"Sum", 5, "sum">,
    I32EnumAttrCase<"Add", 6, "add">,
    I32EnumAttrCase<"Linear", 7, "linear">,
    I32EnumAttrCase<"Quantize", 8, "quantize">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::strata::edge";
}

def Edge_PostOpAttr : AttrDef<Edge_Dialect, "PostOp"> {
  let mnemonic = "post_op";
  let summary = "One step of a fused post-op chain";
  let description = [{
    Applied in order to the op's own result `y`:

    | step | computes | alpha, beta |
    |---|---|---|
    | `relu` | `max(y, 0) + alpha * min(y, 0)` (LeakyRelu where alpha is not 0, as oneDNN's relu) | negative slope |
    | `clip` | `min(max(y, alpha), beta)` | bounds |
    | `gelu_erf`, `swish`, `hardswish` | the activation (EdgeActivationChains.h) | |
    | `sum` | `y + r`, `r` the next post operand, of the result's shape (a residual) | |
    | `add` | `y + b`, `b` the next post operand, broadcast (a bias or shift) | |
    | `linear` | `alpha * y` | scale |
    | `quantize` | `saturate(round(y / alpha) + beta)` into the result's 8-bit type; last | scale, zero point |

    ```mlir
    #edge.post_op<clip, 0.000000e+00, 6.000000e+00>
    ```
  }];
  let parameters = (ins "PostOpKind":$kind, APFloatParameter<"">:$alpha,
                        APFloatParameter<"">:$beta);
  let builders = [
    AttrBuilder<(ins "PostOpKind":$kind, CArg<"float", "0.0f">:$alpha,
                     CArg<"float", "0.0f">:$beta), [{
      return $_get($_ctxt, kind, ::llvm::APFloat(alpha), ::llvm::APFloat(beta));
    }]>
  ];
  let extraClassDeclaration = [{
    float getAlphaF() const { return getAlpha().convertToFloat(); }
    float getBetaF() const { return getBeta().convertToFloat(); }
    /// Whether the step reads a post operand (`sum`, `add`).
    bool readsOperand() const {
      return getKind() == PostOpKind::Sum || getKind() == PostOpKind::Add;
    }
    /// Whether the step is an element-wise function of `y` alone.
    bool isEltwise() const {
      return getKind() <= PostOpKind::HardSwish ||
             getKind() == PostOpKind::Linear;
    }
  }];
  let hasCustomAssemblyFormat = 1;
}

def Edge_PostOpArrayAttr
    : TypedArrayAttrBase<Edge_PostOpAttr, "post-op chain">;

#endif // STRATA_EDGE_POSTOPS
