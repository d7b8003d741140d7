//===- TensorIOTest.cpp - TensorProto and .npy readers and writers --------===//
#include "strata/Runtime/TensorCompare.h"
#include "strata/Runtime/TensorIO.h"

#include <gtest/gtest.h>

#include <cstring>
#include <unistd.h>

using namespace strata::runtime;

namespace {

OwnedTensor sample() {
  OwnedTensor t;
  t.dtype = DType::F32;
  t.shape = {2, 3};
  float v[6] = {1.5f, -2, 3, 4, 5, 6};
  t.bytes.assign(reinterpret_cast<uint8_t *>(v), reinterpret_cast<uint8_t *>(v) + 24);
  return t;
}

/// Parses the TensorProto `pb`, checks that it holds `dtype` and returns
/// its elements as `T`s (none when it does not parse).
template <typename T>
std::vector<T> parseElements(const std::string &pb, DType dtype) {
  Result<OwnedTensor> t = parseTensorProto(pb, "mem");
  EXPECT_TRUE(t.ok()) << t.error().toString();
  if (!t.ok())
    return {};
  EXPECT_EQ(t->dtype, dtype);
  std::vector<T> values(t->bytes.size() / sizeof(T));
  std::memcpy(values.data(), t->bytes.data(), values.size() * sizeof(T));
  return values;
}

TEST(TensorIOTest, TensorProtoRoundTrips) {
  OwnedTensor t = sample();
  std::string bytes = serializeTensorProto(t.view(), "x");
  Result<OwnedTensor> back = parseTensorProto(bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.error().toString();
  EXPECT_EQ(back->name, "x");
  EXPECT_EQ(back->dtype, DType::F32);
  EXPECT_EQ(back->shape, t.shape);
  EXPECT_EQ(back->bytes, t.bytes);
}

TEST(TensorIOTest, NpyRoundTripsAndHasAStandardHeader) {
  OwnedTensor t = sample();
  std::string bytes = serializeNpy(t.view());
  EXPECT_EQ(bytes.compare(0, 6, "\x93NUMPY"), 0);
  EXPECT_NE(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(2, 3), }"),
            std::string::npos);
  EXPECT_EQ((bytes.size() - 24) % 64, 0u) << "data starts 64-aligned";
  Result<OwnedTensor> back = parseNpy(bytes, "mem");
  ASSERT_TRUE(back.ok()) << back.error().toString();
  EXPECT_EQ(back->shape, t.shape);
  EXPECT_EQ(back->bytes, t.bytes);
  // A 1-d shape is written as a one-element tuple.
  OwnedTensor v = sample();
  v.shape = {6};
  EXPECT_NE(serializeNpy(v.view()).find("'shape': (6,), }"), std::string::npos);
}

TEST(TensorIOTest, ReadsTypedRepeatedFields) {
  // dims [3] (packed), data_type INT64 (7), int64_data [1, -2, 300] packed.
  std::string pb = {0x0a, 0x01, 0x03, 0x10, 0x07, 0x3a, 0x0d, 0x01};
  // -2 as a 10-byte varint, then 300 = 0xac 0x02.
  const unsigned char minus2[] = {0xfe, 0xff, 0xff, 0xff, 0xff,
                                  0xff, 0xff, 0xff, 0xff, 0x01};
  pb.append(reinterpret_cast<const char *>(minus2), sizeof(minus2));
  pb += static_cast<char>(0xac);
  pb += static_cast<char>(0x02);
  EXPECT_EQ(parseElements<int64_t>(pb, DType::I64),
            (std::vector<int64_t>{1, -2, 300}));
}

TEST(TensorIOTest, ReadsUnsignedFieldsAndEmptyTensors) {
  // dims [2], data_type UINT64 (13), uint64_data (field 11) packed:
  // 2^63 + 1 as a 10-byte varint, then 5.
  std::string pb = {0x0a, 0x01, 0x02, 0x10, 0x0d, 0x5a, 0x0b};
  const unsigned char big[] = {0x81, 0x80, 0x80, 0x80, 0x80,
                               0x80, 0x80, 0x80, 0x80, 0x01};
  pb.append(reinterpret_cast<const char *>(big), sizeof(big));
  pb += static_cast<char>(0x05);
  EXPECT_EQ(parseElements<uint64_t>(pb, DType::U64),
            (std::vector<uint64_t>{(uint64_t(1) << 63) + 1, 5u}));

  // dims [2], data_type UINT32 (12), uint64_data [4294967295, 7].
  std::string pb32 = {0x0a, 0x01, 0x02, 0x10, 0x0c, 0x5a, 0x06,
                      static_cast<char>(0xff), static_cast<char>(0xff),
                      static_cast<char>(0xff), static_cast<char>(0xff),
                      0x0f, 0x07};
  EXPECT_EQ(parseElements<uint32_t>(pb32, DType::U32),
            (std::vector<uint32_t>{4294967295u, 7u}));

  // dims [1], data_type UINT16 (4), int32_data [65535]; BFLOAT16 (16) too.
  std::string pb16 = {0x0a, 0x01, 0x01, 0x10, 0x04, 0x2a, 0x03,
                      static_cast<char>(0xff), static_cast<char>(0xff), 0x03};
  Result<OwnedTensor> u16 = parseTensorProto(pb16, "mem");
  ASSERT_TRUE(u16.ok()) << u16.error().toString();
  EXPECT_EQ(u16->dtype, DType::U16);
  EXPECT_EQ(u16->bytes, (std::vector<uint8_t>{0xff, 0xff}));
  pb16[4] = 0x10;
  Result<OwnedTensor> bf16 = parseTensorProto(pb16, "mem");
  ASSERT_TRUE(bf16.ok()) << bf16.error().toString();
  EXPECT_EQ(bf16->dtype, DType::BF16);

  // dims [3, 0, 5] (ONNX test_tril_zero), INT64, no data: an empty tensor,
  // whatever the other extents.
  std::string empty = {0x0a, 0x03, 0x03, 0x00, 0x05, 0x10, 0x07};
  Result<OwnedTensor> e = parseTensorProto(empty, "mem");
  ASSERT_TRUE(e.ok()) << e.error().toString();
  EXPECT_EQ(e->shape, (std::vector<int64_t>{3, 0, 5}));
  EXPECT_TRUE(e->bytes.empty());
  // An empty tensor serializes (no data pointer) and reads back.
  Result<OwnedTensor> again =
      parseTensorProto(serializeTensorProto(e->view(), "e"), "mem");
  ASSERT_TRUE(again.ok()) << again.error().toString();
  EXPECT_EQ(again->shape, e->shape);
  // Extents whose product overflows are refused even next to a zero.
  std::string huge = {0x0a, 0x15, 0x00};
  for (int i = 0; i < 2; ++i)
    huge.append({static_cast<char>(0xff), static_cast<char>(0xff),
                 static_cast<char>(0xff), static_cast<char>(0xff),
                 static_cast<char>(0xff), static_cast<char>(0xff),
                 static_cast<char>(0xff), static_cast<char>(0xff), 0x7f, 0x00});
  huge[1] = static_cast<char>(huge.size() - 2);
  huge.append({0x10, 0x07});
  EXPECT_FALSE(parseTensorProto(huge, "mem").ok());
}

TEST(TensorIOTest, ComparesHalfFloatsAndWideIntegersByValue) {
  // f16 0x3c00 = 1.0 against 0x4000 = 2.0: one mismatch (f16 used to read
  // as NaN on both sides and match anything).
  uint16_t one = 0x3c00, two = 0x4000;
  TensorView a{DType::F16, {1}, &one}, b{DType::F16, {1}, &two};
  EXPECT_EQ(compareTensors(a, b, 0, 0).mismatches, 1);
  EXPECT_EQ(compareTensors(a, a, 0, 0).mismatches, 0);
  // bf16 0x3f80 = 1.0 against 0x3f81 = 1.0078125.
  uint16_t bOne = 0x3f80, bNext = 0x3f81;
  TensorView c{DType::BF16, {1}, &bOne}, d{DType::BF16, {1}, &bNext};
  EXPECT_EQ(compareTensors(c, d, 0, 0).maxAbs, 0.0078125);
  // u64 2^63 + 1 against 2^63: doubles cannot tell them apart; the
  // distance is exactly 1.
  uint64_t big = (uint64_t(1) << 63) + 1, bigger = uint64_t(1) << 63;
  TensorView e{DType::U64, {1}, &big}, f{DType::U64, {1}, &bigger};
  TensorComparison c64 = compareTensors(e, f, 0, 0);
  EXPECT_EQ(c64.maxAbs, 1.0);
  EXPECT_EQ(c64.mismatches, 1);
}

TEST(TensorIOTest, RejectsDamagedFilesNamingThem) {
  std::string pb = serializeTensorProto(sample().view(), "x");
  Result<OwnedTensor> truncated =
      parseTensorProto(pb.substr(0, pb.size() - 5), "input_0.pb");
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message().find("input_0.pb: not a valid ONNX "
                                             "TensorProto"),
            std::string::npos);
  std::string npy = serializeNpy(sample().view());
  EXPECT_FALSE(parseNpy(npy.substr(0, npy.size() - 1), "a.npy").ok());
  EXPECT_FALSE(parseNpy("garbage", "a.npy").ok());
  Result<OwnedTensor> missing = readTensorFile("/nonexistent/input_0.pb");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code(), ErrorCode::IOError);
}

