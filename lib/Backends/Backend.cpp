//===- Backend.cpp - backends, their registry and plugin loading ----------===//
#include "strata/Backends/Backend.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstdlib>
#include <set>

using namespace llvm;

namespace strata {

//===----------------------------------------------------------------------===//
// Backend
//===----------------------------------------------------------------------===//

static Error checkPhase(StringRef backend, StringRef list,
                        ArrayRef<PatternDescriptor> patterns,
                        PatternPhase phase, std::set<std::string> &names) {
  for (const PatternDescriptor &d : patterns) {
    if (d.info.phase != phase)
      return createStringError(
          inconvertibleErrorCode(),
          "backend '%s': pattern '%s' has phase %s but is in the %s list",
          backend.str().c_str(), d.info.name.c_str(),
          stringifyPatternPhase(d.info.phase).str().c_str(),
          list.str().c_str());
    if (d.info.name.empty() || !d.build)
      return createStringError(inconvertibleErrorCode(),
                               "backend '%s': a pattern of the %s list has "
                               "no name or no builder",
                               backend.str().c_str(), list.str().c_str());
    if (!names.insert(d.info.name).second)
      return createStringError(inconvertibleErrorCode(),
                               "backend '%s': pattern name '%s' is used twice",
                               backend.str().c_str(), d.info.name.c_str());
  }
  return Error::success();
}

Expected<Backend> Backend::create(std::string name,
                                  std::vector<PatternDescriptor> conversion,
                                  std::vector<PatternDescriptor> fusion,
                                  std::vector<PatternDescriptor> smooth,
                                  std::vector<PatternDescriptor> quantized,
                                  BackendHooks hooks, std::string description) {
  if (name.empty())
    return createStringError(inconvertibleErrorCode(),
                             "a backend needs a name");
  std::set<std::string> names;
  if (Error e = checkPhase(name, "conversion", conversion,
                           PatternPhase::Conversion, names))
    return e;
  if (Error e = checkPhase(name, "fusion", fusion, PatternPhase::Fusion, names))
    return e;
  if (Error e = checkPhase(name, "smooth", smooth, PatternPhase::Smooth, names))
    return e;
  if (Error e = checkPhase(name, "quantized", quantized,
                           PatternPhase::Quantized, names))
    return e;
  Backend backend;
  backend.name = std::move(name);
  backend.description = std::move(description);
  backend.conversion = std::move(conversion);
  backend.fusion = std::move(fusion);
  backend.smooth = std::move(smooth);
  backend.quantized = std::move(quantized);
  backend.hooks = std::move(hooks);
  return backend;
}

std::vector<PatternDescriptor> Backend::getPatterns(bool quantize) const {
  std::vector<PatternDescriptor> all(conversion.begin(), conversion.end());
  all.insert(all.end(), fusion.begin(), fusion.end());
  if (quantize) {
    all.insert(all.end(), smooth.begin(), smooth.end());
    all.insert(all.end(), quantized.begin(), quantized.end());
  }
  return all;
}

BackendRegistrar::~BackendRegistrar() = default;

//===----------------------------------------------------------------------===//
// BackendRegistry
//===----------------------------------------------------------------------===//

namespace {

/// Collects a plugin's backends.
class CollectingRegistrar : public BackendRegistrar {
public:
  explicit CollectingRegistrar(std::string path) : path(std::move(path)) {}
  void add(Backend backend) override {
    backend.setSource(path);
    backends.push_back(std::move(backend));
  }
  void fail(std::string message) override { errors.push_back(message); }
  std::string path;
  std::vector<Backend> backends;
  std::vector<std::string> errors;
};

using RegisterFn = void (*)(BackendRegistrar &);

/// Loads every `*.so` in the folders of `searchPath`, in name order.
Error loadPlugins(StringRef searchPath, std::vector<Backend> &backends) {
  SmallVector<StringRef> folders;
  searchPath.split(folders, ':', -1, /*KeepEmpty=*/false);
  for (StringRef folder : folders) {
    std::error_code ec;
    std::vector<std::string> files;
    for (sys::fs::directory_iterator it(folder, ec), end; it != end && !ec;
         it.increment(ec))
      if (StringRef(it->path()).ends_with(".so"))
        files.push_back(it->path());
    if (ec && ec != std::errc::no_such_file_or_directory)
      return createStringError(ec, "cannot list backend plugin folder '%s'",
                               folder.str().c_str());
    std::sort(files.begin(), files.end());
    for (const std::string &file : files) {
      std::string error;
      sys::DynamicLibrary library =
          sys::DynamicLibrary::getPermanentLibrary(file.c_str(), &error);
      if (!library.isValid())
        return createStringError(inconvertibleErrorCode(),
                                 "cannot load backend plugin '%s': %s",
                                 file.c_str(), error.c_str());
      auto registerFn = reinterpret_cast<RegisterFn>(
          library.getAddressOfSymbol("strataRegisterBackends"));
      if (!registerFn)
        return createStringError(inconvertibleErrorCode(),
                                 "backend plugin '%s' does not export "
                                 "strataRegisterBackends",
                                 file.c_str());
      CollectingRegistrar registrar(file);
      registerFn(registrar);
      if (!registrar.errors.empty())
        return createStringError(inconvertibleErrorCode(),
                                 "backend plugin '%s': %s", file.c_str(),
                                 join(registrar.errors, "; ").c_str());
      for (Backend &backend : registrar.backends)
        backends.push_back(std::move(backend));
    }
  }
  return Error::success();
}

std::string knownNames(const std::vector<Backend> &backends) {
  SmallVector<std::string> names;
  for (const Backend &backend : backends)
    names.push_back(backend.getName());
  return names.empty() ? "none" : join(names, ", ");
}

} // namespace

BackendRegistry::BackendRegistry(std::function<std::vector<Backend>()> builtins,
                                 std::string searchPath)
    : builtins(std::move(builtins)), searchPath(std::move(searchPath)) {}

Expected<const std::vector<Backend> &> BackendRegistry::discover() {
  if (cache)
    return *cache;
  ++discoveries;
  std::vector<Backend> backends =
      builtins ? builtins() : std::vector<Backend>();
  if (Error e = loadPlugins(searchPath, backends))
    return e;
  std::map<std::string, std::string> sources;
  for (const Backend &backend : backends) {
    auto [it, inserted] =
        sources.insert({backend.getName(), backend.getSource()});
    if (!inserted)
      return createStringError(inconvertibleErrorCode(),
                               "two backends are named '%s' (%s and %s)",
                               backend.getName().c_str(), it->second.c_str(),
                               backend.getSource().c_str());
  }
  cache = std::move(backends);
  return *cache;
}

Expected<const Backend &> BackendRegistry::find(StringRef name) {
  Expected<const std::vector<Backend> &> backends = discover();
  if (!backends)
    return backends.takeError();
  for (const Backend &backend : *backends)
    if (backend.getName() == name)
      return backend;
  return createStringError(inconvertibleErrorCode(),
                           "unknown backend '%s' (known: %s)",
                           name.str().c_str(), knownNames(*backends).c_str());
}

Error BackendRegistry::set(StringRef name) {
  Expected<const Backend &> backend = find(name);
  if (!backend)
    return backend.takeError();
  selected = name.str();
  return Error::success();
}

Expected<const Backend &> BackendRegistry::get() {
  Expected<const std::vector<Backend> &> backends = discover();
  if (!backends)
    return backends.takeError();
  if (!selected.empty()) {
    for (const Backend &backend : *backends)
      if (backend.getName() == selected)
        return backend;
  }
  if (backends->size() == 1)
    return backends->front();
  if (backends->empty())
    return createStringError(inconvertibleErrorCode(),
                             "no backend is installed");
  return createStringError(inconvertibleErrorCode(),
                           "%zu backends are installed (%s) and none was "
                           "selected: call setBackend or pass --backend",
                           backends->size(), knownNames(*backends).c_str());
}

void BackendRegistry::reset() {
  cache.reset();
  selected.clear();
}

//===----------------------------------------------------------------------===//
// The process-wide registry
//===----------------------------------------------------------------------===//

BackendRegistry &getBackendRegistry() {
  static BackendRegistry registry(getBuiltinBackends, [] {
    const char *path = std::getenv("STRATA_BACKEND_PATH");
    return std::string(path ? path : "");
  }());
  return registry;
}

Error setBackend(StringRef name) { return getBackendRegistry().set(name); }
Expected<const Backend &> getBackend() { return getBackendRegistry().get(); }
Expected<const Backend &> lookupBackend(StringRef name) {
  return getBackendRegistry().find(name);
}
std::string getSelectedBackendName() {
  return getBackendRegistry().getSelectedName();
}
Expected<const std::vector<Backend> &> discoverBackends() {
  return getBackendRegistry().discover();
}
void resetBackends() { getBackendRegistry().reset(); }

} // namespace strata
