//===- Passes.td - conversion passes between Strata dialects -*- tablegen -*-===//
#ifndef STRATA_CONVERSION_PASSES
#define STRATA_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertHLToEdge : Pass<"convert-hl-to-edge", "::mlir::ModuleOp"> {
  let summary = "Legalize hl (ONNX semantics) to the edge core op set";
  let description = [{
    Decomposes every `hl` op into `edge` ops with a partial dialect
    conversion in which `hl` is illegal: defaults and `auto_pad` become
    explicit attributes, broadcasting becomes rank-explicit (operands are
    reshaped to the result's rank), Gemm becomes transposes + matmul + add,
    1-d convolutions and pools are lifted to 2-d, and global average pooling
    becomes `reduce_mean` over the spatial axes.

    Precondition: every tensor has a static shape (fix dynamic inputs at
    import). Any `hl` op that cannot be legalized is reported with its
    location (the ONNX node name) and the pass fails.

    Before:
    ```mlir
    %y = hl.gemm %a, %b, %c {transB = 1 : i64}
        : (tensor<1x64xf32>, tensor<10x64xf32>, tensor<10xf32>) -> tensor<1x10xf32>
    ```
    After:
    ```mlir
    %t = edge.transpose %b {permutation = array<i64: 1, 0>} : (tensor<10x64xf32>) -> tensor<64x10xf32>
    %m = edge.matmul %a, %t : (tensor<1x64xf32>, tensor<64x10xf32>) -> tensor<1x10xf32>
    %r = edge.reshape %c : (tensor<10xf32>) -> tensor<1x10xf32>
    %y = edge.add %m, %r : (tensor<1x10xf32>, tensor<1x10xf32>) -> tensor<1x10xf32>
    ```
  }];
  let dependentDialects = ["::strata::edge::EdgeDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def ConvertEdgeToExec : Pass<"convert-edge-to-exec", "::mlir::ModuleOp"> {
  let summary = "Lower edge functions to an exec program in destination-passing form";
  let description = [{
    Turns the module's `func.func`s on `edge` tensors into one
    `exec.program` with one `exec.method` per function. Arguments become
    `exec.input` buffers, each op implementing `edge::KernelOpInterface`
    becomes an `exec.alloc` for its result and an `exec.kernel` call,
    `edge.constant`s become program constants read through
    `exec.constant_ref`, and returned buffers that are inputs, constants or
    repeated are copied into fresh buffers with `exec.move`. Buffers are left
    unplaced for `strata-exec-plan-memory`.

    Before:
    ```mlir
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %y = edge.relu %x : tensor<4xf32>
      return %y : tensor<4xf32>
    }
    ```
    After:
    ```mlir
    exec.program @program {
      exec.method @main : (memref<4xf32>) -> memref<4xf32> {
        %x = exec.input 0 : memref<4xf32>
        %y = exec.alloc : memref<4xf32>
        exec.kernel "relu" ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
        exec.return %y : memref<4xf32>
      }
    }
    ```
  }];
  let options = [
    Option<"programName", "program-name", "std::string", /*default=*/"\"program\"",
           "Symbol name of the emitted exec.program">,
  ];
  // Dynamic extents: reified as tensor.dim and affine.apply, resolved to
  // the buffers' extents.
  let dependentDialects = ["::strata::exec::ExecDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::tensor::TensorDialect"];
}

#endif // STRATA_CONVERSION_PASSES