TEST(TensorIOTest, RejectsShapesLargerThanTheirData) {
  std::string npy = serializeNpy(sample().view());
  size_t at = npy.find("(2, 3)");
  ASSERT_NE(at, std::string::npos);
  std::string huge = npy;
  huge.replace(at, 6, "(4294967296, 4294967296)");
  EXPECT_FALSE(parseNpy(huge, "a.npy").ok());
  huge = npy;
  huge.replace(at, 6, "(99999999999999999999999,)");
  EXPECT_FALSE(parseNpy(huge, "a.npy").ok());
  // dims [2^40, 2^40] (packed varints), FLOAT, no data.
  std::string pb = {0x0a, 0x0c};
  for (int i = 0; i < 2; ++i) {
    const unsigned char v[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x20};
    pb.append(reinterpret_cast<const char *>(v), sizeof(v));
  }
  pb += {0x10, 0x01};
  Result<OwnedTensor> t = parseTensorProto(pb, "big.pb");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.error().message().find("does not fit"), std::string::npos)
      << t.error().toString();
}

TEST(TensorIOTest, WritesAtomically) {
  std::string dir = "/tmp/strata-io-XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  std::string path = dir + "/out.bin";
  ASSERT_TRUE(writeFileAtomic(path, "first").ok());
  ASSERT_TRUE(writeFileAtomic(path, "second").ok());
  Result<std::string> back = readFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "second");
  EXPECT_FALSE(writeFileAtomic(dir + "/missing/out.bin", "x").ok());
  ::unlink(path.c_str());
  ::rmdir(dir.c_str());
}

} // namespace
