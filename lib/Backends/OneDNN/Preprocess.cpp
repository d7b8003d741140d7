//===- Preprocess.cpp - an outlined partition as a oneDNN graph blob ------===//
//
// Writes the partition as the delegate's plain graph (onednn_graph.fbs):
// one tensor per value, constants as named data, one oneDNN op per edge op
// (two for an int8 convolution whose weights need both halves), written
// by the function its op kind maps to (GraphWriter.h). The fusions oneDNN
// takes were formed before, in the IR, by strata-edge-fuse with the
// backend's capability set (Builtin.cpp):
//
//   conv2d post [sum, activation]            convolution + sum + eltwise
//   conv_transpose2d post [activation]       deconvolution + eltwise
//   matmul post [add (bias row), activation] matmul + bias + eltwise
//   binary post [activation, quantize]       binary + eltwise + linear (s8)
//   mul post [add (shift), ...]              scale-shift (binary mul + add)
//   reduce_mean post [linear, quantize]      int8 global average pooling
//   edge.activation                          eltwise gelu_erf, swish, ...
//   edge.layer_norm                          layer_normalization
//
// Then the delegate's prepare step (oneDNN itself) picks layouts and
// pre-packs the weights; see lib/Runtime/Delegates/OneDNN.
//
//===----------------------------------------------------------------------===//
#include "GraphWriter.h"

#include "Edge/IR/EdgeAttributes.h"
#include "Edge/IR/EdgeConstants.h"
#include "Edge/IR/EdgeOps.h"
#include "strata/Runtime/Delegates/OneDNN.h"

#include "mlir/IR/TypeUtilities.h"

#include <cstring>

using namespace mlir;

