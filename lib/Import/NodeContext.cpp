//===- NodeContext.cpp - the op table and the handlers' view of a node ----===//
#include "ImportContext.h"

#include "HL/IR/HLShapeInference.h"
#include "strata/Support/ShapeInference.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"

using namespace mlir;

namespace strata::importer {

//===----------------------------------------------------------------------===//
// OpTable
//===----------------------------------------------------------------------===//

void OpTable::on(StringRef opType, int64_t sinceVersion, Handler handler,
                 StringRef domain) {
  handlers[{domain.str(), opType.str()}][sinceVersion] = std::move(handler);
}

const Handler *OpTable::lookup(StringRef domain, StringRef opType,
                               int64_t sinceVersion) const {
  if (domain == "ai.onnx")
    domain = "";
  auto it = handlers.find({domain.str(), opType.str()});
  if (it == handlers.end())
    return nullptr;
  // The entry with the largest since_version <= sinceVersion.
  auto entry = it->second.upper_bound(sinceVersion);
  if (entry == it->second.begin())
    return nullptr;
  return &std::prev(entry)->second;
}

const OpTable &getOpTable() {
  static const OpTable table = [] {
    OpTable t;
    populateElementwiseHandlers(t);
    populateNNHandlers(t);
    populateReductionHandlers(t);
    populateTensorHandlers(t);
    populateShapeHandlers(t);
    populateQuantHandlers(t);
    populateSignalHandlers(t);
    populateVisionHandlers(t);
    populateControlFlowHandlers(t);
    return t;
  }();
  return table;
}

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

InFlightDiagnostic NodeContext::emitError() {
  return mlir::emitError(location)
         << "node '" << node.name() << "' (" << node.op_type() << "-"
         << opsetVersion << "): ";
}

Value NodeContext::input(unsigned i) {
  if (i >= static_cast<unsigned>(node.input_size()) || node.input(i).empty())
    return {};
  return state.values.lookup(node.input(i));
}

SmallVector<Value> NodeContext::presentInputs() {
  SmallVector<Value> result;
  for (unsigned i = 0, e = numInputs(); i < e; ++i)
    if (Value v = input(i))
      result.push_back(v);
  return result;
}

void NodeContext::refineOutputShape(unsigned i, ArrayRef<int64_t> shape,
                                    Type elementType) {
  Type inferred = outputType(i, elementType);
  auto ranked = dyn_cast<RankedTensorType>(inferred);
  if (ranked && ranked.hasStaticShape())
    return;
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return;
  if (refined.size() <= i)
    refined.resize(i + 1);
  refined[i] = RankedTensorType::get(shape, getElementTypeOrSelf(inferred));
}

Type NodeContext::valueDependentType(
    unsigned i, ArrayRef<int64_t> dims,
    std::optional<SmallVector<int64_t>> implied, Type fallbackElement) {
  Type type = outputType(i, fallbackElement);
  if (implied)
    type = RankedTensorType::get(*implied, getElementTypeOrSelf(type));
  auto ranked = dyn_cast<RankedTensorType>(type);
  if (!ranked)
    return type;
  SmallVector<int64_t> shape(ranked.getShape());
  for (int64_t dim : dims) {
    int64_t d = dim < 0 ? dim + ranked.getRank() : dim;
    if (d >= 0 && d < ranked.getRank())
      shape[d] = ShapedType::kDynamic;
  }
  return RankedTensorType::get(shape, ranked.getElementType());
}

Type NodeContext::outputType(unsigned i, Type fallbackElement) {
  if (i < refined.size() && refined[i])
    return refined[i];
  if (hasOutput(i))
    if (const onnx::TypeProto *type = state.valueTypes.lookup(node.output(i)))
      if (Type converted = convertType(*type, getContext()))
        return converted;
  if (!fallbackElement)
    for (unsigned j = 0, e = numInputs(); j < e && !fallbackElement; ++j)
      if (Value v = input(j))
        fallbackElement = getElementTypeOrSelf(v.getType());
  if (!fallbackElement)
    fallbackElement = builder().getF32Type();
  return UnrankedTensorType::get(fallbackElement);
}

const onnx::AttributeProto *NodeContext::attr(StringRef name) const {
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::getInt(StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : defaultValue;
}

float NodeContext::getFloat(StringRef name, float defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : defaultValue;
}

std::string NodeContext::getString(StringRef name,
                                   StringRef defaultValue) const {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : defaultValue.str();
}

std::optional<SmallVector<int64_t>> NodeContext::getInts(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

std::optional<SmallVector<float>> NodeContext::getFloats(StringRef name) const {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return std::nullopt;
  return SmallVector<float>(a->floats().begin(), a->floats().end());
}

void NodeContext::setOutput(unsigned i, Value value) {
  if (hasOutput(i))
    state.values[node.output(i)] = value;
}

void NodeContext::setOutputs(ValueRange values) {
  for (auto [i, v] : llvm::enumerate(values))
    setOutput(i, v);
}

LogicalResult NodeContext::convertSubgraph(StringRef name, Region &region,
                                           ArrayRef<Type> argTypes) {
  for (onnx::AttributeProto &a : *node.mutable_attribute())
    if (a.name() == name && a.has_g())
      return state.convertSubgraph(*a.mutable_g(), region, argTypes, state);
  return emitError() << "missing graph attribute '" << name << "'";
}

LogicalResult NodeContext::inlineSubgraph(StringRef name) {
  // Converted into a region of its own, then moved to the insertion point:
  // the sub-graph's outer-scope uses are values of this block already.
  Region region;
  if (failed(convertSubgraph(name, region)))
    return failure();
  Block &body = region.front();
  if (body.getNumArguments() != 0)
    return emitError() << "graph attribute '" << name
                       << "' takes inputs; it cannot be inlined";
  Operation *terminator = body.getTerminator();
  SmallVector<Value> results(terminator->getOperands());
  if (results.size() != numOutputs())
    return emitError() << "graph attribute '" << name << "' yields "
                       << results.size() << " value(s) for " << numOutputs()
                       << " output(s)";
  terminator->erase();
  Block *block = builder().getInsertionBlock();
  block->getOperations().splice(builder().getInsertionPoint(),
                                body.getOperations());
  setOutputs(results);
  return success();
}

Value NodeContext::constI64(ArrayRef<int64_t> values, bool scalar) {
  auto type = scalar
                  ? RankedTensorType::get({}, builder().getI64Type())
                  : RankedTensorType::get({static_cast<int64_t>(values.size())},
                                          builder().getI64Type());
  return builder().create<hl::ConstantOp>(
      location, DenseIntElementsAttr::get(type, values));
}

Value NodeContext::constScalar(Type elementType, double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element;
  if (auto floatType = dyn_cast<FloatType>(elementType))
    element = FloatAttr::get(floatType, value);
  else
    element = IntegerAttr::get(elementType, static_cast<int64_t>(value));
  return builder().create<hl::ConstantOp>(
      location, DenseElementsAttr::get(type, element));
}

FailureOr<Value> NodeContext::constFromTensorAttr(StringRef name) {
  onnx::AttributeProto *a = nullptr;
  for (onnx::AttributeProto &candidate : *node.mutable_attribute())
    if (candidate.name() == name)
      a = &candidate;
  if (!a || !a->has_t())
    return emitError() << "missing tensor attribute '" << name << "'",
           failure();
  FailureOr<ElementsAttr> value =
      convertTensor(*a->mutable_t(), location, state.tensorOptions);
  if (failed(value))
    return failure();
  return builder().create<hl::ConstantOp>(location, *value).getResult();
}

/// Converts one attribute generically (ints to i64, floats to f32, lists to
/// dense arrays, tensors to elements attributes).
static FailureOr<Attribute> convertAttribute(NodeContext &ctx,
                                             onnx::AttributeProto &a,
                                             const TensorOptions &options) {
  Builder &b = ctx.builder();
  switch (a.type()) {
  case onnx::AttributeProto::INT:
    return Attribute(b.getI64IntegerAttr(a.i()));
  case onnx::AttributeProto::FLOAT:
    return Attribute(b.getF32FloatAttr(a.f()));
  case onnx::AttributeProto::STRING:
    return Attribute(b.getStringAttr(a.s()));
  case onnx::AttributeProto::INTS:
    return Attribute(b.getDenseI64ArrayAttr(
        SmallVector<int64_t>(a.ints().begin(), a.ints().end())));
  case onnx::AttributeProto::STRINGS:
    return Attribute(b.getStrArrayAttr(
        SmallVector<StringRef>(a.strings().begin(), a.strings().end())));
  case onnx::AttributeProto::FLOATS:
    return Attribute(b.getDenseF32ArrayAttr(
        SmallVector<float>(a.floats().begin(), a.floats().end())));
  case onnx::AttributeProto::TENSOR: {
    FailureOr<ElementsAttr> value =
        convertTensor(*a.mutable_t(), ctx.loc(), options);
    if (failed(value))
      return failure();
    return Attribute(*value);
  }
  default:
    ctx.emitError() << "attribute '" << a.name() << "' has an unsupported type";
    return failure();
  }
}

LogicalResult NodeContext::convertGeneric(StringRef opName,
                                          ArrayRef<StringRef> skip,
                                          unsigned operandGroups,
                                          unsigned resultGroups) {
  std::optional<RegisteredOperationName> info =
      RegisteredOperationName::lookup(opName, getContext());
  if (!info)
    return emitError() << "internal error: '" << opName
                       << "' is not registered";
  OperationState op(location, opName);
  op.addOperands(presentInputs());
  ArrayRef<StringAttr> known = info->getAttributeNames();
  for (onnx::AttributeProto &a : *node.mutable_attribute()) {
    if (llvm::is_contained(skip, a.name()))
      continue;
    if (!llvm::any_of(known,
                      [&](StringAttr n) { return n.getValue() == a.name(); }))
      return emitError() << "attribute '" << a.name()
                         << "' is not supported by the importer";
    FailureOr<Attribute> value =
        convertAttribute(*this, a, state.tensorOptions);
    if (failed(value))
      return failure();
    op.addAttribute(a.name(), *value);
  }
  Builder &b = builder();
  if (operandGroups) {
    if (numInputs() > operandGroups)
      return emitError() << "too many inputs";
    SmallVector<int32_t> sizes;
    for (unsigned i = 0; i < operandGroups; ++i)
      sizes.push_back(input(i) ? 1 : 0);
    op.addAttribute("operandSegmentSizes", b.getDenseI32ArrayAttr(sizes));
  }
  SmallVector<unsigned> resultIndices;
  if (resultGroups) {
    SmallVector<int32_t> sizes;
    for (unsigned i = 0; i < resultGroups; ++i) {
      sizes.push_back(hasOutput(i) ? 1 : 0);
      if (hasOutput(i))
        resultIndices.push_back(i);
    }
    op.addAttribute("resultSegmentSizes", b.getDenseI32ArrayAttr(sizes));
  } else {
    unsigned numResults = numOutputs();
    while (numResults > 0 && !hasOutput(numResults - 1))
      --numResults;
    for (unsigned i = 0; i < numResults; ++i)
      resultIndices.push_back(i);
  }
  for (unsigned i : resultIndices)
    op.addTypes(outputType(i));
  SmallVector<Value> results = refineAndFold(builder().create(op));
  for (auto [index, value] : llvm::zip(resultIndices, results))
    setOutput(index, value);
  return success();
}

SmallVector<Value> NodeContext::refineAndFold(Operation *created) {
  // ONNX's inference leaves a result open where a shape computation it does
  // not follow feeds the op (a Reshape whose shape went through Cast and
  // Slice, Pad's pads from Concat(Split(constant))); the operands, folded
  // by now, may fix it. Refined here, the folders below and the users'
  // verifiers see the static type.
  if (created->getNumResults() > 0) {
    Value result = created->getResult(0);
    auto type = dyn_cast<TensorType>(result.getType());
    if (type && !type.hasStaticShape())
      if (std::optional<SmallVector<int64_t>> shape =
              hl::inferStaticResultShape(created))
        if (!type.hasRank() ||
            strata::isCompatibleShape(type.getShape(), *shape))
          result.setType(RankedTensorType::get(*shape, type.getElementType()));
  }
  SmallVector<Value> results(created->getResults());
  SmallVector<OpFoldResult> folded;
  if (succeeded(created->fold(folded)) && !folded.empty()) {
    for (auto [i, f] : llvm::enumerate(folded)) {
      if (auto v = llvm::dyn_cast_if_present<Value>(f)) {
        results[i] = v;
        continue;
      }
      Operation *c = created->getDialect()->materializeConstant(
          builder(), cast<Attribute>(f), results[i].getType(), location);
      if (!c) {
        results.assign(created->result_begin(), created->result_end());
        break;
      }
      results[i] = c->getResult(0);
    }
    if (created->use_empty() && results[0] != created->getResult(0))
      created->erase();
  }
  return results;
}

} // namespace strata::importer
