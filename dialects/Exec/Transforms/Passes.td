//===- Passes.td - exec transformation passes ------------*- tablegen -*-===//
#ifndef STRATA_EXEC_PASSES
#define STRATA_EXEC_PASSES

include "mlir/Pass/PassBase.td"

def PlanMemory : Pass<"strata-exec-plan-memory"> {
  let summary = "Assign every method buffer an offset in a memory arena";
  let description = [{
    Plans every `exec.method` nested under the op it runs on. For each, it
    computes the live interval of every `exec.input` and `exec.alloc` buffer
    over the method's instruction list (inputs live from the start, returned
    buffers to the end), then packs them into arena 0: buffers in decreasing
    size, each put in the smallest gap among the already placed buffers whose
    intervals overlap its own (greedy by size with best fit, as ExecuTorch's
    planner). A second order (by interval start) is tried as well and the
    smaller arena kept. Offsets are multiples of `alignment`.

    Precondition: buffers are unplaced. Postcondition: every buffer has
    `memory_id`/`offset`, the method has `arena_sizes`, and no two buffers
    with overlapping lifetimes overlap in memory. With `report`, a remark
    gives the arena size, the lower bound (the largest total of
    simultaneously live bytes) and the naive sum.

    Before:
    ```mlir
    %a = exec.alloc : memref<16xf32>
    %b = exec.alloc : memref<16xf32>
    ```
    After:
    ```mlir
    %a = exec.alloc {memory_id = 0 : i64, offset = 0 : i64} : memref<16xf32>
    %b = exec.alloc {memory_id = 0 : i64, offset = 64 : i64} : memref<16xf32>
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Byte alignment of every buffer offset (a power of two)">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with arena, lower-bound and naive byte counts">,
  ];
  let statistics = [
    Statistic<"arenaBytes", "arena-bytes", "Bytes of the planned arena">,
    Statistic<"lowerBoundBytes", "lower-bound-bytes",
              "Largest total of simultaneously live bytes">,
    Statistic<"naiveBytes", "naive-bytes", "Sum of all buffer sizes">,
  ];
}

def BindState : Pass<"strata-exec-bind-state", "ProgramOp"> {
  let summary = "Carries values from one call of a method to the next";
  let description = [{
    Each pair `IN=OUT` names a method input and a method output (by the
    model's names, `input_names` and `output_names`): the output of one
    call becomes the input of the next, as a program state (`exec.state`)
    that the runtime keeps between calls and methods share. The state's
    capacity is the larger of the two buffers' bounds in each dimension; a
    dynamic extent starts at its symbol's lower bound (0 for an empty KV
    cache), a static one at its extent, zeroed. `past-present` pairs every
    input `past_key_values.X` or `past.X` with the output `present.X`, as
    ONNX Runtime GenAI and Hugging Face Optimum export decoders. A method
    that has the output but not the input (a prefill exported without past
    inputs) starts the state: it takes the output after each call.

    A pair that names no method's input, or an input without its output,
    fails naming the names the methods have.

    ```mlir
    // strata-exec-bind-state{pairs=h=h_next}
    exec.state @h : memref<1x8xf32> initial [1, 8]
    exec.method @forward : (memref<1x8xf32>, memref<1x8xf32>) -> memref<1x8xf32>
        attributes {input_names = ["x", "h"], output_names = ["h_next"],
                    state_bindings = [[@h, 1, 0]]} { ... }
    ```
  }];
  let options = [
    ListOption<"pairs", "pairs", "std::string",
               "IN=OUT pairs, or past-present">,
  ];
}

def ReadTransposed : Pass<"strata-exec-read-transposed", "MethodOp"> {
  let summary = "Matmuls read a transposed rhs through its permutation";
  let description = [{
    An f32 `matmul` kernel whose rhs is a buffer only a `transpose` kernel
    writes and only that matmul reads reads the transpose's input instead,
    through `rhs_permutation` (the kernel's strided rhs): the transpose and
    its buffer go. Attention over a KV cache stored length-first reads its
    keys and values where they live, with no copy per token. The input must
    not be written between the two.

    ```mlir
    exec.kernel "transpose" ins(%k : memref<?x1x4x16xf32>) outs(%kt : memref<1x4x16x?xf32>)
        {params = {permutation = array<i64: 1, 2, 3, 0>}}
    exec.kernel "matmul" ins(%q, %kt : ...) outs(%s : ...)
    ```
    becomes
    ```mlir
    exec.kernel "matmul" ins(%q, %k : ...) outs(%s : ...)
        {params = {rhs_permutation = array<i64: 1, 2, 3, 0>}}
    ```
  }];
}

#endif // STRATA_EXEC_PASSES
