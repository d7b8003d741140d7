//===- OpsetNormalization.cpp - ai.onnx opsets 18-21 as opset 17 ----------===//
//
// libonnx 1.12, the checker and shape inference the importer runs, knows
// ai.onnx up to opset 17; PyTorch 2's exporters write 18 and later. Most
// operators did not change after 17, or changed only by admitting new
// element types (float8, int4) that a model using them would fail on with
// a clear error anyway. The rest changed their form: ReduceX moved `axes`
// into an input (18, ReduceMax/Min again at 20), Split gained `num_outputs`
// (18), Pad gained `axes` (18) and `wrap` (19), Resize `antialias`, `axes`,
// `keep_aspect_ratio_policy` (18) and `half_pixel_symmetric` (19),
// AveragePool `dilations` (19), Cast and QuantizeLinear `saturate` (19),
// DequantizeLinear and QuantizeLinear `block_size` (21), DFT took `axis` as
// an input (20), GridSample renamed its modes (20); Mish (18),
// GroupNormalization (18, per-channel scale at 21) and Gelu (20) are new
// operators defined as ONNX functions.
//
// Each such node is rewritten here into its exact opset-17 equivalent, the
// functions into their bodies, before the checker runs, so that everything
// downstream (checker, inference, the op table, hl) sees one form. A
// feature with no exact equivalent (blocked quantization of a computed
// tensor) is refused naming the node; one that only libonnx's schema
// lacks (Resize's antialias) is taken off for the checker and put back
// after. Operators new in 18 and 19 that exist in no older form (the
// bitwise ones, DeformConv) keep their node; ONNXChecks.cpp registers their
// schemas with libonnx.
//
//===----------------------------------------------------------------------===//
#include "OpsetNormalization.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstring>
#include <optional>

using mlir::failure;
using mlir::FailureOr;

namespace strata::importer {

llvm::StringMap<int> declaredRanks(const onnx::GraphProto &graph) {
  llvm::StringMap<int> ranks;
  auto addRanks = [&](const auto &list) {
    for (const onnx::ValueInfoProto &info : list)
      if (info.type().has_tensor_type() &&
          info.type().tensor_type().has_shape())
        ranks[info.name()] = info.type().tensor_type().shape().dim_size();
  };
  addRanks(graph.input());
  addRanks(graph.value_info());
  addRanks(graph.output());
  for (const onnx::TensorProto &init : graph.initializer())
    ranks[init.name()] = init.dims_size();
  return ranks;
}

namespace {

/// The prefix naming the sub-graph held by `attr` of `node`, unique in its
/// graph (the node's first output, or its name, and the attribute's name).
std::string subGraphPath(const onnx::NodeProto &node,
                         const onnx::AttributeProto &attr) {
  return (node.output_size() ? node.output(0) : node.name()) + "." +
         attr.name() + "/";
}

/// Rewrites the nodes of one graph (and, recursively, its sub-graphs).
class GraphNormalizer {
public:
  /// `parent` is the normalizer of the enclosing graph, whose constants
  /// and ranks a sub-graph sees (ONNX outer-scope values).
  GraphNormalizer(onnx::GraphProto &graph, int opset,
                  NormalizationResult &result, std::string &error,
                  const GraphNormalizer *parent = nullptr,
                  std::string path = "")
      : graph(graph), opset(opset), result(result), error(error),
        parent(parent), path(std::move(path)) {
    for (const onnx::TensorProto &init : graph.initializer())
      constants[init.name()] = &init;
    for (const onnx::NodeProto &node : graph.node())
      if (node.op_type() == "Constant" && node.output_size() == 1)
        for (const onnx::AttributeProto &attr : node.attribute())
          if (attr.name() == "value" && attr.has_t())
            constants[node.output(0)] = &attr.t();
    ranks = declaredRanks(graph);
    for (const onnx::NodeProto &node : graph.node())
      for (const std::string &output : node.output())
        names.insert(output);
    for (const onnx::TensorProto &init : graph.initializer())
      names.insert(init.name());
  }

  mlir::LogicalResult run();

private:
  using Nodes = llvm::SmallVector<onnx::NodeProto, 4>;

  mlir::LogicalResult fail(const onnx::NodeProto &node,
                           const std::string &what) {
    error = "node '" + node.name() + "' (" + node.op_type() + "-" +
            std::to_string(sinceVersion(node)) + "): " + what;
    return failure();
  }
  /// The version of the operator's definition that this model's opset
  /// selects, for the operators handled here.
  int sinceVersion(const onnx::NodeProto &node) const;
  /// Rewrites `node` in place or into `replacement` (when it expands into
  /// several nodes); `changed` says whether anything was rewritten.
  mlir::LogicalResult rewrite(onnx::NodeProto &node, Nodes &replacement,
                              bool &changed);

  std::optional<llvm::SmallVector<int64_t>>
  constantInts(const std::string &name) const;
  const onnx::AttributeProto *findAttr(const onnx::NodeProto &node,
                                       llvm::StringRef name) const {
    for (const onnx::AttributeProto &a : node.attribute())
      if (a.name() == name)
        return &a;
    return nullptr;
  }
  void eraseAttr(onnx::NodeProto &node, llvm::StringRef name) {
    auto *attrs = node.mutable_attribute();
    for (int i = attrs->size() - 1; i >= 0; --i)
      if (attrs->Get(i).name() == name)
        attrs->DeleteSubrange(i, 1);
  }
  /// Drops the trailing absent inputs, and input `i` when it is the last.
  void dropInput(onnx::NodeProto &node, int i) {
    if (i < node.input_size())
      node.mutable_input(i)->clear();
    while (node.input_size() > 0 && node.input(node.input_size() - 1).empty())
      node.mutable_input()->RemoveLast();
  }
  /// A value name not used in the graph yet.
  std::string freshName(const onnx::NodeProto &node, llvm::StringRef what) {
    std::string base = node.name() + "/" + what.str();
    std::string name = base;
    for (int i = 1; names.contains(name); ++i)
      name = base + "_" + std::to_string(i);
    names.insert(name);
    return name;
  }
  /// Adds an int64 initializer.
  std::string addInts(const onnx::NodeProto &node, llvm::StringRef what,
                      llvm::ArrayRef<int64_t> values, bool scalar = false) {
    onnx::TensorProto *t = graph.add_initializer();
    t->set_name(freshName(node, what));
    t->set_data_type(onnx::TensorProto::INT64);
    if (!scalar)
      t->add_dims(values.size());
    for (int64_t v : values)
      t->add_int64_data(v);
    return t->name();
  }
  /// Adds a float scalar initializer (cast to the data's type by CastLike
  /// where it is used).
  std::string addFloat(const onnx::NodeProto &node, llvm::StringRef what,
                       float value) {
    onnx::TensorProto *t = graph.add_initializer();
    t->set_name(freshName(node, what));
    t->set_data_type(onnx::TensorProto::FLOAT);
    t->add_float_data(value);
    return t->name();
  }
  onnx::NodeProto &addNode(Nodes &nodes, const onnx::NodeProto &origin,
                           llvm::StringRef opType,
                           llvm::ArrayRef<std::string> inputs,
                           llvm::ArrayRef<std::string> outputs) {
    onnx::NodeProto &node = nodes.emplace_back();
    node.set_op_type(opType.str());
    node.set_name(origin.name() + "/" + opType.str() + "_" +
                  std::to_string(nodes.size() - 1));
    for (const std::string &in : inputs)
      node.add_input(in);
    for (const std::string &out : outputs)
      node.add_output(out);
    return node;
  }
  /// `value` cast to the element type of `like`, as a new value.
  std::string castLike(Nodes &nodes, const onnx::NodeProto &origin,
                       const std::string &value, const std::string &like) {
    std::string out = freshName(origin, "cast");
    addNode(nodes, origin, "CastLike", {value, like}, {out});
    return out;
  }

