//===- ONNXImporter.cpp - ONNX ModelProto to an hl module -----------------===//
//
// The driver: parse, apply --input-shape, run the ONNX checker and shape
// inference, list unsupported operators all at once, then convert the graph
// node by node through the op table into one `func.func @main`.
//
//===----------------------------------------------------------------------===//
#include "strata/Import/ONNXImporter.h"

#include "ImportContext.h"
#include "OpsetNormalization.h"
#include "TopologicalSort.h"
#include "strata/Import/ONNXChecks.h"
#include "strata/Import/ShapeInferenceProcess.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fcntl.h>
#include <functional>
#include <set>
#include <unistd.h>

using namespace mlir;
using namespace strata::importer;

namespace strata {

namespace {

/// Converts one parsed model. Owns the proto so that initializer data can be
/// moved into resource blobs.
class ModelImporter {
public:
  ModelImporter(MLIRContext *context, StringRef fileName,
                const ImportOptions &options)
      : context(context), builder(context), fileName(fileName.str()),
        options(options) {
    tensorOptions.baseDir = llvm::sys::path::parent_path(fileName).str();
    tensorOptions.resourceThresholdBytes = options.resourceThresholdBytes;
    tensorOptions.maxTensorBytes =
        std::min(options.maxTensorBytes, kMaxTensorBytes);
  }

  OwningOpRef<ModuleOp> run(onnx::ModelProto &model);

private:
  Location fileLoc() { return FileLineColLoc::get(context, fileName, 0, 0); }
  Location nodeLoc(StringRef name) {
    return NameLoc::get(StringAttr::get(context, name), fileLoc());
  }
  LogicalResult checkOpsets(const onnx::ModelProto &model);
  LogicalResult applyInputShapes(onnx::GraphProto &graph);
  LogicalResult applyInputValues(onnx::GraphProto &graph);
  LogicalResult reportUnsupported(const onnx::ModelProto &model);
  LogicalResult checkTensorSizes(ModuleOp module);
  LogicalResult checkBeforeInference(const onnx::GraphProto &graph);
  LogicalResult convertGraph(onnx::GraphProto &graph, ModuleOp module);
  LogicalResult convertBody(onnx::GraphProto &graph, GraphState &state);
  LogicalResult convertSubgraph(onnx::GraphProto &graph, Region &region,
                                ArrayRef<Type> argTypes, GraphState &parent);

