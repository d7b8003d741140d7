//===- Backend.h - runtime delegates (backends) and their registry -*- C++
//-*-===//
//
// A backend executes the subgraphs that its compiler-side partitioner claimed.
// Its lifecycle (AITune-style, docs/delegation.md): isAvailable,
// init(processed bytes, compile specs, named data) -> handle,
// execute(handle, args), destroy(handle). Each backend has a BackendConfig
// that serialises to and from JSON and describes itself. Backends are
// registered by name with an explicit call.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_BACKEND_H
#define STRATA_RUNTIME_BACKEND_H

#include "strata/Runtime/DataLoader.h"
#include "strata/Runtime/Error.h"
#include "strata/Runtime/Kernel.h"
#include "strata/Runtime/Tensor.h"

#include <map>
#include <string>
#include <vector>

namespace strata::runtime {

/// One option of a backend configuration.
struct ConfigOption {
  enum class Type { Int, Float, Bool, String };
  std::string name;
  Type type = Type::String;
  std::string value; ///< The value in its JSON spelling (12, 0.5, true, "x").
  std::string description;
};

/// A backend's options: typed, self-describing, JSON round-trippable.
class BackendConfig {
public:
  /// Declares an option with its default value (JSON spelling).
  void declare(std::string name, ConfigOption::Type type,
               std::string defaultValue, std::string description);
  /// Sets a declared option; fails naming an unknown option or a value of
  /// the wrong type.
  Error set(const std::string &name, const std::string &jsonValue);
  /// The value of `name` in its JSON spelling, or null when undeclared.
  const std::string *get(const std::string &name) const;
  /// `{"threads": 1, "name": "x"}` (declaration order).
  std::string toJson() const;
  /// Applies every key of a flat JSON object; fails on malformed JSON,
  /// unknown keys or mistyped values.
  Error fromJson(const std::string &json);
  /// One line per option: name, type, value, description.
  std::string describe() const;
  const std::vector<ConfigOption> &options() const { return options_; }

private:
  std::vector<ConfigOption> options_;
};

/// The program's named data (key -> bytes in a segment of the mapped file),
/// handed to a delegate's init so that it can use pre-packed weights in
/// place.
class NamedDataMap {
public:
  virtual ~NamedDataMap();
  /// The bytes stored under `key`; fails naming the key when absent.
  virtual Result<ByteSpan> get(const std::string &key) const = 0;
};

/// One step of a delegate's execution, timed while profiling is on: a
/// primitive or kernel of the backend, or a layout change between two.
struct DelegateOpProfile {
  std::string op;                 ///< What ran: "convolution", "reorder", ...
  std::vector<std::string> nodes; ///< The ONNX nodes it serves.
  std::string layout; ///< Source -> destination layout, backend's words.
  std::string implementation; ///< The backend's name of the algorithm/kernel.
  uint64_t nanoseconds = 0;
};

/// Opaque per-delegate state a backend returns from init.
struct DelegateHandle {
  virtual ~DelegateHandle();
};

/// A runtime delegate.
class Backend {
public:
  virtual ~Backend();
  /// The registry name (matches exec.delegate's `backend`).
  virtual const std::string &name() const = 0;
  /// False when the backend cannot run here (missing hardware, library).
  virtual bool isAvailable() const = 0;
  /// Prepares a processed blob for execution; `namedData` serves the
  /// segments its preprocess step asked for (valid while the program is).
  virtual Result<DelegateHandle *> init(ByteSpan processed,
                                        const Params &compileSpecs,
                                        const NamedDataMap &namedData) = 0;
  /// Runs the blob on `ins`, writing `outs` (a delegate that declared
  /// working memory gets it as the last of `outs`, a u8 buffer).
  virtual Error execute(DelegateHandle *handle,
                        const std::vector<TensorView> &ins,
                        const std::vector<TensorView> &outs) = 0;
  /// Runs a blob compiled with dynamic extents (docs/dynamic-shapes.md,
  /// "Delegates"): `extents` are the values of its extent slots at this
  /// call, in the order its graph numbers them; `ins` and `outs` carry the
  /// shapes they give. A backend that compiles no dynamic partitions keeps
  /// this default, which refuses the call.
  virtual Error executeDynamic(DelegateHandle *handle,
                               const std::vector<TensorView> &ins,
                               const std::vector<TensorView> &outs,
                               const std::vector<int64_t> &extents);
  /// Releases what init made.
  virtual void destroy(DelegateHandle *handle) = 0;
  /// Turns per-step timing of `handle`'s executions on or off. A backend
  /// that cannot time its steps keeps this default and reports none.
  virtual void setProfiling(DelegateHandle * /*handle*/, bool /*enabled*/) {}
  /// A readable listing of a processed blob (strata-dump): its ops, the
  /// ONNX nodes of each and what the backend chose to run it with. Empty
  /// when the backend has none; the blob is unverified input.
  virtual std::string describe(ByteSpan /*processed*/) const { return {}; }
  /// The steps of `handle`'s last execute with profiling on, in order.
  virtual std::vector<DelegateOpProfile>
  profile(const DelegateHandle * /*handle*/) const {
    return {};
  }
  /// The backend's configuration (mutable: set options before init).
  virtual BackendConfig &config() = 0;
};

/// The registry name and configuration every delegate backend keeps.
class NamedBackend : public Backend {
public:
  explicit NamedBackend(std::string name) : name_(std::move(name)) {}
  const std::string &name() const override { return name_; }
  BackendConfig &config() override { return config_; }

protected:
  BackendConfig config_;

private:
  std::string name_;
};

/// Backends by name; it does not own them.
class BackendRegistry {
public:
  /// Adds `backend` under its name; fails when the name is taken.
  Error add(Backend *backend);
  /// The backend called `name`, or null.
  Backend *lookup(const std::string &name) const;
  /// Registered names, sorted.
  std::vector<std::string> names() const;

private:
  std::map<std::string, Backend *> backends_;
};

} // namespace strata::runtime

#endif // STRATA_RUNTIME_BACKEND_H
