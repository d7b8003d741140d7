//===- ExecInterfaces.td - exec op interfaces ------------*- tablegen -*-===//
#ifndef STRATA_EXEC_INTERFACES
#define STRATA_EXEC_INTERFACES

include "mlir/IR/OpBase.td"

def Exec_PlacedBufferOpInterface : OpInterface<"PlacedBufferOpInterface"> {
  let cppNamespace = "::strata::exec";
  let description = [{
    An op that defines a buffer living in a memory arena: its placement
    (memory id and byte offset) is empty before memory planning and set by
    it. The planner and the emitter go through this interface only.
  }];
  let methods = [
    InterfaceMethod<"The placed buffer.", "::mlir::TypedValue<::mlir::MemRefType>",
      "getBuffer", (ins), [{ return $_op.getResult(); }]>,
    InterfaceMethod<"The extents of the buffer's dynamic dimensions.",
      "::mlir::OperandRange", "getDynamicSizes", (ins),
      [{ return $_op.getDynamicSizes(); }]>,
    InterfaceMethod<"Memory id, when placed.", "std::optional<uint64_t>",
      "getPlacedMemoryId", (ins), [{ return $_op.getMemoryId(); }]>,
    InterfaceMethod<"Byte offset in its arena, when placed.",
      "std::optional<uint64_t>", "getPlacedOffset", (ins),
      [{ return $_op.getOffset(); }]>,
    InterfaceMethod<"Sets the placement.", "void", "setPlacement",
      (ins "uint64_t":$memoryId, "uint64_t":$offset), [{
        $_op.setMemoryId(memoryId);
        $_op.setOffset(offset);
      }]>,
  ];
}

#endif // STRATA_EXEC_INTERFACES