  MLIRContext *context;
  OpBuilder builder;
  std::string fileName;
  /// The symbols --input-shape gave dynamic dimensions, in name order.
  std::set<std::string> boundSymbols;
  const ImportOptions &options;
  TensorOptions tensorOptions;
  std::map<std::string, int> opsets;
  /// What the import changed to accept the model as ONNX Runtime does
  /// (sorted nodes, ...): the module's `hl.import_notes`, shown by --report.
  SmallVector<std::string> notes;
};

} // namespace

LogicalResult ModelImporter::checkOpsets(const onnx::ModelProto &model) {
  for (const onnx::OperatorSetIdProto &opset : model.opset_import()) {
    std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
    opsets[domain] = opset.version();
    // ai.onnx opsets past libonnx's are normalised to its newest.
    int known = domain.empty() ? importer::kNewestNormalizedOpset
                               : getMaxKnownOpset(domain);
    if (known > 0 && opset.version() > known)
      return emitError(fileLoc())
             << "opset " << opset.version() << " of domain '"
             << (domain.empty() ? "ai.onnx" : domain)
             << "' is newer than the newest the importer knows (" << known
             << ")";
    if (opset.version() < 1)
      return emitError(fileLoc())
             << "invalid opset version " << opset.version();
  }
  if (!opsets.count(""))
    return emitError(fileLoc()) << "the model imports no ai.onnx opset";
  return success();
}

LogicalResult ModelImporter::applyInputShapes(onnx::GraphProto &graph) {
  llvm::StringSet<> seen;
  for (onnx::ValueInfoProto &input : *graph.mutable_input()) {
    auto it = options.inputShapes.find(input.name());
    if (it == options.inputShapes.end())
      continue;
    seen.insert(input.name());
    onnx::TypeProto_Tensor *tensor =
        input.mutable_type()->mutable_tensor_type();
    onnx::TensorShapeProto *shape = tensor->mutable_shape();
    if (shape->dim_size() != 0 &&
        shape->dim_size() != static_cast<int>(it->second.size()))
      return emitError(fileLoc())
             << "--input-shape for '" << input.name() << "' has "
             << it->second.size() << " dimensions, the input has "
             << shape->dim_size();
    for (auto [i, want] : llvm::enumerate(it->second)) {
      if (static_cast<int>(i) >= shape->dim_size())
        shape->add_dim();
      onnx::TensorShapeProto::Dimension *dim = shape->mutable_dim(i);
      if (want.isFixed()) {
        if (dim->has_dim_value() && dim->dim_value() != want.extent)
          return emitError(fileLoc())
                 << "--input-shape for '" << input.name() << "' sets dimension "
                 << i << " to " << want.extent << ", the model fixes it to "
                 << dim->dim_value();
        dim->set_dim_value(want.extent);
        continue;
      }
      auto bounds = options.dimBounds.find(want.symbol);
      if (bounds == options.dimBounds.end())
        return emitError(fileLoc())
               << "--input-shape for '" << input.name() << "' names symbol '"
               << want.symbol << "' at dimension " << i
               << " without its range: give it once as " << want.symbol
               << ":LO..HI";
      if (dim->has_dim_value())
        return emitError(fileLoc())
               << "--input-shape for '" << input.name() << "' makes dimension "
               << i << " dynamic (" << want.symbol << ": " << bounds->second.min
               << ".." << bounds->second.max << "), the model fixes it to "
               << dim->dim_value();
      // A symbolic dimension: ONNX shape inference carries the symbol.
      dim->set_dim_param(want.symbol);
      boundSymbols.insert(want.symbol);
    }
  }
  for (const auto &entry : options.inputShapes)
    if (!seen.contains(entry.getKey()))
      return emitError(fileLoc()) << "--input-shape names '" << entry.getKey()
                                  << "', which is not a graph input";
  // The model's own symbolic dimensions that --dim bounds by name.
  std::set<std::string> modelSymbols;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (seen.contains(input.name()))
      continue;
    for (const onnx::TensorShapeProto::Dimension &dim :
         input.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_param() || dim.dim_param().empty())
        continue;
      modelSymbols.insert(dim.dim_param());
      if (options.namedDims.count(dim.dim_param()))
        boundSymbols.insert(dim.dim_param());
    }
  }
  for (const std::string &name : options.namedDims)
    if (!boundSymbols.count(name)) {
      std::string known;
      for (const std::string &symbol : modelSymbols)
        known += (known.empty() ? "" : ", ") + symbol;
      return emitError(fileLoc())
             << "--dim bounds '" << name
             << "', which no input's dimension names (the inputs' symbols: "
             << (known.empty() ? "none" : known) << ")";
    }
  return success();
}

