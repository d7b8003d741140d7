//===- Backend.cpp - backend config (JSON) and the backend registry -------===//
#include "strata/Runtime/Backend.h"

#include <cctype>
#include <cstdlib>

namespace strata::runtime {

NamedDataMap::~NamedDataMap() = default;
DelegateHandle::~DelegateHandle() = default;
Backend::~Backend() = default;

Error Backend::executeDynamic(DelegateHandle *, const std::vector<TensorView> &,
                              const std::vector<TensorView> &,
                              const std::vector<int64_t> &extents) {
  return Error(ErrorCode::NotSupported, "backend '" + name() +
                                            "' runs no partition with dynamic "
                                            "extents (" +
                                            std::to_string(extents.size()) +
                                            " given)");
}

//===----------------------------------------------------------------------===//
// BackendConfig
//===----------------------------------------------------------------------===//

static const char *typeName(ConfigOption::Type type) {
  switch (type) {
  case ConfigOption::Type::Int:
    return "int";
  case ConfigOption::Type::Float:
    return "float";
  case ConfigOption::Type::Bool:
    return "bool";
  case ConfigOption::Type::String:
    return "string";
  }
  return "?";
}

/// Whether `value` is a JSON value of `type` (strings quoted).
static bool valueHasType(const std::string &value, ConfigOption::Type type) {
  if (value.empty())
    return false;
  char *end = nullptr;
  switch (type) {
  case ConfigOption::Type::Int:
    std::strtoll(value.c_str(), &end, 10);
    return *end == '\0';
  case ConfigOption::Type::Float:
    std::strtod(value.c_str(), &end);
    return *end == '\0';
  case ConfigOption::Type::Bool:
    return value == "true" || value == "false";
  case ConfigOption::Type::String:
    return value.size() >= 2 && value.front() == '"' && value.back() == '"';
  }
  return false;
}

void BackendConfig::declare(std::string name, ConfigOption::Type type,
                            std::string defaultValue, std::string description) {
  options_.push_back(
      {std::move(name), type, std::move(defaultValue), std::move(description)});
}

Error BackendConfig::set(const std::string &name,
                         const std::string &jsonValue) {
  for (ConfigOption &option : options_) {
    if (option.name != name)
      continue;
    if (!valueHasType(jsonValue, option.type))
      return Error(ErrorCode::InvalidArgument,
                   "config option '" + name + "' takes a " +
                       typeName(option.type) + ", got " + jsonValue);
    option.value = jsonValue;
    return Error::success();
  }
  std::string known;
  for (const ConfigOption &option : options_)
    known += (known.empty() ? "" : ", ") + option.name;
  return Error(ErrorCode::InvalidArgument,
               "unknown config option '" + name + "' (known: " + known + ")");
}

const std::string *BackendConfig::get(const std::string &name) const {
  for (const ConfigOption &option : options_)
    if (option.name == name)
      return &option.value;
  return nullptr;
}

std::string BackendConfig::toJson() const {
  std::string json = "{";
  for (size_t i = 0; i < options_.size(); ++i) {
    if (i)
      json += ", ";
    json += "\"" + options_[i].name + "\": " + options_[i].value;
  }
  return json + "}";
}

namespace {
/// A parser for the flat JSON objects configs are written as: string keys,
/// scalar values (numbers, true/false, strings without escapes but \" \\).
class FlatJsonParser {
public:
  explicit FlatJsonParser(const std::string &text) : text_(text) {}

  Error parse(std::vector<std::pair<std::string, std::string>> &out) {
    skipSpace();
    if (!consume('{'))
      return fail("expected '{'");
    skipSpace();
    if (consume('}'))
      return finish();
    while (true) {
      std::string key;
      skipSpace();
      if (!parseString(key))
        return fail("expected a string key");
      skipSpace();
      if (!consume(':'))
        return fail("expected ':'");
      skipSpace();
      size_t start = pos_;
      if (peek() == '"') {
        std::string ignored;
        if (!parseString(ignored))
          return fail("unterminated string");
      } else {
        while (pos_ < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[pos_])) ||
                text_[pos_] == '-' || text_[pos_] == '+' || text_[pos_] == '.'))
          ++pos_;
        if (pos_ == start)
          return fail("expected a value");
      }
      out.emplace_back(key, text_.substr(start, pos_ - start));
      skipSpace();
      if (consume(','))
        continue;
      if (consume('}'))
        return finish();
      return fail("expected ',' or '}'");
    }
  }

private:
  Error finish() {
    skipSpace();
    return pos_ == text_.size() ? Error::success()
                                : fail("trailing characters");
  }
  Error fail(const char *what) const {
    return Error(ErrorCode::InvalidArgument, std::string("config JSON: ") +
                                                 what + " at offset " +
                                                 std::to_string(pos_));
  }
  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }
  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool parseString(std::string &out) {
    if (!consume('"'))
      return false;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size())
        ++pos_;
      out += text_[pos_++];
    }
    return consume('"');
  }

  const std::string &text_;
  size_t pos_ = 0;
};
} // namespace

Error BackendConfig::fromJson(const std::string &json) {
  std::vector<std::pair<std::string, std::string>> entries;
  STRATA_RETURN_IF_ERROR(FlatJsonParser(json).parse(entries));
  for (const auto &[key, value] : entries)
    STRATA_RETURN_IF_ERROR(set(key, value));
  return Error::success();
}

std::string BackendConfig::describe() const {
  std::string text;
  for (const ConfigOption &option : options_)
    text += option.name + " (" + typeName(option.type) + ") = " + option.value +
            ": " + option.description + "\n";
  return text;
}

//===----------------------------------------------------------------------===//
// BackendRegistry
//===----------------------------------------------------------------------===//

Error BackendRegistry::add(Backend *backend) {
  if (!backend)
    return Error(ErrorCode::InvalidArgument, "null backend");
  if (!backends_.emplace(backend->name(), backend).second)
    return Error(ErrorCode::InvalidArgument,
                 "backend '" + backend->name() + "' is already registered");
  return Error::success();
}

Backend *BackendRegistry::lookup(const std::string &name) const {
  auto it = backends_.find(name);
  return it == backends_.end() ? nullptr : it->second;
}

std::vector<std::string> BackendRegistry::names() const {
  std::vector<std::string> result;
  for (const auto &entry : backends_)
    result.push_back(entry.first);
  return result;
}

} // namespace strata::runtime
