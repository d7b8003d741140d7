//===- ONNXChecks.cpp - libonnx checker and shape inference ---------------===//
//
// Compiled with -fexceptions (see CMakeLists.txt): the libonnx headers
// included here throw. Every entry point catches everything.
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXChecks.h"
#include "strata/Support/WindowExtent.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/defs/tensor_proto_util.h"
#include "onnx/shape_inference/implementation.h"

#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <vector>

namespace strata::importer {

namespace {

// Operators of opsets 18 to 21 that libonnx 1.12 has no schema for and that
// the op table converts: their definitions (Bitwise* of 18, DeformConv of
// 19), registered in the
// library's own registry so that its checker verifies such nodes and its
// shape inference types them like any other. The opset normaliser lowers a
// newer model's ai.onnx import to 17, so the schemas are registered at
// since_version 17, the newest the library's domain range admits.
constexpr int kRegisteredSinceVersion = 17;

const std::vector<std::string> &integerTypes() {
  static const std::vector<std::string> types = {
      "tensor(uint8)", "tensor(uint16)", "tensor(uint32)", "tensor(uint64)",
      "tensor(int8)",  "tensor(int16)",  "tensor(int32)",  "tensor(int64)"};
  return types;
}

onnx::OpSchema bitwiseBinarySchema(const char *name, const char *formula) {
  return onnx::OpSchema()
      .SetName(name)
      .SetDomain("")
      .SinceVersion(kRegisteredSinceVersion)
      .SetLocation(__FILE__, __LINE__)
      .SetDoc(std::string("Elementwise ") + formula +
              " of two integer tensors with multidirectional broadcasting "
              "(ai.onnx opset 18).")
      .Input(0, "A", "first operand", "T")
      .Input(1, "B", "second operand", "T")
      .Output(0, "C", "result", "T")
      .TypeConstraint("T", integerTypes(), "integer tensors")
      .TypeAndShapeInferenceFunction([](onnx::InferenceContext &ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        if (onnx::hasNInputShapes(ctx, 2))
          onnx::bidirectionalBroadcastShapeInference(
              ctx.getInputType(0)->tensor_type().shape(),
              ctx.getInputType(1)->tensor_type().shape(),
              *ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape());
      });
}

onnx::OpSchema bitwiseNotSchema() {
  return onnx::OpSchema()
      .SetName("BitwiseNot")
      .SetDomain("")
      .SinceVersion(kRegisteredSinceVersion)
      .SetLocation(__FILE__, __LINE__)
      .SetDoc("Elementwise bitwise negation of an integer tensor (ai.onnx "
              "opset 18).")
      .Input(0, "X", "input", "T")
      .Output(0, "Y", "result", "T")
      .TypeConstraint("T", integerTypes(), "integer tensors")
      .TypeAndShapeInferenceFunction(onnx::propagateShapeAndTypeFromFirstInput);
}

/// DeformConv-19: `[N, M, oH, oW]` from the input, the weight and the
/// window attributes, as Conv's.
void inferDeformConv(onnx::InferenceContext &ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasNInputShapes(ctx, 2))
    return;
  const onnx::TensorShapeProto &x = ctx.getInputType(0)->tensor_type().shape();
  const onnx::TensorShapeProto &w = ctx.getInputType(1)->tensor_type().shape();
  if (x.dim_size() != 4 || w.dim_size() != 4)
    fail_shape_inference("DeformConv is 2-d: input and weight must "
                         "have rank 4");
  auto ints = [&](const char *name, int64_t fallback, int count) {
    std::vector<int64_t> values(count, fallback);
    if (const onnx::AttributeProto *a = ctx.getAttribute(name)) {
      if (a->ints_size() != count)
        fail_shape_inference("DeformConv '", name, "' must have ", count,
                             " values");
      values.assign(a->ints().begin(), a->ints().end());
    }
    return values;
  };
  std::vector<int64_t> strides = ints("strides", 1, 2);
  std::vector<int64_t> dilations = ints("dilations", 1, 2);
  std::vector<int64_t> pads = ints("pads", 0, 4);
  onnx::TensorShapeProto *y =
      ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
  *y->add_dim() = x.dim(0);
  *y->add_dim() = w.dim(0);
  for (int i = 0; i < 2; ++i) {
    onnx::TensorShapeProto::Dimension *d = y->add_dim();
    if (!x.dim(2 + i).has_dim_value() || !w.dim(2 + i).has_dim_value())
      continue;
    std::optional<int64_t> extent =
        windowExtent(x.dim(2 + i).dim_value(), w.dim(2 + i).dim_value(),
                     strides[i], dilations[i], pads[i], pads[2 + i]);
    if (!extent)
      fail_shape_inference("DeformConv's window does not fit the "
                           "padded input");
    d->set_dim_value(*extent);
  }
}

onnx::OpSchema deformConvSchema() {
  return onnx::OpSchema()
      .SetName("DeformConv")
      .SetDomain("")
      .SinceVersion(kRegisteredSinceVersion)
      .SetLocation(__FILE__, __LINE__)
      .SetDoc("2-d deformable convolution (ai.onnx opset 19).")
      .Attr("dilations", "dilation per spatial axis",
            onnx::AttributeProto::INTS, false)
      .Attr("group", "number of groups", onnx::AttributeProto::INT,
            static_cast<int64_t>(1))
      .Attr("kernel_shape", "the weight's spatial shape",
            onnx::AttributeProto::INTS, false)
      .Attr("offset_group", "number of offset groups",
            onnx::AttributeProto::INT, static_cast<int64_t>(1))
      .Attr("pads", "begin and end padding per spatial axis",
            onnx::AttributeProto::INTS, false)
      .Attr("strides", "stride per spatial axis", onnx::AttributeProto::INTS,
            false)
      .Input(0, "X", "input [N, C, H, W]", "T")
      .Input(1, "W", "weight [M, C/group, kH, kW]", "T")
      .Input(2, "offset", "offsets [N, offset_group*2*kH*kW, oH, oW]", "T")
      .Input(3, "B", "bias [M]", "T", onnx::OpSchema::Optional)
      .Input(4, "mask", "mask [N, offset_group*kH*kW, oH, oW]", "T",
             onnx::OpSchema::Optional)
      .Output(0, "Y", "result [N, M, oH, oW]", "T")
      .TypeConstraint("T",
                      {"tensor(float16)", "tensor(float)", "tensor(double)"},
                      "float tensors")
      .TypeAndShapeInferenceFunction(inferDeformConv);
}

/// STFT-17's shape inference, replacing libonnx 1.12's, which miscounts the
/// frames (it infers 99 frames of 400 samples at step 160 in 16000
/// samples; ONNX Runtime and the operator's definition give
/// (samples - length) / step + 1 = 98). Frames and bins are inferred when
/// the step and the frame length (or the window's extent) are constants;
/// otherwise they are left to the declared output shape.
void inferSTFT(onnx::InferenceContext &ctx) {
  onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
  if (!onnx::hasInputShape(ctx, 0))
    return;
  const onnx::TensorShapeProto &signal =
      ctx.getInputType(0)->tensor_type().shape();
  if (signal.dim_size() != 3)
    fail_shape_inference("STFT's signal must have rank 3, got ",
                         signal.dim_size());
  auto constantScalar = [&](size_t index) -> std::optional<int64_t> {
    if (ctx.getNumInputs() <= index)
      return std::nullopt;
    const onnx::TensorProto *t = ctx.getInputData(index);
    if (!t)
      return std::nullopt;
    if (t->data_type() == onnx::TensorProto::INT64) {
      std::vector<int64_t> v = onnx::ParseData<int64_t>(t);
      if (v.size() == 1)
        return v[0];
    } else if (t->data_type() == onnx::TensorProto::INT32) {
      std::vector<int32_t> v = onnx::ParseData<int32_t>(t);
      if (v.size() == 1)
        return v[0];
    }
    return std::nullopt;
  };
  std::optional<int64_t> step = constantScalar(1);
  std::optional<int64_t> length = constantScalar(3);
  if (!length && onnx::hasInputShape(ctx, 2)) {
    const onnx::TensorShapeProto &window =
        ctx.getInputType(2)->tensor_type().shape();
    if (window.dim_size() == 1 && window.dim(0).has_dim_value())
      length = window.dim(0).dim_value();
  }
  bool onesided = true;
  if (const onnx::AttributeProto *a = ctx.getAttribute("onesided"))
    onesided = a->i() != 0;
  onnx::TensorShapeProto *y =
      ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
  *y->add_dim() = signal.dim(0);
  onnx::TensorShapeProto::Dimension *frames = y->add_dim();
  onnx::TensorShapeProto::Dimension *bins = y->add_dim();
  y->add_dim()->set_dim_value(2);
  if (length && *length > 0)
    bins->set_dim_value(onesided ? *length / 2 + 1 : *length);
  if (step && *step > 0 && length && *length > 0 &&
      signal.dim(1).has_dim_value()) {
    int64_t samples = signal.dim(1).dim_value();
    if (*length > samples)
      fail_shape_inference("STFT's frame length ", *length,
                           " exceeds the signal's ", samples, " samples");
    frames->set_dim_value((samples - *length) / *step + 1);
  }
}

/// Registers the schemas above once; every entry point below calls it
/// before it looks anything up.
/// ONNX Runtime's com.microsoft MatMulNBits (opset 1 of that domain): A
/// times a block-quantized weight, `[..., K] -> [..., N]`. Registered so
/// that the checker verifies its inputs and attributes and shape inference
/// types its result, like a standard operator's.
onnx::OpSchema matMulNBitsSchema() {
  return onnx::OpSchema()
      .SetName("MatMulNBits")
      .SetDomain("com.microsoft")
      .SinceVersion(1)
      .SetLocation(__FILE__, __LINE__)
      .SetDoc("A times a weight quantized to `bits` bits in blocks of "
              "`block_size` rows of K (ONNX Runtime's contrib operator).")
      .Attr("K", "rows of the weight", onnx::AttributeProto::INT)
      .Attr("N", "columns of the weight", onnx::AttributeProto::INT)
      .Attr("bits", "bits per weight", onnx::AttributeProto::INT,
            static_cast<int64_t>(4))
      .Attr("block_size", "rows of K per scale", onnx::AttributeProto::INT)
      .Attr("accuracy_level", "the compute precision ONNX Runtime may use",
            onnx::AttributeProto::INT, static_cast<int64_t>(0))
      .Input(0, "A", "the input [..., K]", "T1")
      .Input(1, "B", "the packed weight [N, blocks, blob]", "T2")
      .Input(2, "scales", "one scale per column and block", "T1")
      .Input(3, "zero_points", "zero points, packed or as floats", "T3",
             onnx::OpSchema::Optional)
      .Input(4, "g_idx", "the block of each row of K", "T4",
             onnx::OpSchema::Optional)
      .Input(5, "bias", "[N]", "T1", onnx::OpSchema::Optional)
      .Output(0, "Y", "the result [..., N]", "T1")
      .TypeConstraint("T1", {"tensor(float)", "tensor(float16)"},
                      "float tensors")
      .TypeConstraint("T2", {"tensor(uint8)", "tensor(int32)"},
                      "the packed weight")
      .TypeConstraint("T3",
                      {"tensor(uint8)", "tensor(int32)", "tensor(float)",
                       "tensor(float16)"},
                      "zero points")
      .TypeConstraint("T4", {"tensor(int32)"}, "row blocks")
      .TypeAndShapeInferenceFunction([](onnx::InferenceContext &ctx) {
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, 0);
        if (!onnx::hasInputShape(ctx, 0))
          return;
        const onnx::TensorShapeProto &a =
            ctx.getInputType(0)->tensor_type().shape();
        if (a.dim_size() < 1)
          fail_shape_inference("MatMulNBits: A must have rank 1 or more");
        const onnx::AttributeProto *n = ctx.getAttribute("N");
        if (!n)
          fail_shape_inference("MatMulNBits: attribute N is required");
        onnx::TensorShapeProto *y =
            ctx.getOutputType(0)->mutable_tensor_type()->mutable_shape();
        *y = a;
        y->mutable_dim(a.dim_size() - 1)->set_dim_value(n->i());
      });
}

