//===- ExecOps.td - exec operations ----------------------*- tablegen -*-===//
#ifndef STRATA_EXEC_OPS
#define STRATA_EXEC_OPS

include "Exec/IR/ExecBase.td"
include "Exec/IR/ExecInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/RegionKindInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ValueBoundsOpInterface.td"

//===----------------------------------------------------------------------===//
// Program structure
//===----------------------------------------------------------------------===//

def Exec_ProgramOp : Exec_Op<"program", [IsolatedFromAbove, NoTerminator,
    SingleBlock, NoRegionArguments, Symbol, SymbolTable]> {
  let summary = "A whole program: constants, delegates and methods";
  let description = [{
    The unit that becomes one `.strata` buffer. Its body holds only
    `exec.constant`, `exec.delegate` and `exec.method`, with at least one
    method.

    ```mlir
    exec.program @model {
      exec.method @forward : () -> () {
        exec.return
      }
    }
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Exec_ConstantOp : Exec_Op<"constant", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "Constant data of the program, emitted into a segment";
  let description = [{
    ```mlir
    exec.constant @conv1.weight dense<0.5> : tensor<8x1x3x3xf32>
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, ElementsAttr:$value);
  let assemblyFormat = "$sym_name attr-dict $value";
  let hasVerifier = 1;
}

def Exec_DelegateOp : Exec_Op<"delegate", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "A backend's processed subgraph (its opaque blob)";
  let description = [{
    `backend` names the runtime delegate that executes it; `compile_specs`
    are the key/value options it was compiled with; `processed` holds the
    bytes the backend's preprocess step returned; `named_data` the data it
    asked to store apart (pre-packed weights: key -> bytes, each emitted as
    its own aligned segment, equal contents once); `scratch_bytes` the
    working memory its calls get as their last output; `debug_handles`
    maps delegate-internal nodes to the ONNX nodes they came from.

    ```mlir
    exec.delegate @onednn_0 {backend = "onednn", compile_specs = {threads = "1"},
                             processed = dense<[1, 2]> : tensor<2xui8>}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$backend,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$compile_specs,
                       OptionalAttr<ElementsAttr>:$processed,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$named_data,
                       DefaultValuedAttr<I64Attr, "0">:$scratch_bytes,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$debug_handles);
  let assemblyFormat = "$sym_name attr-dict";
  let hasVerifier = 1;
}

def Exec_StateOp : Exec_Op<"state", [Symbol, HasParent<"ProgramOp">]> {
  let summary = "What the program's methods carry from one call to the next";
  let description = [{
    A buffer that outlives a call (a KV cache, a recurrent state): `type`
    is its capacity (its largest shape), `initial_shape` the shape it starts
    at, zeroed (a dynamic extent may start at 0). A method names the states
    it carries in `state_bindings`: before each call a state feeds an input,
    after it an output becomes the state.

    `permutation`, when present, is the layout the state is stored in:
    stored dimension `d` is the model's dimension `permutation[d]` (a KV
    cache growing along its third dimension stored with it first, so a call
    appends to it in place); `type` and `initial_shape` are in the stored
    layout, and the runtime's state API reads and writes the model's.

    ```mlir
    exec.state @past_key : memref<1x4x1024x16xf32> initial [1, 4, 0, 16]
    exec.state @past_value : memref<1024x1x4x16xf32> initial [0, 1, 4, 16]
        {permutation = array<i64: 2, 0, 1, 3>}
    ```
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, TypeAttrOf<MemRefOf<[AnyType]>>:$type,
                       DenseI64ArrayAttr:$initial_shape,
                       OptionalAttr<DenseI64ArrayAttr>:$permutation);
  let assemblyFormat = "$sym_name `:` $type `initial` $initial_shape attr-dict";
  let hasVerifier = 1;
}

def Exec_MethodOp : Exec_Op<"method", [IsolatedFromAbove, Symbol,
    HasParent<"ProgramOp">, NoRegionArguments]> {
  let summary = "An entry point: an instruction list with forward branches";
  let description = [{
    `function_type` gives the buffer types of the inputs and outputs;
    `exec.input` ops bind the inputs and `exec.return` the outputs.
    `arena_sizes` (bytes per memory id) is set by memory planning.
    `input_names` and `output_names`, when present, name each input and
    output (the model's names, which callers pass values by).
    `state_bindings`, when present, lists the program states the method
    carries, each `[@state, input, output]` (an index, or -1 for none): the
    state feeds that input before each call and takes that output after
    it.

    ```mlir
    exec.method @forward : (memref<4xf32>) -> memref<4xf32>
        attributes {arena_sizes = array<i64: 16>} {
      %x = exec.input 0 {memory_id = 0 : i64, offset = 0 : i64} : memref<4xf32>
      exec.return %x : memref<4xf32>
    }
    ```

    A run-time If makes more blocks: the instructions are the blocks' in
    order, each block ending in `exec.cond_branch` or `exec.branch` to a
    later block, the last in `exec.return`. Memory is planned over that
    order, so a buffer live on either path stays live across both.
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DenseI64ArrayAttr>:$arena_sizes,
                       OptionalAttr<StrArrayAttr>:$input_names,
                       OptionalAttr<StrArrayAttr>:$output_names,
                       OptionalAttr<ArrayAttr>:$state_bindings);
  let regions = (region MinSizedRegion<1>:$body);
  let assemblyFormat = [{
    $sym_name `:` $function_type attr-dict-with-keyword $body
  }];
  let extraClassDeclaration = [{
    ::mlir::LogicalResult verifyStateBindings();
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Buffers
//===----------------------------------------------------------------------===//

def Exec_InputOp : Exec_Op<"input", [HasParent<"MethodOp">,
    Exec_PlacedBufferOpInterface]> {
  let summary = "Binds the method input at `index` to a buffer";
  let description = [{
    A dynamic dimension's extent is an `exec.dim_symbol`: the caller's
    input binds the symbol.

    ```mlir
    %x = exec.input 0 : memref<1x1x8x8xf32>
    %batch = exec.dim_symbol "batch" bounds 1 to 8
    %y = exec.input 1 (%batch) : memref<?x16xf32>
    ```
  }];
  let arguments = (ins I64Attr:$index, Variadic<Index>:$dynamic_sizes,
                       OptionalAttr<I64Attr>:$memory_id,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs Exec_Buffer:$result);
  let assemblyFormat = [{
    $index (`(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)
  }];
  let builders = [
    // A static input.
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::IntegerAttr":$index,
                   "::mlir::IntegerAttr":$memory_id,
                   "::mlir::IntegerAttr":$offset), [{
      build($_builder, $_state, type, index, ::mlir::ValueRange(), memory_id,
            offset);
    }]>
  ];
  let hasVerifier = 1;
}

