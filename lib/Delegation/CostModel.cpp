//===- CostModel.cpp - work of edge ops and its calibrated price ----------===//
#include "strata/Delegation/CostModel.h"

#include "strata/Backends/Backend.h"

#include "Edge/IR/EdgeOps.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace strata {

namespace {

/// Elements of a statically shaped tensor, or -1.
double elementsOf(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return -1;
  return static_cast<double>(shaped.getNumElements());
}

/// Convolution work: every result element takes weight-elements / M
/// multiply-adds (weight [M, C/group, KH, KW]).
OpWork convWork(Value input, Value weight, Value result, int64_t group,
                function_ref<Type(Value)> typeOf) {
  auto in = dyn_cast<ShapedType>(typeOf(input));
  auto w = dyn_cast<ShapedType>(typeOf(weight));
  double out = elementsOf(typeOf(result));
  if (!in || !w || !in.hasStaticShape() || !w.hasStaticShape() || out < 0 ||
      w.getRank() < 1 || in.getRank() < 2 || w.getDimSize(0) == 0)
    return {"conv", 0};
  double units = out * (static_cast<double>(w.getNumElements()) /
                        static_cast<double>(w.getDimSize(0)));
  int64_t channels = in.getDimSize(1);
  if (group <= 1)
    return {"conv", units};
  return {group == channels ? "conv_depthwise" : "conv_grouped", units};
}

/// Ops that move or index data without arithmetic.
bool isDataMovement(StringRef name) {
  static const llvm::StringSet<> names = {"reshape",
                                          "transpose",
                                          "concat",
                                          "slice",
                                          "pad",
                                          "gather",
                                          "gather_nd",
                                          "gather_elements",
                                          "scatter_elements",
                                          "resize",
                                          "dynamic_slice",
                                          "cum_sum",
                                          "range"};
  return names.contains(name);
}

} // namespace

OpWork estimateWork(Operation *op) {
  return estimateWork(op, [](Value value) { return value.getType(); });
}

OpWork estimateWork(Operation *op, function_ref<Type(Value)> typeOf) {
  if (op->getNumResults() == 0)
    return {"other", 0};
  Value result = op->getResult(0);
  double out = elementsOf(typeOf(result));
  double in = op->getNumOperands() ? elementsOf(typeOf(op->getOperand(0))) : 0;
  auto orZero = [](double v) { return v < 0 ? 0 : v; };
  std::optional<OpWork> typed =
      llvm::TypeSwitch<Operation *, std::optional<OpWork>>(op)
          .Case([&](edge::Conv2DOp conv) {
            return convWork(conv.getInput(), conv.getWeight(), result,
                            conv.getGroup(), typeOf);
          })
          .Case([&](edge::QuantizedConv2DOp conv) {
            return convWork(conv.getInput(), conv.getWeight(), result,
                            conv.getGroup(), typeOf);
          })
          .Case([&](edge::ConvTranspose2DOp conv) -> std::optional<OpWork> {
            // Every input element scatters weight-elements / C products
            // (weight [C, M/group, KH, KW]).
            auto w = dyn_cast<ShapedType>(typeOf(conv.getWeight()));
            if (!w || !w.hasStaticShape() || w.getDimSize(0) == 0 || in < 0)
              return OpWork{"conv", 0};
            return OpWork{"conv",
                          in * (static_cast<double>(w.getNumElements()) /
                                static_cast<double>(w.getDimSize(0)))};
          })
          .Case<edge::MatMulOp, edge::QuantizedMatMulOp>(
              [&](auto matmul) -> std::optional<OpWork> {
                auto lhs = dyn_cast<ShapedType>(typeOf(matmul.getLhs()));
                if (!lhs || !lhs.hasStaticShape() || lhs.getRank() < 1 ||
                    out < 0)
                  return OpWork{"matmul", 0};
                return OpWork{"matmul",
                              out * static_cast<double>(
                                        lhs.getDimSize(lhs.getRank() - 1))};
              })
          .Case<edge::RNNOp, edge::GRUOp, edge::LSTMOp>(
              [&](auto layer) -> std::optional<OpWork> {
                // Every step and direction multiplies [batch, input] by
                // W [input, G*H] and [batch, hidden] by R [hidden, G*H].
                auto x = dyn_cast<ShapedType>(typeOf(layer.getX()));
                auto w = dyn_cast<ShapedType>(typeOf(layer.getW()));
                auto r = dyn_cast<ShapedType>(typeOf(layer.getR()));
                if (!x || !w || !r || !x.hasStaticShape() ||
                    !w.hasStaticShape() || !r.hasStaticShape())
                  return OpWork{"matmul", 0};
                double steps = static_cast<double>(x.getDimSize(0)) *
                               static_cast<double>(x.getDimSize(1));
                return OpWork{"matmul",
                              steps * static_cast<double>(w.getNumElements() +
                                                          r.getNumElements())};
              })
          .Default([](Operation *) { return std::nullopt; });
  if (typed)
    return *typed;
  StringRef name = op->getName().stripDialect();
  if (name == "max_pool2d" || name == "avg_pool2d")
    return {"pool", orZero(in)};
  if (name.starts_with("reduce_") || name.starts_with("arg_"))
    return {"reduce", orZero(in)};
  if (name == "softmax" || name == "log_softmax")
    return {"normalize", orZero(in)};
  if (isDataMovement(name))
    return {"data", orZero(out)};
  return {"eltwise", orZero(out)};
}

