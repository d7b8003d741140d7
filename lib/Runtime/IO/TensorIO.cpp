//===- TensorIO.cpp - TensorProto and .npy readers and writers ------------===//
#include "strata/Runtime/TensorIO.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <fcntl.h>
#include <unistd.h>

namespace strata::runtime {

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

Result<std::string> readFile(const std::string &path) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return Error(ErrorCode::IOError,
                 path + ": cannot open: " + std::strerror(errno));
  std::string data;
  char chunk[65536];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), file)) > 0)
    data.append(chunk, n);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed)
    return Error(ErrorCode::IOError, path + ": read error");
  return data;
}

Error writeFileAtomic(const std::string &path, const std::string &bytes) {
  std::string temp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    return Error(ErrorCode::IOError,
                 temp + ": cannot create: " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      Error error(ErrorCode::IOError,
                  temp + ": cannot write: " + std::strerror(errno));
      ::close(fd);
      ::unlink(temp.c_str());
      return error;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(temp.c_str());
    return Error(ErrorCode::IOError, temp + ": cannot flush");
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    Error error(ErrorCode::IOError, path + ": cannot rename from " + temp +
                                        ": " + std::strerror(errno));
    ::unlink(temp.c_str());
    return error;
  }
  return Error::success();
}

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

namespace {
/// ONNX TensorProto.DataType values.
enum OnnxType {
  kFloat = 1, kUint8 = 2, kInt8 = 3, kUint16 = 4, kInt16 = 5, kInt32 = 6,
  kInt64 = 7, kBool = 9, kFloat16 = 10, kDouble = 11, kUint32 = 12,
  kUint64 = 13, kBFloat16 = 16,
};

bool onnxToDType(int64_t type, DType &dtype) {
  switch (type) {
  case kFloat: dtype = DType::F32; return true;
  case kUint8: dtype = DType::U8; return true;
  case kInt8: dtype = DType::I8; return true;
  case kInt16: dtype = DType::I16; return true;
  case kInt32: dtype = DType::I32; return true;
  case kInt64: dtype = DType::I64; return true;
  case kBool: dtype = DType::Bool; return true;
  case kFloat16: dtype = DType::F16; return true;
  case kDouble: dtype = DType::F64; return true;
  case kUint16: dtype = DType::U16; return true;
  case kUint32: dtype = DType::U32; return true;
  case kUint64: dtype = DType::U64; return true;
  case kBFloat16: dtype = DType::BF16; return true;
  default: return false;
  }
}

int dtypeToOnnx(DType dtype) {
  switch (dtype) {
  case DType::F32: return kFloat;
  case DType::U8: return kUint8;
  case DType::I8: return kInt8;
  case DType::I16: return kInt16;
  case DType::I32: return kInt32;
  case DType::I64: return kInt64;
  case DType::Bool: return kBool;
  case DType::F16: return kFloat16;
  case DType::F64: return kDouble;
  case DType::U16: return kUint16;
  case DType::U32: return kUint32;
  case DType::U64: return kUint64;
  case DType::BF16: return kBFloat16;
  }
  return 0;
}

/// A protobuf wire-format reader over a byte range.
class WireReader {
public:
  WireReader(const uint8_t *p, const uint8_t *end) : p_(p), end_(end) {}
  bool done() const { return p_ >= end_; }
  bool varint(uint64_t &value) {
    value = 0;
    for (int shift = 0; shift < 64 && p_ < end_; shift += 7) {
      uint8_t byte = *p_++;
      value |= uint64_t(byte & 0x7f) << shift;
      if (!(byte & 0x80))
        return true;
    }
    return false;
  }
  bool bytes(size_t n, const uint8_t *&out) {
    if (static_cast<size_t>(end_ - p_) < n)
      return false;
    out = p_;
    p_ += n;
    return true;
  }
  bool skip(int wireType) {
    uint64_t v;
    const uint8_t *ignored;
    switch (wireType) {
    case 0: return varint(v);
    case 1: return bytes(8, ignored);
    case 2: return varint(v) && bytes(v, ignored);
    case 5: return bytes(4, ignored);
    default: return false;
    }
  }

private:
  const uint8_t *p_, *end_;
};

/// Appends the varints of a packed (wire type 2) or single (wire type 0)
/// repeated integer field.
bool readInts(WireReader &r, int wireType, std::vector<int64_t> &out) {
  uint64_t v;
  if (wireType == 0) {
    if (!r.varint(v))
      return false;
    out.push_back(static_cast<int64_t>(v));
    return true;
  }
  if (wireType != 2 || !r.varint(v))
    return false;
  const uint8_t *data;
  if (!r.bytes(v, data))
    return false;
  WireReader inner(data, data + v);
  while (!inner.done()) {
    if (!inner.varint(v))
      return false;
    out.push_back(static_cast<int64_t>(v));
  }
  return true;
}

/// Appends fixed-size elements of a packed or single repeated field.
bool readFixed(WireReader &r, int wireType, size_t size,
               std::vector<uint8_t> &out) {
  const uint8_t *data;
  uint64_t n = size;
  if (wireType == 2) {
    if (!r.varint(n) || n % size)
      return false;
  } else if (wireType != (size == 4 ? 5 : 1)) {
    return false;
  }
  if (!r.bytes(n, data))
    return false;
  out.insert(out.end(), data, data + n);
  return true;
}

/// Byte size of `shape` with `elementSize`-byte elements, or false when a
/// dimension is negative or the size would exceed `limit` (the file holding
/// the data is smaller). A zero extent makes an empty tensor whatever the
/// other extents; their product must still stay far from overflowing the
/// int64 element counts computed later.
bool checkedBytes(const std::vector<int64_t> &shape, size_t elementSize,
                  uint64_t limit, uint64_t &bytes) {
  constexpr uint64_t kMaxElements = uint64_t(1) << 48;
  bool zero = false;
  uint64_t nonZero = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return false;
    if (d == 0) {
      zero = true;
      continue;
    }
    if (static_cast<uint64_t>(d) > kMaxElements / nonZero)
      return false;
    nonZero *= static_cast<uint64_t>(d);
  }
  if (zero) {
    bytes = 0;
    return true;
  }
  if (nonZero > limit / elementSize)
    return false;
  bytes = nonZero * elementSize;
  return true;
}

