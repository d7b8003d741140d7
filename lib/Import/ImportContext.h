//===- ImportContext.h - what ONNX op handlers see --------------*- C++ -*-===//
//
// Private to lib/Import. The importer walks the graph and hands each node to
// the handler that the one op table (OpTable) names for its (domain,
// op_type, since_version). A handler reads the node through NodeContext and
// builds hl ops; opset normalisation happens in handlers and nowhere else.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_IMPORT_IMPORTCONTEXT_H
#define STRATA_LIB_IMPORT_IMPORTCONTEXT_H

#include "HL/IR/HLOps.h"
#include "strata/Support/Limits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace google::protobuf::io {
class ZeroCopyInputStream;
} // namespace google::protobuf::io

namespace strata {
struct OpCoverage;
} // namespace strata

namespace strata::importer {

class NodeContext;

/// Parses a ModelProto from `in`; emits an error at `loc` on failure.
mlir::LogicalResult parseModel(google::protobuf::io::ZeroCopyInputStream &in,
                               onnx::ModelProto &model, mlir::Location loc);

/// Every (domain, op_type, since_version) of `model` (sub-graphs included)
/// with its node names and whether the op table supports it.
std::vector<OpCoverage> modelCoverage(const onnx::ModelProto &model);

/// A handler converts one node; it emits an error and fails when it cannot.
using Handler = std::function<mlir::LogicalResult(NodeContext &)>;

/// The one table from (domain, op_type, since_version) to handlers. A model
/// whose operator schema has since_version V uses the entry with the largest
/// registered since_version <= V.
class OpTable {
public:
  /// Registers `handler` for `opType` from opset `sinceVersion` on.
  void on(llvm::StringRef opType, int64_t sinceVersion, Handler handler,
          llvm::StringRef domain = "");
  /// The handler for an operator whose schema has `sinceVersion`, or null.
  const Handler *lookup(llvm::StringRef domain, llvm::StringRef opType,
                        int64_t sinceVersion) const;
  /// Every registered (domain, op type) with its handlers by since_version
  /// (domain "" is ai.onnx), in (domain, op type) order.
  const std::map<std::pair<std::string, std::string>,
                 std::map<int64_t, Handler>> &
  entries() const {
    return handlers;
  }

private:
  std::map<std::pair<std::string, std::string>, std::map<int64_t, Handler>>
      handlers;
};

/// The table, populated on first use by the populate* functions below.
const OpTable &getOpTable();

/// Per-family registration (lib/Import/Handlers/*.cpp).
void populateElementwiseHandlers(OpTable &table);
void populateNNHandlers(OpTable &table);
void populateReductionHandlers(OpTable &table);
void populateTensorHandlers(OpTable &table);
void populateShapeHandlers(OpTable &table);
void populateQuantHandlers(OpTable &table);
void populateSignalHandlers(OpTable &table);
void populateVisionHandlers(OpTable &table);
void populateControlFlowHandlers(OpTable &table);

/// Converts an ONNX element type to MLIR, or null for unsupported ones
/// (strings, complex).
mlir::Type convertElementType(int32_t onnxType, mlir::MLIRContext *context);

/// Converts a tensor type proto; `dimParams` (if given) receives the
/// dim_param names ("" for other dimensions). Null for non-tensor types.
mlir::Type convertType(const onnx::TypeProto &type, mlir::MLIRContext *context,
                       llvm::SmallVectorImpl<std::string> *dimParams = nullptr);

/// The element count of `shape` when it is non-negative and the tensor
/// holds at most `maxBytes` with `elementBytes` per element; otherwise
/// std::nullopt (never an overflowed product).
std::optional<int64_t> getCheckedElementCount(llvm::ArrayRef<int64_t> shape,
                                              int64_t elementBytes,
                                              int64_t maxBytes);

/// How tensors are converted to attributes.
struct TensorOptions {
  /// Directory against which external data paths resolve.
  std::string baseDir;
  /// Tensors of at least this many bytes become dense_resource blobs.
  int64_t resourceThresholdBytes = 64;
  /// The most bytes one tensor may hold (ImportOptions::maxTensorBytes).
  int64_t maxTensorBytes = kMaxTensorBytes;
};

/// Converts a TensorProto to an ElementsAttr. Large tensors become
/// dense_resource blobs; when `tensor` is mutable its raw_data is moved into
/// the blob rather than copied. Emits an error at `loc` on failure.
mlir::FailureOr<mlir::ElementsAttr> convertTensor(onnx::TensorProto &tensor,
                                                  mlir::Location loc,
                                                  const TensorOptions &options);

struct GraphState;

/// Converts a sub-graph into a region's single block (see NodeContext::
/// convertSubgraph).
using SubgraphConverter = std::function<mlir::LogicalResult(
    onnx::GraphProto &, mlir::Region &, llvm::ArrayRef<mlir::Type>,
    GraphState &)>;

/// Shared state of one graph conversion that handlers reach through
/// NodeContext.
struct GraphState {
  mlir::OpBuilder &builder;
  llvm::StringMap<mlir::Value> &values;
  llvm::StringMap<const onnx::TypeProto *> &valueTypes;
  const TensorOptions &tensorOptions;
  SubgraphConverter convertSubgraph;
};

/// One node as a handler sees it: inputs as Values, attributes with ONNX
/// defaults, inferred result types, and helpers to build hl ops.
class NodeContext {
public:
  NodeContext(GraphState &state, onnx::NodeProto &node, int64_t opset,
              mlir::Location loc)
      : state(state), node(node), opsetVersion(opset), location(loc) {}

