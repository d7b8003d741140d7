//===- Bisect.cpp - the first ONNX node whose value diverges --------------===//
#include "strata/Compiler/Bisect.h"

#include "strata/Calibration/Execute.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>
#include <map>

using namespace mlir;

namespace strata {
namespace {

using runtime::OwnedTensor;

/// A debug build: its bytes and what it exposes.
struct DebugBuild {
  std::string bytes;
  CompileReport report;
};

FailureOr<DebugBuild> compileDebugBuild(StringRef modelPath,
                                        CompileOptions options,
                                        MLIRContext &context) {
  options.emit = EmitKind::Program;
  options.printIRAfterAll = false;
  options.planOut.clear();
  // Measured tuning (--tune) ran with the program's compile: a debug build
  // reads its records from the tuning file, never measures or rewrites it.
  for (auto &[backend, specs] : options.compileSpecs)
    specs.erase("tune");
  DebugBuild build;
  if (failed(compileONNXFile(modelPath, options, context, build.bytes,
                             build.report)))
    return failure();
  return build;
}

/// The elements of `tensor` as doubles, dequantized per `record`.
std::vector<double> valuesOf(OwnedTensor &tensor, const ExposedValue &record) {
  runtime::TensorView view = tensor.view();
  std::vector<double> values(view.numel());
  for (int64_t i = 0, n = view.numel(); i < n; ++i) {
    double v = runtime::elementAsDouble(view, i);
    if (record.quantization)
      v = (v - record.quantization->second) * record.quantization->first;
    values[i] = v;
  }
  return values;
}

/// Over the finite elements (attention masks hold infinities); the others
/// are counted.
ValueStatistics statisticsOf(const std::vector<double> &values) {
  ValueStatistics s;
  double sum = 0, squares = 0;
  int64_t finite = 0;
  for (double v : values) {
    if (!std::isfinite(v)) {
      ++s.nonFinite;
      continue;
    }
    s.min = finite ? std::min(s.min, v) : v;
    s.max = finite ? std::max(s.max, v) : v;
    ++finite;
    sum += v;
    squares += v * v;
  }
  if (finite) {
    s.mean = sum / finite;
    s.stddev = std::sqrt(std::max(0.0, squares / finite - s.mean * s.mean));
  }
  return s;
}

/// Where the program runs the op computing `record`, from its delegation
/// report.
std::string placementOf(const ExposedValue &record,
                        const CompileReport &report) {
  if (!report.delegation)
    return "portable";
  for (const DelegationReport::Placement &p : report.delegation->ops)
    if (p.op == record.op && llvm::is_contained(record.nodes, p.node))
      return p.partition.empty() ? "portable"
                                 : p.backend + " partition " + p.partition;
  return "portable";
}

llvm::json::Value statisticsJSON(const ValueStatistics &s) {
  return llvm::json::Object{{"mean", s.mean},
                            {"stddev", s.stddev},
                            {"min", s.min},
                            {"max", s.max},
                            {"non_finite", s.nonFinite}};
}

/// A finite number for JSON (which has no infinity).
double finite(double v) {
  return std::isfinite(v) ? v : (v > 0 ? 999.0 : -999.0);
}

} // namespace

FailureOr<BisectReport> bisect(StringRef modelPath,
                               ArrayRef<ModelGraphNode> graph,
                               const CompileOptions &options,
                               MLIRContext &context,
                               const std::vector<OwnedTensor> &inputs,
                               const BisectOptions &bisectOptions) {
  // Both builds take a fused op as the output of its latest node in the
  // model's order.
  CompileOptions::Expose expose;
  std::map<std::string, std::string> opTypes;
  for (const ModelGraphNode &node : graph) {
    expose.nodeOrder.push_back(node.name);
    opTypes[node.name] = node.opType;
  }
  CompileOptions plain = referenceOptions(options);
  plain.expose = expose;
  FailureOr<DebugBuild> reference = compileDebugBuild(modelPath, plain, context);
  if (failed(reference))
    return failure();
  CompileOptions debug = options;
  debug.expose = std::move(expose);
  FailureOr<DebugBuild> program = compileDebugBuild(modelPath, debug, context);
  if (failed(program))
    return failure();

  auto referenceOutputs = runProgram(reference->bytes, inputs);
  auto programOutputs = runProgram(program->bytes, inputs);
  for (auto *outputs : {&referenceOutputs, &programOutputs})
    if (!outputs->ok()) {
      llvm::errs() << "bisect: " << outputs->error().toString() << "\n";
      return failure();
    }

  std::map<std::pair<std::string, unsigned>, const ExposedValue *> compiled;
  for (const ExposedValue &record : program->report.exposed)
    compiled[{record.node, record.result}] = &record;
  // The nodes the program computes inside another node's op.
  std::map<std::string, const ExposedValue *> fusedInto;
  for (const ExposedValue &record : program->report.exposed)
    for (const std::string &name : record.nodes)
      if (name != record.node)
        fusedInto.try_emplace(name, &record);

  BisectReport report;
  report.quantized = options.quantize.has_value();
  report.threshold =
      report.quantized ? bisectOptions.minSQNR : bisectOptions.maxRelL2;
  for (const ExposedValue &ref : reference->report.exposed) {
    BisectReport::Node node;
    node.node = ref.node;
    node.result = ref.result;
    node.referenceOp = ref.op;
    auto type = opTypes.find(ref.node);
    if (type != opTypes.end())
      node.opType = type->second;
    auto found = compiled.find({ref.node, ref.result});
    if (found == compiled.end()) {
      auto host = fusedInto.find(ref.node);
      node.status = "fused";
      if (host != fusedInto.end()) {
        node.compiledOp = host->second->op;
        node.fusedWith = {host->second->node};
        node.placement = placementOf(*host->second, program->report);
      }
      report.nodes.push_back(std::move(node));
      continue;
    }
    const ExposedValue &got = *found->second;
    node.compiledOp = got.op;
    for (const std::string &name : got.nodes)
      if (name != got.node)
        node.fusedWith.push_back(name);
    node.placement = placementOf(got, program->report);
    OwnedTensor &want = (*referenceOutputs)[ref.output];
    OwnedTensor &have = (*programOutputs)[got.output];
    if (want.shape != have.shape) {
      node.status = "shape";
      report.nodes.push_back(std::move(node));
      continue;
    }
    std::vector<double> a = valuesOf(want, ref), b = valuesOf(have, got);
    node.reference = statisticsOf(a);
    node.compiled = statisticsOf(b);
    double signal = 0, noise = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (std::isfinite(a[i]))
        signal += a[i] * a[i];
      // The same infinity, or NaN on both sides, is a match; any other
      // non-finite element makes the noise infinite.
      if (a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))
        continue;
      double d = std::isfinite(a[i]) && std::isfinite(b[i])
                     ? b[i] - a[i]
                     : std::numeric_limits<double>::infinity();
      noise += d * d;
      node.maxAbs = std::max(node.maxAbs, std::fabs(d));
    }
    node.relL2 = signal > 0 ? std::sqrt(noise / signal) : std::sqrt(noise);
    node.sqnr = noise > 0 ? 10 * std::log10(signal / noise)
                          : std::numeric_limits<double>::infinity();
    // NaN compares false: a NaN on either side diverges.
    node.diverged = report.quantized ? !(node.sqnr >= report.threshold)
                                     : !(node.relL2 <= report.threshold);
    if (node.diverged && !report.first)
      report.first = report.nodes.size();
    report.nodes.push_back(std::move(node));
  }
  return report;
}