  mlir::LogicalResult rewriteReduce(onnx::NodeProto &node, Nodes &nodes,
                                    bool &changed);
  /// The attributes and inputs of opsets 18-21 whose opset-17 form is the
  /// same node without them (or with them spelled out), in place.
  mlir::LogicalResult rewritePadAxes(onnx::NodeProto &node, bool &changed);
  mlir::LogicalResult rewriteResizeAttrs(onnx::NodeProto &node, bool &changed);
  mlir::LogicalResult rewriteQuantizeAttrs(onnx::NodeProto &node,
                                           bool &changed);
  mlir::LogicalResult rewriteDFTAxis(onnx::NodeProto &node, bool &changed);
  mlir::LogicalResult rewriteGroupNorm(onnx::NodeProto &node, Nodes &nodes);
  mlir::LogicalResult rewriteGelu(onnx::NodeProto &node, Nodes &nodes);
  mlir::LogicalResult rewriteMish(onnx::NodeProto &node, Nodes &nodes);
  mlir::LogicalResult rewriteCol2Im(onnx::NodeProto &node, Nodes &nodes);
  mlir::LogicalResult rewriteCenterCropPad(onnx::NodeProto &node, Nodes &nodes);
  mlir::LogicalResult rewriteAffineGrid(onnx::NodeProto &node, Nodes &nodes);
  mlir::LogicalResult rewriteConstantDequantize(onnx::NodeProto &node,
                                                Nodes &nodes);
  /// A Concat of `inputs` along axis 0, as a new value.
  std::string concat0(Nodes &nodes, const onnx::NodeProto &origin,
                      llvm::ArrayRef<std::string> inputs) {
    std::string out = freshName(origin, "concat");
    onnx::NodeProto &c = addNode(nodes, origin, "Concat", inputs, {out});
    onnx::AttributeProto *axis = c.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(0);
    return out;
  }
  /// `op`(`inputs`) with one output, as a new value.
  std::string apply(Nodes &nodes, const onnx::NodeProto &origin,
                    llvm::StringRef op, llvm::ArrayRef<std::string> inputs) {
    std::string out = freshName(origin, op.lower());
    addNode(nodes, origin, op, inputs, {out});
    return out;
  }

  onnx::GraphProto &graph;
  int opset;
  NormalizationResult &result;
  std::string &error;
  /// The constant named `name`, here or in an enclosing graph.
  const onnx::TensorProto *findConstant(llvm::StringRef name) const {
    for (const GraphNormalizer *g = this; g; g = g->parent) {
      auto it = g->constants.find(name);
      if (it != g->constants.end())
        return it->second;
      if (g->names.contains(name))
        return nullptr;
    }
    return nullptr;
  }
  /// The declared rank of `name`, here or in an enclosing graph.
  std::optional<int> findRank(llvm::StringRef name) const {
    for (const GraphNormalizer *g = this; g; g = g->parent) {
      auto it = g->ranks.find(name);
      if (it != g->ranks.end())
        return it->second;
    }
    return std::nullopt;
  }

