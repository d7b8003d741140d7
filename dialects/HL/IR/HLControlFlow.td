//===- HLControlFlow.td - hl If, Loop and Scan -----------*- tablegen -*-===//
//
// ONNX's control-flow operators as region ops. Bodies are the imported
// sub-graphs; they may use values of the enclosing regions (ONNX outer-scope
// references) and end with hl.yield.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_HL_CONTROLFLOW
#define STRATA_HL_CONTROLFLOW

include "HL/IR/HLBase.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"

def HL_YieldOp : HL_Op<"yield", [Pure, ReturnLike, Terminator,
    ParentOneOf<["IfOp", "LoopOp", "ScanOp", "FusedOp"]>]> {
  let summary = "Ends an hl region with its values (ONNX sub-graph outputs)";
  let description = [{
    ```mlir
    hl.yield %a, %b : tensor<f32>, tensor<2xf32>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def HL_IfOp : HL_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "Run one of two sub-graphs by a condition (ONNX If)";
  let description = [{
    Both branches yield one value per result, with the result's element
    type; shapes may differ between branches (the result type is then the
    more general one).

    ```mlir
    %r = hl.if %c : (tensor<i1>) -> tensor<?xf32> {
      hl.yield %a : tensor<5xf32>
    } else {
      hl.yield %b : tensor<3xf32>
    }
    ```
  }];
  let arguments = (ins TensorOf<[I1]>:$condition);
  let results = (outs Variadic<HL_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$then_branch,
                        SizedRegion<1>:$else_branch);
  let assemblyFormat = [{
    $condition attr-dict `:` functional-type(operands, results)
    $then_branch `else` $else_branch
  }];
  let hasVerifier = 1;
}

def HL_LoopOp : HL_Op<"loop", [RecursiveMemoryEffects,
    AttrSizedOperandSegments]> {
  let summary = "Generic loop over a sub-graph (ONNX Loop)";
  let description = [{
    Runs while the iteration count is below `max_trip_count` (if given) and
    the condition holds (if given). The body's arguments are the iteration
    number (`tensor<i64>`), the condition (`tensor<i1>`) and the loop-carried
    values; it yields the next condition, the next carried values, then one
    value per scan output. Results: the final carried values, then the scan
    outputs stacked along a new leading dimension.

    ```mlir
    %sum = hl.loop max %n cond %c init(%x) : (tensor<i64>, tensor<i1>, tensor<f32>) -> tensor<f32> {
    ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %acc: tensor<f32>):
      hl.yield %cond, %acc : tensor<i1>, tensor<f32>
    }
    ```
  }];
  let arguments = (ins Optional<0DTensorOf<[I64]>>:$max_trip_count,
                       Optional<TensorOf<[I1]>>:$condition,
                       Variadic<HL_Tensor>:$initial);
  let results = (outs Variadic<HL_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`max` $max_trip_count^)? (`cond` $condition^)? `init` `(` $initial `)`
    attr-dict `:` functional-type(operands, results) $body
  }];
  let hasVerifier = 1;
}

def HL_ScanOp : HL_Op<"scan", [RecursiveMemoryEffects]> {
  let summary = "Scan a sub-graph over tensor slices (ONNX Scan, opset 9 form)";
  let description = [{
    Operands: the initial states, then `num_scan_inputs` scanned tensors.
    The body takes the states and one slice of each scanned input and yields
    the next states, then one slice per scan output. Results: the final
    states, then the scan outputs.

    ```mlir
    %s, %y = hl.scan %init, %xs {num_scan_inputs = 1 : i64}
        : (tensor<2xf32>, tensor<3x2xf32>) -> (tensor<2xf32>, tensor<3x2xf32>) {
    ^bb0(%state: tensor<2xf32>, %x: tensor<2xf32>):
      hl.yield %state, %x : tensor<2xf32>, tensor<2xf32>
    }
    ```
  }];
  let arguments = (ins Variadic<HL_Tensor>:$inputs, I64Attr:$num_scan_inputs,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_input_axes,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_input_directions,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_output_axes,
                       OptionalAttr<DenseI64ArrayAttr>:$scan_output_directions);
  let results = (outs Variadic<HL_Tensor>:$outputs);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type(operands, results) $body
  }];
  let hasVerifier = 1;
}

#endif // STRATA_HL_CONTROLFLOW
