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

#endif // STRATA_EDGE_INTERFACES
