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
    NonMaxSuppression's selections, TopK's run-time k. Its bound is the
    most the operands can give at their own bounds (`deriveExtentBound`),
    or the smaller one the user gave (`max_extent`); memory is planned at
    it, the lowering to exec makes the extent an `exec.dim_symbol` the
    kernel `binds`, and the kernel reports the actual extent at run time.
    The results' other extents follow the operands (`reifyOtherExtents`).
    Such ops have no `ReifyRankedShapedTypeOpInterface`: no function of the
    operands' shapes gives the extent, so what reads their results reifies
    through `tensor.dim` of them.
  }];
  let methods = [
    InterfaceMethod<"The most the value-dependent extent can be, given each "
                    "operand's shape at its bounds (static extents as they "
                    "are, dynamic ones at their bounds).",
      "int64_t", "deriveExtentBound",
      (ins "::llvm::ArrayRef<::llvm::SmallVector<int64_t>>":$operandBounds)>,
    InterfaceMethod<"The bound the user gave (--max-extent), if any.",
      "std::optional<int64_t>", "getGivenBound", (ins), [{}], [{
        if (auto bound = $_op.getMaxExtent())
          return static_cast<int64_t>(*bound);
        return std::nullopt;
      }]>,
    InterfaceMethod<"Whether dimension `dim` of result `result` is the "
                    "value-dependent extent.",
      "bool", "isValueDependentDim", (ins "unsigned":$result, "unsigned":$dim)>,
    InterfaceMethod<"The results' extents other than the value-dependent "
                    "one (left null), as ReifyRankedShapedTypeOpInterface "
                    "gives them.",
      "::mlir::LogicalResult", "reifyOtherExtents",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ReifiedRankedShapedTypeDims &":$shapes)>,
  ];
}

#endif // STRATA_EDGE_INTERFACES