def Exec_AllocOp : Exec_Op<"alloc", [HasParent<"MethodOp">,
    Exec_PlacedBufferOpInterface]> {
  let summary = "A buffer in a memory arena";
  let description = [{
    Unplaced before memory planning; afterwards `memory_id` and `offset`
    say where it lives. A dynamic dimension's extent is an `index` value
    (an `exec.dim_symbol`, or `affine.apply`/`affine.min`/`affine.max` of
    them); the buffer is planned at its bound.

    ```mlir
    %t = exec.alloc {memory_id = 0 : i64, offset = 64 : i64} : memref<1x8x8x8xf32>
    %u = exec.alloc (%batch) : memref<?x16xf32>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes,
                       OptionalAttr<I64Attr>:$memory_id,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs Exec_Buffer:$result);
  let assemblyFormat = [{
    (`(` $dynamic_sizes^ `)`)? attr-dict `:` type($result)
  }];
  let builders = [
    // A static buffer.
    OpBuilder<(ins "::mlir::Type":$type, "::mlir::IntegerAttr":$memory_id,
                   "::mlir::IntegerAttr":$offset), [{
      build($_builder, $_state, type, ::mlir::ValueRange(), memory_id, offset);
    }]>
  ];
  let hasVerifier = 1;
}

def Exec_DimSymbolOp : Exec_Op<"dim_symbol", [Pure, HasParent<"MethodOp">,
    DeclareOpInterfaceMethods<ValueBoundsOpInterface,
        ["populateBoundsForIndexValue"]>]> {
  let summary = "A symbolic extent of the method, bound by its inputs";
  let description = [{
    An extent known at run time only, within `[min, max]`: the method's
    inputs whose dynamic dimensions name it bind it (and must agree), or,
    for an extent that depends on the data, the one `exec.kernel` that
    lists it in `binds`.
    Computed extents are `affine.apply`, `affine.min` and `affine.max` of
    symbols; memory is planned at their bounds (ValueBoundsOpInterface).

    ```mlir
    %batch = exec.dim_symbol "batch" bounds 1 to 8
    ```
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$min, I64Attr:$max);
  let results = (outs Index:$result);
  let extraClassDeclaration = [{
    /// The bounds as signed values (I64Attr's accessors are unsigned).
    int64_t getLowerBound() { return getMinAttr().getInt(); }
    int64_t getUpperBound() { return getMaxAttr().getInt(); }
  }];
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$name, "int64_t":$min,
                   "int64_t":$max), [{
      build($_builder, $_state, $_builder.getIndexType(),
            $_builder.getStringAttr(name), $_builder.getI64IntegerAttr(min),
            $_builder.getI64IntegerAttr(max));
    }]>
  ];
  let assemblyFormat = "$name `bounds` $min `to` $max attr-dict";
  let hasVerifier = 1;
}

def Exec_ConstantRefOp : Exec_Op<"constant_ref", [Pure,
    HasParent<"MethodOp">, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "A read-only view of a program constant";
  let description = [{
    ```mlir
    %w = exec.constant_ref @conv1.weight : memref<8x1x3x3xf32>
    ```
  }];
  let arguments = (ins FlatSymbolRefAttr:$constant);
  let results = (outs Exec_Buffer:$result);
  let assemblyFormat = "$constant attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

def Exec_KernelOp : Exec_Op<"kernel", [HasParent<"MethodOp">,
    AttrSizedOperandSegments]> {
  let summary = "Calls a kernel of the runtime's registry by name";
  let description = [{
    Reads `ins`, writes `outs`. `params` holds the kernel's parameters
    (strides, axes, quantization scales, ...).

    ```mlir
    exec.kernel "relu" ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
    ```

    A kernel whose results have an extent that depends on the data
    (NonZero's count) `binds` the `exec.dim_symbol` of that extent: its
    outputs are allocated at the symbol's bound, and the kernel reports the
    actual extent, which every later shape computation reads.

    ```mlir
    %n = exec.dim_symbol "NonZero_0.count" bounds 0 to 12
    %y = exec.alloc(%n) : memref<2x?xi64>
    exec.kernel "non_zero" ins(%x : memref<3x4xi1>) outs(%y : memref<2x?xi64>) binds[%n]
    ```
  }];
  let arguments = (ins StrAttr:$kernel, Variadic<Exec_Buffer>:$ins,
                       Variadic<Exec_Buffer>:$outs, Variadic<Index>:$binds,
                       DefaultValuedAttr<DictionaryAttr, "{}">:$params);
  let assemblyFormat = [{
    $kernel (`ins` `(` $ins^ `:` type($ins) `)`)?
    `outs` `(` $outs `:` type($outs) `)` (`binds` `[` $binds^ `]`)? attr-dict
  }];
  let builders = [
    OpBuilder<(ins "::llvm::StringRef":$kernel, "::mlir::ValueRange":$ins,
                   "::mlir::ValueRange":$outs, "::mlir::DictionaryAttr":$params), [{
      build($_builder, $_state, kernel, ins, outs, ::mlir::ValueRange(),
            params);
    }]>
  ];
  let hasVerifier = 1;
}

def Exec_DelegateCallOp : Exec_Op<"delegate_call", [HasParent<"MethodOp">,
    AttrSizedOperandSegments, DeclareOpInterfaceMethods<SymbolUserOpInterface>]> {
  let summary = "Executes a delegate's subgraph";
  let description = [{
    ```mlir
    exec.delegate_call @onednn_0 ins(%x : memref<4xf32>) outs(%y : memref<4xf32>)
    ```

    A delegate compiled with dynamic extents receives the values of its
    extent slots, in order, at every call (`extents`).
  }];
  let arguments = (ins FlatSymbolRefAttr:$delegate, Variadic<Exec_Buffer>:$ins,
                       Variadic<Exec_Buffer>:$outs, Variadic<Index>:$extents);
  let assemblyFormat = [{
    $delegate (`ins` `(` $ins^ `:` type($ins) `)`)?
    `outs` `(` $outs `:` type($outs) `)` (`extents` `[` $extents^ `]`)?
    attr-dict
  }];
  let hasVerifier = 1;
}

def Exec_MoveOp : Exec_Op<"move", [HasParent<"MethodOp">,
    AllTypesMatch<["source", "target"]>]> {
  let summary = "Copies one buffer into another of the same type";
  let description = [{
    ```mlir
    exec.move %a to %b : memref<4xf32>
    ```
  }];
  let arguments = (ins Exec_Buffer:$source, Exec_Buffer:$target);
  let assemblyFormat = "$source `to` $target attr-dict `:` type($source)";
}

def Exec_BranchOp : Exec_Op<"branch", [Terminator, HasParent<"MethodOp">]> {
  let summary = "Continues at a later block, or back at a loop's header";
  let description = [{
    A forward branch continues at a later block. A branch back to an
    earlier block closes a run-time loop (ONNX Loop) and must state
    `max_trips`, the most times it may be taken before the loop is left
    (the loop's iteration bound): a call that would take it once more
    fails, naming the loop, so that every method ends. The count starts
    again each time the loop is entered.

    ```mlir
    exec.branch ^join
    exec.branch ^header {max_trips = 16 : i64}
    ```
  }];
  let arguments = (ins OptionalAttr<ConfinedAttr<I64Attr,
                           [IntPositive]>>:$max_trips);
  let successors = (successor AnySuccessor:$dest);
  let builders = [
    OpBuilder<(ins "::mlir::Block *":$dest), [{
      build($_builder, $_state, ::mlir::IntegerAttr(), dest);
    }]>
  ];
  let assemblyFormat = "$dest attr-dict";
  let hasVerifier = 1;
}

def Exec_CondBranchOp : Exec_Op<"cond_branch", [Terminator,
    HasParent<"MethodOp">]> {
  let summary = "Continues at one of two later blocks by a boolean buffer";
  let description = [{
    Reads the one element of `condition` (written by an earlier
    instruction): `true_dest` when it is true, else `false_dest`. Both
    are later blocks of the method (forward branches only: every method
    ends).

    ```mlir
    exec.cond_branch %c : memref<i1>, ^then, ^else
    ```
  }];
  let arguments = (ins Exec_Buffer:$condition);
  let successors = (successor AnySuccessor:$true_dest,
                              AnySuccessor:$false_dest);
  let assemblyFormat = [{
    $condition `:` type($condition) `,` $true_dest `,` $false_dest attr-dict
  }];
  let hasVerifier = 1;
}

def Exec_ReturnOp : Exec_Op<"return", [Pure, Terminator,
    HasParent<"MethodOp">]> {
  let summary = "Names the method's output buffers";
  let description = [{
    ```mlir
    exec.return %y : memref<1x10xf32>
    ```
  }];
  let arguments = (ins Variadic<Exec_Buffer>:$outputs);
  let assemblyFormat = "($outputs^ `:` type($outputs))? attr-dict";
  let hasVerifier = 1;
}

#endif // STRATA_EXEC_OPS