void putVarint(std::string &out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}
} // namespace

Result<OwnedTensor> parseTensorProto(const std::string &bytes,
                                     const std::string &where) {
  auto bad = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument,
                 where + ": not a valid ONNX TensorProto (" + what + ")");
  };
  const uint8_t *begin = reinterpret_cast<const uint8_t *>(bytes.data());
  WireReader r(begin, begin + bytes.size());
  OwnedTensor tensor;
  int64_t dataType = 0;
  std::vector<uint8_t> raw, floats, doubles;
  std::vector<int64_t> int32s, int64s, uint64s;
  bool hasRaw = false;
  while (!r.done()) {
    uint64_t key;
    if (!r.varint(key))
      return bad("truncated field key");
    int field = static_cast<int>(key >> 3), wire = static_cast<int>(key & 7);
    bool ok = true;
    const uint8_t *data;
    uint64_t v;
    switch (field) {
    case 1:
      ok = readInts(r, wire, tensor.shape);
      break;
    case 2:
      ok = wire == 0 && r.varint(v);
      if (ok)
        dataType = static_cast<int64_t>(v);
      break;
    case 4:
      ok = readFixed(r, wire, 4, floats);
      break;
    case 5:
      ok = readInts(r, wire, int32s);
      break;
    case 7:
      ok = readInts(r, wire, int64s);
      break;
    case 8:
      ok = wire == 2 && r.varint(v) && r.bytes(v, data);
      if (ok)
        tensor.name.assign(reinterpret_cast<const char *>(data), v);
      break;
    case 9:
      ok = wire == 2 && r.varint(v) && r.bytes(v, data);
      if (ok)
        raw.assign(data, data + v), hasRaw = true;
      break;
    case 10:
      ok = readFixed(r, wire, 8, doubles);
      break;
    case 11:
      ok = readInts(r, wire, uint64s);
      break;
    case 14:
      ok = wire == 0 && r.varint(v);
      if (ok && v != 0)
        return bad("external data is not supported");
      break;
    default:
      ok = r.skip(wire);
    }
    if (!ok)
      return bad("malformed field " + std::to_string(field));
  }
  if (!onnxToDType(dataType, tensor.dtype))
    return bad("unsupported data_type " + std::to_string(dataType));
  size_t esize = dtypeSize(tensor.dtype);
  uint64_t expected = 0;
  // Typed fields take at least one byte per element on the wire.
  if (!checkedBytes(tensor.shape, esize, bytes.size() * 8 + esize, expected))
    return bad("shape " + shapeToString(tensor.shape) +
               " does not fit the data");
  size_t count = esize ? expected / esize : 0;
  if (hasRaw) {
    tensor.bytes = std::move(raw);
  } else if (tensor.dtype == DType::F32) {
    tensor.bytes = std::move(floats);
  } else if (tensor.dtype == DType::F64) {
    tensor.bytes = std::move(doubles);
  } else if (tensor.dtype == DType::I64 || tensor.dtype == DType::U64 ||
             tensor.dtype == DType::U32) {
    // int64_data carries int64; uint64_data carries uint32 and uint64.
    const std::vector<int64_t> &values =
        tensor.dtype == DType::I64 ? int64s : uint64s;
    tensor.bytes.resize(values.size() * esize);
    for (size_t i = 0; i < values.size(); ++i)
      std::memcpy(tensor.bytes.data() + i * esize, &values[i], esize);
  } else {
    // int32_data carries int32, int16, uint16, int8, uint8, bool, float16
    // and bfloat16 bits.
    tensor.bytes.resize(int32s.size() * esize);
    for (size_t i = 0; i < int32s.size(); ++i) {
      int32_t value = static_cast<int32_t>(int32s[i]);
      std::memcpy(tensor.bytes.data() + i * esize, &value, esize);
    }
  }
  if (tensor.bytes.size() != count * esize)
    return bad("holds " + std::to_string(tensor.bytes.size()) +
               " bytes of data for shape " + shapeToString(tensor.shape) +
               " of " + dtypeName(tensor.dtype));
  return tensor;
}