void BisectReport::print(llvm::raw_ostream &os) const {
  int compared = 0, fused = 0, shaped = 0;
  for (const Node &n : nodes)
    (n.status == "compared" ? compared : n.status == "fused" ? fused : shaped)++;
  os << "bisect: " << compared << " node values compared";
  if (fused)
    os << ", " << fused << " computed inside fused ops";
  if (shaped)
    os << ", " << shaped << " in another shape";
  os << "\n";
  if (!first) {
    os << "bisect: no node leaves the tolerance ("
       << (quantized ? llvm::format("SQNR >= %g dB", threshold)
                     : llvm::format("rel-L2 <= %g", threshold))
       << ")\n";
    os << "bisect: the debug builds agree node by node at this tolerance. "
          "Either the outputs' difference is within what single nodes "
          "carry (try a tighter --bisect-rel-l2 or --bisect-sqnr), or it "
          "lies in what exposing every node's value undoes: fusions a "
          "delegate makes across node outputs (post-ops, in-place "
          "accumulation) and the memory plan\n";
    return;
  }
  const Node &n = nodes[*first];
  os << "bisect: first diverging node: '" << n.node << "'";
  if (n.result)
    os << " result " << n.result;
  if (!n.opType.empty())
    os << " (" << n.opType << ")";
  if (quantized)
    os << llvm::format(": SQNR %.1f dB, below %g dB", n.sqnr, threshold);
  else
    os << llvm::format(": rel_l2 %.3g above %g", n.relL2, threshold);
  os << llvm::formatv(", max_abs {0:e2}\n", n.maxAbs);
  os << "  computed by " << n.compiledOp;
  if (!n.fusedWith.empty()) {
    os << " fused with";
    for (const std::string &other : n.fusedWith)
      os << " '" << other << "'";
  }
  os << ", " << (n.placement == "portable" ? "on the portable kernels"
                                            : "in " + n.placement)
     << "\n";
  for (auto [label, s] : {std::pair{"reference", &n.reference},
                          std::pair{"compiled ", &n.compiled}}) {
    os << llvm::formatv("  {0}: mean {1:e3} std {2:e3} min {3:e3} max {4:e3}",
                        label, s->mean, s->stddev, s->min, s->max);
    if (s->nonFinite)
      os << ", " << s->nonFinite << " not finite";
    os << "\n";
  }
  for (size_t i = *first; i-- > 0;)
    if (nodes[i].status == "compared") {
      os << "  the last node compared before it, '" << nodes[i].node << "': "
         << (quantized ? llvm::formatv("SQNR {0:f1} dB", nodes[i].sqnr).str()
                       : llvm::formatv("rel_l2 {0:e2}", nodes[i].relL2).str())
         << "\n";
      break;
    }
}

llvm::json::Value BisectReport::toJSON() const {
  llvm::json::Array list;
  for (const Node &n : nodes) {
    llvm::json::Object o{{"node", n.node},
                         {"op_type", n.opType},
                         {"result", static_cast<int64_t>(n.result)},
                         {"reference_op", n.referenceOp},
                         {"compiled_op", n.compiledOp},
                         {"placement", n.placement},
                         {"status", n.status}};
    if (!n.fusedWith.empty())
      o["fused_with"] = n.fusedWith;
    if (n.status == "compared") {
      o["rel_l2"] = finite(n.relL2);
      o["max_abs"] = finite(n.maxAbs);
      o["sqnr_db"] = finite(n.sqnr);
      o["reference"] = statisticsJSON(n.reference);
      o["compiled"] = statisticsJSON(n.compiled);
      o["diverged"] = n.diverged;
    }
    list.push_back(std::move(o));
  }
  llvm::json::Object object{{"metric", quantized ? "sqnr_db" : "rel_l2"},
                            {"threshold", threshold},
                            {"nodes", std::move(list)}};
  if (first)
    object["first_diverging"] = nodes[*first].node;
  return object;
}

} // namespace strata
