//===- ONNXExport.cpp - hl (with QDQ pairs) back to an ONNX model ---------===//
//
// hl keeps one op per ONNX operator with ONNX's attribute names, so most ops
// export generically: the op type is the libonnx schema whose lower-cased
// name matches the mnemonic without underscores, operands become inputs
// (absent optional operands: ""), inherent attributes become ONNX
// attributes, checked against the schema of the opset written. The
// exceptions are handled here: constants (initializers), fused groups
// (their bodies are written in place), QDQ pairs, and the reductions whose
// axes were an attribute before opset 18.
//
//===----------------------------------------------------------------------===//
#include "strata/Export/ONNXExport.h"

#include "HL/IR/HLOps.h"
#include "strata/Import/ONNXChecks.h"
#include "strata/Quantization/Quantization.h"
#include "strata/Support/ElementsBytes.h"
#include "strata/Support/Locations.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/Quant/QuantTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <cstring>
#include <tuple>

using namespace mlir;

namespace strata {
namespace {

/// ONNX's element type code of `type`, or 0.
int32_t onnxElementType(Type type) {
  if (type.isF32())
    return onnx::TensorProto::FLOAT;
  if (type.isF64())
    return onnx::TensorProto::DOUBLE;
  if (type.isF16())
    return onnx::TensorProto::FLOAT16;
  if (type.isBF16())
    return onnx::TensorProto::BFLOAT16;
  if (type.isInteger(1))
    return onnx::TensorProto::BOOL;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 8:
      return isUnsigned ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8;
    case 16:
      return isUnsigned ? onnx::TensorProto::UINT16 : onnx::TensorProto::INT16;
    case 32:
      return isUnsigned ? onnx::TensorProto::UINT32 : onnx::TensorProto::INT32;
    case 64:
      return isUnsigned ? onnx::TensorProto::UINT64 : onnx::TensorProto::INT64;
    }
  }
  return 0;
}

/// The bytes of `attr` (getElementsBytes), std::nullopt when it has none.
std::optional<std::string> rawBytes(ElementsAttr attr) {
  std::string error;
  FailureOr<std::string> bytes = getElementsBytes(attr, error);
  if (failed(bytes))
    return std::nullopt;
  return std::move(*bytes);
}

class Exporter {
public:
  Exporter(const ONNXExportOptions &options, onnx::GraphProto &graph)
      : options(options), graph(graph) {}

  /// The opset this function needs (at least 13).
  static int64_t requiredOpset(func::FuncOp func) {
    int64_t opset = 13;
    func.walk([&](Operation *op) {
      if (isa<hl::LayerNormalizationOp>(op))
        opset = std::max<int64_t>(opset, 17);
    });
    return opset;
  }

  LogicalResult run(func::FuncOp func, int64_t opsetVersion) {
    opset = opsetVersion;
    Block &body = func.getBody().front();
    // Graph inputs keep their names.
    for (BlockArgument arg : body.getArguments()) {
      auto name =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "hl.name");
      std::string text =
          unique(name ? name.getValue().str()
                      : "input_" + std::to_string(arg.getArgNumber()));
      names[arg] = text;
      if (failed(addValueInfo(*graph.add_input(), text, arg.getType(), func)))
        return failure();
    }
    // Graph outputs keep theirs: the value returned takes the name (an
    // Identity when it is returned twice or is an input).
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      auto name = func.getResultAttrOfType<StringAttr>(i, "hl.name");
      outputNames.push_back(name ? name.getValue().str()
                                 : "output_" + std::to_string(i));
      reserved.insert(outputNames.back());
      if (isa<OpResult>(value) && !preset.count(value))
        preset[value] = outputNames.back();
    }
    if (failed(emitBlock(body)))
      return failure();
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      std::string &want = outputNames[i];
      if (names[value] != want) {
        onnx::NodeProto &node = *graph.add_node();
        node.set_op_type("Identity");
        node.set_name(want + "_identity");
        node.add_input(names[value]);
        node.add_output(want);
      }
      if (failed(addValueInfo(*graph.add_output(), want, value.getType(), ret)))
        return failure();
    }
    return success();
  }