/// Turns each input that --input-value freezes into an initializer of its
/// declared element type and shape (after --input-shape).
LogicalResult ModelImporter::applyInputValues(onnx::GraphProto &graph) {
  for (const auto &entry : options.inputValues) {
    auto *inputs = graph.mutable_input();
    auto it = llvm::find_if(*inputs, [&](const onnx::ValueInfoProto &info) {
      return info.name() == entry.getKey();
    });
    if (it == inputs->end())
      return emitError(fileLoc()) << "--input-value names '" << entry.getKey()
                                  << "', which is not a graph input";
    const onnx::TypeProto_Tensor &type = it->type().tensor_type();
    onnx::TensorProto tensor;
    tensor.set_name(it->name());
    tensor.set_data_type(type.elem_type());
    int64_t count = 1;
    for (const onnx::TensorShapeProto::Dimension &dim : type.shape().dim()) {
      if (!dim.has_dim_value())
        return emitError(fileLoc())
               << "--input-value for '" << entry.getKey()
               << "': the input's shape is not fixed; give it with "
                  "--input-shape";
      tensor.add_dims(dim.dim_value());
      count *= dim.dim_value();
    }
    ArrayRef<double> values = entry.getValue();
    if (static_cast<int64_t>(values.size()) != count)
      return emitError(fileLoc())
             << "--input-value for '" << entry.getKey() << "' gives "
             << values.size() << " value(s); the input holds " << count;
    for (double v : values) {
      switch (type.elem_type()) {
      case onnx::TensorProto::FLOAT:
        tensor.add_float_data(static_cast<float>(v));
        break;
      case onnx::TensorProto::DOUBLE:
        tensor.add_double_data(v);
        break;
      case onnx::TensorProto::INT64:
        tensor.add_int64_data(static_cast<int64_t>(v));
        break;
      case onnx::TensorProto::INT32:
      case onnx::TensorProto::INT8:
      case onnx::TensorProto::UINT8:
      case onnx::TensorProto::BOOL:
        tensor.add_int32_data(static_cast<int32_t>(v));
        break;
      default:
        return emitError(fileLoc()) << "--input-value for '" << entry.getKey()
                                    << "': inputs of ONNX element type "
                                    << type.elem_type() << " cannot be frozen";
      }
    }
    *graph.add_initializer() = std::move(tensor);
    inputs->erase(it);
    notes.push_back("input '" + entry.getKey().str() +
                    "' frozen to the given value(s) (--input-value)");
  }
  return success();
}

/// Refuses what libonnx's shape inference (Debian's 1.12) would read out of
/// bounds on: a convolution (Conv, ConvTranspose, ConvInteger, QLinearConv)
/// whose declared weight rank differs from its declared input rank (the
/// kernel shape is taken from the weight, then indexed per spatial
/// dimension of the input), a LayerNormalization whose axis is outside its
/// declared input's rank, a MaxUnpool whose declared indices' rank differs
/// from its input's, and an STFT whose declared signal is not of rank 3.
/// Sub-graphs included.
LogicalResult
ModelImporter::checkBeforeInference(const onnx::GraphProto &graph) {
  llvm::StringMap<int> ranks = importer::declaredRanks(graph);
  for (const onnx::NodeProto &node : graph.node()) {
    bool standard = node.domain().empty() || node.domain() == "ai.onnx";
    // The weight of each convolution form (QLinearConv's follows the
    // input's scale and zero point).
    int weightInput = -1;
    if (standard &&
        (node.op_type() == "Conv" || node.op_type() == "ConvTranspose" ||
         node.op_type() == "ConvInteger"))
      weightInput = 1;
    else if (standard && node.op_type() == "QLinearConv")
      weightInput = 3;
    if (weightInput > 0 && node.input_size() > weightInput) {
      auto input = ranks.find(node.input(0));
      auto weight = ranks.find(node.input(weightInput));
      if (input != ranks.end() && weight != ranks.end() &&
          input->second != weight->second)
        return emitError(nodeLoc(node.name()))
               << "node '" << node.name() << "' (" << node.op_type()
               << "): the weight has rank " << weight->second
               << ", the input rank " << input->second
               << "; they must be equal";
    }
    // MaxUnpool reads its indices' extents per dimension of X.
    if (standard && node.op_type() == "MaxUnpool" && node.input_size() >= 2) {
      auto input = ranks.find(node.input(0));
      auto indices = ranks.find(node.input(1));
      if (input != ranks.end() && indices != ranks.end() &&
          input->second != indices->second)
        return emitError(nodeLoc(node.name()))
               << "node '" << node.name() << "' (MaxUnpool): the indices have "
               << "rank " << indices->second << ", the input rank "
               << input->second << "; they must be equal";
    }
    // LayerNormalization copies the input's extents before `axis` into its
    // Mean and InvStdDev shapes without checking the axis against the rank.
    bool isLayerNorm = standard && node.op_type() == "LayerNormalization";
    if (isLayerNorm && node.input_size() >= 1) {
      auto input = ranks.find(node.input(0));
      for (const onnx::AttributeProto &attr : node.attribute())
        if (attr.name() == "axis" && input != ranks.end() &&
            (attr.i() < -input->second || attr.i() >= input->second))
          return emitError(nodeLoc(node.name()))
                 << "node '" << node.name() << "' (LayerNormalization): axis "
                 << attr.i() << " is outside the input's rank "
                 << input->second;
    }
    // STFT reads the signal's extents 0 to 2 ([batch, length, 1 or 2])
    // whatever its rank.
    bool isSTFT = standard && node.op_type() == "STFT";
    if (isSTFT && node.input_size() >= 1) {
      auto signal = ranks.find(node.input(0));
      if (signal != ranks.end() && signal->second != 3)
        return emitError(nodeLoc(node.name()))
               << "node '" << node.name() << "' (STFT): the signal has rank "
               << signal->second << "; it must be [batch, length, 1 or 2]";
    }
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g() && failed(checkBeforeInference(attr.g())))
        return failure();
      for (const onnx::GraphProto &g : attr.graphs())
        if (failed(checkBeforeInference(g)))
          return failure();
    }
  }
  return success();
}