void registerNewerSchemas() {
  static const bool registered = [] {
    try {
      onnx::RegisterSchema(bitwiseBinarySchema("BitwiseAnd", "bitwise and"));
      onnx::RegisterSchema(bitwiseBinarySchema("BitwiseOr", "bitwise or"));
      onnx::RegisterSchema(bitwiseBinarySchema("BitwiseXor", "bitwise xor"));
      onnx::RegisterSchema(bitwiseNotSchema());
      onnx::RegisterSchema(deformConvSchema());
      onnx::OpSchemaRegistry::DomainToVersionRange::Instance()
          .AddDomainToVersion("com.microsoft", 1, 1);
      onnx::RegisterSchema(matMulNBitsSchema());
      // The registry holds its schemas by value; this replaces only the
      // inference function of the one STFT schema.
      if (const onnx::OpSchema *stft =
              onnx::OpSchemaRegistry::Schema("STFT", 17, ""))
        const_cast<onnx::OpSchema *>(stft)->TypeAndShapeInferenceFunction(
            inferSTFT);
    } catch (...) {
      return false;
    }
    return true;
  }();
  (void)registered;
}

} // namespace

/// Whether any initializer of the main graph keeps its data externally.
static bool hasExternalData(const onnx::ModelProto &model) {
  for (const onnx::TensorProto &tensor : model.graph().initializer())
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
      return true;
  return false;
}

