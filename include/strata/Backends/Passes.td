//===- Passes.td - backend pattern passes ------------------*- tablegen -*-===//
#ifndef STRATA_BACKENDS_PASSES
#define STRATA_BACKENDS_PASSES

include "mlir/Pass/PassBase.td"

def ApplyBackendPatterns : Pass<"strata-apply-backend-patterns",
                                 "mlir::ModuleOp"> {
  let summary = "Apply a backend's conversion, fusion and quantized patterns";
  let description = [{
    Runs the pattern engine on an hl module with the pattern lists of one
    backend (from the backend registry: built-ins and plugins): conversions
    repeated to a fixed point, then fusions in one pass (longest first, the
    first match claims its ops; each group becomes an `hl.fused` op), then,
    with `quantize`, the smooth and quantized patterns (which record QDQ
    points on the fused groups). `patterns` restricts the run to the named
    patterns (for testing one at a time). The plan (every match, with its
    apply flag) and the report (applied and skipped counts per pattern,
    each skip's reason) can be written as JSON, and a plan read back with
    some matches switched off.

    Precondition: hl ops with static shapes (run
    `--strata-hl-refine-shapes` first). Postcondition: hl ops, some grouped
    in `hl.fused`; numerically the same program.

    Before (`backend=tensorrt`):
    ```mlir
    %c = hl.conv %x, %w : ...
    %n = hl.batch_normalization %c, %s, %b, %m, %v : ...
    %r = hl.relu %n : tensor<1x4x6x6xf32>
    ```
    After:
    ```mlir
    %r = hl.fused "conv_bn_relu" (%x, %w, %s, %b, %m, %v) : ... {
    ^bb0(...):
      ...the three ops...
      hl.yield %2 : tensor<1x4x6x6xf32>
    }
    ```
  }];
  let options = [
    Option<"backend", "backend", "std::string", [{"tensorrt"}],
           "Backend whose patterns run">,
    ListOption<"patterns", "patterns", "std::string",
               "Only these patterns (by name); all when empty">,
    Option<"quantize", "quantize", "bool", "false",
           "Also run the smooth and quantized patterns">,
    Option<"planOut", "plan-out", "std::string", [{""}],
           "Write the plan (every match) as JSON to this file">,
    Option<"planIn", "plan-in", "std::string", [{""}],
           "Take the apply flags from this plan JSON">,
    Option<"reportOut", "report-out", "std::string", [{""}],
           "Write the report as JSON to this file ('-' for stdout)">,
  ];
  let dependentDialects = ["strata::hl::HLDialect"];
}

#endif // STRATA_BACKENDS_PASSES