namespace strata::onednn {

uint32_t GraphWriter::newTensor(Value value) {
  auto t = std::make_unique<fbs::TensorT>();
  // A dynamic extent is written at its bound, with its slot.
  ArrayRef<int64_t> bounds = extentBounds();
  ArrayRef<int64_t> slots = slotsOf(value);
  for (auto [d, extent] :
       llvm::enumerate(cast<RankedTensorType>(value.getType()).getShape())) {
    bool dynamic = !slots.empty() && slots[d] >= 0;
    t->dims.push_back(dynamic ? bounds[slots[d]] : extent);
    if (!slots.empty())
      t->dim_slots.push_back(static_cast<int32_t>(slots[d]));
  }
  if (std::optional<bool> isSigned = isSigned8(value.getType()))
    t->dtype = *isSigned && !unsignedValues.contains(value) ? fbs::DataType::S8
                                                            : fbs::DataType::U8;
  else if (getElementTypeOrSelf(value.getType()).isSignlessInteger(32))
    t->dtype = fbs::DataType::S32;
  uint32_t index = appendTensor(std::move(t));
  tensors[value] = index;
  return index;
}

FailureOr<uint32_t> GraphWriter::tensor(Value value) {
  if (std::optional<uint32_t> index = lookupTensor(value))
    return *index;
  auto constant = value.getDefiningOp<edge::ConstantOp>();
  if (!constant)
    return func.emitError("value used before it is defined");
  std::vector<uint8_t> bytes;
  if (std::optional<std::vector<float>> values =
          edge::readF32Constant(constant.getValue())) {
    bytes.resize(values->size() * sizeof(float));
    std::memcpy(bytes.data(), values->data(), bytes.size());
  } else if (isSigned8(value.getType())) {
    // int8 weights: their bytes as stored.
    auto elements = cast<ElementsAttr>(constant.getValue());
    auto dense = dyn_cast<DenseElementsAttr>(elements);
    if (dense && dense.isSplat()) {
      bytes.assign(elements.getNumElements(),
                   static_cast<uint8_t>(dense.getRawData().front()));
    } else {
      std::optional<ArrayRef<char>> raw = edge::getRawConstantData(elements);
      if (!raw ||
          static_cast<int64_t>(raw->size()) != elements.getNumElements())
        return constant.emitError("unreadable int8 constant");
      bytes.assign(raw->begin(), raw->end());
    }
  } else {
    return constant.emitError("the oneDNN delegate takes f32 or int8 "
                              "constants");
  }
  uint32_t index = newTensor(value);
  setConstant(index, std::move(bytes));
  return index;
}

FailureOr<std::vector<uint32_t>> GraphWriter::tensorsOf(ValueRange values) {
  std::vector<uint32_t> indices;
  for (Value v : values) {
    FailureOr<uint32_t> t = tensor(v);
    if (failed(t))
      return failure();
    indices.push_back(*t);
  }
  return indices;
}

uint32_t GraphWriter::constantTensor(ArrayRef<int64_t> dims,
                                     ArrayRef<float> values) {
  auto t = std::make_unique<fbs::TensorT>();
  t->dims.assign(dims.begin(), dims.end());
  uint32_t index = appendTensor(std::move(t));
  std::vector<uint8_t> bytes(values.size() * sizeof(float));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  setConstant(index, std::move(bytes));
  return index;
}

uint32_t GraphWriter::int8ConstantTensor(ArrayRef<int64_t> dims,
                                         ArrayRef<int8_t> values) {
  auto t = std::make_unique<fbs::TensorT>();
  t->dims.assign(dims.begin(), dims.end());
  t->dtype = fbs::DataType::S8;
  uint32_t index = appendTensor(std::move(t));
  auto *data = reinterpret_cast<const uint8_t *>(values.data());
  setConstant(index, std::vector<uint8_t>(data, data + values.size()));
  return index;
}

fbs::EltwiseKind eltwiseKindOf(edge::PostOpKind kind) {
  switch (kind) {
  case edge::PostOpKind::Relu:
    return fbs::EltwiseKind::Relu;
  case edge::PostOpKind::Clip:
    return fbs::EltwiseKind::Clip;
  case edge::PostOpKind::Swish:
    return fbs::EltwiseKind::Swish;
  case edge::PostOpKind::HardSwish:
    return fbs::EltwiseKind::HardSwish;
  case edge::PostOpKind::Linear:
    return fbs::EltwiseKind::Linear;
  default:
    break;
  }
  return fbs::EltwiseKind::GeluErf;
}

float eltwiseAlphaOf(edge::PostOpKind kind) {
  return kind == edge::PostOpKind::Swish ? 1.0f : 0.0f;
}

std::unique_ptr<fbs::PostOpT> activationPostOp(edge::PostOpKind kind) {
  auto post = std::make_unique<fbs::PostOpT>();
  post->eltwise = eltwiseKindOf(kind);
  post->alpha = eltwiseAlphaOf(kind);
  return post;
}

std::unique_ptr<fbs::PostOpT> linearPostOp(float alpha) {
  auto post = std::make_unique<fbs::PostOpT>();
  post->eltwise = fbs::EltwiseKind::Linear;
  post->alpha = alpha;
  post->beta = 0.0f;
  return post;
}

void GraphWriter::appendPostOps(fbs::OpT &out, Operation *op,
                                ArrayRef<uint32_t> sumInputs) {
  for (edge::PostOpAttr step : edge::getPostOpSteps(op)) {
    switch (step.getKind()) {
    case edge::PostOpKind::Sum: {
      auto sum = std::make_unique<fbs::PostOpT>();
      sum->is_sum = true;
      sum->sum_input = static_cast<int32_t>(sumInputs.front());
      sumInputs = sumInputs.drop_front();
      out.post_ops.push_back(std::move(sum));
      break;
    }
    case edge::PostOpKind::Add:
      break;
    case edge::PostOpKind::Quantize:
      out.post_ops.push_back(linearPostOp(1.0f / step.getAlphaF()));
      break;
    case edge::PostOpKind::Linear:
      out.post_ops.push_back(linearPostOp(step.getAlphaF()));
      break;
    case edge::PostOpKind::Relu:
    case edge::PostOpKind::Clip:
      out.post_ops.push_back(std::make_unique<fbs::PostOpT>());
      out.post_ops.back()->eltwise = eltwiseKindOf(step.getKind());
      out.post_ops.back()->alpha = step.getAlphaF();
      out.post_ops.back()->beta = step.getBetaF();
      break;
    default:
      out.post_ops.push_back(activationPostOp(step.getKind()));
      break;
    }
  }
}

LogicalResult GraphWriter::write() {
  findUnsignedValues(*this);
  Block &body = func.getBody().front();
  // Index arguments are extents the ops read (a reshape's sizes): the
  // tensors' slots carry them.
  for (BlockArgument arg : body.getArguments())
    if (isa<RankedTensorType>(arg.getType()))
      graph.inputs.push_back(newTensor(arg));
  graph.extent_bounds.assign(extentBounds().begin(), extentBounds().end());
  static const WriteTable table = [] {
    WriteTable t;
    addLinearWriters(t);
    addElementwiseWriters(t);
    addQuantizedWriters(t);
    return t;
  }();
  if (failed(writeOps(*this, table, "oneDNN")))
    return failure();
  FailureOr<std::vector<uint32_t>> outputs =
      tensorsOf(body.getTerminator()->getOperands());
  if (failed(outputs))
    return failure();
  graph.outputs = std::move(*outputs);
  return failure(missingSlots());
}

namespace {

/// Parses a boolean compile spec.
FailureOr<bool> flag(func::FuncOp func, const CompileSpecs &specs,
                     StringRef name, bool byDefault = false) {
  auto it = specs.find(name.str());
  if (it == specs.end())
    return byDefault;
  if (it->second == "false" || it->second == "0")
    return false;
  if (it->second == "true" || it->second == "1")
    return true;
  return func.emitError("compile spec '")
         << name << "' takes true or false, got '" << it->second << "'";
}

/// Parses a non-negative number compile spec.
FailureOr<double> nonNegative(func::FuncOp func, const CompileSpecs &specs,
                              StringRef name, double byDefault) {
  auto it = specs.find(name.str());
  if (it == specs.end())
    return byDefault;
  double value = 0;
  if (StringRef(it->second).getAsDouble(value) || !(value >= 0))
    return func.emitError("compile spec '")
           << name << "' takes a non-negative number, got '" << it->second
           << "'";
  return value;
}

} // namespace

FailureOr<PreprocessResult> preprocess(func::FuncOp func,
                                       const CompileSpecs &specs) {
  GraphWriter writer(func);
  if (failed(writer.write()))
    return failure();
  runtime::onednn::PrepareOptions options;
  // Allowed by default: the delegate's own Winograd kernel where its rule
  // says it pays, the layer's accuracy check passes (winograd_budget) and
  // the transformed weights fit the size budget (winograd_size_budget;
  // planWinograd in the runtime's Convolution.cpp, figures in
  // docs/delegation.md); false: never.
  FailureOr<bool> winograd = flag(func, specs, "winograd", /*byDefault=*/true);
  FailureOr<bool> keepPlain = flag(func, specs, "keep_plain_weights");
  FailureOr<bool> tune = flag(func, specs, "tune");
  if (failed(winograd) || failed(keepPlain) || failed(tune))
    return failure();
  options.winograd = *winograd;
  options.keepPlainWeights = *keepPlain;
  options.measure = *tune;
  FailureOr<double> budget =
      nonNegative(func, specs, "winograd_budget", options.winogradBudget);
  FailureOr<double> sizeShare = nonNegative(func, specs, "winograd_size_budget",
                                            options.winogradSizeShare);
  FailureOr<double> initLayerBytes = nonNegative(
      func, specs, "winograd_init_layer_bytes", options.winogradInitLayerBytes);
  if (failed(budget) || failed(sizeShare) || failed(initLayerBytes))
    return failure();
  options.winogradBudget = *budget;
  options.winogradSizeShare = *sizeShare;
  options.winogradInitLayerBytes = *initLayerBytes;
  if (auto it = specs.find("activation_layout"); it != specs.end()) {
    using Layout = runtime::onednn::PrepareOptions::Layout;
    if (it->second == "auto")
      options.activationLayout = Layout::Rule;
    else if (it->second == "open")
      options.activationLayout = Layout::Open;
    else if (it->second == "blocked")
      options.activationLayout = Layout::ChannelBlocked;
    else
      return func.emitError("compile spec 'activation_layout' takes auto, "
                            "open or blocked, got '")
             << it->second << "'";
  }
  // Tuning records: read from the file (which --tune may create), written
  // back with what this partition measured.
  std::string tuningFile;
  if (auto it = specs.find("tuning_file"); it != specs.end())
    tuningFile = it->second;
  runtime::onednn::TuningRecords records;
  if (!tuningFile.empty()) {
    std::string error;
    FailureOr<runtime::onednn::TuningRecords> read =
        readTuningRecords(tuningFile, /*mayBeMissing=*/*tune, error);
    if (failed(read))
      return func.emitError(error);
    records = std::move(*read);
    options.tuning = &records;
  }
  if (auto it = specs.find("tune_threads"); it != specs.end()) {
    int threads = 0;
    if (StringRef(it->second).getAsInteger(10, threads) || threads < 1)
      return func.emitError("compile spec 'tune_threads' takes a positive "
                            "integer, got '")
             << it->second << "'";
    options.tuneThreads = threads;
  }

  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(fbs::Graph::Pack(fbb, &writer.graph), fbs::GraphIdentifier());
  runtime::Result<runtime::onednn::PreparedGraph> prepared =
      runtime::onednn::prepareGraph({fbb.GetBufferPointer(), fbb.GetSize()},
                                    writer.constants, options);
  if (!prepared.ok())
    return func.emitError("oneDNN could not prepare partition @")
           << func.getSymName() << ": " << prepared.error().message();
  if (*tune && !tuningFile.empty() && prepared->tunedByMeasuring) {
    std::string error;
    if (failed(writeTuningRecords(tuningFile, records, error)))
      return func.emitError(error);
  }
  PreprocessResult result;
  result.processedBytes = std::move(prepared->blob);
  result.namedData = std::move(prepared->namedData);
  result.scratchBytes = prepared->scratchBytes;
  result.debugHandles = std::move(writer.debugHandles);
  result.notes = std::move(prepared->notes);
  return result;
}

} // namespace strata::onednn
