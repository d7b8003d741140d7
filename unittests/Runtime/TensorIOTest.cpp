//===- TensorIOTest.cpp - TensorProto and .npy readers and writers --------===//
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
  Result<OwnedTensor> t = parseTensorProto(pb, "mem");
  ASSERT_TRUE(t.ok()) << t.error().toString();
  EXPECT_EQ(t->dtype, DType::I64);
  int64_t v[3];
  std::memcpy(v, t->bytes.data(), 24);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[1], -2);
  EXPECT_EQ(v[2], 300);
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