  const GraphNormalizer *parent;
  /// Where the graph sits in the model (subGraphPath), for deferred
  /// attributes.
  std::string path;
  llvm::StringMap<const onnx::TensorProto *> constants;
  llvm::StringMap<int> ranks;
  llvm::StringSet<> names;
};

} // namespace

/// The reductions whose `axes` became an input at opset 18 (ReduceSum's
/// already had at 13).
static bool isReduceWithAxesInputAt18(llvm::StringRef op) {
  return llvm::is_contained({"ReduceL1", "ReduceL2", "ReduceLogSum",
                             "ReduceLogSumExp", "ReduceMax", "ReduceMean",
                             "ReduceMin", "ReduceProd", "ReduceSumSquare"},
                            op);
}

int GraphNormalizer::sinceVersion(const onnx::NodeProto &node) const {
  // The (op type, version) pairs of the definitions changed after 17.
  static const llvm::StringMap<llvm::SmallVector<int, 3>> versions = {
      {"ReduceL1", {18}},
      {"ReduceL2", {18}},
      {"ReduceLogSum", {18}},
      {"ReduceLogSumExp", {18}},
      {"ReduceMax", {18, 20}},
      {"ReduceMean", {18}},
      {"ReduceMin", {18, 20}},
      {"ReduceProd", {18}},
      {"ReduceSumSquare", {18}},
      {"Split", {18}},
      {"Pad", {18, 19, 21}},
      {"Resize", {18, 19}},
      {"AveragePool", {19}},
      {"Cast", {19, 21}},
      {"CastLike", {19, 21}},
      {"QuantizeLinear", {19, 21}},
      {"DequantizeLinear", {19, 21}},
      {"DFT", {20}},
      {"GridSample", {20}},
      {"Mish", {18}},
      {"GroupNormalization", {18, 21}},
      {"Gelu", {20}},
      {"LpPool", {18}},
      {"Col2Im", {18}},
      {"CenterCropPad", {18}},
      {"AffineGrid", {20}},
      {"ScatterElements", {18}},
      {"ScatterND", {18}},
  };
  auto it = versions.find(node.op_type());
  if (it == versions.end())
    return 0;
  int since = 0;
  for (int v : it->second)
    if (v <= opset)
      since = v;
  return since;
}

std::optional<llvm::SmallVector<int64_t>>
GraphNormalizer::constantInts(const std::string &name) const {
  const onnx::TensorProto *found = findConstant(name);
  if (!found)
    return std::nullopt;
  const onnx::TensorProto &t = *found;
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return std::nullopt;
  llvm::SmallVector<int64_t> values;
  if (t.data_type() == onnx::TensorProto::INT64) {
    if (t.has_raw_data()) {
      const std::string &raw = t.raw_data();
      for (size_t i = 0; i + 8 <= raw.size(); i += 8)
        values.push_back(llvm::support::endian::read64le(raw.data() + i));
    } else {
      values.append(t.int64_data().begin(), t.int64_data().end());
    }
  } else if (t.data_type() == onnx::TensorProto::INT32) {
    if (t.has_raw_data()) {
      const std::string &raw = t.raw_data();
      for (size_t i = 0; i + 4 <= raw.size(); i += 4)
        values.push_back(static_cast<int32_t>(
            llvm::support::endian::read32le(raw.data() + i)));
    } else {
      values.append(t.int32_data().begin(), t.int32_data().end());
    }
  } else {
    return std::nullopt;
  }
  return values;
}

mlir::LogicalResult GraphNormalizer::rewriteReduce(onnx::NodeProto &node,
                                                   Nodes &nodes,
                                                   bool &changed) {
  bool noop = false;
  if (const onnx::AttributeProto *a = findAttr(node, "noop_with_empty_axes"))
    noop = a->i() != 0;
  bool hasAxes = node.input_size() > 1 && !node.input(1).empty();
  std::optional<llvm::SmallVector<int64_t>> axes;
  if (hasAxes) {
    axes = constantInts(node.input(1));
    if (!axes)
      return fail(node, "its axes are computed at run time; only constant "
                        "axes are supported");
  }
  changed = true;
  if (!axes || axes->empty()) {
    if (noop) {
      // No axes with noop_with_empty_axes: the identity.
      onnx::NodeProto &id =
          addNode(nodes, node, "Identity", {node.input(0)}, {node.output(0)});
      id.set_name(node.name());
      return mlir::success();
    }
    axes.reset();
  }
  eraseAttr(node, "noop_with_empty_axes");
  dropInput(node, 1);
  if (axes) {
    onnx::AttributeProto *attr = node.add_attribute();
    attr->set_name("axes");
    attr->set_type(onnx::AttributeProto::INTS);
    for (int64_t axis : *axes)
      attr->add_ints(axis);
  }
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteGroupNorm(onnx::NodeProto &node,
                                                      Nodes &nodes) {
  // GroupNormalization(x, scale, bias) over [N, C, ...] with G groups:
  // InstanceNormalization over x seen as [N, G, -1], back to x's shape,
  // then the affine part per group (18) or per channel (21).
  const onnx::AttributeProto *groups = findAttr(node, "num_groups");
  if (!groups || groups->i() <= 0)
    return fail(node, "num_groups must be a positive integer");
  float epsilon = 1e-5f;
  if (const onnx::AttributeProto *a = findAttr(node, "epsilon"))
    epsilon = a->f();
  int64_t g = groups->i();
  const std::string &x = node.input(0), &scale = node.input(1),
                    &bias = node.input(2);
  std::string grouped = freshName(node, "grouped");
  addNode(nodes, node, "Reshape", {x, addInts(node, "group_shape", {0, g, -1})},
          {grouped});
  bool perGroup = sinceVersion(node) == 18;
  std::string normalized = freshName(node, "normalized");
  std::string y = node.output(0);
  if (perGroup) {
    onnx::NodeProto &norm = addNode(nodes, node, "InstanceNormalization",
                                    {grouped, scale, bias}, {normalized});
    onnx::AttributeProto *eps = norm.add_attribute();
    eps->set_name("epsilon");
    eps->set_type(onnx::AttributeProto::FLOAT);
    eps->set_f(epsilon);
    std::string shape = freshName(node, "shape");
    addNode(nodes, node, "Shape", {x}, {shape});
    addNode(nodes, node, "Reshape", {normalized, shape}, {y});
    return mlir::success();
  }
  // Unit scale and zero bias per group, cast to x's type.
  std::string ones = freshName(node, "ones");
  std::string zeros = freshName(node, "zeros");
  std::string groupCount = addInts(node, "groups", {g});
  onnx::NodeProto &fillOnes =
      addNode(nodes, node, "ConstantOfShape", {groupCount}, {ones + "_f"});
  onnx::AttributeProto *one = fillOnes.add_attribute();
  one->set_name("value");
  one->set_type(onnx::AttributeProto::TENSOR);
  one->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  one->mutable_t()->add_dims(1);
  one->mutable_t()->add_float_data(1.0f);
  addNode(nodes, node, "CastLike", {ones + "_f", x}, {ones});
  onnx::NodeProto &fillZeros =
      addNode(nodes, node, "ConstantOfShape", {groupCount}, {zeros + "_f"});
  onnx::AttributeProto *zero = fillZeros.add_attribute();
  zero->set_name("value");
  zero->set_type(onnx::AttributeProto::TENSOR);
  zero->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  zero->mutable_t()->add_dims(1);
  zero->mutable_t()->add_float_data(0.0f);
  addNode(nodes, node, "CastLike", {zeros + "_f", x}, {zeros});
  onnx::NodeProto &norm = addNode(nodes, node, "InstanceNormalization",
                                  {grouped, ones, zeros}, {normalized});
  onnx::AttributeProto *eps = norm.add_attribute();
  eps->set_name("epsilon");
  eps->set_type(onnx::AttributeProto::FLOAT);
  eps->set_f(epsilon);
  // Per channel: [N, C, -1] (C is the scale's length) against scale and
  // bias as [C, 1].
  std::string channels = freshName(node, "channels");
  std::string scaleLen = freshName(node, "scale_shape");
  addNode(nodes, node, "Shape", {scale}, {scaleLen});
  std::string nc = freshName(node, "nc_shape");
  onnx::NodeProto &concat = addNode(
      nodes, node, "Concat",
      {addInts(node, "batch", {0}), scaleLen, addInts(node, "rest", {-1})},
      {nc});
  onnx::AttributeProto *axis = concat.add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  addNode(nodes, node, "Reshape", {normalized, nc}, {channels});
  std::string column = addInts(node, "column", {-1, 1});
  std::string scale2 = freshName(node, "scale");
  std::string bias2 = freshName(node, "bias");
  addNode(nodes, node, "Reshape", {scale, column}, {scale2});
  addNode(nodes, node, "Reshape", {bias, column}, {bias2});
  std::string scaled = freshName(node, "scaled");
  std::string shifted = freshName(node, "shifted");
  addNode(nodes, node, "Mul", {channels, scale2}, {scaled});
  addNode(nodes, node, "Add", {scaled, bias2}, {shifted});
  std::string shape = freshName(node, "shape");
  addNode(nodes, node, "Shape", {x}, {shape});
  addNode(nodes, node, "Reshape", {shifted, shape}, {y});
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteGelu(onnx::NodeProto &node,
                                                 Nodes &nodes) {
  std::string approximate = "none";
  if (const onnx::AttributeProto *a = findAttr(node, "approximate"))
    approximate = a->s();
  const std::string &x = node.input(0);
  auto scalar = [&](llvm::StringRef what, float v) {
    return castLike(nodes, node, addFloat(node, what, v), x);
  };
  std::string inner;
  if (approximate == "none") {
    // 0.5 x (1 + erf(x / sqrt(2)))
    std::string scaled = freshName(node, "scaled");
    addNode(nodes, node, "Mul", {x, scalar("rsqrt2", float(M_SQRT1_2))},
            {scaled});
    inner = freshName(node, "erf");
    addNode(nodes, node, "Erf", {scaled}, {inner});
  } else if (approximate == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
    std::string cube = freshName(node, "cube");
    std::string square = freshName(node, "square");
    addNode(nodes, node, "Mul", {x, x}, {square});
    addNode(nodes, node, "Mul", {square, x}, {cube});
    std::string term = freshName(node, "term");
    addNode(nodes, node, "Mul", {cube, scalar("c", 0.044715f)}, {term});
    std::string sum = freshName(node, "sum");
    addNode(nodes, node, "Add", {x, term}, {sum});
    std::string arg = freshName(node, "arg");
    addNode(nodes, node, "Mul",
            {sum, scalar("sqrt_2_over_pi", float(std::sqrt(2.0 / M_PI)))},
            {arg});
    inner = freshName(node, "tanh");
    addNode(nodes, node, "Tanh", {arg}, {inner});
  } else {
    return fail(node, "approximate='" + approximate +
                          "' is neither 'none' nor 'tanh'");
  }
  std::string plusOne = freshName(node, "plus_one");
  addNode(nodes, node, "Add", {inner, scalar("one", 1.0f)}, {plusOne});
  std::string half = freshName(node, "half_x");
  addNode(nodes, node, "Mul", {x, scalar("half", 0.5f)}, {half});
  addNode(nodes, node, "Mul", {half, plusOne}, {node.output(0)});
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteMish(onnx::NodeProto &node,
                                                 Nodes &nodes) {
  // x * tanh(softplus(x))
  const std::string &x = node.input(0);
  std::string softplus = freshName(node, "softplus");
  std::string tanh = freshName(node, "tanh");
  addNode(nodes, node, "Softplus", {x}, {softplus});
  addNode(nodes, node, "Tanh", {softplus}, {tanh});
  addNode(nodes, node, "Mul", {x, tanh}, {node.output(0)});
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteCol2Im(onnx::NodeProto &node,
                                                   Nodes &nodes) {
  // Col2Im adds each column's blocks into the image: a transposed
  // convolution of the blocks grid [N*C, kH*kW, oh, ow] by the identity
  // over the kH*kW block positions ([kH*kW, 1, kH, kW]), which sums the
  // overlapping contributions as Col2Im does; then [N*C, 1, H, W] back to
  // [N, C, H, W] (N and C from the input's shape, folded once it is known).
  if (node.input_size() != 3)
    return fail(node, "needs input, image_shape and block_shape");
  std::optional<llvm::SmallVector<int64_t>> image = constantInts(node.input(1));
  std::optional<llvm::SmallVector<int64_t>> block = constantInts(node.input(2));
  if (!image || !block || image->size() != 2 || block->size() != 2)
    return fail(node, "needs constant 2-d image_shape and block_shape");
  auto ints = [&](llvm::StringRef name, int64_t dflt, size_t n) {
    llvm::SmallVector<int64_t> v(n, dflt);
    if (const onnx::AttributeProto *a = findAttr(node, name))
      v.assign(a->ints().begin(), a->ints().end());
    return v;
  };
  llvm::SmallVector<int64_t> dilations = ints("dilations", 1, 2);
  llvm::SmallVector<int64_t> strides = ints("strides", 1, 2);
  llvm::SmallVector<int64_t> pads = ints("pads", 0, 4);
  if (dilations.size() != 2 || strides.size() != 2 || pads.size() != 4)
    return fail(node, "dilations, strides and pads must be 2-d");
  // Bounded, so that the arithmetic below cannot overflow.
  auto inRange = [](llvm::ArrayRef<int64_t> v, int64_t low) {
    return llvm::all_of(v,
                        [&](int64_t x) { return x >= low && x < (1 << 30); });
  };
  if (!inRange(*image, 1) || !inRange(*block, 1) || !inRange(dilations, 1) ||
      !inRange(strides, 1) || !inRange(pads, 0))
    return fail(node, "image_shape, block_shape, dilations and strides must "
                      "be in [1, 2^30), pads in [0, 2^30)");
  llvm::SmallVector<int64_t> grid, outputPadding;
  for (int i = 0; i < 2; ++i) {
    int64_t k = (*block)[i], d = dilations[i], st = strides[i];
    int64_t span = d * (k - 1) + 1;
    int64_t padded = (*image)[i] + pads[i] + pads[i + 2];
    if (k < 1 || d < 1 || st < 1 || padded < span)
      return fail(node, "block, dilations and strides do not fit the image");
    int64_t blocks = (padded - span) / st + 1;
    grid.push_back(blocks);
    outputPadding.push_back((*image)[i] -
                            ((blocks - 1) * st + span - pads[i] - pads[i + 2]));
  }
  int64_t k = (*block)[0] * (*block)[1];
  const std::string &x = node.input(0);
  auto intsAttr = [](onnx::NodeProto &n, llvm::StringRef name,
                     llvm::ArrayRef<int64_t> values) {
    onnx::AttributeProto *a = n.add_attribute();
    a->set_name(name.str());
    a->set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values)
      a->add_ints(v);
  };
  std::string blocks = freshName(node, "blocks");
  addNode(nodes, node, "Reshape",
          {x, addInts(node, "blocks_shape", {-1, k, grid[0], grid[1]})},
          {blocks});
  onnx::TensorProto *w = graph.add_initializer();
  w->set_name(freshName(node, "identity"));
  w->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : {k, int64_t(1), (*block)[0], (*block)[1]})
    w->add_dims(d);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < k; ++j)
      w->add_float_data(i == j ? 1.0f : 0.0f);
  std::string summed = freshName(node, "summed");
  onnx::NodeProto &convT =
      addNode(nodes, node, "ConvTranspose",
              {blocks, castLike(nodes, node, w->name(), x)}, {summed});
  intsAttr(convT, "kernel_shape", *block);
  intsAttr(convT, "strides", strides);
  intsAttr(convT, "dilations", dilations);
  intsAttr(convT, "pads", pads);
  intsAttr(convT, "output_padding", outputPadding);
  std::string shape = freshName(node, "shape");
  addNode(nodes, node, "Shape", {x}, {shape});
  std::string batch = freshName(node, "batch"),
              columns = freshName(node, "cols");
  addNode(nodes, node, "Slice",
          {shape, addInts(node, "zero", {0}), addInts(node, "one", {1})},
          {batch});
  addNode(nodes, node, "Slice",
          {shape, addInts(node, "one_", {1}), addInts(node, "two", {2})},
          {columns});
  std::string channels = freshName(node, "channels");
  addNode(nodes, node, "Div", {columns, addInts(node, "block_size", {k})},
          {channels});
  std::string outShape = freshName(node, "out_shape");
  onnx::NodeProto &concat = addNode(
      nodes, node, "Concat",
      {batch, channels, addInts(node, "image", {(*image)[0], (*image)[1]})},
      {outShape});
  onnx::AttributeProto *axis = concat.add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  addNode(nodes, node, "Reshape", {summed, outShape}, {node.output(0)});
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteCenterCropPad(onnx::NodeProto &node,
                                                          Nodes &nodes) {
  // Per axis, with `dim` the input's extent and `t` the target's: a crop
  // from (dim - t) / 2 of min(dim, t) elements, then zeros padded, (t -
  // dim) / 2 before and the rest after (where t > dim). Shape arithmetic
  // that folds once the input's shape is known.
  std::optional<int> rank = findRank(node.input(0));
  if (node.input_size() != 2 || !rank)
    return fail(node, "needs an input of known rank and a target shape");
  llvm::SmallVector<int64_t> axes;
  if (const onnx::AttributeProto *a = findAttr(node, "axes"))
    axes.assign(a->ints().begin(), a->ints().end());
  else
    for (int d = 0; d < *rank; ++d)
      axes.push_back(d);
  for (int64_t &a : axes) {
    if (a < -*rank || a >= *rank)
      return fail(node, "axis " + std::to_string(a) + " is out of range");
    if (a < 0)
      a += *rank;
  }
  const std::string &x = node.input(0), &target = node.input(1);
  std::string axesConst = addInts(node, "axes", axes);
  std::string dims = apply(nodes, node, "Gather",
                           {apply(nodes, node, "Shape", {x}), axesConst});
  std::string zero = addInts(node, "zero", {0}),
              two = addInts(node, "two", {2});
  // max(a - b, 0) as (a - b) * (a > b): products, differences and
  // comparisons of constants fold where Max would not.
  auto positivePart = [&](const std::string &a, const std::string &b) {
    std::string greater = apply(nodes, node, "Greater", {a, b});
    std::string asInt = freshName(node, "as_int");
    onnx::NodeProto &cast = addNode(nodes, node, "Cast", {greater}, {asInt});
    onnx::AttributeProto *to = cast.add_attribute();
    to->set_name("to");
    to->set_type(onnx::AttributeProto::INT);
    to->set_i(onnx::TensorProto::INT64);
    return apply(nodes, node, "Mul",
                 {apply(nodes, node, "Sub", {a, b}), asInt});
  };
  std::string excess = positivePart(dims, target);
  std::string start = apply(nodes, node, "Div", {excess, two});
  // min(dim, t) = dim - max(dim - t, 0).
  std::string end = apply(nodes, node, "Add",
                          {start, apply(nodes, node, "Sub", {dims, excess})});
  std::string cropped = apply(nodes, node, "Slice", {x, start, end, axesConst});
  std::string missing = positivePart(target, dims);
  std::string before = apply(nodes, node, "Div", {missing, two});
  std::string after = apply(nodes, node, "Sub", {missing, before});
  // Pad-13 takes pads for every dimension: 0 where no axis is named.
  std::vector<std::string> begins, ends;
  for (int d = 0; d < *rank; ++d) {
    auto it = llvm::find(axes, d);
    if (it == axes.end()) {
      begins.push_back(zero);
      ends.push_back(zero);
      continue;
    }
    int64_t i = it - axes.begin();
    std::string from = addInts(node, "at", {i}),
                to = addInts(node, "to", {i + 1});
    begins.push_back(apply(nodes, node, "Slice", {before, from, to}));
    ends.push_back(apply(nodes, node, "Slice", {after, from, to}));
  }
  std::vector<std::string> pads(begins);
  pads.insert(pads.end(), ends.begin(), ends.end());
  addNode(nodes, node, "Pad", {cropped, concat0(nodes, node, pads)},
          {node.output(0)});
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteAffineGrid(onnx::NodeProto &node,
                                                       Nodes &nodes) {
  // The grid is the base grid of (x, y, 1) at every output pixel centre
  // (normalised to [-1, 1]; the corner pixels at +-1 with align_corners)
  // times theta^T: MatMul([H*W, 3], [N, 3, 2]) -> [N, H*W, 2] -> [N, H, W,
  // 2]. The size must be constant (it fixes the base grid).
  std::optional<llvm::SmallVector<int64_t>> size =
      node.input_size() == 2 ? constantInts(node.input(1)) : std::nullopt;
  if (!size || size->size() != 4)
    return fail(node, "needs a constant 4-entry size (the 3-d form is not "
                      "supported)");
  int64_t n = (*size)[0], h = (*size)[2], w = (*size)[3];
  if (n < 1 || h < 1 || w < 1 || h > (1 << 14) || w > (1 << 14))
    return fail(node, "size must have N, H and W in [1, 2^14]");
  bool align = false;
  if (const onnx::AttributeProto *a = findAttr(node, "align_corners"))
    align = a->i() != 0;
  auto coordinate = [&](int64_t i, int64_t extent) {
    if (align)
      return extent == 1 ? 0.0f
                         : -1.0f + 2.0f * static_cast<float>(i) /
                                       static_cast<float>(extent - 1);
    return (2.0f * static_cast<float>(i) + 1.0f) / static_cast<float>(extent) -
           1.0f;
  };
  onnx::TensorProto *base = graph.add_initializer();
  base->set_name(freshName(node, "base_grid"));
  base->set_data_type(onnx::TensorProto::FLOAT);
  base->add_dims(h * w);
  base->add_dims(3);
  for (int64_t y = 0; y < h; ++y)
    for (int64_t x = 0; x < w; ++x) {
      base->add_float_data(coordinate(x, w));
      base->add_float_data(coordinate(y, h));
      base->add_float_data(1.0f);
    }
  const std::string &theta = node.input(0);
  std::string thetaT = freshName(node, "theta_t");
  onnx::NodeProto &transpose =
      addNode(nodes, node, "Transpose", {theta}, {thetaT});
  onnx::AttributeProto *perm = transpose.add_attribute();
  perm->set_name("perm");
  perm->set_type(onnx::AttributeProto::INTS);
  for (int64_t p : {0, 2, 1})
    perm->add_ints(p);
  std::string points =
      apply(nodes, node, "MatMul",
            {castLike(nodes, node, base->name(), theta), thetaT});
  addNode(nodes, node, "Reshape",
          {points, addInts(node, "grid_shape", {n, h, w, 2})},
          {node.output(0)});
  return mlir::success();
}

/// ONNX's 4-bit element types (IR 10), which libonnx 1.12 does not know.
constexpr int32_t kUInt4 = 21, kInt4 = 22;

/// The number of elements of `t`, or nullopt for a negative extent or one
/// past what a constant folded here may hold (2^31 elements).
static std::optional<int64_t> elementCount(const onnx::TensorProto &t) {
  int64_t n = 1;
  for (int64_t d : t.dims())
    if (d < 0 || llvm::MulOverflow(n, d, n) || n > (int64_t{1} << 31))
      return std::nullopt;
  return n;
}

/// The elements of an integer constant (int4/uint4 unpacked, low nibble
/// first), or nullopt for other types and external data.
static std::optional<std::vector<int32_t>>
readIntegers(const onnx::TensorProto &t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    return std::nullopt;
  std::optional<int64_t> count = elementCount(t);
  if (!count)
    return std::nullopt;
  int64_t n = *count;
  int32_t type = t.data_type();
  std::vector<int32_t> values;
  if (type == kUInt4 || type == kInt4) {
    // Two per byte, in raw_data or one byte per int32_data entry.
    std::vector<uint8_t> bytes;
    if (t.has_raw_data())
      bytes.assign(t.raw_data().begin(), t.raw_data().end());
    else
      for (int32_t b : t.int32_data())
        bytes.push_back(static_cast<uint8_t>(b));
    if (static_cast<int64_t>(bytes.size()) != (n + 1) / 2)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      int32_t nibble = (bytes[i / 2] >> (i % 2 ? 4 : 0)) & 0xF;
      values.push_back(type == kInt4 && nibble >= 8 ? nibble - 16 : nibble);
    }
    return values;
  }
  int width;
  bool isSigned;
  switch (type) {
  case onnx::TensorProto::INT8:
    width = 1, isSigned = true;
    break;
  case onnx::TensorProto::UINT8:
    width = 1, isSigned = false;
    break;
  case onnx::TensorProto::INT16:
    width = 2, isSigned = true;
    break;
  case onnx::TensorProto::UINT16:
    width = 2, isSigned = false;
    break;
  case onnx::TensorProto::INT32:
    width = 4, isSigned = true;
    break;
  default:
    return std::nullopt;
  }
  if (!t.has_raw_data()) {
    values.assign(t.int32_data().begin(), t.int32_data().end());
  } else {
    const std::string &raw = t.raw_data();
    if (static_cast<int64_t>(raw.size()) != n * width)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      const char *p = raw.data() + i * width;
      uint32_t u = width == 1   ? static_cast<uint8_t>(*p)
                   : width == 2 ? llvm::support::endian::read16le(p)
                                : llvm::support::endian::read32le(p);
      values.push_back(isSigned && width == 1   ? static_cast<int8_t>(u)
                       : isSigned && width == 2 ? static_cast<int16_t>(u)
                                                : static_cast<int32_t>(u));
    }
  }
  if (static_cast<int64_t>(values.size()) != n)
    return std::nullopt;
  return values;
}

/// The elements of a float constant, or nullopt.
static std::optional<std::vector<float>>
readFloats(const onnx::TensorProto &t) {
  if (t.data_location() == onnx::TensorProto::EXTERNAL ||
      t.data_type() != onnx::TensorProto::FLOAT)
    return std::nullopt;
  std::optional<int64_t> count = elementCount(t);
  if (!count)
    return std::nullopt;
  int64_t n = *count;
  std::vector<float> values;
  if (t.has_raw_data()) {
    const std::string &raw = t.raw_data();
    if (static_cast<int64_t>(raw.size()) != 4 * n)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i) {
      uint32_t bits = llvm::support::endian::read32le(raw.data() + 4 * i);
      float f;
      std::memcpy(&f, &bits, 4);
      values.push_back(f);
    }
  } else {
    values.assign(t.float_data().begin(), t.float_data().end());
  }
  if (static_cast<int64_t>(values.size()) != n)
    return std::nullopt;
  return values;
}

mlir::LogicalResult
GraphNormalizer::rewriteConstantDequantize(onnx::NodeProto &node,
                                           Nodes &nodes) {
  // DequantizeLinear-21 of a constant, blocked or in 4 bits: no kernel
  // takes either form, and the result is a constant, computed here as
  // ONNX Runtime computes it, (x - zero_point) * scale in f32.
  const onnx::TensorProto *x = findConstant(node.input(0));
  const onnx::TensorProto *scale =
      node.input_size() > 1 ? findConstant(node.input(1)) : nullptr;
  bool hasZeroPoint = node.input_size() > 2 && !node.input(2).empty();
  const onnx::TensorProto *zeroPoint =
      hasZeroPoint ? findConstant(node.input(2)) : nullptr;
  if (!x || !scale || (hasZeroPoint && !zeroPoint))
    return fail(node, "blocked or 4-bit dequantization needs constant data, "
                      "scale and zero point (a computed tensor is not "
                      "supported)");
  std::optional<std::vector<int32_t>> data = readIntegers(*x);
  std::optional<std::vector<float>> scales = readFloats(*scale);
  std::optional<std::vector<int32_t>> zeros =
      zeroPoint ? readIntegers(*zeroPoint) : std::vector<int32_t>();
  if (!data || !scales || !zeros)
    return fail(node, "reads integer data, f32 scales and integer zero "
                      "points held in the file");
  if (zeroPoint && zeroPoint->data_type() != x->data_type())
    return fail(node, "the zero point's type differs from the data's");
  int64_t rank = x->dims_size();
  const onnx::AttributeProto *axisAttr = findAttr(node, "axis");
  const onnx::AttributeProto *blockAttr = findAttr(node, "block_size");
  int64_t axis = axisAttr ? axisAttr->i() : 1;
  int64_t block = blockAttr ? blockAttr->i() : 0;
  if (axis < 0)
    axis += rank;
  // Blocked scales have the data's rank; otherwise one element is per
  // tensor.
  bool perTensor =
      block == 0 && (scale->dims_size() == 0 ||
                     (scale->dims_size() == 1 && scale->dims(0) == 1));
  if (!perTensor && (axis < 0 || axis >= rank))
    return fail(node,
                "axis " + std::to_string(axis) + " is outside the data's rank");
  if (block < 0)
    return fail(node, "block_size must not be negative");
  if (!perTensor && block > 0) {
    // Blocked: scale has the data's shape, axis divided into blocks.
    bool ok = scale->dims_size() == rank;
    for (int64_t d = 0; ok && d < rank; ++d)
      ok = scale->dims(d) ==
           (d == axis ? (x->dims(d) == 0 ? 0 : (x->dims(d) - 1) / block + 1)
                      : x->dims(d));
    if (!ok)
      return fail(node, "the scale's shape does not match the data's in "
                        "blocks of " +
                            std::to_string(block) + " along axis " +
                            std::to_string(axis));
  } else if (!perTensor &&
             (scale->dims_size() != 1 || scale->dims(0) != x->dims(axis))) {
    return fail(node, "a per-axis scale needs one value per element of "
                      "axis " +
                          std::to_string(axis));
  }
  bool sameShape =
      !zeroPoint || (zeroPoint->dims_size() == scale->dims_size() &&
                     zeros->size() == scales->size());
  for (int d = 0; sameShape && zeroPoint && d < scale->dims_size(); ++d)
    sameShape = zeroPoint->dims(d) == scale->dims(d);
  if (!sameShape)
    return fail(node, "the zero point's shape differs from the scale's");
  // Element i's scale index: its coordinates, axis divided by the block.
  llvm::SmallVector<int64_t> strides(rank, 1), scaleStrides(rank, 1);
  for (int64_t d = rank - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * x->dims(d + 1);
    scaleStrides[d] =
        scaleStrides[d + 1] * (block > 0 ? scale->dims(d + 1) : 1);
  }
  onnx::TensorProto value;
  value.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : x->dims())
    value.add_dims(d);
  std::string *raw = value.mutable_raw_data();
  raw->resize(4 * data->size());
  for (size_t i = 0; i < data->size(); ++i) {
    size_t j = 0;
    if (!perTensor && block == 0) {
      j = (i / strides[axis]) % x->dims(axis);
    } else if (!perTensor) {
      for (int64_t d = 0; d < rank; ++d) {
        int64_t c = (i / strides[d]) % x->dims(d);
        j += (d == axis ? c / block : c) * scaleStrides[d];
      }
    }
    int64_t zero = zeros->empty() ? 0 : (*zeros)[j];
    float y = static_cast<float>(int64_t{(*data)[i]} - zero) * (*scales)[j];
    uint32_t bits;
    std::memcpy(&bits, &y, 4);
    llvm::support::endian::write32le(raw->data() + 4 * i, bits);
  }
  onnx::NodeProto &constant =
      addNode(nodes, node, "Constant", {}, {node.output(0)});
  constant.set_name(node.name());
  onnx::AttributeProto *attr = constant.add_attribute();
  attr->set_name("value");
  attr->set_type(onnx::AttributeProto::TENSOR);
  attr->mutable_t()->Swap(&value);
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewritePadAxes(onnx::NodeProto &node,
                                                    bool &changed) {
  // Pad-19's `wrap` is a mode string that Pad-13's schema passes through;
  // hl.pad and the kernel implement it.
  if (node.input_size() <= 3 || node.input(3).empty())
    return mlir::success();
  // Pad-18's axes: expand the pads to every dimension.
  std::optional<llvm::SmallVector<int64_t>> axes = constantInts(node.input(3));
  std::optional<llvm::SmallVector<int64_t>> pads = constantInts(node.input(1));
  std::optional<int> rank = findRank(node.input(0));
  if (!axes || !pads || !rank)
    return fail(node, "its axes need constant pads and axes and an input "
                      "of known rank");
  int64_t r = *rank;
  if (pads->size() != 2 * axes->size())
    return fail(node, "pads must hold two values per axis");
  llvm::SmallVector<int64_t> full(2 * r, 0);
  for (auto [i, axis] : llvm::enumerate(*axes)) {
    int64_t a = axis < 0 ? axis + r : axis;
    if (a < 0 || a >= r)
      return fail(node, "axis " + std::to_string(axis) +
                            " is outside the input's rank");
    full[a] = (*pads)[i];
    full[a + r] = (*pads)[i + axes->size()];
  }
  node.set_input(1, addInts(node, "pads", full));
  dropInput(node, 3);
  changed = true;
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteResizeAttrs(onnx::NodeProto &node,
                                                        bool &changed) {
  if (const onnx::AttributeProto *a = findAttr(node, "antialias")) {
    // Resize-13's schema has no antialias; hl.resize and the kernel do.
    if (a->i() != 0)
      result.deferred.emplace_back(path + node.output(0), *a);
    eraseAttr(node, "antialias");
    changed = true;
  }
  if (const onnx::AttributeProto *a =
          findAttr(node, "keep_aspect_ratio_policy")) {
    bool hasSizes = node.input_size() > 3 && !node.input(3).empty();
    if (a->s() != "stretch" && hasSizes)
      return fail(node, "keep_aspect_ratio_policy '" + a->s() +
                            "' with sizes is not supported");
    eraseAttr(node, "keep_aspect_ratio_policy");
    changed = true;
  }
  if (const onnx::AttributeProto *a = findAttr(node, "axes")) {
    // Axes that list every dimension in order are the default.
    std::optional<int> rank = findRank(node.input(0));
    bool all = rank && a->ints_size() == *rank;
    for (int i = 0; all && i < a->ints_size(); ++i)
      all = a->ints(i) == i || a->ints(i) == i - *rank;
    if (!all)
      return fail(node, "axes other than every dimension are not "
                        "supported");
    eraseAttr(node, "axes");
    changed = true;
  }
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteQuantizeAttrs(onnx::NodeProto &node,
                                                          bool &changed) {
  if (findAttr(node, "saturate"))
    changed = true;
  eraseAttr(node, "saturate");
  if (const onnx::AttributeProto *a = findAttr(node, "block_size")) {
    if (a->i() != 0)
      return fail(node, "blocked quantization (block_size > 0) is not "
                        "supported");
    eraseAttr(node, "block_size");
    changed = true;
  }
  if (const onnx::AttributeProto *a = findAttr(node, "output_dtype")) {
    bool hasZeroPoint = node.input_size() > 2 && !node.input(2).empty();
    if (a->i() != 0 && !hasZeroPoint) {
      // QuantizeLinear-21: the result type without a zero point.
      onnx::TensorProto *zp = graph.add_initializer();
      zp->set_name(freshName(node, "zero_point"));
      zp->set_data_type(static_cast<int32_t>(a->i()));
      if (a->i() != onnx::TensorProto::INT8 &&
          a->i() != onnx::TensorProto::UINT8)
        return fail(node, "output_dtype " + std::to_string(a->i()) +
                              " is not int8 or uint8");
      zp->add_int32_data(0);
      while (node.input_size() < 3)
        node.add_input("");
      node.set_input(2, zp->name());
    }
    eraseAttr(node, "output_dtype");
    changed = true;
  }
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewriteDFTAxis(onnx::NodeProto &node,
                                                    bool &changed) {
  // DFT-20 takes axis as input 2 (default -2); DFT-17 as an attribute
  // (default 1, the first dimension after the batch).
  int64_t axis = -2;
  if (node.input_size() > 2 && !node.input(2).empty()) {
    std::optional<llvm::SmallVector<int64_t>> value =
        constantInts(node.input(2));
    if (!value || value->size() != 1)
      return fail(node, "its axis must be a constant scalar");
    axis = value->front();
  }
  if (axis < 0) {
    std::optional<int> rank = findRank(node.input(0));
    if (!rank)
      return fail(node, "a negative axis needs an input of known rank");
    axis += *rank;
  }
  dropInput(node, 2);
  onnx::AttributeProto *attr = node.add_attribute();
  attr->set_name("axis");
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(axis);
  changed = true;
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::rewrite(onnx::NodeProto &node,
                                             Nodes &nodes, bool &changed) {
  changed = false;
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return mlir::success();
  llvm::StringRef op = node.op_type();
  // Operators introduced after 17 that have no opset-17 form here.
  static const llvm::StringMap<int> introduced = {
      {"ImageDecoder", 20},
      {"RegexFullMatch", 20},
      {"StringConcat", 20},
      {"StringSplit", 20},
  };
  if (op == "Col2Im" && opset >= 18) {
    changed = true;
    return rewriteCol2Im(node, nodes);
  }
  if (op == "CenterCropPad" && opset >= 18) {
    changed = true;
    return rewriteCenterCropPad(node, nodes);
  }
  if (op == "AffineGrid" && opset >= 20) {
    changed = true;
    return rewriteAffineGrid(node, nodes);
  }
  auto newOp = introduced.find(op);
  if (newOp != introduced.end() && newOp->second <= opset) {
    error = "node '" + node.name() + "' (" + node.op_type() + "-" +
            std::to_string(newOp->second) +
            "): this operator, introduced in opset " +
            std::to_string(newOp->second) + ", is not supported";
    return failure();
  }
  int since = sinceVersion(node);
  if (since == 0)
    return mlir::success();
  // Malformed nodes are the checker's to report, with its own message.
  if (node.input_size() == 0 || node.input(0).empty() ||
      node.output_size() == 0)
    return mlir::success();
  if (op == "GroupNormalization" && node.input_size() < 3)
    return mlir::success();
  auto intAttr = [&](llvm::StringRef name, int64_t dflt) {
    const onnx::AttributeProto *a = findAttr(node, name);
    return a ? a->i() : dflt;
  };
  // Drops `name` when it holds its neutral value; fails otherwise.
  auto dropNeutralInt = [&](llvm::StringRef name, int64_t neutral,
                            const std::string &why) -> mlir::LogicalResult {
    if (intAttr(name, neutral) != neutral)
      return fail(node, why);
    if (findAttr(node, name))
      changed = true;
    eraseAttr(node, name);
    return mlir::success();
  };

  if (isReduceWithAxesInputAt18(op))
    return rewriteReduce(node, nodes, changed);
  if (op == "Split") {
    // Split-18's num_outputs: equal parts, the last smaller when the
    // extent does not divide; Split-13 splits equally into as many parts as
    // outputs, which is the same where it divides.
    if (!findAttr(node, "num_outputs"))
      return mlir::success();
    if (intAttr("num_outputs", 0) != node.output_size())
      return fail(node, "num_outputs differs from the number of outputs");
    changed = true;
    eraseAttr(node, "num_outputs");
    return mlir::success();
  }
  if (op == "Pad")
    return rewritePadAxes(node, changed);
  if (op == "Resize")
    return rewriteResizeAttrs(node, changed);
  if (op == "AveragePool") {
    if (const onnx::AttributeProto *a = findAttr(node, "dilations")) {
      if (llvm::any_of(a->ints(), [](int64_t d) { return d != 1; }))
        return fail(node, "dilations other than 1 are not supported");
      eraseAttr(node, "dilations");
      changed = true;
    }
    return mlir::success();
  }
  if (op == "LpPool") {
    if (const onnx::AttributeProto *a = findAttr(node, "dilations")) {
      if (llvm::any_of(a->ints(), [](int64_t d) { return d != 1; }))
        return fail(node, "dilations other than 1 are not supported");
      eraseAttr(node, "dilations");
      changed = true;
    }
    return dropNeutralInt("ceil_mode", 0, "ceil_mode=1 is not supported");
  }
  if (op == "Cast" || op == "CastLike") {
    // Cast-19/21's new result types (float8 17-20, uint4 21, int4 22) have
    // no Strata type; libonnx 1.12 would only say the type is not valid.
    if (const onnx::AttributeProto *to = findAttr(node, "to");
        to && to->i() >= 17 && to->i() <= 22)
      return fail(node, "casts to ONNX element type " +
                            std::to_string(to->i()) +
                            " (float8 or 4-bit), which Strata does not "
                            "support");
    // saturate only concerns float8 results.
    if (findAttr(node, "saturate"))
      changed = true;
    eraseAttr(node, "saturate");
    return mlir::success();
  }
  if (op == "DequantizeLinear" && node.input_size() > 1) {
    const onnx::TensorProto *data = findConstant(node.input(0));
    bool fourBit =
        data && (data->data_type() == kInt4 || data->data_type() == kUInt4);
    if (intAttr("block_size", 0) != 0 || fourBit) {
      changed = true;
      return rewriteConstantDequantize(node, nodes);
    }
  }
  if (op == "QuantizeLinear" || op == "DequantizeLinear")
    return rewriteQuantizeAttrs(node, changed);
  if (op == "DFT")
    return rewriteDFTAxis(node, changed);
  if (op == "GridSample") {
    if (const onnx::AttributeProto *a = findAttr(node, "mode")) {
      std::string mode = a->s() == "linear"  ? "bilinear"
                         : a->s() == "cubic" ? "bicubic"
                                             : a->s();
      eraseAttr(node, "mode");
      onnx::AttributeProto *m = node.add_attribute();
      m->set_name("mode");
      m->set_type(onnx::AttributeProto::STRING);
      m->set_s(mode);
      changed = true;
    }
    return mlir::success();
  }
  changed = true;
  if (op == "Mish")
    return rewriteMish(node, nodes);
  if (op == "GroupNormalization")
    return rewriteGroupNorm(node, nodes);
  if (op == "Gelu")
    return rewriteGelu(node, nodes);
  changed = false;
  return mlir::success();
}

mlir::LogicalResult GraphNormalizer::run() {
  google::protobuf::RepeatedPtrField<onnx::NodeProto> out;
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      std::string inner = path + subGraphPath(node, attr);
      if (attr.has_g() && failed(GraphNormalizer(*attr.mutable_g(), opset,
                                                 result, error, this, inner)
                                     .run()))
        return failure();
      for (onnx::GraphProto &g : *attr.mutable_graphs())
        if (failed(GraphNormalizer(g, opset, result, error, this, inner).run()))
          return failure();
    }
    Nodes replacement;
    bool changed = false;
    std::string key = node.op_type() + "-" + std::to_string(sinceVersion(node));
    if (failed(rewrite(node, replacement, changed)))
      return failure();
    if (changed)
      ++result.rewritten[key];
    if (replacement.empty()) {
      out.Add()->Swap(&node);
      continue;
    }
    for (onnx::NodeProto &n : replacement)
      out.Add()->Swap(&n);
  }
  graph.mutable_node()->Swap(&out);
  return mlir::success();
}

/// Adds every value that a node of `graph` or of its sub-graphs reads.
static void collectReads(const onnx::GraphProto &graph,
                         llvm::StringSet<> &reads) {
  for (const onnx::NodeProto &node : graph.node()) {
    for (const std::string &input : node.input())
      reads.insert(input);
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g())
        collectReads(attr.g(), reads);
      for (const onnx::GraphProto &g : attr.graphs())
        collectReads(g, reads);
    }
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    reads.insert(output.name());
}

/// Drops the int4/uint4 initializers that nothing reads any more (their
/// dequantization became a constant): libonnx 1.12 rejects the types.
static void dropUnusedFourBitInitializers(onnx::GraphProto &graph) {
  llvm::StringSet<> reads;
  collectReads(graph, reads);
  auto *inits = graph.mutable_initializer();
  for (int i = inits->size() - 1; i >= 0; --i) {
    const onnx::TensorProto &t = inits->Get(i);
    if ((t.data_type() == kInt4 || t.data_type() == kUInt4) &&
        !reads.contains(t.name()))
      inits->DeleteSubrange(i, 1);
  }
}

static void
restoreDeferred(onnx::GraphProto &graph, const std::string &path,
                const llvm::StringMap<const onnx::AttributeProto *> &byOutput) {
  for (onnx::NodeProto &node : *graph.mutable_node()) {
    for (onnx::AttributeProto &attr : *node.mutable_attribute()) {
      std::string inner = path + subGraphPath(node, attr);
      if (attr.has_g())
        restoreDeferred(*attr.mutable_g(), inner, byOutput);
      for (onnx::GraphProto &g : *attr.mutable_graphs())
        restoreDeferred(g, inner, byOutput);
    }
    if (node.output_size() == 0)
      continue;
    auto it = byOutput.find(path + node.output(0));
    if (it != byOutput.end())
      *node.add_attribute() = *it->second;
  }
}

void restoreDeferredAttributes(onnx::ModelProto &model,
                               const NormalizationResult &result) {
  if (result.deferred.empty())
    return;
  llvm::StringMap<const onnx::AttributeProto *> byOutput;
  for (const auto &[output, attr] : result.deferred)
    byOutput[output] = &attr;
  restoreDeferred(*model.mutable_graph(), "", byOutput);
}

/// Fails, naming the first node, when `graph` (or a sub-graph) uses an
/// operator whose schema Strata registers (ONNXChecks.cpp) at a lower
/// opset than the one that introduced it: the registry would accept it.
static mlir::LogicalResult
checkIntroducedOperators(const onnx::GraphProto &graph, int opset,
                         std::string &error) {
  static const llvm::StringMap<int> introduced = {
      {"BitwiseAnd", 18}, {"BitwiseOr", 18},  {"BitwiseXor", 18},
      {"BitwiseNot", 18}, {"DeformConv", 19},
  };
  for (const onnx::NodeProto &node : graph.node()) {
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.has_g() &&
          failed(checkIntroducedOperators(attr.g(), opset, error)))
        return failure();
      for (const onnx::GraphProto &g : attr.graphs())
        if (failed(checkIntroducedOperators(g, opset, error)))
          return failure();
    }
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      continue;
    auto it = introduced.find(node.op_type());
    if (it != introduced.end() && opset < it->second) {
      error = "node '" + node.name() + "' (" + node.op_type() +
              "): this operator was introduced in opset " +
              std::to_string(it->second) +
              "; the model imports ai.onnx opset " + std::to_string(opset);
      return failure();
    }
  }
  return mlir::success();
}