  /// The node's op type and the since_version of its schema.
  llvm::StringRef opType() const { return node.op_type(); }
  int64_t opset() const { return opsetVersion; }
  mlir::Location loc() const { return location; }
  mlir::OpBuilder &builder() { return state.builder; }
  mlir::MLIRContext *getContext() { return state.builder.getContext(); }

  /// Emits an error naming the node.
  mlir::InFlightDiagnostic emitError();

  /// Number of inputs as listed (absent optional inputs included).
  unsigned numInputs() const { return node.input_size(); }
  /// Input `i`, or null when absent (empty name or past the end).
  mlir::Value input(unsigned i);
  /// Every present input, in order.
  llvm::SmallVector<mlir::Value> presentInputs();
  /// Number of outputs as listed.
  unsigned numOutputs() const { return node.output_size(); }
  /// Whether output `i` is used (listed with a non-empty name).
  bool hasOutput(unsigned i) const {
    return i < static_cast<unsigned>(node.output_size()) &&
           !node.output(i).empty();
  }
  /// The inferred type of output `i`; an unranked tensor of `fallback`'s
  /// element type (or the first input's) when ONNX inferred none.
  mlir::Type outputType(unsigned i, mlir::Type fallbackElement = {});
  /// outputType(i) with dimensions `dims` (negative ones count from the
  /// end) made dynamic: extents that depend on the data (NonZero's count),
  /// which a declared shape must not fix (a node test declares the extent
  /// of its one example). Unranked stays unranked.
  /// With `implied` (the shape the operands imply, when they are ranked)
  /// that shape is taken instead of the declared one, whose other extents
  /// may be symbols the operands resolve.
  mlir::Type valueDependentType(
      unsigned i, llvm::ArrayRef<int64_t> dims,
      std::optional<llvm::SmallVector<int64_t>> implied = std::nullopt,
      mlir::Type fallbackElement = {});
  /// Offers a static shape for output `i`, used when ONNX shape inference
  /// left that output without a static shape (it cannot resolve every shape
  /// computation; hl's folders need static result types).
  void refineOutputShape(unsigned i, llvm::ArrayRef<int64_t> shape,
                         mlir::Type elementType = {});

  /// Attribute queries; defaults are ONNX's defaults given by the caller.
  const onnx::AttributeProto *attr(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t defaultValue) const;
  float getFloat(llvm::StringRef name, float defaultValue) const;
  std::string getString(llvm::StringRef name,
                        llvm::StringRef defaultValue) const;
  std::optional<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name) const;
  std::optional<llvm::SmallVector<float>> getFloats(llvm::StringRef name) const;

