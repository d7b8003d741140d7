//===- EdgeNN.td - convolution, matmul, pooling ------------*- tablegen -*-===//
//
// The float neural-network ops: convolutions (NCHW input, OIHW weight),
// matrix products, pooling and softmax. Their int8 forms are in
// EdgeQuant.td.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_NN
#define STRATA_EDGE_NN

include "Edge/IR/EdgeBase.td"

def Edge_Conv2DOp : Edge_Op<"conv2d",
    [Pure, AttrSizedOperandSegments, Edge_KernelOpInterface,
     InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "2-d convolution, NCHW input, OIHW weight";
  let description = [{
    Input `[N, C, H, W]`, weight `[M, C/group, KH, KW]`, optional bias `[M]`.
    `pads` is `[top, left, bottom, right]`. The result shape must equal the
    one the attributes imply.

    A delegated partition may carry a fused post-op chain (strata-edge-fuse,
    EdgePostOps.td): `post_ops` applied to the result, reading
    `post_operands` in order.

    ```mlir
    %y = edge.conv2d %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64,
                             pads = array<i64: 0, 0, 0, 0>,
                             strides = array<i64: 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_Tensor:$weight,
                       Optional<Edge_Tensor>:$bias,
                       Variadic<Edge_Tensor>:$post_operands,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       I64Attr:$group,
                       OptionalAttr<Edge_PostOpArrayAttr>:$post_ops);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`post` `(` $post_operands^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::mlir::Value":$weight, "::mlir::Value":$bias,
                   "::llvm::ArrayRef<int64_t>":$strides,
                   "::llvm::ArrayRef<int64_t>":$dilations,
                   "::llvm::ArrayRef<int64_t>":$pads, "int64_t":$group), [{
      build($_builder, $_state, output, input, weight, bias,
            ::mlir::ValueRange(), $_builder.getDenseI64ArrayAttr(strides),
            $_builder.getDenseI64ArrayAttr(dilations),
            $_builder.getDenseI64ArrayAttr(pads),
            $_builder.getI64IntegerAttr(group), ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::Value":$input,
                   "::mlir::Value":$weight, "::mlir::Value":$bias,
                   "::llvm::ArrayRef<int64_t>":$strides,
                   "::llvm::ArrayRef<int64_t>":$dilations,
                   "::llvm::ArrayRef<int64_t>":$pads, "int64_t":$group), [{
      build($_builder, $_state, input, weight, bias,
            ::mlir::ValueRange(), $_builder.getDenseI64ArrayAttr(strides),
            $_builder.getDenseI64ArrayAttr(dilations),
            $_builder.getDenseI64ArrayAttr(pads),
            $_builder.getI64IntegerAttr(group), ::mlir::ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Edge_DeformConv2DOp : Edge_Op<"deform_conv2d",
    [Pure, Edge_KernelOpInterface, InferTypeOpAdaptor]> {
  let summary = "2-d deformable convolution, NCHW input, OIHW weight (f32)";
  let description = [{
    Input `[N, C, H, W]`, weight `[M, C/group, KH, KW]`, bias `[M]`, offset
    `[N, offset_group * 2 * KH * KW, oH, oW]` and optional mask
    `[N, offset_group * KH * KW, oH, oW]`. Tap `(i, j)` of output pixel
    `(y, x)` reads channel group `g`'s input bilinearly at
    `(y * stride - pad_top + i * dilation + offset[2k], x * stride - pad_left +
    j * dilation + offset[2k + 1])`, `k = i * KW + j` within the group's
    offsets, zero outside the image, times `mask[k]`; the samples are
    convolved with the weight. `pads` is `[top, left, bottom, right]`.

    ```mlir
    %y = edge.deform_conv2d %x, %w, %b, %off {dilations = array<i64: 1, 1>,
            group = 1 : i64, offset_group = 1 : i64,
            pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
        : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1xf32>,
           tensor<1x8x2x2xf32>) -> tensor<1x1x2x2xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input, Edge_F32Tensor:$weight,
                       Edge_F32Tensor:$bias, Edge_F32Tensor:$offset,
                       Optional<Edge_F32Tensor>:$mask,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       I64Attr:$group,
                       I64Attr:$offset_group);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ConvTranspose2DOp : Edge_Op<"conv_transpose2d",
    [Pure, AttrSizedOperandSegments, Edge_KernelOpInterface,
     InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "2-d transposed convolution, NCHW input, IOHW weight";
  let description = [{
    Input `[N, C, H, W]`, weight `[C, M/group, KH, KW]`, optional bias `[M]`.
    Each output extent is `(in - 1) * stride + (k - 1) * dilation + 1 -
    pad_begin - pad_end + output_padding`; `pads` is
    `[top, left, bottom, right]` (cropped from the full output) and
    `output_padding` `[bottom, right]` (zeros added at the end).

    A delegated partition may carry a fused post-op chain (strata-edge-fuse,
    EdgePostOps.td): `post_ops` applied to the result, reading
    `post_operands` in order.

    ```mlir
    %y = edge.conv_transpose2d %x, %w {dilations = array<i64: 1, 1>,
                                       group = 1 : i64,
                                       output_padding = array<i64: 0, 0>,
                                       pads = array<i64: 0, 0, 0, 0>,
                                       strides = array<i64: 2, 2>}
        : (tensor<1x1x3x3xf32>, tensor<1x2x3x3xf32>) -> tensor<1x2x7x7xf32>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input, Edge_FloatTensor:$weight,
                       Optional<Edge_FloatTensor>:$bias,
                       Variadic<Edge_FloatTensor>:$post_operands,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$output_padding,
                       I64Attr:$group,
                       OptionalAttr<Edge_PostOpArrayAttr>:$post_ops);
  let results = (outs Edge_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? (`post` `(` $post_operands^ `)`)?
    attr-dict `:` functional-type(operands, results)
  }];
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::mlir::Value":$weight, "::mlir::Value":$bias,
                   "::llvm::ArrayRef<int64_t>":$strides,
                   "::llvm::ArrayRef<int64_t>":$dilations,
                   "::llvm::ArrayRef<int64_t>":$pads,
                   "::llvm::ArrayRef<int64_t>":$output_padding,
                   "int64_t":$group), [{
      build($_builder, $_state, output, input, weight, bias,
            ::mlir::ValueRange(), $_builder.getDenseI64ArrayAttr(strides),
            $_builder.getDenseI64ArrayAttr(dilations),
            $_builder.getDenseI64ArrayAttr(pads),
            $_builder.getDenseI64ArrayAttr(output_padding),
            $_builder.getI64IntegerAttr(group), ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::Value":$input,
                   "::mlir::Value":$weight, "::mlir::Value":$bias,
                   "::llvm::ArrayRef<int64_t>":$strides,
                   "::llvm::ArrayRef<int64_t>":$dilations,
                   "::llvm::ArrayRef<int64_t>":$pads,
                   "::llvm::ArrayRef<int64_t>":$output_padding,
                   "int64_t":$group), [{
      build($_builder, $_state, input, weight, bias,
            ::mlir::ValueRange(), $_builder.getDenseI64ArrayAttr(strides),
            $_builder.getDenseI64ArrayAttr(dilations),
            $_builder.getDenseI64ArrayAttr(pads),
            $_builder.getDenseI64ArrayAttr(output_padding),
            $_builder.getI64IntegerAttr(group), ::mlir::ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Edge_MatMulOp : Edge_Op<"matmul", [Pure, Edge_KernelOpInterface,
                                       InferTypeOpAdaptor,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Batched matrix product with rank-explicit batch broadcasting";
  let description = [{
    `lhs [B..., M, K] x rhs [B..., K, N] -> [B..., M, N]`. Both operands have
    the result's rank (at least 2); each batch extent equals the result's or
    is 1.

    A delegated partition may carry a fused post-op chain (strata-edge-fuse,
    EdgePostOps.td): `post_ops` applied to the result, reading
    `post_operands` in order.

    ```mlir
    %y = edge.matmul %a, %b : (tensor<1x64xf32>, tensor<64x10xf32>) -> tensor<1x10xf32>
    ```
  }];
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
    OpBuilder<(ins "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs), [{
      build($_builder, $_state, lhs, rhs, ::mlir::ValueRange(),
            ::mlir::ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Edge_MaxPool2DOp : Edge_Op<"max_pool2d",
    [Pure, Edge_KernelOpInterface, SameOperandsAndResultElementType,
     InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "2-d max pooling, NCHW";
  let description = [{
    `pads` is `[top, left, bottom, right]`; padded elements never win.

    ```mlir
    %y = edge.max_pool2d %x {ceil_mode = false, dilations = array<i64: 1, 1>,
                             kernel = array<i64: 2, 2>,
                             pads = array<i64: 0, 0, 0, 0>,
                             strides = array<i64: 2, 2>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       BoolAttr:$ceil_mode,
                       OptionalAttr<Edge_PostOpArrayAttr>:$post_ops);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$kernel,
                   "::llvm::ArrayRef<int64_t>":$strides,
                   "::llvm::ArrayRef<int64_t>":$dilations,
                   "::llvm::ArrayRef<int64_t>":$pads, "bool":$ceil_mode), [{
      build($_builder, $_state, output, input, kernel, strides, dilations,
            pads, ceil_mode, ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$kernel,
                   "::llvm::ArrayRef<int64_t>":$strides,
                   "::llvm::ArrayRef<int64_t>":$dilations,
                   "::llvm::ArrayRef<int64_t>":$pads, "bool":$ceil_mode), [{
      build($_builder, $_state, input, kernel, strides, dilations,
            pads, ceil_mode, ::mlir::ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Edge_AvgPool2DOp : Edge_Op<"avg_pool2d",
    [Pure, SameOperandsAndResultElementType, Edge_KernelOpInterface,
     InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "2-d average pooling, NCHW";
  let description = [{
    Attributes as `max_pool2d`; with `count_include_pad` the divisor counts
    padded elements, otherwise only those inside the input.

    ```mlir
    %y = edge.avg_pool2d %x {ceil_mode = false, count_include_pad = false,
                             dilations = array<i64: 1, 1>,
                             kernel = array<i64: 2, 2>,
                             pads = array<i64: 0, 0, 0, 0>,
                             strides = array<i64: 2, 2>}
        : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides,
                       DenseI64ArrayAttr:$dilations,
                       DenseI64ArrayAttr:$pads,
                       BoolAttr:$ceil_mode,
                       BoolAttr:$count_include_pad,
                       OptionalAttr<Edge_PostOpArrayAttr>:$post_ops);
  let results = (outs Edge_FloatTensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let builders = [
    OpBuilder<(ins "::mlir::Type":$output, "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$kernel,
                   "::llvm::ArrayRef<int64_t>":$strides,
                   "::llvm::ArrayRef<int64_t>":$dilations,
                   "::llvm::ArrayRef<int64_t>":$pads, "bool":$ceil_mode,
                   "bool":$count_include_pad), [{
      build($_builder, $_state, output, input, kernel, strides, dilations,
            pads, ceil_mode, count_include_pad, ::mlir::ArrayAttr());
    }]>,
    OpBuilder<(ins "::mlir::Value":$input,
                   "::llvm::ArrayRef<int64_t>":$kernel,
                   "::llvm::ArrayRef<int64_t>":$strides,
                   "::llvm::ArrayRef<int64_t>":$dilations,
                   "::llvm::ArrayRef<int64_t>":$pads, "bool":$ceil_mode,
                   "bool":$count_include_pad), [{
      build($_builder, $_state, input, kernel, strides, dilations,
            pads, ceil_mode, count_include_pad, ::mlir::ArrayAttr());
    }]>
  ];
  let hasVerifier = 1;
}

def Edge_SoftmaxOp : Edge_Op<"softmax", [Pure, Edge_KernelOpInterface, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let summary = "Softmax along one non-negative axis";
  let description = [{
    ```mlir
    %y = edge.softmax %x {axis = 1 : i64} : tensor<1x10xf32>
    ```
  }];
  let arguments = (ins Edge_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Edge_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Edge_LogSoftmaxOp : Edge_Op<"log_softmax", [Pure, Edge_KernelOpInterface, SameOperandsAndResultType,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let extraClassDefinition = Edge_ReifyLikeOperandsDefinition;
  let summary = "LogSoftmax along one non-negative axis";
  let description = [{
    `x - max - log(sum(exp(x - max)))` along `axis` (max and sum over it):
    one pass of a delegate's log-softmax, where its arithmetic spelled out
    would be six ops and two reductions.

    ```mlir
    %y = edge.log_softmax %x {axis = 1 : i64} : tensor<1x80x100xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input, I64Attr:$axis);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

#endif // STRATA_EDGE_NN