FailureOr<NormalizationResult> normalizeToCheckedOpset(onnx::ModelProto &model,
                                                       std::string &error) {
  NormalizationResult result;
  onnx::OperatorSetIdProto *onnxOpset = nullptr;
  for (onnx::OperatorSetIdProto &opset : *model.mutable_opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      onnxOpset = &opset;
  if (onnxOpset &&
      failed(checkIntroducedOperators(
          model.graph(), static_cast<int>(onnxOpset->version()), error)))
    return failure();
  if (!onnxOpset || onnxOpset->version() <= kNewestCheckedOpset)
    return result;
  if (onnxOpset->version() > kNewestNormalizedOpset) {
    error = "opset " + std::to_string(onnxOpset->version()) +
            " of domain 'ai.onnx' is newer than the newest the importer "
            "knows (" +
            std::to_string(kNewestNormalizedOpset) + ")";
    return failure();
  }
  int opset = onnxOpset->version();
  if (failed(
          GraphNormalizer(*model.mutable_graph(), opset, result, error).run()))
    return failure();
  dropUnusedFourBitInitializers(*model.mutable_graph());
  result.fromOpset = opset;
  onnxOpset->set_version(kNewestCheckedOpset);
  // IR 9 and 10 only added types (float8, int4) that the importer refuses
  // by name where they appear; libonnx checks up to IR 8.
  if (model.ir_version() > onnx::IR_VERSION) {
    result.fromIRVersion = model.ir_version();
    model.set_ir_version(onnx::IR_VERSION);
  }
  return result;
}

} // namespace strata::importer
