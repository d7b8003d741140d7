//===- ONNXChecks.h - libonnx checker and shape inference -------*- C++ -*-===//
//
// The one place that calls into libonnx code that throws (the importer and
// the ONNX exporter use it): ONNXChecks.cpp is compiled with -fexceptions
// and turns every exception into an error string, so none crosses into
// MLIR code.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_IMPORT_ONNXCHECKS_H
#define STRATA_IMPORT_ONNXCHECKS_H

#include "onnx/onnx_pb.h"

#include <optional>
#include <set>
#include <string>

namespace strata::importer {

/// Runs onnx::checker::check_model; returns the error message on failure.
/// `modelDir` is where external data paths resolve (the library's
/// check_model(ModelProto) would resolve them against the working
/// directory).
std::optional<std::string> runONNXChecker(const onnx::ModelProto &model,
                                          const std::string &modelDir);

/// Runs onnx::shape_inference::InferShapes (strict, with data propagation)
/// in place; returns the error message on failure.
std::optional<std::string> runONNXShapeInference(onnx::ModelProto &model);

/// The since_version of the schema of `opType` in `domain` at `opset`, or
/// std::nullopt when libonnx knows no such operator.
std::optional<int> getSchemaSinceVersion(const std::string &domain,
                                         const std::string &opType, int opset);

/// The newest opset of `domain` that libonnx knows.
int getMaxKnownOpset(const std::string &domain);

/// The ONNX op type (default domain) whose name, lower-cased without
/// underscores, is `key` ("maxpool" -> "MaxPool", "isnan" -> "IsNaN"), or
/// std::nullopt.
std::optional<std::string> findONNXOpType(const std::string &key);

/// The attribute names of `opType`'s schema at `opset`, or std::nullopt
/// when there is no such schema.
std::optional<std::set<std::string>>
getSchemaAttributeNames(const std::string &opType, int opset);

/// Whether `value` is the default of attribute `value.name()` of `opType` in
/// the newest schema that has the attribute (an attribute a later opset
/// added, at its default, means what the earlier opsets do without it).
bool isNewerAttributeDefault(const std::string &opType,
                             const onnx::AttributeProto &value);

} // namespace strata::importer

#endif // STRATA_IMPORT_ONNXCHECKS_H
