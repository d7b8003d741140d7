//===- HLInterfaces.td - hl op interfaces ------------------*- tablegen -*-===//
#ifndef STRATA_HL_INTERFACES
#define STRATA_HL_INTERFACES

include "mlir/IR/OpBase.td"

def HL_WindowOpInterface : OpInterface<"WindowOpInterface"> {
  let cppNamespace = "::strata::hl";
  let description = [{
    An ONNX op that slides a window over the spatial dimensions of an
    `[N, C, D1, ...]` input: the convolutions (Conv, ConvTranspose,
    ConvInteger, QLinearConv, DeformConv) and the poolings (MaxPool,
    AveragePool). Its verifier checks once what they share: `auto_pad` is
    known and excludes `pads`, the input has rank 3 or more, `kernel_shape`,
    `strides` and `dilations` have one positive entry per spatial dimension,
    `pads` two non-negative ones, and `group` is positive. The default
    implementations read the ONNX attributes of those names (an op without
    `auto_pad` or `group` has NOTSET and 1).
  }];
  let methods = [
    InterfaceMethod<"The input the window slides over.", "::mlir::Value",
      "getWindowInput", (ins), [{}], [{ return $_op.getInput(); }]>,
    InterfaceMethod<"The `auto_pad` mode.", "::llvm::StringRef",
      "getWindowAutoPad", (ins), [{}],
      [{ return ::strata::hl::detail::autoPadOf($_op); }]>,
    InterfaceMethod<"`kernel_shape` (empty where the weight gives it).",
      "::llvm::ArrayRef<int64_t>", "getWindowKernelShape", (ins), [{}],
      [{ return ::strata::hl::detail::orEmpty($_op.getKernelShape()); }]>,
    InterfaceMethod<"`strides`, when given.",
      "std::optional<::llvm::ArrayRef<int64_t>>", "getWindowStrides", (ins),
      [{}], [{ return $_op.getStrides(); }]>,
    InterfaceMethod<"`dilations`, when given.",
      "std::optional<::llvm::ArrayRef<int64_t>>", "getWindowDilations", (ins),
      [{}], [{ return $_op.getDilations(); }]>,
    InterfaceMethod<"`pads` (begins, then ends), when given.",
      "std::optional<::llvm::ArrayRef<int64_t>>", "getWindowPads", (ins),
      [{}], [{ return $_op.getPads(); }]>,
    InterfaceMethod<"The group count (1 for the poolings).", "int64_t",
      "getWindowGroup", (ins), [{}],
      [{ return ::strata::hl::detail::groupOf($_op); }]>,
  ];
  let verify = [{ return ::strata::hl::detail::verifyWindowOpInterface($_op); }];
}

#endif // STRATA_HL_INTERFACES
