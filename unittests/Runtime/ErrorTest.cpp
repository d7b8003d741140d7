//===- ErrorTest.cpp - runtime Error and Result ---------------------------===//
#include "strata/Runtime/Error.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

using namespace strata::runtime;

namespace {

Result<int> parsePositive(int value) {
  if (value <= 0)
    return Error(ErrorCode::InvalidArgument,
                 "value " + std::to_string(value) + " is not positive");
  return value;
}

Error chain(int value) {
  STRATA_RETURN_IF_ERROR(parsePositive(value).ok()
                             ? Error::success()
                             : parsePositive(value).takeError());
  return Error::success();
}

TEST(ErrorTest, SuccessIsFalsy) {
  Error error = Error::success();
  EXPECT_TRUE(error.ok());
  EXPECT_FALSE(static_cast<bool>(error));
}

TEST(ErrorTest, ToStringNamesTheCode) {
  Error error(ErrorCode::InvalidProgram, "segment 3 lies outside the file");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.toString(),
            "invalid_program: segment 3 lies outside the file");
}

TEST(ErrorTest, EveryCodeHasADistinctName) {
  std::set<std::string> names;
  for (int code = 0; code <= static_cast<int>(ErrorCode::ExecutionFailed);
       ++code)
    names.insert(errorCodeName(static_cast<ErrorCode>(code)));
  EXPECT_EQ(names.size(),
            static_cast<size_t>(ErrorCode::ExecutionFailed) + 1);
  EXPECT_EQ(names.count("unknown"), 0u);
}

TEST(ResultTest, HoldsValueOrError) {
  Result<int> good = parsePositive(3);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 3);
  Result<int> bad = parsePositive(-2);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bad.error().message(), "value -2 is not positive");
}

TEST(ResultTest, MoveOnlyValues) {
  Result<std::unique_ptr<int>> result = std::make_unique<int>(7);
  ASSERT_TRUE(result.ok());
  std::unique_ptr<int> owned = std::move(result).value();
  EXPECT_EQ(*owned, 7);
}

TEST(ResultTest, ReturnIfErrorPropagates) {
  EXPECT_TRUE(chain(1).ok());
  Error error = chain(0);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
}

} // namespace