  /// Binds output `i` to `value` (its type is refined to the inferred one
  /// only by the op that built it).
  void setOutput(unsigned i, mlir::Value value);
  /// Binds outputs in order; absent outputs are skipped.
  void setOutputs(mlir::ValueRange values);

  /// Builds an i64 constant: 1-D of `values`, or a scalar when `scalar`.
  mlir::Value constI64(llvm::ArrayRef<int64_t> values, bool scalar = false);
  /// Builds a scalar (rank 0) constant of `elementType` holding `value`.
  mlir::Value constScalar(mlir::Type elementType, double value);
  /// Converts a tensor attribute into a constant.
  mlir::FailureOr<mlir::Value> constFromTensorAttr(llvm::StringRef name);

  /// Builds `OpTy` with `resultType`, gives its first result the static
  /// shape its operands imply where `resultType` leaves it open, and folds
  /// it when its folder allows.
  template <typename OpTy, typename... Args>
  mlir::Value create(mlir::Type resultType, Args &&...args) {
    return refineAndFold(builder()
                             .create<OpTy>(location, resultType,
                                           std::forward<Args>(args)...)
                             .getOperation())
        .front();
  }
  /// What create() does after building: refines the first result's type
  /// (hl's shape rules) and folds; returns the op's results or what they
  /// folded to.
  llvm::SmallVector<mlir::Value> refineAndFold(mlir::Operation *op);

  /// Builds the op named `opName` from the present inputs, the node's
  /// attributes (converted generically, those in `skip` dropped) and the
  /// inferred output types, and binds the results. Unknown attributes are an
  /// error. For ops with AttrSizedOperandSegments/AttrSizedResultSegments,
  /// `operandGroups`/`resultGroups` give the ODS operand/result count and
  /// the segment sizes follow from which inputs/outputs the node lists.
  mlir::LogicalResult convertGeneric(llvm::StringRef opName,
                                     llvm::ArrayRef<llvm::StringRef> skip = {},
                                     unsigned operandGroups = 0,
                                     unsigned resultGroups = 0);

  /// Converts the graph attribute `name` into `region` (a new block whose
  /// arguments are the sub-graph's inputs, typed by `argTypes` where the
  /// graph leaves them open, ending in hl.yield of its outputs).
  mlir::LogicalResult convertSubgraph(llvm::StringRef name,
                                      mlir::Region &region,
                                      llvm::ArrayRef<mlir::Type> argTypes = {});

  /// Converts the graph attribute `name` (a sub-graph without inputs, such
  /// as an If branch) in place, at the insertion point, and binds its
  /// outputs as the node's.
  mlir::LogicalResult inlineSubgraph(llvm::StringRef name);

  /// The underlying node.
  const onnx::NodeProto &proto() const { return node; }

private:
  GraphState &state;
  onnx::NodeProto &node;
  int64_t opsetVersion;
  mlir::Location location;
  llvm::SmallVector<mlir::Type> refined;
};

/// A signed 64-bit integer attribute (hl's `axis` of Softmax and Flatten).
inline mlir::IntegerAttr getSI64Attr(mlir::Builder &b, int64_t value) {
  return b.getIntegerAttr(b.getIntegerType(64, /*isSigned=*/true), value);
}

/// Registers a handler that builds `OpTy` generically (convertGeneric).
template <typename OpTy>
Handler generic(llvm::ArrayRef<llvm::StringRef> skip = {},
                unsigned operandGroups = 0, unsigned resultGroups = 0) {
  std::vector<std::string> skipped(skip.begin(), skip.end());
  return [skipped, operandGroups, resultGroups](NodeContext &ctx) {
    llvm::SmallVector<llvm::StringRef> refs(skipped.begin(), skipped.end());
    return ctx.convertGeneric(OpTy::getOperationName(), refs, operandGroups,
                              resultGroups);
  };
}

} // namespace strata::importer

#endif // STRATA_LIB_IMPORT_IMPORTCONTEXT_H
