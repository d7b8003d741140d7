//===- EdgeIndexing.td - gather, scatter and resize --------*- tablegen -*-===//
//
// Ops that read the input at computed coordinates: gathers and scatters
// with index tensors, and resize by interpolation.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EDGE_INDEXING
#define STRATA_EDGE_INDEXING

include "Edge/IR/EdgeBase.td"

def Edge_GatherElementsOp : Edge_Op<"gather_elements",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface,
     InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Gather along one axis with a full index tensor";
  let description = [{
    `output[i...]` is `input[i...]` with the `axis` coordinate replaced by
    `indices[i...]` (negative indices count from the end). Input, indices
    and result share one rank; the result has the indices' shape (dynamic
    extents too: TopK's values at a run-time k).

    ```mlir
    %y = edge.gather_elements %x, %i {axis = 1 : i64}
        : (tensor<2x3xf32>, tensor<2x2xi64>) -> tensor<2x2xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input,
                       RankedTensorOf<[I32, I64]>:$indices,
                       I64Attr:$axis);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_GatherOp : Edge_Op<"gather",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface,
     InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Gather slices along one axis";
  let description = [{
    The result shape is `input[:axis] ++ indices ++ input[axis+1:]`; each
    index (negative ones count from the end) picks one slice of the input
    along `axis`.

    ```mlir
    %y = edge.gather %x, %i {axis = 0 : i64}
        : (tensor<5x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input,
                       RankedTensorOf<[I32, I64]>:$indices,
                       I64Attr:$axis);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_ScatterElementsOp : Edge_Op<"scatter_elements",
    [Pure, AllTypesMatch<["input", "output"]>,
     AllElementTypesMatch<["input", "updates"]>, Edge_KernelOpInterface]> {
  let summary = "Scatter updates along one axis into a copy of the input";
  let description = [{
    The result is the input with, for every position `i...` of `indices`
    (negative ones count from the end), the element at `i...` with the
    `axis` coordinate replaced by `indices[i...]` set to (`none`) or
    combined with (`add`, `mul`, `max`, `min`) `updates[i...]`, in row-major
    order. Input, indices and updates share one rank; indices and updates
    one shape.

    ```mlir
    %y = edge.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"}
        : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input,
                       StaticShapeTensorOf<[I32, I64]>:$indices,
                       Edge_Tensor:$updates, I64Attr:$axis,
                       StrAttr:$reduction);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_GatherNDOp : Edge_Op<"gather_nd",
    [Pure, AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface,
     InferTypeOpAdaptor,
     DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "Gather slices addressed by index tuples";
  let description = [{
    The last extent `K` of `indices` is the tuple length; the first
    `batch_dims` dimensions of input and indices are shared batch dimensions.
    The result shape is `indices[:-1] ++ input[batch_dims + K:]` (negative
    indices count from the end).

    ```mlir
    %y = edge.gather_nd %x, %i {batch_dims = 0 : i64}
        : (tensor<2x2xi32>, tensor<2x2xi64>) -> tensor<2xi32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$indices,
                       I64Attr:$batch_dims);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ResizeOp : Edge_Op<"resize", [Pure, AttrSizedOperandSegments,
    AllElementTypesMatch<["input", "output"]>, Edge_KernelOpInterface,
    DeclareOpInterfaceMethods<ReifyRankedShapedTypeOpInterface>]> {
  let summary = "N-d separable interpolation (ONNX Resize semantics)";
  let description = [{
    Every axis is resampled by its own 1-d filter (nearest, linear or cubic
    with coefficient `cubic_coeff_a`); `antialias` stretches the linear and
    cubic filters by 1/scale when downsampling. Output coordinate `x` of an
    axis maps to an input coordinate by `coordinate_transformation_mode`,
    using the axis' scale (`scales`, one per dimension). The scales are the
    `scales` attribute when the lowering knows them, or else the run-time
    f32 operand `scales` (then the kernel checks them against the static
    result shape). `tf_crop_and_resize` reads the region of interest
    (starts..., ends..., normalised) from the `roi` attribute or operand;
    outside it the result is `extrapolation_value`.

    ```mlir
    %y = edge.resize %x {mode = "linear",
        coordinate_transformation_mode = "half_pixel",
        nearest_mode = "round_prefer_floor", cubic_coeff_a = -7.5e-01 : f32,
        exclude_outside = false, extrapolation_value = 0.0 : f32,
        antialias = false, scales = array<f64: 1.0, 1.0, 2.0, 2.0>}
        : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x4xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input,
                       Optional<Edge_F32Tensor>:$dynamic_roi,
                       Optional<Edge_F32Tensor>:$dynamic_scales,
                       StrAttr:$mode,
                       StrAttr:$coordinate_transformation_mode,
                       StrAttr:$nearest_mode,
                       F32Attr:$cubic_coeff_a,
                       BoolAttr:$exclude_outside,
                       F32Attr:$extrapolation_value,
                       BoolAttr:$antialias,
                       OptionalAttr<DenseF64ArrayAttr>:$scales,
                       OptionalAttr<DenseF64ArrayAttr>:$roi);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = [{
    $input (`roi` $dynamic_roi^)? (`scales` $dynamic_scales^)?
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Edge_ScatterNDOp : Edge_Op<"scatter_nd",
    [Pure, AllTypesMatch<["input", "output"]>,
     AllElementTypesMatch<["input", "updates"]>, Edge_KernelOpInterface]> {
  let summary = "Scatter slices at n-d indices into a copy of the input";
  let description = [{
    `indices [I..., k]` (k at most the input's rank; negative entries count
    from the end) address slices of the input's first k dimensions;
    `updates [I..., input dims k...]` holds one slice per index tuple. The
    result is the input with each addressed slice set to (`none`) or
    combined with (`add`, `mul`, `max`, `min`) its update, in row-major
    order of the index tuples.

    ```mlir
    %y = edge.scatter_nd %x, %i, %u {reduction = "none"}
        : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2x3xf32>) -> tensor<4x3xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, StaticShapeTensorOf<[I64]>:$indices,
                       Edge_Tensor:$updates, StrAttr:$reduction);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_GridSampleOp : Edge_Op<"grid_sample",
    [Pure, Edge_KernelOpInterface, InferTypeOpAdaptor]> {
  let summary = "Sample an image at grid coordinates (ONNX GridSample, 2-d)";
  let description = [{
    Input `[N, C, H, W]`, grid `[N, H_out, W_out, 2]` of (x, y) in [-1, 1]
    (the image's corner pixels' centres with `align_corners`, its edges
    without), result `[N, C, H_out, W_out]`. `mode` is `bilinear`,
    `nearest` (round half to even) or `bicubic` (4x4 taps, A = -0.75);
    `padding_mode` says what a tap outside the image reads: `zeros`, the
    nearest edge pixel (`border`) or the image reflected about its edges
    (`reflection`), per tap as ONNX Runtime does.

    ```mlir
    %y = edge.grid_sample %x, %g {align_corners = false, mode = "bilinear",
                                  padding_mode = "zeros"}
        : (tensor<1x1x4x4xf32>, tensor<1x6x6x2xf32>) -> tensor<1x1x6x6xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input, Edge_F32Tensor:$grid,
                       BoolAttr:$align_corners, StrAttr:$mode,
                       StrAttr:$padding_mode);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_ReverseSequenceOp : Edge_Op<"reverse_sequence",
    [Pure, Edge_KernelOpInterface, AllTypesMatch<["input", "output"]>]> {
  let summary = "Reverse each batch entry's first `sequence_lens` steps";
  let description = [{
    ONNX ReverseSequence: for batch entry `b` (along `batch_axis`), the
    first `sequence_lens[b]` steps along `time_axis` come out reversed and
    the rest are copied. `batch_axis` and `time_axis` are 0 and 1 in either
    order; a length outside [0, time steps] fails at run time.

    ```mlir
    %y = edge.reverse_sequence %x, %l {batch_axis = 1 : i64, time_axis = 0 : i64}
        : (tensor<4x4xf32>, tensor<4xi64>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins Edge_Tensor:$input, Edge_IndexTensor:$sequence_lens,
                       I64Attr:$batch_axis, I64Attr:$time_axis);
  let results = (outs Edge_Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_RoiAlignOp : Edge_Op<"roi_align",
    [Pure, Edge_KernelOpInterface, InferTypeOpAdaptor]> {
  let summary = "Region-of-interest align pooling (ONNX RoiAlign)";
  let description = [{
    Input `[N, C, H, W]`, rois `[R, 4]` of (x1, y1, x2, y2) in input
    coordinates before `spatial_scale`, batch indices `[R]`; result
    `[R, C, output_height, output_width]`. Each output bin averages
    (`mode` `avg`) or takes the largest (`max`) of its bilinear samples, a
    grid of `sampling_ratio` squared per bin, or ceil(roi extent / output
    extent) per axis when it is 0. `half_pixel` shifts the roi by half a
    pixel (coordinate_transformation_mode `half_pixel`); without it
    (`output_half_pixel`) rois are at least one pixel wide. Samples as ONNX
    Runtime's kernel does.

    ```mlir
    %y = edge.roi_align %x, %rois, %idx {half_pixel = true, mode = "avg",
        output_height = 5 : i64, output_width = 5 : i64,
        sampling_ratio = 2 : i64, spatial_scale = 1.0 : f32}
        : (tensor<1x1x10x10xf32>, tensor<3x4xf32>, tensor<3xi64>) -> tensor<3x1x5x5xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input, Edge_F32Tensor:$rois,
                       Edge_IndexTensor:$batch_indices, BoolAttr:$half_pixel,
                       StrAttr:$mode, I64Attr:$output_height,
                       I64Attr:$output_width, I64Attr:$sampling_ratio,
                       F32Attr:$spatial_scale);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Edge_DetOp : Edge_Op<"det",
    [Pure, Edge_KernelOpInterface, InferTypeOpAdaptor]> {
  let summary = "Determinant of square matrices (ONNX Det)";
  let description = [{
    Input `[*, M, M]`, result `[*]`: LU factorisation with partial pivoting
    per matrix, accumulated in double precision.

    ```mlir
    %d = edge.det %x : (tensor<2x3x3xf32>) -> tensor<2xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$input);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
}

def Edge_STFTOp : Edge_Op<"stft", [Pure, Edge_KernelOpInterface]> {
  let summary = "Short-time Fourier transform with run-time frame parameters";
  let description = [{
    ONNX STFT of a real or complex signal `[batch, samples, 1 or 2]` whose
    frame step and length (i64 `[1]` each) and optional window (f32
    `[length]`) are run-time values; result `[batch, frames, bins, 2]`,
    `bins` = length / 2 + 1 with `onesided`, else length. The kernel checks
    that the run-time values give the compiled result shape. (STFT with
    constant parameters lowers to a strided convolution instead.)

    ```mlir
    %y = edge.stft %x, %step, %length {onesided = true}
        : (tensor<1x128x1xf32>, tensor<1xi64>, tensor<1xi64>) -> tensor<1x15x9x2xf32>
    ```
  }];
  let arguments = (ins Edge_F32Tensor:$signal, Edge_IndexTensor:$frame_step,
                       Edge_IndexTensor:$frame_length,
                       Optional<Edge_F32Tensor>:$window, BoolAttr:$onesided);
  let results = (outs Edge_F32Tensor:$output);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

#endif // STRATA_EDGE_INDEXING
