//===- ONNXChecks.cpp - libonnx checker and shape inference ---------------===//
//
// Compiled with -fexceptions (see CMakeLists.txt): the libonnx headers
// included here throw. Every entry point catches everything.
//
//===----------------------------------------------------------------------===//
#include "ONNXChecks.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace strata::importer {

std::optional<std::string> runONNXChecker(const onnx::ModelProto &model) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("unknown error in the ONNX checker");
  }
  return std::nullopt;
}

std::optional<std::string> runONNXShapeInference(onnx::ModelProto &model) {
  try {
    onnx::ShapeInferenceOptions options(/*check_type_val=*/true,
                                        /*strict_mode_val=*/1,
                                        /*data_prop_val=*/true);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception &e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("unknown error in ONNX shape inference");
  }
  return std::nullopt;
}

std::optional<int> getSchemaSinceVersion(const std::string &domain,
                                         const std::string &opType,
                                         int opset) {
  try {
    const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
        opType, opset, domain == "ai.onnx" ? "" : domain);
    if (!schema)
      return std::nullopt;
    return schema->SinceVersion();
  } catch (...) {
    return std::nullopt;
  }
}

int getMaxKnownOpset(const std::string &domain) {
  try {
    const auto &map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = map.find(domain == "ai.onnx" ? "" : domain);
    return it == map.end() ? 0 : it->second.second;
  } catch (...) {
    return 0;
  }
}

} // namespace strata::importer