/// Refuses a model with a tensor of static shape past kMaxTensorBytes (a
/// graph input, an inferred result, a folded constant): the later stages
/// size buffers and fold constants from these shapes.
LogicalResult ModelImporter::checkTensorSizes(ModuleOp module) {
  auto check = [&](Value value, Location loc) -> LogicalResult {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type || !type.getElementType().isIntOrFloat())
      return success();
    SmallVector<int64_t> shape;
    for (int64_t extent : type.getShape())
      shape.push_back(ShapedType::isDynamic(extent) ? 1 : extent);
    int64_t bytes = (type.getElementTypeBitWidth() + 7) / 8;
    if (getCheckedElementCount(shape, bytes, tensorOptions.maxTensorBytes))
      return success();
    return emitError(loc) << "a tensor of type " << type << " holds more than "
                          << tensorOptions.maxTensorBytes
                          << " bytes, the most a model's tensor may";
  };
  WalkResult walk = module.walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          if (failed(check(arg, op->getLoc())))
            return WalkResult::interrupt();
    for (Value result : op->getResults())
      if (failed(check(result, op->getLoc())))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult ModelImporter::reportUnsupported(const onnx::ModelProto &model) {
  bool ok = true;
  for (const OpCoverage &entry : modelCoverage(model)) {
    if (entry.supported)
      continue;
    ok = false;
    InFlightDiagnostic diag = emitError(fileLoc());
    diag << "unsupported ONNX operator '" << entry.opType << "' (domain '"
         << entry.domain << "', opset " << entry.opsetVersion << ") in "
         << entry.nodeNames.size() << " node(s): ";
    llvm::interleaveComma(entry.nodeNames, diag, [&](const std::string &n) {
      diag << "'" << n << "'";
    });
  }
  return success(ok);
}

/// Converts the initializers and nodes of `graph` at the builder's insertion
/// point; values (graph inputs included) are in `state.values`.
LogicalResult ModelImporter::convertBody(onnx::GraphProto &graph,
                                         GraphState &state) {
  for (onnx::TensorProto &init : *graph.mutable_initializer()) {
    Location loc = nodeLoc(init.name());
    FailureOr<ElementsAttr> value = convertTensor(init, loc, tensorOptions);
    if (failed(value))
      return failure();
    state.values[init.name()] = builder.create<hl::ConstantOp>(loc, *value);
  }
  const OpTable &table = getOpTable();
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    int64_t since =
        *getSchemaSinceVersion(domain, node.op_type(), opsets[domain]);
    Location loc = nodeLoc(node.name());
    for (const std::string &input : node.input())
      if (!input.empty() && !state.values.count(input))
        return emitError(loc) << "node '" << node.name() << "' ("
                              << node.op_type() << "): input '" << input
                              << "' is not produced by any earlier node, "
                                 "initializer or graph input";
    NodeContext ctx(state, node, since, loc);
    if (failed((*table.lookup(domain, node.op_type(), since))(ctx)))
      return failure();
    for (int i = 0; i < node.output_size(); ++i)
      if (ctx.hasOutput(i) && !state.values.count(node.output(i)))
        return ctx.emitError() << "internal error: output '" << node.output(i)
                               << "' was not produced";
  }
  return success();
}