/// onnx::checker::check_model(ModelProto) with the model directory set: the
/// same steps as the library's (ir_version, opset imports, graph, local
/// functions), calling the library's public checks.
static void checkModelInDir(const onnx::ModelProto &model,
                            const std::string &modelDir) {
  using onnx::checker::ValidationError;
  if (!model.ir_version())
    throw ValidationError(
        "The model does not have an ir_version set properly.");
  if (model.ir_version() > onnx::IR_VERSION)
    throw ValidationError(
        "Your model ir_version is higher than the checker's.");
  onnx::checker::CheckerContext ctx;
  ctx.set_ir_version(static_cast<int>(model.ir_version()));
  ctx.set_model_dir(modelDir);
  std::unordered_map<std::string, int> opsets;
  for (const onnx::OperatorSetIdProto &opset : model.opset_import())
    opsets[opset.domain()] = static_cast<int>(opset.version());
  if (opsets.empty())
    throw ValidationError("model with IR version >= 3 must specify "
                          "opset_import for ONNX");
  ctx.set_opset_imports(opsets);
  onnx::checker::LexicalScopeContext lex;
  onnx::checker::check_graph(model.graph(), ctx, lex);
  if (ctx.get_ir_version() >= 8)
    onnx::checker::check_model_local_functions(model, ctx, lex);
}

