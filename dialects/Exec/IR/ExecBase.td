//===- ExecBase.td - exec dialect definition -------------*- tablegen -*-===//
#ifndef STRATA_EXEC_BASE
#define STRATA_EXEC_BASE

include "mlir/IR/OpBase.td"

def Exec_Dialect : Dialect {
  let name = "exec";
  let cppNamespace = "::strata::exec";
  let summary = "What the Strata runtime executes; maps 1:1 to a program buffer";
  let description = [{
    `exec` is the last IR before emission. A `exec.program` holds constants
    (whose data goes to aligned segments), delegates (a backend's processed
    blob) and methods. A method is one straight-line instruction list in
    destination-passing form: buffers are `memref`s made by `exec.input`,
    `exec.alloc` or `exec.constant_ref`; instructions (`exec.kernel`,
    `exec.delegate_call`, `exec.move`) read and write them and produce no
    values. After memory planning every input and allocation carries its
    placement (`memory_id`, `offset`) and the method its `arena_sizes`.

    ```mlir
    exec.program @model {
      exec.constant @w dense<1.0> : tensor<4xf32>
      exec.method @forward : (memref<4xf32>) -> memref<4xf32> {
        %x = exec.input 0 : memref<4xf32>
        %w = exec.constant_ref @w : memref<4xf32>
        %y = exec.alloc : memref<4xf32>
        exec.kernel "add" ins(%x, %w : memref<4xf32>, memref<4xf32>)
                          outs(%y : memref<4xf32>)
        exec.return %y : memref<4xf32>
      }
    }
    ```
  }];
}

class Exec_Op<string mnemonic, list<Trait> traits = []>
    : Op<Exec_Dialect, mnemonic, traits>;

/// A buffer: a ranked memref (quantized values travel as their storage
/// type, with scales as kernel parameters). A dynamic dimension's extent is
/// an `index` value of the method (its op's `dynamic_sizes`), with a bound
/// that memory planning derives (docs/dynamic-shapes.md).
def Exec_Buffer : MemRefOf<[AnyType]>;

#endif // STRATA_EXEC_BASE
