//===- DelegateWriter.h - the base of the delegate partition writers -*- C++
//-*-===//
//
// What the oneDNN and XNNPACK partition writers share: one tensor index per
// value, constants stored as named data under "<partition>/t<index>", one
// delegate node per edge op with its ONNX node names and debug handle, and
// the walk over the partition that hands each edge op to its write
// function through a dispatch table keyed by op kind (as ExecuTorch's
// XNNPACK runtime maps each node kind to its define function). Fusion is
// decided before, in the IR (strata-edge-fuse): a write function looks at
// its op alone, never at the op's users.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_LIB_BACKENDS_COMMON_DELEGATEWRITER_H
#define STRATA_LIB_BACKENDS_COMMON_DELEGATEWRITER_H

#include "Common/ConstantBytes.h"
#include "Common/OpQueries.h"
#include "Edge/IR/EdgeAttributes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata::backends {

/// Op kind -> the function that writes an op of that kind.
template <typename Writer> class WriteTable {
public:
  using Fn = std::function<mlir::LogicalResult(Writer &, mlir::Operation *)>;
  /// Ops of kind OpT go to `fn`.
  template <typename OpT>
  WriteTable &on(mlir::LogicalResult (*fn)(Writer &, OpT)) {
    table[mlir::TypeID::get<OpT>()] = [fn](Writer &w, mlir::Operation *op) {
      return fn(w, llvm::cast<OpT>(op));
    };
    return *this;
  }
  /// Ops of every kind in OpTs go to `fn`, which sees the operation.
  template <typename... OpTs>
  WriteTable &onEach(mlir::LogicalResult (*fn)(Writer &, mlir::Operation *)) {
    (table.insert_or_assign(mlir::TypeID::get<OpTs>(), Fn(fn)), ...);
    return *this;
  }
  /// The function for `op`'s kind; null when there is none.
  const Fn *lookup(mlir::Operation *op) const {
    auto it = table.find(op->getName().getTypeID());
    return it == table.end() ? nullptr : &it->second;
  }

private:
  llvm::DenseMap<mlir::TypeID, Fn> table;
};

/// The state and bookkeeping of a partition writer producing a FlatBuffers
/// graph `GraphT` whose nodes are `NodeT`s (each with `node_names`).
template <typename GraphT, typename NodeT> class DelegateWriter {
public:
  explicit DelegateWriter(mlir::func::FuncOp func) : func(func) {}

  GraphT graph;
  ConstantBytes constants;
  /// Delegate node index -> the ONNX node names it computes.
  std::map<std::string, std::vector<std::string>> debugHandles;

  /// A new node computing `op` (a fused edge op: the ONNX nodes of every op
  /// fused into it, from its location), appended to `nodes`.
  NodeT &addNode(std::vector<std::unique_ptr<NodeT>> &nodes,
                 mlir::Operation *op) {
    auto node = std::make_unique<NodeT>();
    appendNodeNames(node->node_names, {op});
    debugHandles[std::to_string(nodes.size())] = node->node_names;
    nodes.push_back(std::move(node));
    return *nodes.back();
  }
  /// Appends a tensor to the graph; returns its index.
  template <typename TensorT>
  uint32_t appendTensor(std::unique_ptr<TensorT> tensor) {
    graph.tensors.push_back(std::move(tensor));
    return graph.tensors.size() - 1;
  }
  /// Makes tensor `index` a constant holding `bytes` (named data).
  void setConstant(uint32_t index, std::vector<uint8_t> bytes) {
    std::string key = func.getSymName().str() + "/t" + std::to_string(index);
    graph.tensors[index]->constant_key = key;
    constants.bytes[key] = std::move(bytes);
  }
  /// The tensor already written for `value`, if any.
  std::optional<uint32_t> lookupTensor(mlir::Value value) const {
    auto it = tensors.find(value);
    if (it == tensors.end())
      return std::nullopt;
    return it->second;
  }

  mlir::func::FuncOp func;
  llvm::DenseMap<mlir::Value, uint32_t> tensors;

  /// A partition with dynamic extents (docs/delegation.md, "Dynamic
  /// extents"): each slot's extent at the bounds; empty when static.
  llvm::ArrayRef<int64_t> extentBounds() const {
    auto bounds = func->getAttrOfType<mlir::DenseI64ArrayAttr>(
        edge::kExtentBoundsAttrName);
    return bounds ? bounds.asArrayRef() : llvm::ArrayRef<int64_t>();
  }
  /// The extent slot of each dimension of `value` (edge.extent_slots, -1
  /// where static), or empty when `value` is static. A dynamic value
  /// without valid slots is an error, emitted once (missingSlots()).
  llvm::ArrayRef<int64_t> slotsOf(mlir::Value value) {
    auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
    if (type.hasStaticShape())
      return {};
    mlir::ArrayAttr perValue;
    unsigned index = 0;
    if (auto arg = llvm::dyn_cast<mlir::BlockArgument>(value)) {
      perValue =
          func->getAttrOfType<mlir::ArrayAttr>(edge::kExtentSlotsAttrName);
      index = arg.getArgNumber();
    } else {
      perValue = value.getDefiningOp()->getAttrOfType<mlir::ArrayAttr>(
          edge::kExtentSlotsAttrName);
      index = llvm::cast<mlir::OpResult>(value).getResultNumber();
    }
    auto slots = perValue && index < perValue.size()
                     ? llvm::dyn_cast<mlir::DenseI64ArrayAttr>(perValue[index])
                     : mlir::DenseI64ArrayAttr();
    int64_t count = static_cast<int64_t>(extentBounds().size());
    bool valid = slots && slots.size() == type.getRank();
    for (int64_t d = 0; valid && d < type.getRank(); ++d)
      valid = type.isDynamicDim(d) ? slots[d] >= 0 && slots[d] < count
                                   : slots[d] == -1;
    if (!valid) {
      if (!slotsMissing)
        (value.getDefiningOp() ? value.getDefiningOp() : func.getOperation())
                ->emitError("a value of type ")
            << type << " has no extent slots for its dynamic dimensions";
      slotsMissing = true;
      return {};
    }
    return slots.asArrayRef();
  }
  /// Whether slotsOf met a dynamic value without slots.
  bool missingSlots() const { return slotsMissing; }

protected:
  bool slotsMissing = false;

  /// Writes every op of the partition but its constants (written where
  /// they are read) and terminator through `table`, in program order.
  template <typename Writer>
  mlir::LogicalResult writeOps(Writer &writer, const WriteTable<Writer> &table,
                               llvm::StringRef delegate) {
    for (mlir::Operation &op : func.getBody().front().without_terminator()) {
      if (op.hasTrait<mlir::OpTrait::ConstantLike>())
        continue;
      const typename WriteTable<Writer>::Fn *write = table.lookup(&op);
      if (!write)
        return op.emitError("the ")
               << delegate << " delegate does not run '" << op.getName() << "'";
      if (mlir::failed((*write)(writer, &op)))
        return mlir::failure();
    }
    return mlir::success();
  }
};

} // namespace strata::backends

#endif // STRATA_LIB_BACKENDS_COMMON_DELEGATEWRITER_H