llvm::Expected<CostCalibration> CostCalibration::parse(llvm::StringRef json,
                                                       llvm::StringRef source) {
  auto fail = [&](const llvm::Twine &what) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "partition cost calibration '" + source +
                                       "': " + what);
  };
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return fail("not JSON (" + llvm::toString(parsed.takeError()) + ")");
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root || root->getString("format") != "strata-partition-cost")
    return fail("format is not \"strata-partition-cost\"");
  if (root->getInteger("version") != 1)
    return fail("version is not 1");
  CostCalibration calibration;
  calibration.source = source.str();
  if (std::optional<StringRef> machine = root->getString("machine"))
    calibration.machine = machine->str();
  auto readSide = [&](StringRef key, Side &side) -> llvm::Error {
    const llvm::json::Object *object = root->getObject(key);
    if (!object)
      return fail("no \"" + key + "\" object");
    side.scale = object->getNumber("scale").value_or(1.0);
    side.opNs = object->getNumber("op_ns").value_or(0.0);
    if (side.opNs < 0)
      return fail("\"" + key + "\".op_ns is not >= 0");
    const llvm::json::Object *prices = object->getObject("ns_per_unit");
    if (!prices)
      return fail("\"" + key + "\" has no \"ns_per_unit\" object");
    for (const auto &[opClass, value] : *prices) {
      std::optional<double> ns = value.getAsNumber();
      if (!ns || *ns < 0)
        return fail("\"" + key + "\".ns_per_unit." + opClass.str() +
                    " is not a number >= 0");
      side.nsPerUnit[opClass.str()] = *ns;
    }
    if (side.scale <= 0)
      return fail("\"" + key + "\".scale is not > 0");
    return llvm::Error::success();
  };
  if (llvm::Error e = readSide("portable", calibration.portable))
    return e;
  if (llvm::Error e = readSide("delegate", calibration.delegate))
    return e;
  const llvm::json::Object *delegate = root->getObject("delegate");
  calibration.call = delegate->getNumber("call_ns").value_or(0);
  calibration.boundaryPerByte =
      delegate->getNumber("boundary_ns_per_byte").value_or(0);
  if (calibration.call < 0 || calibration.boundaryPerByte < 0)
    return fail("call_ns and boundary_ns_per_byte must be >= 0");
  if (!calibration.portable.nsPerUnit.count("other"))
    return fail("\"portable\".ns_per_unit has no \"other\" price");
  return calibration;
}

double CostCalibration::price(const Side &side, const Side *fallback,
                              const OpWork &work) {
  auto find = [&](const Side &s, const std::string &key) -> const double * {
    auto it = s.nsPerUnit.find(key);
    return it == s.nsPerUnit.end() ? nullptr : &it->second;
  };
  const double *ns = find(side, work.opClass);
  if (!ns && fallback)
    ns = find(*fallback, work.opClass);
  if (!ns)
    ns = find(side, "other");
  if (!ns && fallback)
    ns = find(*fallback, "other");
  return side.scale * ((ns ? *ns : 0) * work.units + side.opNs);
}

double CostCalibration::portableNs(const OpWork &work) const {
  return price(portable, nullptr, work);
}

double CostCalibration::delegateNs(const OpWork &work) const {
  return price(delegate, &portable, work);
}

llvm::Expected<std::optional<CostCalibration>>
loadCostCalibration(llvm::StringRef spec, const Backend &backend) {
  if (spec == "none")
    return std::nullopt;
  std::string text, source;
  if (spec == "builtin") {
    text = backend.getHooks().costCalibration;
    source = "built-in (" + backend.getName() + ")";
    if (text.empty())
      return std::nullopt;
  } else {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
        llvm::MemoryBuffer::getFile(spec);
    if (!file)
      return llvm::createStringError(
          file.getError(), "cannot read partition cost calibration '" + spec +
                               "': " + file.getError().message());
    text = (*file)->getBuffer().str();
    source = spec.str();
  }
  llvm::Expected<CostCalibration> parsed = CostCalibration::parse(text, source);
  if (!parsed)
    return parsed.takeError();
  return std::optional<CostCalibration>(std::move(*parsed));
}

} // namespace strata