private:
  LogicalResult addValueInfo(onnx::ValueInfoProto &info, StringRef name,
                             Type type, Operation *where) {
    info.set_name(name.str());
    auto tensor = dyn_cast<RankedTensorType>(type);
    int32_t element = tensor ? onnxElementType(tensor.getElementType()) : 0;
    if (!element)
      return where->emitError("cannot export a value of type ")
             << type << " as an ONNX graph input or output";
    onnx::TypeProto::Tensor &t = *info.mutable_type()->mutable_tensor_type();
    t.set_elem_type(element);
    onnx::TensorShapeProto &shape = *t.mutable_shape();
    for (int64_t d : tensor.getShape()) {
      if (ShapedType::isDynamic(d))
        shape.add_dim();
      else
        shape.add_dim()->set_dim_value(d);
    }
    return success();
  }

  /// `base`, or `base` with a numeric suffix when taken or reserved.
  std::string unique(std::string base) {
    if (base.empty())
      base = "t";
    std::string name = base;
    for (int i = 1; reserved.count(name) || !taken.insert(name).second; ++i)
      name = base + "_" + std::to_string(i);
    return name;
  }

  /// The name of `value`: its graph output name, or one made from `hint`.
  std::string nameFor(Value value, StringRef hint) {
    auto it = preset.find(value);
    if (it != preset.end()) {
      taken.insert(it->second);
      return it->second;
    }
    return unique(hint.str());
  }

  std::string nodeBase(Operation *op) {
    std::string node = getNodeName(op->getLoc());
    if (node.empty())
      node = op->getName().stripDialect().str();
    return node;
  }

  std::string addInitializer(ElementsAttr value, Operation *where,
                             std::string hint, bool &ok) {
    auto type = cast<ShapedType>(value.getType());
    int32_t element = onnxElementType(type.getElementType());
    std::optional<std::string> bytes = rawBytes(value);
    if (!element || !bytes) {
      where->emitError("cannot export a constant of type ") << type;
      ok = false;
      return "";
    }
    std::string name = unique(hint);
    onnx::TensorProto &t = *graph.add_initializer();
    t.set_name(name);
    t.set_data_type(element);
    for (int64_t d : type.getShape())
      t.add_dims(d);
    t.set_raw_data(std::move(*bytes));
    return name;
  }

  /// Scale (f32) and zero point (the storage type) initializers: scalars
  /// per tensor, 1-D per axis.
  void addQuantParams(const quantization::TypeQuantization &q, std::string base,
                      std::string &scaleName, std::string &zeroName) {
    bool perAxis = q.axis >= 0;
    bool isUnsigned = q.params.front().qmin >= 0;
    onnx::TensorProto &scale = *graph.add_initializer();
    scaleName = unique(base + "_scale");
    scale.set_name(scaleName);
    scale.set_data_type(onnx::TensorProto::FLOAT);
    onnx::TensorProto &zero = *graph.add_initializer();
    zeroName = unique(base + "_zero_point");
    zero.set_name(zeroName);
    zero.set_data_type(isUnsigned ? onnx::TensorProto::UINT8
                                  : onnx::TensorProto::INT8);
    if (perAxis) {
      scale.add_dims(static_cast<int64_t>(q.params.size()));
      zero.add_dims(static_cast<int64_t>(q.params.size()));
    }
    std::string scales, zeros;
    for (const quantization::QuantParams &p : q.params) {
      float s = static_cast<float>(p.scale);
      scales.append(reinterpret_cast<const char *>(&s), 4);
      zeros.push_back(static_cast<char>(p.zeroPoint));
    }
    scale.set_raw_data(scales);
    zero.set_raw_data(zeros);
  }

  onnx::NodeProto &addNode(StringRef opType, Operation *op) {
    onnx::NodeProto &node = *graph.add_node();
    node.set_op_type(opType.str());
    std::string base = nodeBase(op), name = base;
    for (int i = 1; !nodeNames.insert(name).second; ++i)
      name = base + "_" + std::to_string(i);
    node.set_name(name);
    return node;
  }

  LogicalResult emitBlock(Block &block) {
    for (Operation &op : block.without_terminator())
      if (failed(emit(&op)))
        return failure();
    return success();
  }

  LogicalResult emit(Operation *op) {
    if (auto constant = dyn_cast<hl::ConstantOp>(op)) {
      bool ok = true;
      std::string hint = nodeBase(op);
      if (auto resource =
              dyn_cast<DenseResourceElementsAttr>(constant.getValue()))
        hint = resource.getRawHandle().getKey().ltrim('.').str();
      // A weight read only by its QuantizeLinear is stored quantized
      // instead (emitQuantize).
      if (!constant->use_empty() &&
          llvm::all_of(constant->getUsers(), [](Operation *user) {
            return isa<mlir::quant::QuantizeCastOp>(user);
          })) {
        names[constant.getResult()] = hint;
        return success();
      }
      names[constant.getResult()] =
          addInitializer(constant.getValue(), op, hint, ok);
      return success(ok);
    }
    if (auto fused = dyn_cast<hl::FusedOp>(op))
      return emitFused(fused);
    if (auto qcast = dyn_cast<mlir::quant::QuantizeCastOp>(op))
      return emitQuantize(qcast);
    if (auto dcast = dyn_cast<mlir::quant::DequantizeCastOp>(op))
      return emitDequantize(dcast);
    if (op->getDialect() && op->getDialect()->getNamespace() == "hl")
      return emitGeneric(op);
    return op->emitError("'")
           << op->getName() << "' has no ONNX form to export";
  }

  LogicalResult emitFused(hl::FusedOp fused) {
    Block &body = fused.getBody().front();
    for (auto [arg, input] :
         llvm::zip(body.getArguments(), fused.getInputs())) {
      names[arg] = std::string(names[input]); // copy: insertion may rehash
      groupInputs[arg] = input;
    }
    // The group's results take their preset names from the values the body
    // yields.
    Operation *yield = body.getTerminator();
    for (auto [result, yielded] :
         llvm::zip(fused->getResults(), yield->getOperands())) {
      auto it = preset.find(result);
      if (it != preset.end() && isa<OpResult>(yielded) &&
          yielded.getParentBlock() == &body && !preset.count(yielded))
        preset[yielded] = it->second;
    }
    if (failed(emitBlock(body)))
      return failure();
    for (auto [result, yielded] :
         llvm::zip(fused->getResults(), yield->getOperands())) {
      names[result] = std::string(names[yielded]);
      auto it = preset.find(result);
      if (it != preset.end() && names[result] != it->second) {
        // The yielded value was a body argument or already named.
        onnx::NodeProto &node = addNode("Identity", fused);
        node.add_input(names[result]);
        node.add_output(it->second);
        names[result] = it->second;
      }
    }
    return success();
  }

  LogicalResult emitQuantize(mlir::quant::QuantizeCastOp qcast) {
    auto type = cast<RankedTensorType>(qcast.getType());
    std::optional<quantization::TypeQuantization> q =
        quantization::getTypeQuantization(type.getElementType());
    if (!q)
      return qcast.emitError("cannot export the quantization ")
             << type.getElementType();
    std::string base = nodeBase(qcast);
    if (auto constant = qcast.getArg().getDefiningOp<hl::ConstantOp>()) {
      // A constant weight: stored quantized; only its DequantizeLinear is
      // written.
      std::optional<std::vector<float>> values =
          quantization::constantFloats(qcast.getArg());
      if (!values)
        return qcast.emitError("cannot read the constant to quantize");
      std::string bytes(values->size(), '\0');
      for (size_t i = 0; i < values->size(); ++i) {
        size_t c = quantization::channelOf(i, type.getShape(), q->axis);
        bytes[i] = static_cast<char>(q->params[c].quantize((*values)[i]));
      }
      std::string hint = names[qcast.getArg()] + "_quantized";
      onnx::TensorProto &t = *graph.add_initializer();
      std::string name = unique(hint);
      t.set_name(name);
      t.set_data_type(q->params.front().qmin >= 0 ? onnx::TensorProto::UINT8
                                                  : onnx::TensorProto::INT8);
      for (int64_t d : type.getShape())
        t.add_dims(d);
      t.set_raw_data(std::move(bytes));
      names[qcast.getResult()] = name;
      quantization[qcast.getResult()] = std::move(*q);
      return success(); // its DequantizeLinear writes the scales
    }
    addQDQNode("QuantizeLinear", qcast, *q, base, "_quantized");
    quantization[qcast.getResult()] = std::move(*q);
    return success();
  }

  /// QuantizeLinear or DequantizeLinear of `op`'s operand with `q`'s
  /// scale and zero point initializers; names `op`'s result.
  void addQDQNode(StringRef opType, Operation *op,
                  const quantization::TypeQuantization &q,
                  const std::string &base, StringRef suffix) {
    // A DequantizeLinear reuses its QuantizeLinear's initializers: one
    // scale per pair, as TensorRT requires of the two.
    std::string scale, zero;
    auto shared = paramNames.find(op->getOperand(0));
    if (shared != paramNames.end())
      std::tie(scale, zero) = shared->second;
    else
      addQuantParams(q, base, scale, zero);
    paramNames[op->getResult(0)] = {scale, zero};
    onnx::NodeProto &node = addNode(opType, op);
    node.add_input(names[op->getOperand(0)]);
    node.add_input(scale);
    node.add_input(zero);
    if (q.axis >= 0)
      setInt(node, "axis", q.axis);
    std::string out = nameFor(op->getResult(0), base + suffix.str());
    node.add_output(out);
    names[op->getResult(0)] = out;
  }

  LogicalResult emitDequantize(mlir::quant::DequantizeCastOp dcast) {
    auto it = quantization.find(dcast.getArg());
    std::optional<quantization::TypeQuantization> q =
        it != quantization.end()
            ? std::optional<quantization::TypeQuantization>(it->second)
            : quantization::getTypeQuantization(
                  cast<RankedTensorType>(dcast.getArg().getType())
                      .getElementType());
    if (!q)
      return dcast.emitError("cannot export the dequantization");
    std::string base = names[dcast.getArg()];
    addQDQNode("DequantizeLinear", dcast, *q, base, "_dequantized");
    return success();
  }

  static void setInt(onnx::NodeProto &node, StringRef name, int64_t value) {
    onnx::AttributeProto &a = *node.add_attribute();
    a.set_name(name.str());
    a.set_type(onnx::AttributeProto::INT);
    a.set_i(value);
  }

  /// Converts one inherent attribute; false for kinds ONNX has none of.
  bool convertAttribute(Attribute attr, onnx::AttributeProto &a) {
    if (auto integer = dyn_cast<IntegerAttr>(attr)) {
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(integer.getType().isUnsignedInteger()
                  ? static_cast<int64_t>(integer.getValue().getZExtValue())
                  : integer.getValue().getSExtValue());
      return true;
    }
    if (auto real = dyn_cast<FloatAttr>(attr)) {
      a.set_type(onnx::AttributeProto::FLOAT);
      a.set_f(static_cast<float>(real.getValueAsDouble()));
      return true;
    }
    if (auto text = dyn_cast<StringAttr>(attr)) {
      a.set_type(onnx::AttributeProto::STRING);
      a.set_s(text.getValue().str());
      return true;
    }
    if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr)) {
      a.set_type(onnx::AttributeProto::INTS);
      for (int64_t v : ints.asArrayRef())
        a.add_ints(v);
      return true;
    }
    if (auto floats = dyn_cast<DenseF32ArrayAttr>(attr)) {
      a.set_type(onnx::AttributeProto::FLOATS);
      for (float v : floats.asArrayRef())
        a.add_floats(v);
      return true;
    }
    if (auto typeAttr = dyn_cast<TypeAttr>(attr)) {
      int32_t element = onnxElementType(typeAttr.getValue());
      if (!element)
        return false;
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(element);
      return true;
    }
    if (auto array = dyn_cast<ArrayAttr>(attr)) {
      if (llvm::all_of(array, [](Attribute e) { return isa<StringAttr>(e); })) {
        a.set_type(onnx::AttributeProto::STRINGS);
        for (Attribute e : array)
          a.add_strings(cast<StringAttr>(e).getValue().str());
        return true;
      }
      if (llvm::all_of(array,
                       [](Attribute e) { return isa<IntegerAttr>(e); })) {
        a.set_type(onnx::AttributeProto::INTS);
        for (Attribute e : array)
          a.add_ints(cast<IntegerAttr>(e).getInt());
        return true;
      }
      return false;
    }
    if (auto elements = dyn_cast<ElementsAttr>(attr)) {
      std::optional<std::string> bytes = rawBytes(elements);
      int32_t element = onnxElementType(elements.getElementType());
      if (!bytes || !element)
        return false;
      a.set_type(onnx::AttributeProto::TENSOR);
      onnx::TensorProto &t = *a.mutable_t();
      t.set_data_type(element);
      for (int64_t d : cast<ShapedType>(elements.getType()).getShape())
        t.add_dims(d);
      t.set_raw_data(std::move(*bytes));
      return true;
    }
    return false;
  }

  static bool isZero(Attribute attr) {
    auto integer = dyn_cast<IntegerAttr>(attr);
    return integer && integer.getValue().isZero();
  }

  LogicalResult emitGeneric(Operation *op) {
    if (op->getNumRegions() != 0)
      return op->emitError("'")
             << op->getName() << "' (control flow) has no ONNX export yet";
    std::string key;
    for (char c : op->getName().stripDialect())
      if (c != '_')
        key += c;
    std::optional<std::string> opType = importer::findONNXOpType(key);
    if (!opType)
      return op->emitError("'")
             << op->getName() << "' has no ONNX operator to export to";
    std::optional<std::set<std::string>> schemaAttrs =
        importer::getSchemaAttributeNames(*opType, static_cast<int>(opset));
    if (!schemaAttrs)
      return op->emitError("ONNX ")
             << *opType << " has no schema at opset " << opset;
    // Reductions took their axes as an attribute before opset 18
    // (ReduceSum: before 13).
    bool axesAsAttribute = StringRef(*opType).starts_with("Reduce") &&
                           *opType != "ReduceSum" && opset < 18 &&
                           schemaAttrs->count("axes");
    onnx::NodeProto &node = addNode(*opType, op);

    // Inputs, with "" for absent optional operands between present ones.
    SmallVector<std::string> inputs;
    auto segments = op->getInherentAttr("operandSegmentSizes");
    auto sizes = segments ? dyn_cast_or_null<DenseI32ArrayAttr>(*segments)
                          : DenseI32ArrayAttr();
    if (sizes) {
      unsigned index = 0;
      for (int32_t size : sizes.asArrayRef()) {
        if (size == 0)
          inputs.push_back("");
        for (int32_t k = 0; k < size; ++k)
          inputs.push_back(names[op->getOperand(index++)]);
      }
    } else {
      for (Value operand : op->getOperands())
        inputs.push_back(names[operand]);
    }
    if (axesAsAttribute && op->getNumOperands() >= 2) {
      DenseIntElementsAttr axes;
      Value axesValue = op->getOperand(1);
      while (Value outer = groupInputs.lookup(axesValue))
        axesValue = outer;
      if (!matchPattern(axesValue, m_Constant(&axes)))
        return op->emitError("ONNX ") << *opType << " at opset " << opset
                                      << " needs constant axes to export";
      onnx::AttributeProto &a = *node.add_attribute();
      a.set_name("axes");
      a.set_type(onnx::AttributeProto::INTS);
      for (const APInt &v : axes.getValues<APInt>())
        a.add_ints(v.getSExtValue());
      inputs.resize(1);
    }
    while (!inputs.empty() && inputs.back().empty())
      inputs.pop_back();
    for (const std::string &input : inputs)
      node.add_input(input);

    for (StringAttr name : op->getRegisteredInfo()->getAttributeNames()) {
      if (name == "operandSegmentSizes" || name == "resultSegmentSizes")
        continue;
      std::optional<Attribute> value = op->getInherentAttr(name);
      if (!value || !*value)
        continue;
      onnx::AttributeProto converted;
      converted.set_name(name.str());
      if (!convertAttribute(*value, converted))
        return op->emitError("cannot export attribute '")
               << name.getValue() << "' = " << *value;
      if (!schemaAttrs->count(name.str())) {
        // e.g. Reshape's allowzero = 0 before opset 14, Resize's
        // keep_aspect_ratio_policy = "stretch" before opset 18.
        if (isZero(*value) ||
            importer::isNewerAttributeDefault(*opType, converted))
          continue;
        return op->emitError("attribute '")
               << name.getValue() << "' of ONNX " << *opType
               << " does not exist at opset " << opset;
      }
      *node.add_attribute() = std::move(converted);
    }

    // hl.cast's target is its result's element type; ONNX's Cast says it.
    if (isa<hl::CastOp>(op)) {
      int32_t to = onnxElementType(getElementTypeOrSelf(op->getResult(0)));
      if (!to)
        return op->emitError("cannot export a cast to ")
               << getElementTypeOrSelf(op->getResult(0));
      onnx::AttributeProto &a = *node.add_attribute();
      a.set_name("to");
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(to);
    }

    std::string base = nodeBase(op);
    for (OpResult result : op->getResults()) {
      std::string out =
          nameFor(result, op->getNumResults() == 1
                              ? base + "_output"
                              : base + "_output_" +
                                    std::to_string(result.getResultNumber()));
      node.add_output(out);
      names[result] = out;
    }
    return success();
  }

  const ONNXExportOptions &options;
  onnx::GraphProto &graph;
  int64_t opset = 13;
  llvm::DenseMap<Value, std::string> names;
  /// Names given in advance: graph outputs.
  llvm::DenseMap<Value, std::string> preset;
  std::vector<std::string> outputNames;
  llvm::StringSet<> taken, reserved, nodeNames;
  llvm::DenseMap<Value, quantization::TypeQuantization> quantization;
  /// Quantized value -> its scale and zero point initializers.
  llvm::DenseMap<Value, std::pair<std::string, std::string>> paramNames;
  /// Body argument of a fused group -> the group's operand.
  llvm::DenseMap<Value, Value> groupInputs;
};

} // namespace

