//===- EdgeInterfaces.td - edge op interfaces ------------*- tablegen -*-===//
#ifndef STRATA_EDGE_INTERFACES
#define STRATA_EDGE_INTERFACES

include "mlir/IR/OpBase.td"

def Edge_KernelOpInterface : OpInterface<"KernelOpInterface"> {
  let cppNamespace = "::strata::edge";
  let description = [{
    An `edge` op that the portable runtime runs as one kernel call. The
    lowering to `exec` goes through this interface alone: the kernel's
    registry name (by default the op's mnemonic) and its parameters (by
    default the op's inherent attributes, under their own names). The
    operands become the kernel's inputs in order, the results its outputs.
  }];
  let methods = [
    InterfaceMethod<"Name of the runtime kernel that executes this op.",
      "::llvm::StringRef", "getKernelName", (ins), [{}],
      [{ return $_op->getName().stripDialect(); }]>,
    InterfaceMethod<"The kernel's parameters.",
      "::mlir::DictionaryAttr", "getKernelParams", (ins), [{}], [{
        ::mlir::Operation *op = $_op.getOperation();
        ::llvm::SmallVector<::mlir::NamedAttribute> params;
        if (auto inherent = ::llvm::dyn_cast_or_null<::mlir::DictionaryAttr>(
                op->getPropertiesAsAttribute()))
          for (::mlir::NamedAttribute attr : inherent)
            if (attr.getName() != "operandSegmentSizes")
              params.push_back(attr);
        return ::mlir::DictionaryAttr::get(op->getContext(), params);
      }]>,
  ];
}

def Edge_ValueDependentExtentOpInterface
    : OpInterface<"ValueDependentExtentOpInterface"> {
  let cppNamespace = "::strata::edge";
  let description = [{
    An `edge` op whose results have one extent that depends on the data,
    not on the operands' shapes: NonZero's count, Unique's distinct values,
    NonMaxSuppression's selections, TopK's run-time k. The op states a
    static bound for it (memory is planned at the bound); its kernel
    reports the actual extent at run time, and the lowering to exec makes
    it an `exec.dim_symbol` the kernel `binds`. Every other result extent
    is static. Such ops have no `ReifyRankedShapedTypeOpInterface`: what
    reads their results reifies through `tensor.dim` of them.
  }];
  let methods = [
    InterfaceMethod<"The bound of the value-dependent extent.",
      "int64_t", "getExtentBound", (ins), [{}], [{
        return static_cast<int64_t>($_op.getMaxExtent());
      }]>,
    InterfaceMethod<"Whether dimension `dim` of result `result` is the "
                    "value-dependent extent.",
      "bool", "isValueDependentDim", (ins "unsigned":$result, "unsigned":$dim)>,
  ];
}

#endif // STRATA_EDGE_INTERFACES
