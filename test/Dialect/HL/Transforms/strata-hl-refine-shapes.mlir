// RUN: strata-opt %s -split-input-file --strata-hl-refine-shapes -verify-diagnostics | FileCheck %s

// Tests the PyTorch x.view(x.shape[0], -1) plumbing: shape -> gather ->
// unsqueeze -> concat -> reshape becomes a reshape by the constant [2, -1]
// with the static result 2x12 (2*3*4 = 24 elements, 24/2 = 12), and the
// function result type follows.
// CHECK-LABEL: func @torch_view_flatten
// CHECK-SAME: -> tensor<2x12xf32>
func.func @torch_view_flatten(%x: tensor<2x3x4xf32>) -> tensor<?x?xf32> {
  // CHECK: %[[T:.*]] = hl.constant dense<[2, -1]> : tensor<2xi64>
  // CHECK-NOT: hl.shape
  // CHECK-NOT: hl.gather
  // CHECK-NOT: hl.concat
  // CHECK: %[[Y:.*]] = hl.reshape %arg0, %[[T]] : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<2x12xf32>
  // CHECK: return %[[Y]] : tensor<2x12xf32>
  %s = hl.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %i = hl.constant dense<0> : tensor<i64>
  %d = hl.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %a = hl.constant dense<0> : tensor<1xi64>
  %u = hl.unsqueeze %d, %a : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = hl.constant dense<-1> : tensor<1xi64>
  %t = hl.concat %u, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<?xi64>
  %y = hl.reshape %x, %t : (tensor<2x3x4xf32>, tensor<?xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Tests the expanded LayerNormalization plumbing: constant_of_shape of
// neg([-2]) = [2] ones becomes the constant [1, 1], concat with [2, 3] gives
// [2, 3, 1, 1], and the reshape result (declared static) is kept.
// CHECK-LABEL: func @constant_of_shape_concat
func.func @constant_of_shape_concat(%x: tensor<6x1xf32>) -> tensor<2x3x1x1xf32> {
  // CHECK: %[[T:.*]] = hl.constant dense<[2, 3, 1, 1]> : tensor<4xi64>
  // CHECK: hl.reshape %arg0, %[[T]] : (tensor<6x1xf32>, tensor<4xi64>) -> tensor<2x3x1x1xf32>
  %n = hl.constant dense<-2> : tensor<1xi64>
  %k = hl.neg %n : tensor<1xi64>
  %ones = hl.constant_of_shape %k {value = dense<1> : tensor<1xi64>} : (tensor<1xi64>) -> tensor<?xi64>
  %lead = hl.constant dense<[2, 3]> : tensor<2xi64>
  %t = hl.concat %lead, %ones {axis = 0 : i64} : (tensor<2xi64>, tensor<?xi64>) -> tensor<?xi64>
  %y = hl.reshape %x, %t : (tensor<6x1xf32>, tensor<?xi64>) -> tensor<2x3x1x1xf32>
  return %y : tensor<2x3x1x1xf32>
}

// -----

// Tests that refinement flows downstream through elementwise ops
// (SameOperandsAndResultType), broadcasting ops and casts: Range(0, 4, 1)
// has 4 elements, times a scalar stays 4, cos keeps its operand's type.
// CHECK-LABEL: func @range_downstream
// CHECK-SAME: -> tensor<4xf32>
func.func @range_downstream() -> tensor<?xf32> {
  // CHECK-NOT: tensor<?xf32>
  // CHECK: return %{{.*}} : tensor<4xf32>
  %s = hl.constant dense<0> : tensor<i64>
  %l = hl.constant dense<4> : tensor<i64>
  %d = hl.constant dense<1> : tensor<i64>
  %r = hl.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %f = hl.cast %r : (tensor<?xi64>) -> tensor<?xf32>
  %k = hl.constant dense<0.5> : tensor<f32>
  %m = hl.mul %f, %k : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %c = hl.cos %m : tensor<?xf32>
  return %c : tensor<?xf32>
}

// -----

// Tests expand, tile and constant_of_shape with constant shape operands:
// expand 3x1 to [2, 1, 4] broadcasts to 2x3x4, tile 2x3 by [2, 1] gives 4x3.
// CHECK-LABEL: func @expand_tile
// CHECK-SAME: -> (tensor<2x3x4xf32>, tensor<4x3xf32>)
func.func @expand_tile(%x: tensor<3x1xf32>, %y: tensor<2x3xf32>) -> (tensor<*xf32>, tensor<?x?xf32>) {
  // CHECK: hl.expand {{.*}} -> tensor<2x3x4xf32>
  // CHECK: hl.tile {{.*}} -> tensor<4x3xf32>
  %s = hl.constant dense<[2, 1, 4]> : tensor<3xi64>
  %e = hl.expand %x, %s : (tensor<3x1xf32>, tensor<3xi64>) -> tensor<*xf32>
  %r = hl.constant dense<[2, 1]> : tensor<2xi64>
  %t = hl.tile %y, %r : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %e, %t : tensor<*xf32>, tensor<?x?xf32>
}

// -----

// Tests slice with constant bounds on a static operand (ONNX clamps the end
// 100 to the extent 10; [2:100:3] picks 2, 5, 8) and a reduction with
// constant axes and keepdims.
// CHECK-LABEL: func @slice_reduce
func.func @slice_reduce(%x: tensor<10x4xf32>) -> (tensor<?x4xf32>, tensor<?x?xf32>) {
  // CHECK: hl.slice {{.*}} -> tensor<3x4xf32>
  // CHECK: hl.reduce_sum {{.*}} -> tensor<10x1xf32>
  %b = hl.constant dense<2> : tensor<1xi64>
  %e = hl.constant dense<100> : tensor<1xi64>
  %a = hl.constant dense<0> : tensor<1xi64>
  %st = hl.constant dense<3> : tensor<1xi64>
  %s = hl.slice %x, %b, %e, %a, %st : (tensor<10x4xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?x4xf32>
  %ax = hl.constant dense<1> : tensor<1xi64>
  %r = hl.reduce_sum %x, %ax : (tensor<10x4xf32>, tensor<1xi64>) -> tensor<?x?xf32>
  return %s, %r : tensor<?x4xf32>, tensor<?x?xf32>
}

// -----

// Tests that a shape that depends on a run-time value stays dynamic.
// CHECK-LABEL: func @runtime_shape
func.func @runtime_shape(%x: tensor<2x3xf32>, %t: tensor<2xi64>) -> tensor<?x?xf32> {
  // CHECK: hl.reshape {{.*}} -> tensor<?x?xf32>
  %y = hl.reshape %x, %t : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Tests that an inferred shape that contradicts a static extent already in
// the IR is an error rather than a silent retype (2*3 elements reshaped to
// [3, -1] is 3x2, not ?x5).
func.func @contradiction(%x: tensor<2x3xf32>) -> tensor<?x5xf32> {
  %t = hl.constant dense<[3, -1]> : tensor<2xi64>
  // expected-error @+1 {{operands imply the result shape 3x2, which contradicts its type 'tensor<?x5xf32>'}}
  %y = hl.reshape %x, %t : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x5xf32>
  return %y : tensor<?x5xf32>
}

// -----

// Tests the expanded HannWindow body with a run-time size: the range over
// the size stays dynamic under forward rules, so its length is taken from
// the declared static output reached through mul, cos and cast (checked at
// run time by edge.range), and everything between becomes static.
// CHECK-LABEL: func @range_length_from_output
func.func @range_length_from_output(%n: tensor<i32>) -> tensor<10xf32> {
  // CHECK: hl.range {{.*}} -> tensor<10xf32>
  // CHECK: hl.mul {{.*}} -> tensor<10xf32>
  // CHECK: hl.cos %{{.*}} : tensor<10xf32>
  // CHECK-NOT: tensor<?xf32>
  %zero = hl.constant dense<0.0> : tensor<f32>
  %one = hl.constant dense<1.0> : tensor<f32>
  %nf = hl.cast %n : (tensor<i32>) -> tensor<f32>
  %r = hl.range %zero, %nf, %one : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  %k = hl.constant dense<0.5> : tensor<f32>
  %m = hl.mul %r, %k : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %c = hl.cos %m : tensor<?xf32>
  %y = hl.cast %c : (tensor<?xf32>) -> tensor<10xf32>
  return %y : tensor<10xf32>
}

// -----

// Tests that a range over run-time operands stays dynamic when nothing
// downstream fixes its length.
// CHECK-LABEL: func @range_no_demand
// CHECK-SAME: -> tensor<?xf32>
func.func @range_no_demand(%s: tensor<f32>, %l: tensor<f32>, %d: tensor<f32>) -> tensor<?xf32> {
  // CHECK: hl.range {{.*}} -> tensor<?xf32>
  %r = hl.range %s, %l, %d : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// -----

// Tests that a window with a constant size gets the static result [size]
// and folds.
// CHECK-LABEL: func @window_constant_size
// CHECK-SAME: -> tensor<3xf32>
func.func @window_constant_size() -> tensor<?xf32> {
  // CHECK: %[[W:.*]] = hl.constant dense<{{.*}}> : tensor<3xf32>
  // CHECK: return %[[W]] : tensor<3xf32>
  %c3 = hl.constant dense<3> : tensor<i64>
  %0 = hl.hann_window %c3 : (tensor<i64>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Tests PyTorch's x.chunk(2, dim=1) as shufflenet_v2 exports it: the slice
// end is (shape[1] + 1) / 2 * 1, known only after folding; the slice becomes
// static (1x4x5x5 of 1x8x5x5), and so do the ops after it: a 3x3
// convolution with pads 1 keeps 5x5 at 6 output channels, a 2x2 max pool
// with stride 2 and ceil_mode gives ceil((5 - 2) / 2) + 1 = 3, global
// average pooling 1x1, a transpose swaps to 1x1x6x1.
// CHECK-LABEL: func @chunk_then_conv
// CHECK-SAME: -> tensor<1x1x6x1xf32>
func.func @chunk_then_conv(%x: tensor<1x8x5x5xf32>, %w: tensor<6x4x3x3xf32>) -> tensor<*xf32> {
  // CHECK: hl.slice {{.*}} -> tensor<1x4x5x5xf32>
  // CHECK: hl.conv {{.*}} -> tensor<1x6x5x5xf32>
  // CHECK: hl.max_pool {{.*}} -> tensor<1x6x3x3xf32>
  // CHECK: hl.global_average_pool {{.*}} -> tensor<1x6x1x1xf32>
  // CHECK: hl.transpose {{.*}} -> tensor<1x1x6x1xf32>
  %s = hl.shape %x : (tensor<1x8x5x5xf32>) -> tensor<4xi64>
  %i = hl.constant dense<1> : tensor<1xi64>
  %c = hl.gather %s, %i {axis = 0 : i64} : (tensor<4xi64>, tensor<1xi64>) -> tensor<1xi64>
  %one = hl.constant dense<1> : tensor<1xi64>
  %two = hl.constant dense<2> : tensor<1xi64>
  %sum = hl.add %c, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %half = hl.div %sum, %two : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %end = hl.mul %half, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %zero = hl.constant dense<0> : tensor<1xi64>
  %part = hl.slice %x, %zero, %end, %i, %one : (tensor<1x8x5x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<*xf32>
  %conv = hl.conv %part, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<*xf32>, tensor<6x4x3x3xf32>) -> tensor<*xf32>
  %pool = hl.max_pool %conv {ceil_mode = 1 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<*xf32>) -> tensor<*xf32>
  %g = hl.global_average_pool %pool : (tensor<*xf32>) -> tensor<*xf32>
  %t = hl.transpose %g {perm = array<i64: 0, 2, 1, 3>} : (tensor<*xf32>) -> tensor<*xf32>
  return %t : tensor<*xf32>
}

// -----

// Tests the linear ops: gemm with transB ([2, 3] x [5, 3]^T = [2, 5]),
// matmul with batch broadcasting ([4, 1, 2, 3] x [6, 3, 7] = [4, 6, 2, 7])
// and with a 1-D right operand ([2, 3] x [3] = [2]).
// CHECK-LABEL: func @linear
// CHECK-SAME: -> (tensor<2x5xf32>, tensor<4x6x2x7xf32>, tensor<2xf32>)
func.func @linear(%a: tensor<2x3xf32>, %b: tensor<5x3xf32>, %l: tensor<4x1x2x3xf32>, %r: tensor<6x3x7xf32>, %v: tensor<3xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %g = hl.gemm %a, %b {transB = 1 : i64} : (tensor<2x3xf32>, tensor<5x3xf32>) -> tensor<*xf32>
  %m = hl.matmul %l, %r : (tensor<4x1x2x3xf32>, tensor<6x3x7xf32>) -> tensor<*xf32>
  %mv = hl.matmul %a, %v : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<*xf32>
  return %g, %m, %mv : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Tests pad with constant pads (begin extents, then end extents; a negative
// pad crops): 1x5x5x3 padded by [0, 0, 1, 0] before and [0, 2, 1, -1]
// after is 1x7x7x2.
// CHECK-LABEL: func @pad_constant
// CHECK-SAME: -> tensor<1x7x7x2xf32>
func.func @pad_constant(%x: tensor<1x5x5x3xf32>) -> tensor<?x?x?x?xf32> {
  // CHECK: hl.pad {{.*}} -> tensor<1x7x7x2xf32>
  %p = hl.constant dense<[0, 0, 1, 0, 0, 2, 1, -1]> : tensor<8xi64>
  %y = hl.pad %x, %p : (tensor<1x5x5x3xf32>, tensor<8xi64>) -> tensor<?x?x?x?xf32>
  return %y : tensor<?x?x?x?xf32>
}

// -----

// Tests resize, as torchvision's segmentation heads write it
// (F.interpolate(x, size=input.shape[-2:])): the sizes [1, 21] ++ the
// other tensor's 32x48 (shape -> slice -> concat) give 1x21x32x48.
// CHECK-LABEL: func @resize_to_shape_of
// CHECK-SAME: -> tensor<1x21x32x48xf32>
func.func @resize_to_shape_of(%x: tensor<1x21x4x6xf32>, %image: tensor<1x3x32x48xf32>) -> tensor<*xf32> {
  // CHECK: hl.resize {{.*}} -> tensor<1x21x32x48xf32>
  %s = hl.shape %image : (tensor<1x3x32x48xf32>) -> tensor<4xi64>
  %b = hl.constant dense<2> : tensor<1xi64>
  %e = hl.constant dense<4> : tensor<1xi64>
  %a = hl.constant dense<0> : tensor<1xi64>
  %one = hl.constant dense<1> : tensor<1xi64>
  %hw = hl.slice %s, %b, %e, %a, %one : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xi64>
  %nc = hl.constant dense<[1, 21]> : tensor<2xi64>
  %sizes = hl.concat %nc, %hw {axis = 0 : i64} : (tensor<2xi64>, tensor<?xi64>) -> tensor<?xi64>
  %y = hl.resize %x sizes %sizes {mode = "linear"} : (tensor<1x21x4x6xf32>, tensor<?xi64>) -> tensor<*xf32>
  return %y : tensor<*xf32>
}

// -----

// Tests resize's other forms: constant scales floor the products
// (5 * 1.5 = 7.5 -> 7, 3 * 2.6 = 7.8 -> 7); sizes on listed axes with
// not_larger take the smaller ratio, min(8 / 4, 9 / 6) = 1.5, and round half
// up (4 * 1.5 = 6, 6 * 1.5 = 9); not_smaller takes the larger one, 2
// (8 and 12). Sizes known only at run time leave the result as it was.
// CHECK-LABEL: func @resize_forms
func.func @resize_forms(%x: tensor<1x2x5x3xf32>, %z: tensor<1x1x4x6xf32>, %n: tensor<4xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  // CHECK: hl.resize %arg0 scales {{.*}} -> tensor<1x2x7x7xf32>
  // CHECK: hl.resize %arg1 sizes {{.*}} -> tensor<1x1x6x9xf32>
  // CHECK: hl.resize %arg1 sizes {{.*}} -> tensor<1x1x8x12xf32>
  // CHECK: hl.resize %arg0 sizes %arg2 {{.*}} -> tensor<*xf32>
  %scales = hl.constant dense<[1.0, 1.0, 1.5, 2.6]> : tensor<4xf32>
  %a = hl.resize %x scales %scales {mode = "nearest"} : (tensor<1x2x5x3xf32>, tensor<4xf32>) -> tensor<*xf32>
  %sizes = hl.constant dense<[8, 9]> : tensor<2xi64>
  %b = hl.resize %z sizes %sizes {axes = array<i64: 2, -1>, keep_aspect_ratio_policy = "not_larger", mode = "linear"} : (tensor<1x1x4x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  %c = hl.resize %z sizes %sizes {axes = array<i64: 2, 3>, keep_aspect_ratio_policy = "not_smaller", mode = "linear"} : (tensor<1x1x4x6xf32>, tensor<2xi64>) -> tensor<*xf32>
  %d = hl.resize %x sizes %n {mode = "nearest"} : (tensor<1x2x5x3xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %a, %b, %c, %d : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Tests torchvision's per-class detection plumbing with value-dependent
// extents: NonZero -> Transpose -> GatherND keeps the index rows open
// (indices[:-1] ++ data[K:]: ?x4 boxes), TopK with a k read at run time
// gives both results the input's shape with the axis open, ConstantOfShape
// of a Shape takes the shape's length as its rank, Squeeze of listed axes
// and Flatten keep the open extents, and Split results take their sizes.
// CHECK-LABEL: func @detection_plumbing
func.func @detection_plumbing(%scores: tensor<3234xf32>, %boxes: tensor<3234x4xf32>, %k: tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %t = hl.constant dense<0.5> : tensor<f32>
  %m = hl.greater %scores, %t : (tensor<3234xf32>, tensor<f32>) -> tensor<3234xi1>
  %nz = hl.non_zero %m : (tensor<3234xi1>) -> tensor<1x?xi64>
  // CHECK: hl.transpose {{.*}} -> tensor<?x1xi64>
  %rows = hl.transpose %nz {perm = array<i64: 1, 0>} : (tensor<1x?xi64>) -> tensor<*xi64>
  // CHECK: hl.gather_nd {{.*}} -> tensor<?xf32>
  %s = hl.gather_nd %scores, %rows : (tensor<3234xf32>, tensor<*xi64>) -> tensor<*xf32>
  // CHECK: hl.gather_nd {{.*}} -> tensor<?x4xf32>
  %b = hl.gather_nd %boxes, %rows : (tensor<3234x4xf32>, tensor<*xi64>) -> tensor<*xf32>
  // CHECK: hl.top_k {{.*}} -> (tensor<?xf32>, tensor<?xi64>)
  %v, %i = hl.top_k %s, %k : (tensor<*xf32>, tensor<1xi64>) -> (tensor<*xf32>, tensor<*xi64>)
  // CHECK: hl.shape {{.*}} -> tensor<1xi64>
  %shape = hl.shape %v : (tensor<*xf32>) -> tensor<*xi64>
  // CHECK: hl.constant_of_shape {{.*}} -> tensor<?xi64>
  %labels = hl.constant_of_shape %shape {value = dense<7> : tensor<1xi64>} : (tensor<*xi64>) -> tensor<*xi64>
  %sizes = hl.constant dense<1> : tensor<4xi64>
  // CHECK: hl.split {{.*}} -> (tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>, tensor<?x1xf32>)
  %c:4 = hl.split %b, %sizes {axis = 1 : i64} : (tensor<*xf32>, tensor<4xi64>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>)
  %one = hl.constant dense<1> : tensor<1xi64>
  // CHECK: hl.squeeze {{.*}} -> tensor<?xf32>
  %x0 = hl.squeeze %c#0, %one : (tensor<*xf32>, tensor<1xi64>) -> tensor<*xf32>
  // CHECK: hl.flatten {{.*}} -> tensor<?x4xf32>
  %u = hl.unsqueeze %b, %one : (tensor<*xf32>, tensor<1xi64>) -> tensor<*xf32>
  %f = hl.flatten %u {axis = 1 : si64} : (tensor<*xf32>) -> tensor<*xf32>
  return %v, %i, %labels, %x0, %f, %c#3 : tensor<*xf32>, tensor<*xi64>, tensor<*xi64>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Tests that a Slice whose run-time bounds lie a constant apart, x[i : i+1]
// in a loop body, gets that static extent (the carried sum stays f32[1]);
// the same slice outside a loop keeps its open extent, which a bounded
// dynamic program derives at run time (clamped at the data's end).
// CHECK-LABEL: func @offset_slice
func.func @offset_slice(%n: tensor<i64>, %x: tensor<5xf32>, %y: tensor<1xf32>, %s: tensor<1xi64>) -> (tensor<1xf32>, tensor<?xf32>) {
  %axes = hl.constant dense<0> : tensor<1xi64>
  %one = hl.constant dense<1> : tensor<i64>
  %steps = hl.constant dense<1> : tensor<1xi64>
  // CHECK: hl.loop
  %r = hl.loop max %n init(%y) : (tensor<i64>, tensor<1xf32>) -> tensor<1xf32> {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %acc: tensor<1xf32>):
    %end = hl.add %i, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
    %start1 = hl.unsqueeze %i, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
    %end1 = hl.unsqueeze %end, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
    // CHECK: hl.slice {{.*}} -> tensor<1xf32>
    %row = hl.slice %x, %start1, %end1, %axes, %steps : (tensor<5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
    // CHECK: hl.add {{.*}} -> tensor<1xf32>
    %next = hl.add %acc, %row : (tensor<1xf32>, tensor<?xf32>) -> tensor<?xf32>
    hl.yield %c, %next : tensor<i1>, tensor<?xf32>
  }
  %e = hl.add %s, %steps : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  // CHECK: hl.slice {{.*}} -> tensor<?xf32>
  %out = hl.slice %x, %s, %e, %axes, %steps : (tensor<5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  return %r, %out : tensor<1xf32>, tensor<?xf32>
}

// -----

// Tests the shapes of a dynamic batch through windows and pads: a reflect
// pad and a strided 1-d convolution keep the batch open and their other
// extents static (a VAD's STFT front end), and PyTorch's squeeze(x, 2)
// export, If(shape(x)[2] == 1), folds once the convolution's result is
// refined: the If goes and the squeezed type is the branch's. A pool over
// a dynamic spatial extent leaves that extent open.
// CHECK-LABEL: func @dynamic_batch_windows
func.func @dynamic_batch_windows(%x: tensor<?x576xf32>, %w: tensor<4x1x256xf32>, %p: tensor<2x3x?xf32>) -> (tensor<*xf32>, tensor<*xf32>) {
  %pads = hl.constant dense<[0, 0, 0, 64]> : tensor<4xi64>
  // CHECK: hl.pad {{.*}} -> tensor<?x640xf32>
  %padded = hl.pad %x, %pads {mode = "reflect"} : (tensor<?x576xf32>, tensor<4xi64>) -> tensor<?x?xf32>
  %one = hl.constant dense<1> : tensor<1xi64>
  %u = hl.unsqueeze %padded, %one : (tensor<?x?xf32>, tensor<1xi64>) -> tensor<?x1x?xf32>
  // CHECK: hl.conv {{.*}} -> tensor<?x4x1xf32>
  %c = hl.conv %u, %w {dilations = array<i64: 1>, kernel_shape = array<i64: 256>, pads = array<i64: 0, 0>, strides = array<i64: 512>} : (tensor<?x1x?xf32>, tensor<4x1x256xf32>) -> tensor<*xf32>
  %shape = hl.shape %c : (tensor<*xf32>) -> tensor<?xi64>
  %last = hl.constant dense<-1> : tensor<1xi64>
  %extent = hl.gather %shape, %last : (tensor<?xi64>, tensor<1xi64>) -> tensor<1xi64>
  %test = hl.equal %extent, %one : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi1>
  // CHECK-NOT: hl.if
  // CHECK: %[[S:.*]] = hl.squeeze {{.*}} -> tensor<?x4xf32>
  %r = hl.if %test : (tensor<1xi1>) -> tensor<*xf32> {
    %two = hl.constant dense<2> : tensor<1xi64>
    %s = hl.squeeze %c, %two : (tensor<*xf32>, tensor<1xi64>) -> tensor<*xf32>
    hl.yield %s : tensor<*xf32>
  } else {
    hl.yield %c : tensor<*xf32>
  }
  // CHECK: hl.max_pool {{.*}} -> tensor<2x3x?xf32>
  %m = hl.max_pool %p {kernel_shape = array<i64: 2>, strides = array<i64: 2>} : (tensor<2x3x?xf32>) -> tensor<*xf32>
  // CHECK: return %[[S]]
  return %r, %m : tensor<*xf32>, tensor<*xf32>
}

// -----

// Tests a Reshape whose target restates its input's extents at a dynamic
// batch: PyTorch's x.view(x.shape[0], 1, -1) keeps the batch open and
// infers -1 = 1536; PaddlePaddle's [0, 1, cast(shape(y))[3:4], 120] reads
// a static extent of another tensor through i32 casts and a slice. A -1
// beside an extent of another tensor that is dynamic stays open.
// CHECK-LABEL: func @reshape_own_extents
func.func @reshape_own_extents(%x: tensor<?x1536xf32>, %y: tensor<?x120x1x40xf32>, %z: tensor<?x40x120xf32>, %w: tensor<?x8xf32>) -> (tensor<*xf32>, tensor<*xf32>, tensor<*xf32>) {
  %zero = hl.constant dense<0> : tensor<i64>
  %axes = hl.constant dense<0> : tensor<1xi64>
  %one = hl.constant dense<1> : tensor<1xi64>
  %rest = hl.constant dense<-1> : tensor<1xi64>
  %shape = hl.shape %x : (tensor<?x1536xf32>) -> tensor<2xi64>
  %batch = hl.gather %shape, %zero : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  %b1 = hl.unsqueeze %batch, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %target = hl.concat %b1, %one, %rest {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  // CHECK: hl.reshape {{.*}} -> tensor<?x1x1536xf32>
  %a = hl.reshape %x, %target : (tensor<?x1536xf32>, tensor<3xi64>) -> tensor<*xf32>
  %ys = hl.shape %y : (tensor<?x120x1x40xf32>) -> tensor<4xi64>
  %y32 = hl.cast %ys : (tensor<4xi64>) -> tensor<4xi32>
  %three = hl.constant dense<3> : tensor<1xi64>
  %four = hl.constant dense<4> : tensor<1xi64>
  %w32 = hl.slice %y32, %three, %four, %axes, %one : (tensor<4xi32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<1xi32>
  %w64 = hl.cast %w32 : (tensor<1xi32>) -> tensor<1xi64>
  %c120 = hl.constant dense<120> : tensor<1xi64>
  %zero1 = hl.constant dense<0> : tensor<1xi64>
  %target2 = hl.concat %zero1, %one, %w64, %c120 {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<4xi64>
  // CHECK: hl.reshape {{.*}} -> tensor<?x1x40x120xf32>
  %b = hl.reshape %z, %target2 : (tensor<?x40x120xf32>, tensor<4xi64>) -> tensor<*xf32>
  %zs = hl.shape %z : (tensor<?x40x120xf32>) -> tensor<3xi64>
  %other = hl.gather %zs, %zero : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %o1 = hl.unsqueeze %other, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %target3 = hl.concat %o1, %rest {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  // CHECK: hl.reshape {{.*}} -> tensor<?x?xf32>
  %c = hl.reshape %w, %target3 : (tensor<?x8xf32>, tensor<2xi64>) -> tensor<*xf32>
  return %a, %b, %c : tensor<*xf32>, tensor<*xf32>, tensor<*xf32>
}

// -----

// Tests that target extents whose product overflows are left open rather
// than multiplied (a malformed model): the Reshape keeps only its rank.
// CHECK-LABEL: func @reshape_own_extents_overflow
// CHECK: hl.reshape {{.*}} -> tensor<?x?x?x?xf32>
func.func @reshape_own_extents_overflow(%x: tensor<?x8xf32>) -> tensor<*xf32> {
  %zero = hl.constant dense<0> : tensor<i64>
  %axes = hl.constant dense<0> : tensor<1xi64>
  %shape = hl.shape %x : (tensor<?x8xf32>) -> tensor<2xi64>
  %batch = hl.gather %shape, %zero : (tensor<2xi64>, tensor<i64>) -> tensor<i64>
  %b1 = hl.unsqueeze %batch, %axes : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %big = hl.constant dense<[4611686018427387904, 4, -1]> : tensor<3xi64>
  %t = hl.concat %b1, %big {axis = 0 : i64} : (tensor<1xi64>, tensor<3xi64>) -> tensor<4xi64>
  %r = hl.reshape %x, %t : (tensor<?x8xf32>, tensor<4xi64>) -> tensor<*xf32>
  return %r : tensor<*xf32>
}

// -----

// Tests that arange(p, p + s) over a run-time p (a KV cache's length) and a
// constant s (one new token) has s elements, through the int64 casts
// exporters insert; a limit that is not the start plus a constant stays
// dynamic.
// CHECK-LABEL: func @range_after_runtime_start
func.func @range_after_runtime_start(%p: tensor<i64>, %q: tensor<i64>) -> (tensor<?xi64>, tensor<?xi64>) {
  // CHECK: hl.range {{.*}} -> tensor<1xi64>
  // CHECK: hl.range {{.*}} -> tensor<?xi64>
  %one = hl.constant dense<1> : tensor<i64>
  %limit = hl.add %p, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %start = hl.cast %p : (tensor<i64>) -> tensor<i64>
  %end = hl.cast %limit : (tensor<i64>) -> tensor<i64>
  %r = hl.range %start, %end, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  %other = hl.add %q, %one : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %s = hl.range %p, %other, %one : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<?xi64>
  return %r, %s : tensor<?xi64>, tensor<?xi64>
}