/// Converts a sub-graph (If branch, Loop or Scan body) into the single block
/// of `region`: its inputs become block arguments (typed from the graph, or
/// from `argTypes` where the graph gives none), its outputs an hl.yield.
/// Values of the enclosing graphs stay visible (ONNX outer-scope names).
LogicalResult ModelImporter::convertSubgraph(onnx::GraphProto &graph,
                                             Region &region,
                                             ArrayRef<Type> argTypes,
                                             GraphState &parent) {
  auto addTypes = [&](const auto &list) {
    for (const onnx::ValueInfoProto &info : list)
      parent.valueTypes[info.name()] = &info.type();
  };
  addTypes(graph.input());
  addTypes(graph.output());
  addTypes(graph.value_info());
  for (auto [i, node] : llvm::enumerate(*graph.mutable_node()))
    if (node.name().empty())
      node.set_name(graph.name() + "/" + node.op_type() + "_" +
                    std::to_string(i));

  llvm::StringMap<Value> values = parent.values;
  Block *block = new Block();
  region.push_back(block);
  for (auto [i, input] : llvm::enumerate(graph.input())) {
    Type type = convertType(input.type(), context);
    auto ranked = dyn_cast_or_null<RankedTensorType>(type);
    if ((!type || (!ranked && i < argTypes.size())) && i < argTypes.size())
      type = argTypes[i];
    if (!type)
      return emitError(fileLoc())
             << "sub-graph '" << graph.name() << "': input '" << input.name()
             << "' has no tensor type";
    values[input.name()] = block->addArgument(type, fileLoc());
  }
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(block);
  GraphState state{builder, values, parent.valueTypes, tensorOptions,
                   parent.convertSubgraph};
  if (failed(convertBody(graph, state)))
    return failure();
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value v = values.lookup(output.name());
    if (!v)
      return emitError(fileLoc())
             << "sub-graph '" << graph.name() << "': output '" << output.name()
             << "' is not produced";
    results.push_back(v);
  }
  builder.create<hl::YieldOp>(fileLoc(), results);
  return success();
}

