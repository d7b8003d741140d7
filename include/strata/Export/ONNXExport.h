//===- ONNXExport.h - hl (with QDQ pairs) back to an ONNX model -*- C++ -*-===//
//
// Writes the transformed model as ONNX: fused groups are expanded back into
// their ONNX operators, and every calibrated quant.qcast / quant.dcast pair
// becomes an explicit QuantizeLinear / DequantizeLinear (constant weights:
// an int8 initializer and a DequantizeLinear, per channel along their
// axis). This is the explicit-quantization input TensorRT-style compilers
// take. The result passes libonnx's checker before it is returned.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_EXPORT_ONNXEXPORT_H
#define STRATA_EXPORT_ONNXEXPORT_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace strata {

struct ONNXExportOptions {
  /// The opset written: 0 picks the smallest that expresses the model, at
  /// least 13 (per-axis QuantizeLinear / DequantizeLinear).
  int64_t opset = 0;
  std::string producerName = "strata";
};

/// Serializes the function `main` (or the module's only function) of the
/// hl `module` as an ONNX ModelProto into `bytes`. Ops without an ONNX form
/// (control flow, delegate calls) fail with a diagnostic naming them.
mlir::LogicalResult exportONNX(mlir::ModuleOp module,
                               const ONNXExportOptions &options,
                               std::string &bytes);

} // namespace strata

#endif // STRATA_EXPORT_ONNXEXPORT_H
