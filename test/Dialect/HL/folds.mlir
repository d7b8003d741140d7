// RUN: strata-opt %s -split-input-file --canonicalize | FileCheck %s

// Tests that hl.shape of a statically shaped operand folds to its extents,
// honouring start/end (ONNX Shape-15: end -1 drops the last extent).
// CHECK-LABEL: func @shape_static
func.func @shape_static(%x: tensor<2x3x4xf32>) -> (tensor<3xi64>, tensor<2xi64>) {
  // CHECK-DAG: %[[ALL:.*]] = hl.constant dense<[2, 3, 4]> : tensor<3xi64>
  // CHECK-DAG: %[[HEAD:.*]] = hl.constant dense<[2, 3]> : tensor<2xi64>
  // CHECK-NOT: hl.shape
  // CHECK: return %[[ALL]], %[[HEAD]]
  %0 = hl.shape %x : (tensor<2x3x4xf32>) -> tensor<3xi64>
  %1 = hl.shape %x {end = -1 : i64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  return %0, %1 : tensor<3xi64>, tensor<2xi64>
}

// -----

// Tests that hl.shape keeps a dynamic extent it cannot know.
// CHECK-LABEL: func @shape_dynamic
func.func @shape_dynamic(%x: tensor<?x3xf32>) -> tensor<2xi64> {
  // CHECK: hl.shape
  %0 = hl.shape %x : (tensor<?x3xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Tests that hl.size of a static operand folds to its element count (2*3*4).
// CHECK-LABEL: func @size_static
func.func @size_static(%x: tensor<2x3x4xf32>) -> tensor<i64> {
  // CHECK: %[[N:.*]] = hl.constant dense<24> : tensor<i64>
  // CHECK: return %[[N]]
  %0 = hl.size %x : (tensor<2x3x4xf32>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Tests that gather (negative index counts from the end), unsqueeze and
// concat of constants fold: [2, 3, 4][-1] = 4, then [4] ++ [-1].
// CHECK-LABEL: func @gather_unsqueeze_concat
func.func @gather_unsqueeze_concat() -> tensor<2xi64> {
  // CHECK: %[[C:.*]] = hl.constant dense<[4, -1]> : tensor<2xi64>
  // CHECK-NOT: hl.gather
  // CHECK-NOT: hl.concat
  // CHECK: return %[[C]]
  %s = hl.constant dense<[2, 3, 4]> : tensor<3xi64>
  %i = hl.constant dense<-1> : tensor<i64>
  %g = hl.gather %s, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %a = hl.constant dense<0> : tensor<1xi64>
  %u = hl.unsqueeze %g, %a : (tensor<i64>, tensor<1xi64>) -> tensor<1xi64>
  %m = hl.constant dense<-1> : tensor<1xi64>
  %c = hl.concat %u, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %c : tensor<2xi64>
}

// -----

// Tests that a slice of a constant folds: [10, 20, 30, 40][1:3] = [20, 30],
// and that squeeze of a constant folds to the reshaped data.
// CHECK-LABEL: func @slice_squeeze
func.func @slice_squeeze() -> (tensor<2xi64>, tensor<i64>) {
  // CHECK-DAG: %[[S:.*]] = hl.constant dense<[20, 30]> : tensor<2xi64>
  // CHECK-DAG: %[[Q:.*]] = hl.constant dense<7> : tensor<i64>
  // CHECK: return %[[S]], %[[Q]]
  %d = hl.constant dense<[10, 20, 30, 40]> : tensor<4xi64>
  %b = hl.constant dense<1> : tensor<1xi64>
  %e = hl.constant dense<3> : tensor<1xi64>
  %ax = hl.constant dense<0> : tensor<1xi64>
  %st = hl.constant dense<1> : tensor<1xi64>
  %s = hl.slice %d, %b, %e, %ax, %st : (tensor<4xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %one = hl.constant dense<7> : tensor<1xi64>
  %q = hl.squeeze %one, %ax : (tensor<1xi64>, tensor<1xi64>) -> tensor<i64>
  return %s, %q : tensor<2xi64>, tensor<i64>
}

// -----

// Tests that integer shape arithmetic folds: neg([-1]) = [1],
// [6] + [2] = [8], [6] - [2] = [4], [6] * [2] = [12], [6] / [2] = [3].
// CHECK-LABEL: func @int_arithmetic
func.func @int_arithmetic() -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) {
  // CHECK-DAG: %[[NEG:.*]] = hl.constant dense<1> : tensor<1xi64>
  // CHECK-DAG: %[[ADD:.*]] = hl.constant dense<8> : tensor<1xi64>
  // CHECK-DAG: %[[SUB:.*]] = hl.constant dense<4> : tensor<1xi64>
  // CHECK-DAG: %[[MUL:.*]] = hl.constant dense<12> : tensor<1xi64>
  // CHECK-DAG: %[[DIV:.*]] = hl.constant dense<3> : tensor<1xi64>
  // CHECK: return %[[NEG]], %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]]
  %m1 = hl.constant dense<-1> : tensor<1xi64>
  %a = hl.constant dense<6> : tensor<1xi64>
  %b = hl.constant dense<2> : tensor<1xi64>
  %0 = hl.neg %m1 : tensor<1xi64>
  %1 = hl.add %a, %b : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %2 = hl.sub %a, %b : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %3 = hl.mul %a, %b : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  %4 = hl.div %a, %b : (tensor<1xi64>, tensor<1xi64>) -> tensor<1xi64>
  return %0, %1, %2, %3, %4 : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>
}

// -----

// Tests that neg of a float constant folds (exact: a sign flip;
// arithmetic-folds.mlir has the other float folds).
// CHECK-LABEL: func @neg_float
func.func @neg_float() -> tensor<1xf32> {
  // CHECK: %[[N:.*]] = hl.constant dense<-1.500000e+00> : tensor<1xf32>
  // CHECK-NOT: hl.neg
  // CHECK: return %[[N]]
  %a = hl.constant dense<1.5> : tensor<1xf32>
  %0 = hl.neg %a : tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Tests that constant_of_shape with a static result folds to a splat of its
// fill value.
// CHECK-LABEL: func @constant_of_shape
func.func @constant_of_shape() -> tensor<2x3xi64> {
  // CHECK: %[[C:.*]] = hl.constant dense<1> : tensor<2x3xi64>
  // CHECK-NOT: hl.constant_of_shape
  // CHECK: return %[[C]]
  %s = hl.constant dense<[2, 3]> : tensor<2xi64>
  %0 = hl.constant_of_shape %s {value = dense<1> : tensor<1xi64>} : (tensor<2xi64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// Tests that a reshape of a constant folds to the reshaped data, and that a
// reshape to the operand's own static type folds to the operand.
// CHECK-LABEL: func @reshape
func.func @reshape(%x: tensor<2x3xf32>) -> (tensor<2x2xi64>, tensor<2x3xf32>) {
  // CHECK-DAG: %[[C:.*]] = hl.constant dense<{{\[}}[1, 2], [3, 4]]> : tensor<2x2xi64>
  // CHECK-NOT: hl.reshape
  // CHECK: return %[[C]], %arg0
  %d = hl.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %s = hl.constant dense<[2, 2]> : tensor<2xi64>
  %0 = hl.reshape %d, %s : (tensor<4xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  %t = hl.constant dense<[2, 3]> : tensor<2xi64>
  %1 = hl.reshape %x, %t : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x2xi64>, tensor<2x3xf32>
}

// -----

// Tests that range folds on constant operands (ONNX Range examples):
// Range(3, 9, 3) = [3, 6] and Range(10, 4, -3) = [10, 7] (i32), and the
// float form Range(1, 5, 2) = [1, 3].
// CHECK-LABEL: func @range
func.func @range() -> (tensor<2xi32>, tensor<2xf32>) {
  // CHECK-DAG: %[[I:.*]] = hl.constant dense<[10, 7]> : tensor<2xi32>
  // CHECK-DAG: %[[F:.*]] = hl.constant dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
  // CHECK-NOT: hl.range
  // CHECK: return %[[I]], %[[F]]
  %s = hl.constant dense<10> : tensor<i32>
  %l = hl.constant dense<4> : tensor<i32>
  %d = hl.constant dense<-3> : tensor<i32>
  %0 = hl.range %s, %l, %d : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2xi32>
  %fs = hl.constant dense<1.0> : tensor<f32>
  %fl = hl.constant dense<5.0> : tensor<f32>
  %fd = hl.constant dense<2.0> : tensor<f32>
  %1 = hl.range %fs, %fl, %fd : (tensor<f32>, tensor<f32>, tensor<f32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xi32>, tensor<2xf32>
}

// -----

// Tests that range does not fold when its static result type disagrees with
// the element count of its operands (Range(0, 3, 1) has 3 elements, not 2).
// CHECK-LABEL: func @range_count_mismatch
func.func @range_count_mismatch() -> tensor<2xi64> {
  // CHECK: hl.range
  %s = hl.constant dense<0> : tensor<i64>
  %l = hl.constant dense<3> : tensor<i64>
  %d = hl.constant dense<1> : tensor<i64>
  %0 = hl.range %s, %l, %d : (tensor<i64>, tensor<i64>, tensor<i64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Tests that window generators of a constant size fold (ONNX formulas,
// N = size periodic, size - 1 symmetric):
// Hann(4):       0.5 - 0.5 cos(2 pi n / 4)            = [0, 0.5, 1, 0.5]
// Hamming(2):    25/46 - 21/46 cos(pi n)              = [4/46, 1]
// Blackman(3, symmetric): 0.42 - 0.5 cos(pi n) + 0.08 cos(2 pi n) at n = 1
//                = 0.42 + 0.5 + 0.08 = 1 (the ends are 0 up to rounding).
// CHECK-LABEL: func @windows
func.func @windows() -> (tensor<4xf32>, tensor<2xf32>, tensor<3xf32>) {
  // CHECK-DAG: %[[HANN:.*]] = hl.constant dense<[0.000000e+00, 5.000000e-01, 1.000000e+00, 5.000000e-01]> : tensor<4xf32>
  // CHECK-DAG: %[[HAMMING:.*]] = hl.constant dense<[{{(0\.08695652|8\.695652)[0-9]*(E-2)?}}, 1.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: %[[BLACKMAN:.*]] = hl.constant dense<[{{[^,]*}}, 1.000000e+00, {{[^,]*}}]> : tensor<3xf32>
  // CHECK-NOT: _window
  // CHECK: return %[[HANN]], %[[HAMMING]], %[[BLACKMAN]]
  %c4 = hl.constant dense<4> : tensor<i64>
  %c2 = hl.constant dense<2> : tensor<i32>
  %c3 = hl.constant dense<3> : tensor<i64>
  %0 = hl.hann_window %c4 : (tensor<i64>) -> tensor<4xf32>
  %1 = hl.hamming_window %c2 : (tensor<i32>) -> tensor<2xf32>
  %2 = hl.blackman_window %c3 {periodic = 0 : i64} : (tensor<i64>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<2xf32>, tensor<3xf32>
}

// -----

// Tests that a window does not fold when its constant size disagrees with
// its static result.
// CHECK-LABEL: func @window_size_mismatch
func.func @window_size_mismatch() -> tensor<4xf32> {
  // CHECK: hl.hann_window
  %c5 = hl.constant dense<5> : tensor<i64>
  %0 = hl.hann_window %c5 : (tensor<i64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that PyTorch's expand(n, -1, -1) shape arithmetic folds: Equal and
// Where over constant shapes ([2, -1, -1] == -1 is [false, true, true];
// where picks 1 there and the shape's own entry elsewhere).
// CHECK-LABEL: func @expand_shape
func.func @expand_shape() -> (tensor<3xi1>, tensor<3xi64>) {
  // CHECK-DAG: %[[EQ:.*]] = hl.constant dense<[false, true, true]> : tensor<3xi1>
  // CHECK-DAG: %[[SHAPE:.*]] = hl.constant dense<[2, 1, 1]> : tensor<3xi64>
  // CHECK-NOT: hl.equal
  // CHECK-NOT: hl.where
  // CHECK: return %[[EQ]], %[[SHAPE]]
  %shape = hl.constant dense<[2, -1, -1]> : tensor<3xi64>
  %minus = hl.constant dense<-1> : tensor<i64>
  %ones = hl.constant dense<1> : tensor<3xi64>
  %eq = hl.equal %shape, %minus : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %sel = hl.where %eq, %ones, %shape : (tensor<3xi1>, tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  return %eq, %sel : tensor<3xi1>, tensor<3xi64>
}

// -----

// Tests that Where over a constant condition and float constants folds, and
// that Equal and Where on a run-time operand do not.
// CHECK-LABEL: func @where_partial
func.func @where_partial(%x: tensor<2xi64>) -> (tensor<2xf32>, tensor<2xi1>) {
  // CHECK-DAG: %[[W:.*]] = hl.constant dense<[2.500000e+00, -1.000000e+00]> : tensor<2xf32>
  // CHECK-DAG: hl.equal %{{.*}}, %{{.*}}
  // CHECK: return %[[W]]
  %c = hl.constant dense<[true, false]> : tensor<2xi1>
  %a = hl.constant dense<2.5> : tensor<2xf32>
  %b = hl.constant dense<[7.0, -1.0]> : tensor<2xf32>
  %w = hl.where %c, %a, %b : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %k = hl.constant dense<[1, 2]> : tensor<2xi64>
  %e = hl.equal %x, %k : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi1>
  return %w, %e : tensor<2xf32>, tensor<2xi1>
}

// -----

// Tests PyTorch's F.pad arithmetic on constants: Mod with the divisor's sign
// (-7 mod 3 is 2, 7 mod -3 is -2; fmod = 1 keeps the dividend's: -1), then
// the pad list [k, 2] reversed along axis 0 by a step -1 Slice and
// transposed: [[0, 1], [2, 3], [4, 5]] -> [[4, 5], [2, 3], [0, 1]] ->
// [[4, 2, 0], [5, 3, 1]].
// CHECK-LABEL: func @pad_arithmetic
func.func @pad_arithmetic() -> (tensor<3xi64>, tensor<i64>, tensor<2x3xi64>) {
  // CHECK-DAG: %[[MOD:.*]] = hl.constant dense<[2, -2, 0]> : tensor<3xi64>
  // CHECK-DAG: %[[FMOD:.*]] = hl.constant dense<-1> : tensor<i64>
  // CHECK-DAG: %[[T:.*]] = hl.constant dense<{{\[}}[4, 2, 0], [5, 3, 1]]> : tensor<2x3xi64>
  // CHECK-NOT: hl.mod
  // CHECK-NOT: hl.slice
  // CHECK-NOT: hl.transpose
  // CHECK: return %[[MOD]], %[[FMOD]], %[[T]]
  %a = hl.constant dense<[-7, 7, 6]> : tensor<3xi64>
  %b = hl.constant dense<[3, -3, 3]> : tensor<3xi64>
  %mod = hl.mod %a, %b : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  %m7 = hl.constant dense<-7> : tensor<i64>
  %c3 = hl.constant dense<3> : tensor<i64>
  %fmod = hl.mod %m7, %c3 {fmod = 1 : i64} : (tensor<i64>, tensor<i64>) -> tensor<i64>
  %pads = hl.constant dense<[[0, 1], [2, 3], [4, 5]]> : tensor<3x2xi64>
  %start = hl.constant dense<-1> : tensor<1xi64>
  %end = hl.constant dense<-9223372036854775807> : tensor<1xi64>
  %axis = hl.constant dense<0> : tensor<1xi64>
  %step = hl.constant dense<-1> : tensor<1xi64>
  %rev = hl.slice %pads, %start, %end, %axis, %step : (tensor<3x2xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3x2xi64>
  %t = hl.transpose %rev {perm = array<i64: 1, 0>} : (tensor<3x2xi64>) -> tensor<2x3xi64>
  return %mod, %fmod, %t : tensor<3xi64>, tensor<i64>, tensor<2x3xi64>
}

// -----

// Tests Swin's shifted-window mask on constants: Expand broadcasts (the
// column [0, 1] to [[0, 0], [1, 1]]), Concat along the last axis builds
// the index pairs (0, 2) and (1, 0), and ScatterND writes 7 and 8 there in
// a zero 2x3 matrix.
// CHECK-LABEL: func @scatter_mask
func.func @scatter_mask() -> (tensor<2x2xi64>, tensor<2x3xf32>) {
  // CHECK-DAG: %[[E:.*]] = hl.constant dense<{{\[}}[0, 0], [1, 1]]> : tensor<2x2xi64>
  // CHECK-DAG: %[[S:.*]] = hl.constant dense<{{\[}}[0.000000e+00, 0.000000e+00, 7.000000e+00], [8.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x3xf32>
  // CHECK-NOT: hl.expand
  // CHECK-NOT: hl.concat
  // CHECK-NOT: hl.scatter_nd
  // CHECK: return %[[E]], %[[S]]
  %rows = hl.constant dense<[[0], [1]]> : tensor<2x1xi64>
  %shape = hl.constant dense<[2, 2]> : tensor<2xi64>
  %e = hl.expand %rows, %shape : (tensor<2x1xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  %r = hl.constant dense<[[0], [1]]> : tensor<2x1xi64>
  %c = hl.constant dense<[[2], [0]]> : tensor<2x1xi64>
  %pairs = hl.concat %r, %c {axis = -1 : i64} : (tensor<2x1xi64>, tensor<2x1xi64>) -> tensor<2x2xi64>
  %zero = hl.constant dense<0.0> : tensor<2x3xf32>
  %upd = hl.constant dense<[7.0, 8.0]> : tensor<2xf32>
  %s = hl.scatter_nd %zero, %pairs, %upd : (tensor<2x3xf32>, tensor<2x2xi64>, tensor<2xf32>) -> tensor<2x3xf32>
  return %e, %s : tensor<2x2xi64>, tensor<2x3xf32>
}

// -----

// Tests that a Pad of zeros is its input (PyTorch's AvgPool2d with
// count_include_pad writes one before the AveragePool) and that one
// non-zero pad keeps it.
// CHECK-LABEL: func @zero_pad
func.func @zero_pad(%x: tensor<1x2x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x5x4xf32>) {
  // CHECK: %[[P:.*]] = hl.pad %arg0
  // CHECK-NOT: hl.pad
  // CHECK: return %arg0, %[[P]]
  %z = hl.constant dense<0> : tensor<8xi64>
  %a = hl.pad %x, %z : (tensor<1x2x4x4xf32>, tensor<8xi64>) -> tensor<1x2x4x4xf32>
  %p = hl.constant dense<[0, 0, 0, 0, 0, 0, 1, 0]> : tensor<8xi64>
  %b = hl.pad %x, %p : (tensor<1x2x4x4xf32>, tensor<8xi64>) -> tensor<1x2x5x4xf32>
  return %a, %b : tensor<1x2x4x4xf32>, tensor<1x2x5x4xf32>
}

// -----

// Tests that shape tests fold: integer orderings (signed, and unsigned
// ui8 200 > 100 although its bits are negative as i8), not, and, or, xor.
// CHECK-LABEL: func @shape_tests
func.func @shape_tests() -> (tensor<2xi1>, tensor<i1>, tensor<i1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>) {
  // CHECK-DAG: %[[LT:.*]] = hl.constant dense<[true, false]> : tensor<2xi1>
  // CHECK-DAG: %[[T:.*]] = hl.constant dense<true> : tensor<i1>
  // CHECK-DAG: %[[F:.*]] = hl.constant dense<false> : tensor<i1>
  // CHECK-DAG: %[[AND:.*]] = hl.constant dense<[false, true]> : tensor<2xi1>
  // CHECK-DAG: %[[OR:.*]] = hl.constant dense<true> : tensor<2xi1>
  // CHECK-NOT: hl.less
  // CHECK-NOT: hl.greater
  // CHECK-NOT: hl.not
  // xor [true, false] is the same constant as less's.
  // CHECK: return %[[LT]], %[[T]], %[[F]], %[[AND]], %[[OR]], %[[LT]]
  %a = hl.constant dense<[1, 5]> : tensor<2xi64>
  %b = hl.constant dense<3> : tensor<i64>
  %lt = hl.less %a, %b : (tensor<2xi64>, tensor<i64>) -> tensor<2xi1>
  %u200 = hl.constant dense<200> : tensor<ui8>
  %u100 = hl.constant dense<100> : tensor<ui8>
  %gt = hl.greater %u200, %u100 : (tensor<ui8>, tensor<ui8>) -> tensor<i1>
  %ngt = hl.not %gt : tensor<i1>
  %p = hl.constant dense<[true, true]> : tensor<2xi1>
  %q = hl.constant dense<[false, true]> : tensor<2xi1>
  %and = hl.and %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %or = hl.or %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  %xor = hl.xor %p, %q : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  return %lt, %gt, %ngt, %and, %or, %xor : tensor<2xi1>, tensor<i1>, tensor<i1>, tensor<2xi1>, tensor<2xi1>, tensor<2xi1>
}

// -----

// Tests that a boolean casts to 1, not -1 (ONNX Cast; shape arithmetic
// such as max(a - b, 0) written as (a - b) * Cast(a > b)).
// CHECK-LABEL: func @cast_bool
// CHECK-DAG: %[[I:.*]] = hl.constant dense<[1, 0]> : tensor<2xi64>
// CHECK-DAG: %[[U:.*]] = hl.constant dense<[1, 0]> : tensor<2xui8>
// CHECK: return %[[I]], %[[U]]
func.func @cast_bool() -> (tensor<2xi64>, tensor<2xui8>) {
  %b = hl.constant dense<[true, false]> : tensor<2xi1>
  %i = hl.cast %b : (tensor<2xi1>) -> tensor<2xi64>
  %u = hl.cast %b : (tensor<2xi1>) -> tensor<2xui8>
  return %i, %u : tensor<2xi64>, tensor<2xui8>
}

// -----

// Tests that the bitwise ops fold on constants bit by bit (the values are
// Python's: -1 & 3855 = 3855, 5 & -256 = 0, -1 | 3855 = -1, 5 | -256 =
// -251, 0xAA ^ 0xFF = 0x55, and ~0x0F = 0xF0 on u8).
// CHECK-LABEL: func @bitwise
// CHECK-DAG: hl.constant dense<[3855, 0]> : tensor<2xi32>
// CHECK-DAG: hl.constant dense<[-1, -251]> : tensor<2xi32>
// CHECK-DAG: hl.constant dense<[85, 15]> : tensor<2xui8>
// CHECK-DAG: hl.constant dense<[240, 0]> : tensor<2xui8>
// CHECK-NOT: hl.bitwise
func.func @bitwise() -> (tensor<2xi32>, tensor<2xi32>, tensor<2xui8>, tensor<2xui8>) {
  %a = hl.constant dense<[-1, 5]> : tensor<2xi32>
  %b = hl.constant dense<[3855, -256]> : tensor<2xi32>
  %u = hl.constant dense<[170, 15]> : tensor<2xui8>
  %v = hl.constant dense<[255, 0]> : tensor<2xui8>
  %and = hl.bitwise_and %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %or = hl.bitwise_or %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  %xor = hl.bitwise_xor %u, %v : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %w = hl.constant dense<[15, 255]> : tensor<2xui8>
  %not = hl.bitwise_not %w : tensor<2xui8>
  return %and, %or, %xor, %not : tensor<2xi32>, tensor<2xi32>, tensor<2xui8>, tensor<2xui8>
}