LogicalResult ModelImporter::convertGraph(onnx::GraphProto &graph,
                                          ModuleOp module) {
  llvm::StringMap<Value> values;
  llvm::StringMap<const onnx::TypeProto *> valueTypes;
  // Pointers into the graph, which outlives this conversion.
  auto addTypes = [&](const auto &list) {
    for (const onnx::ValueInfoProto &info : list)
      valueTypes[info.name()] = &info.type();
  };
  addTypes(graph.input());
  addTypes(graph.output());
  addTypes(graph.value_info());
  llvm::StringSet<> initializerNames;
  for (const onnx::TensorProto &init : graph.initializer())
    initializerNames.insert(init.name());

  // Signature: the non-initializer inputs, in order.
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<const onnx::ValueInfoProto *> args;
  for (const onnx::ValueInfoProto &input : graph.input()) {
    if (initializerNames.contains(input.name()))
      continue;
    SmallVector<std::string> dimParams;
    Type type = convertType(input.type(), context, &dimParams);
    if (!type)
      return emitError(fileLoc()) << "graph input '" << input.name()
                                  << "' is not a tensor of a supported type";
    NamedAttrList attrs;
    attrs.append("hl.name", builder.getStringAttr(input.name()));
    if (llvm::any_of(dimParams,
                     [](const std::string &p) { return !p.empty(); }))
      attrs.append("hl.dim_params",
                   builder.getStrArrayAttr(SmallVector<StringRef>(
                       dimParams.begin(), dimParams.end())));
    argTypes.push_back(type);
    argAttrs.push_back(attrs.getDictionary(context));
    args.push_back(&input);
  }

  builder.setInsertionPointToEnd(module.getBody());
  auto func = builder.create<func::FuncOp>(
      fileLoc(), "main", builder.getFunctionType(argTypes, {}));
  // The bounds of the dynamic dimensions --input-shape gave: symbol ->
  // [min, max]; the arguments name their symbols in hl.dim_params.
  if (!boundSymbols.empty()) {
    SmallVector<NamedAttribute> bounds;
    for (const std::string &symbol : boundSymbols) {
      const DimBounds &b = options.dimBounds.at(symbol);
      bounds.push_back(builder.getNamedAttr(
          symbol, builder.getDenseI64ArrayAttr({b.min, b.max})));
    }
    func->setAttr("hl.dim_bounds", builder.getDictionaryAttr(bounds));
  }
  // --max-extent: bounds of value-dependent extents by node, each naming a
  // node of an op whose result size depends on the data.
  if (!options.maxExtents.empty()) {
    static const llvm::StringSet<> valueDependent = {
        "NonZero", "Compress", "Unique", "NonMaxSuppression",
        "TopK",    "Range",    "Loop"};
    std::string candidates;
    llvm::StringSet<> nodes;
    // The graph's nodes and its sub-graphs' (a Loop in a Loop's body).
    std::function<void(const onnx::GraphProto &)> collect =
        [&](const onnx::GraphProto &g) {
          for (const onnx::NodeProto &node : g.node()) {
            if (valueDependent.contains(node.op_type())) {
              nodes.insert(node.name());
              candidates += (candidates.empty() ? "" : ", ") + node.name();
            }
            for (const onnx::AttributeProto &attr : node.attribute())
              if (attr.has_g())
                collect(attr.g());
          }
        };
    collect(graph);
    SmallVector<NamedAttribute> extents;
    for (const auto &[node, bound] : options.maxExtents) {
      if (!nodes.contains(node))
        return emitError(fileLoc())
               << "--max-extent names '" << node
               << "', which is no NonZero, Compress, Unique, "
                  "NonMaxSuppression, TopK, Range or Loop node of the graph "
                  "(those: "
               << (candidates.empty() ? "none" : candidates) << ")";
      extents.push_back(
          builder.getNamedAttr(node, builder.getI64IntegerAttr(bound)));
    }
    func->setAttr("hl.max_extents", builder.getDictionaryAttr(extents));
  }
  Block *entry = func.addEntryBlock();
  for (auto [i, attrs] : llvm::enumerate(argAttrs)) {
    func.setArgAttrs(i, attrs);
    values[args[i]->name()] = entry->getArgument(i);
  }
  builder.setInsertionPointToStart(entry);

  GraphState state{builder, values, valueTypes, tensorOptions,
                   [&](onnx::GraphProto &body, Region &region,
                       ArrayRef<Type> argTypes, GraphState &parent) {
                     return convertSubgraph(body, region, argTypes, parent);
                   }};
  if (failed(convertBody(graph, state)))
    return failure();

  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (const onnx::ValueInfoProto &output : graph.output()) {
    Value v = values.lookup(output.name());
    if (!v)
      return emitError(fileLoc()) << "graph output '" << output.name()
                                  << "' is not produced by any node";
    results.push_back(v);
    resultAttrs.push_back(builder.getDictionaryAttr(
        builder.getNamedAttr("hl.name", builder.getStringAttr(output.name()))));
  }
  builder.create<func::ReturnOp>(fileLoc(), results);
  // Folding shape chains leaves intermediate constants without users.
  SmallVector<Operation *> dead;
  for (Operation &op : *entry)
    if (isa<hl::ConstantOp>(op) && op.use_empty())
      dead.push_back(&op);
  for (Operation *op : dead)
    op->erase();
  func.setFunctionType(
      builder.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, attrs] : llvm::enumerate(resultAttrs))
    func.setResultAttrs(i, attrs);
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run(onnx::ModelProto &model) {
  context->loadDialect<hl::HLDialect, func::FuncDialect>();
  if (!model.has_graph())
    return emitError(fileLoc()) << "the model has no graph", nullptr;
  if (failed(checkOpsets(model)) ||
      failed(applyInputShapes(*model.mutable_graph())) ||
      failed(applyInputValues(*model.mutable_graph())))
    return nullptr;
  // Every node gets a name: diagnostics and locations refer to it.
  for (auto [i, node] : llvm::enumerate(*model.mutable_graph()->mutable_node()))
    if (node.name().empty())
      node.set_name(node.op_type() + "_" + std::to_string(i));
  // ONNX Runtime accepts nodes in any order; so does the importer.
  std::string sortError;
  FailureOr<importer::SortResult> sorted =
      importer::sortTopologically(*model.mutable_graph(), {}, sortError);
  if (failed(sorted))
    return emitError(fileLoc()) << sortError, nullptr;
  if (sorted->movedNodes)
    notes.push_back("the nodes were not in topological order; " +
                    std::to_string(sorted->movedNodes) +
                    " node(s) moved into dataflow order");
  std::string normalizeError;
  FailureOr<importer::NormalizationResult> normalized =
      importer::normalizeToCheckedOpset(model, normalizeError);
  if (failed(normalized))
    return emitError(fileLoc()) << normalizeError, nullptr;
  if (normalized->fromOpset) {
    opsets[""] = importer::kNewestCheckedOpset;
    std::string note =
        "ai.onnx opset " + std::to_string(normalized->fromOpset) +
        " normalised to opset " + std::to_string(importer::kNewestCheckedOpset);
    if (normalized->fromIRVersion)
      note += " (IR version " + std::to_string(normalized->fromIRVersion) +
              " checked as " + std::to_string(model.ir_version()) + ")";
    if (!normalized->rewritten.empty()) {
      note += "; rewritten:";
      for (const auto &[op, count] : normalized->rewritten)
        note += " " + op + " x" + std::to_string(count);
    }
    notes.push_back(note);
  }
  if (options.runChecker)
    if (std::optional<std::string> error =
            runONNXChecker(model, tensorOptions.baseDir))
      return emitError(fileLoc()) << "ONNX checker: " << *error, nullptr;
  if (failed(checkBeforeInference(model.graph())))
    return nullptr;
  if (options.runShapeInference)
    if (std::optional<std::string> error =
            options.containShapeInference
                ? runONNXShapeInferenceContained(model)
                : runONNXShapeInference(model))
      return emitError(fileLoc()) << "ONNX shape inference: " << *error,
             nullptr;
  importer::restoreDeferredAttributes(model, *normalized);
  if (failed(reportUnsupported(model)))
    return nullptr;

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc());
  if (!model.graph().name().empty())
    (*module)->setAttr("hl.graph_name",
                       builder.getStringAttr(model.graph().name()));
  if (failed(convertGraph(*model.mutable_graph(), *module)) ||
      failed(checkTensorSizes(*module)) || failed(verify(*module)))
    return nullptr;
  int64_t int8Compute = 0;
  module->walk(
      [&](hl::MatMulNBitsOp op) { int8Compute += op.getAccuracyLevel() == 4; });
  if (int8Compute)
    notes.push_back(std::to_string(int8Compute) +
                    " MatMulNBits node(s) at accuracy_level 4 quantize their "
                    "activations to int8 per row and block, as ONNX Runtime "
                    "computes them");
  if (!notes.empty())
    (*module)->setAttr("hl.import_notes",
                       builder.getStrArrayAttr(
                           SmallVector<StringRef>(notes.begin(), notes.end())));
  return module;
}

OwningOpRef<ModuleOp> importONNXFile(StringRef path, MLIRContext *context,
                                     const ImportOptions &options) {
  Location loc = FileLineColLoc::get(context, path, 0, 0);
  int fd = ::open(path.str().c_str(), O_RDONLY);
  if (fd < 0)
    return emitError(loc) << "cannot open '" << path << "'", nullptr;
  onnx::ModelProto model;
  LogicalResult parsed = [&] {
    // Streamed: the file is never held in memory next to the proto.
    google::protobuf::io::FileInputStream in(fd, /*block_size=*/1 << 20);
    return parseModel(in, model, loc);
  }();
  ::close(fd);
  if (failed(parsed))
    return nullptr;
  return ModelImporter(context, path, options).run(model);
}

OwningOpRef<ModuleOp> importONNXBytes(StringRef bytes, StringRef bufferName,
                                      MLIRContext *context,
                                      const ImportOptions &options) {
  Location loc = FileLineColLoc::get(context, bufferName, 0, 0);
  onnx::ModelProto model;
  google::protobuf::io::ArrayInputStream in(bytes.data(), bytes.size());
  if (failed(parseModel(in, model, loc)))
    return nullptr;
  return ModelImporter(context, bufferName, options).run(model);
}

} // namespace strata