std::optional<std::string> runONNXChecker(const onnx::ModelProto &model,
                                          const std::string &modelDir) {
  registerNewerSchemas();
  try {
    if (hasExternalData(model))
      checkModelInDir(model, modelDir.empty() ? "." : modelDir);
    else
      onnx::checker::check_model(model);
  } catch (const std::exception &e) {
    return std::string(e.what());
  } catch (...) {
    return std::string("unknown error in the ONNX checker");
  }
  return std::nullopt;
}

std::optional<std::string> runONNXShapeInference(onnx::ModelProto &model) {
  registerNewerSchemas();
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
                                         const std::string &opType, int opset) {
  registerNewerSchemas();
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
  registerNewerSchemas();
  try {
    const auto &map =
        onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
    auto it = map.find(domain == "ai.onnx" ? "" : domain);
    return it == map.end() ? 0 : it->second.second;
  } catch (...) {
    return 0;
  }
}

std::optional<std::string> findONNXOpType(const std::string &key) {
  registerNewerSchemas();
  static const std::map<std::string, std::string> *byKey = [] {
    auto *map = new std::map<std::string, std::string>();
    try {
      for (const onnx::OpSchema &schema :
           onnx::OpSchemaRegistry::get_all_schemas()) {
        if (!schema.domain().empty() && schema.domain() != "ai.onnx")
          continue;
        std::string lowered;
        for (char c : schema.Name())
          lowered += static_cast<char>(std::tolower(c));
        map->emplace(lowered, schema.Name());
      }
    } catch (...) {
    }
    return map;
  }();
  auto it = byKey->find(key);
  if (it == byKey->end())
    return std::nullopt;
  return it->second;
}

std::optional<std::set<std::string>>
getSchemaAttributeNames(const std::string &opType, int opset) {
  registerNewerSchemas();
  try {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(opType, opset, "");
    if (!schema)
      return std::nullopt;
    std::set<std::string> names;
    for (const auto &[name, attribute] : schema->attributes())
      names.insert(name);
    return names;
  } catch (...) {
    return std::nullopt;
  }
}

bool isNewerAttributeDefault(const std::string &opType,
                             const onnx::AttributeProto &value) {
  // The string defaults of attributes added after the onnx library's
  // newest schemas (Debian's onnx 1.12 stops at opset 17).
  static const std::map<std::pair<std::string, std::string>, std::string>
      laterStringDefaults = {
          {{"Resize", "keep_aspect_ratio_policy"}, "stretch"},
      };
  auto later = laterStringDefaults.find({opType, value.name()});
  if (later != laterStringDefaults.end())
    return value.type() == onnx::AttributeProto::STRING &&
           value.s() == later->second;
  registerNewerSchemas();
  try {
    const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(
        opType, std::numeric_limits<int>::max(), "");
    if (!schema)
      return false;
    auto attribute = schema->attributes().find(value.name());
    if (attribute == schema->attributes().end() ||
        !attribute->second.default_value.has_type())
      return false;
    onnx::AttributeProto normal = attribute->second.default_value;
    normal.set_name(value.name());
    return normal.SerializeAsString() == value.SerializeAsString();
  } catch (...) {
    return false;
  }
}

} // namespace strata::importer