LogicalResult exportONNX(ModuleOp module, const ONNXExportOptions &options,
                         std::string &bytes) {
  func::FuncOp func = module.lookupSymbol<func::FuncOp>("main");
  if (!func) {
    auto funcs = module.getOps<func::FuncOp>();
    if (funcs.empty() || std::next(funcs.begin()) != funcs.end())
      return module.emitError("ONNX export needs one function (or 'main')");
    func = *funcs.begin();
  }
  if (func.isExternal() || !func.getBody().hasOneBlock())
    return func.emitError("ONNX export needs a function with one block");

  onnx::ModelProto model;
  // IR version 8 (ONNX 1.10+): read by every runtime of the last years.
  model.set_ir_version(8);
  model.set_producer_name(options.producerName);
  int64_t opset = options.opset ? options.opset : Exporter::requiredOpset(func);
  onnx::OperatorSetIdProto &import = *model.add_opset_import();
  import.set_domain("");
  import.set_version(opset);
  onnx::GraphProto &graph = *model.mutable_graph();
  auto graphName = module->getAttrOfType<StringAttr>("hl.graph_name");
  graph.set_name(graphName ? graphName.getValue().str() : "strata");
  Exporter exporter(options, graph);
  if (failed(exporter.run(func, opset)))
    return failure();
  if (std::optional<std::string> error = importer::runONNXChecker(model, ""))
    return module.emitError("the exported ONNX model fails the ONNX "
                            "checker: ")
           << *error;
  if (!model.SerializeToString(&bytes))
    return module.emitError("cannot serialize the exported ONNX model");
  return success();
}

} // namespace strata
