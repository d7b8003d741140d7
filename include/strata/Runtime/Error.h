//===- Error.h - runtime error codes and Result<T> --------------*- C++ -*-===//
//
// The runtime core is built without exceptions: every fallible call returns
// an Error or a Result<T>, and the caller decides. Messages carry the name of
// the field, kernel, backend or file that was wrong.
//
//===----------------------------------------------------------------------===//
#ifndef STRATA_RUNTIME_ERROR_H
#define STRATA_RUNTIME_ERROR_H

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace strata::runtime {

/// What went wrong, coarsely; the message says precisely.
enum class ErrorCode {
  Ok = 0,
  /// A caller passed something invalid (wrong input shape, bad index).
  InvalidArgument,
  /// The program buffer is malformed or fails verification.
  InvalidProgram,
  /// A file could not be opened, mapped or read.
  IOError,
  /// A kernel or backend the program needs is not registered.
  NotFound,
  /// A kernel or backend does not support what was asked.
  NotSupported,
  /// Memory could not be obtained.
  OutOfMemory,
  /// A kernel or delegate failed while executing.
  ExecutionFailed,
};

/// Returns a stable lower-case name for `code` ("invalid_program", ...).
const char *errorCodeName(ErrorCode code);

/// An error code with a message; `Error::success()` is the absence of one.
class [[nodiscard]] Error {
public:
  Error() = default;
  Error(ErrorCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Error success() { return Error(); }

  bool ok() const { return code_ == ErrorCode::Ok; }
  explicit operator bool() const { return !ok(); }
  ErrorCode code() const { return code_; }
  const std::string &message() const { return message_; }
  /// "<code name>: <message>".
  std::string toString() const;

private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

/// A value or an Error.
template <typename T> class [[nodiscard]] Result {
public:
  Result(T value) : storage_(std::move(value)) {}
  Result(Error error) : storage_(std::move(error)) {
    assert(!std::get<Error>(storage_).ok() && "Result built from success");
  }

  bool ok() const { return std::holds_alternative<T>(storage_); }
  explicit operator bool() const { return ok(); }

  const Error &error() const { return std::get<Error>(storage_); }
  Error takeError() { return std::move(std::get<Error>(storage_)); }

  T &value() & { return std::get<T>(storage_); }
  const T &value() const & { return std::get<T>(storage_); }
  T &&value() && { return std::get<T>(std::move(storage_)); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  T &operator*() & { return value(); }
  const T &operator*() const & { return value(); }
  T &&operator*() && { return std::move(*this).value(); }

private:
  std::variant<T, Error> storage_;
};

} // namespace strata::runtime

/// Returns from the enclosing function when `expr` yields an Error.
#define STRATA_RETURN_IF_ERROR(expr)                                          \
  do {                                                                        \
    ::strata::runtime::Error strataError_ = (expr);                           \
    if (!strataError_.ok())                                                   \
      return strataError_;                                                    \
  } while (false)

/// Evaluates `expr`, a Result<T>: returns its Error from the enclosing
/// function, or moves its value into `lhs`, which may declare a variable:
///   STRATA_ASSIGN_OR_RETURN(auto program, Program::load(loader));
///   STRATA_ASSIGN_OR_RETURN(view, method.output(0));
/// It expands to several statements, so it cannot be the body of an
/// unbraced `if`.
#define STRATA_ASSIGN_OR_RETURN(lhs, expr)                                    \
  STRATA_ASSIGN_OR_RETURN_IMPL_(                                              \
      STRATA_ERROR_CONCAT_(strataResult_, __COUNTER__), lhs, expr)
#define STRATA_ASSIGN_OR_RETURN_IMPL_(result, lhs, expr)                      \
  auto result = (expr);                                                       \
  if (!result.ok())                                                           \
    return result.takeError();                                                \
  lhs = std::move(result).value()
#define STRATA_ERROR_CONCAT_(a, b) STRATA_ERROR_CONCAT_IMPL_(a, b)
#define STRATA_ERROR_CONCAT_IMPL_(a, b) a##b

#endif // STRATA_RUNTIME_ERROR_H