std::string serializeTensorProto(const TensorView &tensor,
                                 const std::string &name) {
  std::string out;
  std::string dims;
  for (int64_t d : tensor.shape)
    putVarint(dims, static_cast<uint64_t>(d));
  if (!tensor.shape.empty()) {
    out += static_cast<char>((1 << 3) | 2);
    putVarint(out, dims.size());
    out += dims;
  }
  out += static_cast<char>(2 << 3);
  putVarint(out, static_cast<uint64_t>(dtypeToOnnx(tensor.dtype)));
  out += static_cast<char>((8 << 3) | 2);
  putVarint(out, name.size());
  out += name;
  out += static_cast<char>((9 << 3) | 2);
  putVarint(out, tensor.nbytes());
  if (tensor.nbytes())
    out.append(static_cast<const char *>(tensor.data), tensor.nbytes());
  return out;
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

namespace {
const char *npyDescr(DType dtype) {
  switch (dtype) {
  case DType::F32: return "<f4";
  case DType::F64: return "<f8";
  case DType::F16: return "<f2";
  case DType::I8: return "|i1";
  case DType::U8: return "|u1";
  case DType::I16: return "<i2";
  case DType::I32: return "<i4";
  case DType::I64: return "<i8";
  case DType::Bool: return "|b1";
  case DType::U16: return "<u2";
  case DType::U32: return "<u4";
  case DType::U64: return "<u8";
  // numpy has no bfloat16; ml_dtypes arrays save as two raw bytes.
  case DType::BF16: return "|V2";
  }
  return "?";
}
} // namespace

Result<NpyLayout> parseNpyHeader(const char *data, size_t size,
                                 const std::string &where) {
  std::string_view bytes(data, size);
  auto bad = [&](const std::string &what) {
    return Error(ErrorCode::InvalidArgument,
                 where + ": not a supported .npy file (" + what + ")");
  };
  if (bytes.size() < 10 || bytes.substr(0, 6) != "\x93NUMPY")
    return bad("missing magic");
  int major = static_cast<uint8_t>(bytes[6]);
  size_t headerLen, start;
  if (major == 1) {
    headerLen = static_cast<uint8_t>(bytes[8]) |
                (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return bad("truncated header");
    headerLen = 0;
    for (int i = 0; i < 4; ++i)
      headerLen |= static_cast<size_t>(static_cast<uint8_t>(bytes[8 + i]))
                   << (8 * i);
    start = 12;
  } else {
    return bad("version " + std::to_string(major));
  }
  if (bytes.size() < start + headerLen)
    return bad("truncated header");
  std::string header(bytes.substr(start, headerLen));
  NpyLayout tensor;
  size_t descr = header.find("'descr'");
  if (descr == std::string::npos)
    return bad("no descr");
  size_t q1 = header.find('\'', descr + 7);
  size_t q2 = q1 == std::string::npos ? q1 : header.find('\'', q1 + 1);
  if (q2 == std::string::npos)
    return bad("bad descr");
  std::string d = header.substr(q1 + 1, q2 - q1 - 1);
  bool found = false;
  for (int t = 0; t <= kLastDType && !found; ++t)
    if (d == npyDescr(static_cast<DType>(t)) ||
        (d.size() == 3 && d[0] == '=' &&
         d.substr(1) == std::string(npyDescr(static_cast<DType>(t))).substr(1)))
      tensor.dtype = static_cast<DType>(t), found = true;
  if (!found)
    return bad("unsupported dtype " + d);
  if (header.find("'fortran_order': True") != std::string::npos)
    return bad("fortran order");
  size_t shape = header.find("'shape'");
  size_t open = shape == std::string::npos ? shape : header.find('(', shape);
  size_t close = open == std::string::npos ? open : header.find(')', open);
  if (close == std::string::npos)
    return bad("no shape");
  std::string dims = header.substr(open + 1, close - open - 1);
  for (size_t pos = 0; pos < dims.size();) {
    while (pos < dims.size() && (dims[pos] == ' ' || dims[pos] == ','))
      ++pos;
    if (pos >= dims.size())
      break;
    size_t next = pos;
    while (next < dims.size() && dims[next] >= '0' && dims[next] <= '9')
      ++next;
    if (next == pos || next - pos > 15)
      return bad("bad shape");
    tensor.shape.push_back(std::strtoll(dims.c_str() + pos, nullptr, 10));
    pos = next;
  }
  uint64_t nbytes = 0;
  if (!checkedBytes(tensor.shape, dtypeSize(tensor.dtype), bytes.size(),
                    nbytes))
    return bad("shape " + shapeToString(tensor.shape) +
               " does not fit the file");
  if (bytes.size() - start - headerLen != nbytes)
    return bad("holds " + std::to_string(bytes.size() - start - headerLen) +
               " data bytes, shape needs " + std::to_string(nbytes));
  tensor.dataOffset = start + headerLen;
  return tensor;
}

Result<OwnedTensor> parseNpy(const std::string &bytes,
                             const std::string &where) {
  STRATA_ASSIGN_OR_RETURN(NpyLayout layout,
                          parseNpyHeader(bytes.data(), bytes.size(), where));
  OwnedTensor tensor;
  tensor.dtype = layout.dtype;
  tensor.shape = layout.shape;
  tensor.bytes.assign(bytes.begin() + layout.dataOffset, bytes.end());
  return tensor;
}

std::string serializeNpy(const TensorView &tensor) {
  std::string header = std::string("{'descr': '") + npyDescr(tensor.dtype) +
                       "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape.size(); ++i)
    header += (i ? ", " : "") + std::to_string(tensor.shape[i]);
  if (tensor.shape.size() == 1)
    header += ",";
  header += "), }";
  // Pad so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  if (tensor.nbytes())
    out.append(static_cast<const char *>(tensor.data), tensor.nbytes());
  return out;
}

Result<OwnedTensor> readTensorFile(const std::string &path) {
  STRATA_ASSIGN_OR_RETURN(std::string bytes, readFile(path));
  if (bytes.compare(0, 6, "\x93NUMPY") == 0)
    return parseNpy(bytes, path);
  return parseTensorProto(bytes, path);
}

} // namespace strata::runtime
