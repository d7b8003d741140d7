//===- Error.cpp - runtime error codes ------------------------------------===//
#include "strata/Runtime/Error.h"

namespace strata::runtime {

const char *errorCodeName(ErrorCode code) {
  switch (code) {
  case ErrorCode::Ok:
    return "ok";
  case ErrorCode::InvalidArgument:
    return "invalid_argument";
  case ErrorCode::InvalidProgram:
    return "invalid_program";
  case ErrorCode::IOError:
    return "io_error";
  case ErrorCode::NotFound:
    return "not_found";
  case ErrorCode::NotSupported:
    return "not_supported";
  case ErrorCode::OutOfMemory:
    return "out_of_memory";
  case ErrorCode::ExecutionFailed:
    return "execution_failed";
  }
  return "unknown";
}

std::string Error::toString() const {
  return std::string(errorCodeName(code_)) + ": " + message_;
}

} // namespace strata::runtime
