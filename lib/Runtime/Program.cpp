//===- Program.cpp - loading and verifying a .strata program --------------===//
//
// Nothing in the file is trusted. The header is checked first, then the
// flatbuffer with the FlatBuffers verifier, then (Verification::Full, and
// always for a method being loaded) every index, size and offset, so that
// no later read can leave the bytes the loader handed out.
//
//===----------------------------------------------------------------------===//
#include "strata/Runtime/Program.h"

#include "ProgramInternal.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sys/mman.h>

// A program's constants, tensor data and header fields are little-endian
// bytes that the runtime maps and reads in place (x86-64 and aarch64
// alike); a big-endian host would read every one of them wrong.
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the Strata runtime reads programs in place: little-endian hosts only"
#endif

namespace strata::runtime {

using detail::invalid;
using detail::isAligned;

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

Error detail::invalid(const std::string &message) {
  return Error(ErrorCode::InvalidProgram, message);
}

/// Largest tensor or arena the loader accepts (1 TiB): keeps every byte
/// computation below far from overflow.
static constexpr uint64_t kMaxBytes = uint64_t(1) << 40;
static constexpr size_t kMaxRank = 16;

// DType mirrors the schema's ScalarType value for value.
static_assert(static_cast<int>(fb::ScalarType::MAX) == kLastDType,
              "DType and fb::ScalarType must list the same values");
static_assert(
    static_cast<int>(fb::ScalarType::BF16) == static_cast<int>(DType::BF16) &&
        static_cast<int>(fb::ScalarType::U16) == static_cast<int>(DType::U16) &&
        static_cast<int>(fb::ScalarType::I16) == static_cast<int>(DType::I16),
    "DType numbering must match fb::ScalarType");

Error detail::checkTensorType(const fb::TensorType *type,
                              const std::string &where, TensorView &view) {
  if (!type)
    return invalid(where + ": missing type");
  int dtype = static_cast<int>(type->dtype());
  if (!isValidDType(dtype))
    return invalid(where + ": unknown dtype " + std::to_string(dtype));
  view.dtype = static_cast<DType>(dtype);
  view.shape.clear();
  uint64_t bytes = dtypeSize(view.dtype);
  if (const auto *shape = type->shape()) {
    if (!isAligned(shape))
      return invalid(where + ": misaligned shape");
    if (shape->size() > kMaxRank)
      return invalid(where + ": rank " + std::to_string(shape->size()) +
                     " exceeds " + std::to_string(kMaxRank));
    for (int64_t dim : *shape) {
      if (dim < 0 || static_cast<uint64_t>(dim) > kMaxBytes)
        return invalid(where + ": bad dimension " + std::to_string(dim));
      view.shape.push_back(dim);
      // Zero extents are skipped so that every prefix product of the
      // shape (numElements) stays below 2^40 too.
      uint64_t extent = static_cast<uint64_t>(dim == 0 ? 1 : dim);
      if (extent > kMaxBytes / bytes)
        return invalid(where + ": tensor of more than 2^40 bytes");
      bytes *= extent;
    }
  }
  return Error::success();
}

Result<Params> detail::convertParams(
    const flatbuffers::Vector<flatbuffers::Offset<fb::Param>> *params,
    const std::string &where) {
  std::vector<Param> result;
  if (!params)
    return Params();
  for (size_t i = 0; i < params->size(); ++i) {
    const fb::Param *p = params->Get(i);
    std::string at = where + " param " + std::to_string(i);
    if (!p->name())
      return invalid(at + ": missing name");
    if (!isAligned(p->ints()) || !isAligned(p->floats()))
      return invalid(at + ": misaligned list");
    Param param;
    param.name = p->name()->str();
    switch (p->kind()) {
    case fb::ParamKind::Int:
      param.kind = Param::Kind::Int;
      param.intValue = p->int_value();
      break;
    case fb::ParamKind::Bool:
      param.kind = Param::Kind::Bool;
      param.intValue = p->int_value() != 0;
      break;
    case fb::ParamKind::Float:
      param.kind = Param::Kind::Float;
      param.floatValue = p->float_value();
      break;
    case fb::ParamKind::String:
      param.kind = Param::Kind::String;
      param.stringValue = p->string_value() ? p->string_value()->str() : "";
      break;
    case fb::ParamKind::IntList:
      param.kind = Param::Kind::IntList;
      if (p->ints())
        param.ints.assign(p->ints()->begin(), p->ints()->end());
      break;
    case fb::ParamKind::FloatList:
      param.kind = Param::Kind::FloatList;
      if (p->floats())
        param.floats.assign(p->floats()->begin(), p->floats()->end());
      break;
    default:
      return invalid(at + " '" + param.name + "': unknown kind " +
                     std::to_string(static_cast<int>(p->kind())));
    }
    result.push_back(std::move(param));
  }
  return Params(std::move(result));
}

//===----------------------------------------------------------------------===//
// Program::load
//===----------------------------------------------------------------------===//

Result<Program> Program::load(DataLoader &loader, Verification verification) {
  const std::string &file = loader.name();
  if (loader.size() < sizeof(FileHeader))
    return invalid(file + ": " + std::to_string(loader.size()) +
                   " bytes is too short for the 64-byte header");
  STRATA_ASSIGN_OR_RETURN(ByteSpan headerBytes,
                          loader.load(0, sizeof(FileHeader)));
  Program program;
  program.loader_ = &loader;
  std::memcpy(&program.header_, headerBytes.data, sizeof(FileHeader));
  const FileHeader &h = program.header_;
  if (std::memcmp(h.magic, kFileMagic, sizeof(kFileMagic)) != 0)
    return invalid(file +
                   ": header.magic is not STRATAPB (not a .strata file)");
  if (h.headerSize != sizeof(FileHeader) ||
      h.headerVersion != kFileHeaderVersion)
    return invalid(file + ": header.header_size/header_version " +
                   std::to_string(h.headerSize) + "/" +
                   std::to_string(h.headerVersion) + " is not 64/" +
                   std::to_string(kFileHeaderVersion));
  uint64_t size = loader.size();
  if (h.flatbufferOffset < sizeof(FileHeader) || h.flatbufferOffset % 8 ||
      h.flatbufferOffset > size || h.flatbufferSize > size - h.flatbufferOffset)
    return invalid(file + ": header.flatbuffer_offset/size (" +
                   std::to_string(h.flatbufferOffset) + ", " +
                   std::to_string(h.flatbufferSize) + ") lie outside the " +
                   std::to_string(size) + "-byte file (truncated?)");
  if (h.segmentBaseOffset < h.flatbufferOffset + h.flatbufferSize ||
      h.segmentBaseOffset > size ||
      h.segmentDataSize > size - h.segmentBaseOffset)
    return invalid(file + ": header.segment_base_offset/segment_data_size (" +
                   std::to_string(h.segmentBaseOffset) + ", " +
                   std::to_string(h.segmentDataSize) + ") lie outside the " +
                   std::to_string(size) + "-byte file (truncated?)");

  STRATA_ASSIGN_OR_RETURN(ByteSpan fbBytes,
                          loader.load(h.flatbufferOffset, h.flatbufferSize));
  program.flatbufferBytes_ = fbBytes;
  if (reinterpret_cast<uintptr_t>(fbBytes.data) % 8)
    return Error(ErrorCode::InvalidArgument,
                 file + ": the flatbuffer is not 8-byte aligned in memory");
  if (fbBytes.size < 8 ||
      !flatbuffers::BufferHasIdentifier(fbBytes.data, fb::ProgramIdentifier()))
    return invalid(file + ": flatbuffer identifier is not \"STRA\"");
  flatbuffers::Verifier verifier(fbBytes.data, fbBytes.size);
  if (!fb::VerifyProgramBuffer(verifier))
    return invalid(file + ": the flatbuffer does not verify (damaged file)");
  program.program_ = fb::GetProgram(fbBytes.data);
  uint32_t version = program.program_->version();
  if (version != kProgramVersion && version != kStatefulProgramVersion)
    return invalid(file + ": program version " + std::to_string(version) +
                   " is not supported (this runtime reads " +
                   std::to_string(kProgramVersion) + " and " +
                   std::to_string(kStatefulProgramVersion) + ")");

  STRATA_ASSIGN_OR_RETURN(ByteSpan segmentBytes,
                          loader.load(h.segmentBaseOffset, h.segmentDataSize));
  program.segments_ = segmentBytes;
  if (const auto *segments = program.program_->segments())
    for (size_t i = 0; i < segments->size(); ++i) {
      const fb::Segment *s = segments->Get(i);
      if (s->offset() > h.segmentDataSize ||
          s->size() > h.segmentDataSize - s->offset())
        return invalid(file + ": segments[" + std::to_string(i) + "] (offset " +
                       std::to_string(s->offset()) + ", size " +
                       std::to_string(s->size()) + ") lies outside the " +
                       std::to_string(h.segmentDataSize) +
                       " bytes of segment data");
    }

  if (const auto *methods = program.program_->methods()) {
    for (size_t i = 0; i < methods->size(); ++i)
      if (!methods->Get(i)->name())
        return invalid(file + ": methods[" + std::to_string(i) +
                       "] has no name");
  }
  STRATA_RETURN_IF_ERROR(program.verifyNamedData());
  STRATA_RETURN_IF_ERROR(program.verifyStates());
  program.state_ = program.newState();
  if (program.program_->states() && program.program_->states()->size() &&
      !program.state_)
    return Error(ErrorCode::OutOfMemory,
                 file + ": cannot allocate the program's state");
  if (verification == Verification::Full) {
    STRATA_RETURN_IF_ERROR(program.verifyConstants());
    if (const auto *methods = program.program_->methods())
      for (const fb::Method *method : *methods)
        STRATA_RETURN_IF_ERROR(program.verifyMethod(method));
  }
  return program;
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

std::string Program::name() const {
  return program_->name() ? program_->name()->str() : "";
}

size_t Program::methodCount() const {
  return program_->methods() ? program_->methods()->size() : 0;
}

std::string Program::methodName(size_t index) const {
  if (index >= methodCount())
    return "";
  return program_->methods()->Get(index)->name()->str();
}

bool Program::hasMethod(const std::string &name) const {
  for (size_t i = 0; i < methodCount(); ++i)
    if (methodName(i) == name)
      return true;
  return false;
}

std::string Program::defaultMethodName() const {
  return hasMethod("forward") ? "forward" : methodName(0);
}

size_t Program::constantCount() const {
  return program_->constants() ? program_->constants()->size() : 0;
}

std::string Program::constantName(size_t index) const {
  if (index >= constantCount())
    return "";
  const fb::Constant *c = program_->constants()->Get(index);
  return c->name() ? c->name()->str() : "";
}

Result<ByteSpan> Program::segment(size_t index) const {
  const auto *segments = program_->segments();
  if (!segments || index >= segments->size())
    return invalid(loader_->name() + ": segment " + std::to_string(index) +
                   " is out of range");
  const fb::Segment *s = segments->Get(index);
  return ByteSpan{segments_.data + s->offset(), static_cast<size_t>(s->size())};
}

Result<TensorView> Program::constant(size_t index) const {
  std::string where =
      loader_->name() + ": constants[" + std::to_string(index) + "]";
  if (index >= constantCount())
    return invalid(where + " is out of range (" +
                   std::to_string(constantCount()) + " constants)");
  const fb::Constant *c = program_->constants()->Get(index);
  TensorView view;
  STRATA_RETURN_IF_ERROR(detail::checkTensorType(c->type(), where, view));
  Result<ByteSpan> seg = segment(c->segment());
  if (!seg.ok())
    return invalid(where + ".segment: " + seg.error().message());
  if (c->offset() > seg->size || c->size() > seg->size - c->offset())
    return invalid(where + ": bytes (offset " + std::to_string(c->offset()) +
                   ", size " + std::to_string(c->size()) +
                   ") lie outside segment " + std::to_string(c->segment()));
  if (c->size() != view.nbytes())
    return invalid(where + ": size " + std::to_string(c->size()) +
                   " does not match its type " + view.typeString());
  const uint8_t *data = seg->data + c->offset();
  if (reinterpret_cast<uintptr_t>(data) % dtypeSize(view.dtype))
    return invalid(where + ": data is misaligned for " + dtypeName(view.dtype));
  view.data = const_cast<uint8_t *>(data);
  return view;
}

Error Program::verifyConstants() const {
  for (size_t i = 0; i < constantCount(); ++i) {
    STRATA_ASSIGN_OR_RETURN(TensorView view, constant(i));
  }
  if (const auto *ops = program_->operators())
    for (size_t i = 0; i < ops->size(); ++i)
      if (!ops->Get(i)->name() || ops->Get(i)->name()->size() == 0)
        return invalid(loader_->name() + ": operators[" + std::to_string(i) +
                       "] has no name");
  if (const auto *delegates = program_->delegates())
    for (size_t i = 0; i < delegates->size(); ++i) {
      const fb::Delegate *d = delegates->Get(i);
      std::string where =
          loader_->name() + ": delegates[" + std::to_string(i) + "]";
      if (!d->backend() || d->backend()->size() == 0)
        return invalid(where + ": no backend");
      if (d->segment() >= 0) {
        Result<ByteSpan> seg = segment(static_cast<size_t>(d->segment()));
        if (!seg.ok())
          return invalid(where + ".segment: " + seg.error().message());
      } else if (d->segment() != -1) {
        return invalid(where + ": segment " + std::to_string(d->segment()) +
                       " is negative");
      }
      STRATA_ASSIGN_OR_RETURN(Params specs,
                              detail::convertParams(d->compile_specs(), where));
    }
  return Error::success();
}

Result<ByteSpan> Program::namedData(const std::string &key) const {
  if (const auto *entries = program_->named_data())
    for (size_t i = 0; i < entries->size(); ++i) {
      const fb::NamedData *entry = entries->Get(i);
      if (entry->key() && entry->key()->str() == key)
        return segment(entry->segment());
    }
  return Error(ErrorCode::NotFound,
               loader_->name() + ": no named data '" + key + "'");
}

Error Program::verifyNamedData() const {
  const auto *entries = program_->named_data();
  if (!entries)
    return Error::success();
  std::set<std::string> keys;
  for (size_t i = 0; i < entries->size(); ++i) {
    const fb::NamedData *entry = entries->Get(i);
    std::string where =
        loader_->name() + ": named_data[" + std::to_string(i) + "]";
    if (!entry->key() || entry->key()->size() == 0)
      return invalid(where + ": no key");
    if (!keys.insert(entry->key()->str()).second)
      return invalid(where + ": key '" + entry->key()->str() +
                     "' appears twice");
    Result<ByteSpan> seg = segment(entry->segment());
    if (!seg.ok())
      return invalid(where + ".segment: " + seg.error().message());
  }
  return Error::success();
}

Error Program::verifyMethod(const fb::Method *method) const {
  Result<detail::MethodLayout> layout =
      detail::layoutMethod(*this, method, loader_->name());
  return layout.ok() ? Error::success() : layout.takeError();
}

//===----------------------------------------------------------------------===//
// State
//===----------------------------------------------------------------------===//

Error Program::verifyStates() const {
  const auto *states = program_->states();
  bool stateful = states && states->size() > 0;
  if (stateful != (program_->version() == kStatefulProgramVersion))
    return invalid(loader_->name() + ": program version " +
                   std::to_string(program_->version()) +
                   (stateful ? " has states (a stateful program is version " +
                                   std::to_string(kStatefulProgramVersion) + ")"
                             : " names no states"));
  if (!stateful)
    return Error::success();
  std::set<std::string> names;
  for (size_t i = 0; i < states->size(); ++i) {
    const fb::State *state = states->Get(i);
    std::string where = loader_->name() + ": states[" + std::to_string(i) + "]";
    if (!state->name() || state->name()->size() == 0)
      return invalid(where + ": no name");
    if (!names.insert(state->name()->str()).second)
      return invalid(where + ": name '" + state->name()->str() +
                     "' appears twice");
    TensorView capacity;
    STRATA_RETURN_IF_ERROR(
        detail::checkTensorType(state->type(), where + ".type", capacity));
    const auto *initial = state->initial_shape();
    if (!initial || !detail::isAligned(initial) ||
        initial->size() != capacity.shape.size())
      return invalid(where +
                     ".initial_shape: needs one extent per dimension "
                     "of " +
                     capacity.typeString());
    for (size_t d = 0; d < initial->size(); ++d)
      if (initial->Get(d) < 0 || initial->Get(d) > capacity.shape[d])
        return invalid(where + ".initial_shape: extent " +
                       std::to_string(initial->Get(d)) + " of dimension " +
                       std::to_string(d) + " lies outside 0.." +
                       std::to_string(capacity.shape[d]));
    if (const auto *permutation = state->permutation()) {
      std::vector<bool> seen(capacity.shape.size(), false);
      bool valid = detail::isAligned(permutation) &&
                   permutation->size() == capacity.shape.size();
      for (size_t d = 0; valid && d < permutation->size(); ++d) {
        int64_t from = permutation->Get(d);
        valid = from >= 0 && from < static_cast<int64_t>(seen.size()) &&
                !seen[from];
        if (valid)
          seen[from] = true;
      }
      if (!valid)
        return invalid(where + ".permutation: not a permutation of the " +
                       std::to_string(capacity.shape.size()) + " dimensions");
    }
  }
  return Error::success();
}

std::shared_ptr<ProgramState> Program::newState() const {
  const auto *states = program_->states();
  if (!states || states->size() == 0)
    return nullptr;
  std::shared_ptr<ProgramState> state(new ProgramState());
  for (const fb::State *s : *states) {
    ProgramState::Slot slot;
    slot.name = s->name()->str();
    TensorView capacity;
    // Checked by verifyStates at load.
    (void)detail::checkTensorType(s->type(), slot.name, capacity);
    slot.dtype = capacity.dtype;
    slot.capacity = capacity.shape;
    slot.initial.assign(s->initial_shape()->begin(), s->initial_shape()->end());
    if (s->permutation())
      slot.permutation.assign(s->permutation()->begin(),
                              s->permutation()->end());
    slot.bytes = capacity.nbytes();
    // Page aligned and zero, as the arenas (a method reads it in place);
    // untouched until used, so a large capacity costs no memory at load.
    void *p =
        ::mmap(nullptr, std::max<size_t>(slot.bytes, 1), PROT_READ | PROT_WRITE,
               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      return nullptr;
    slot.data = static_cast<uint8_t *>(p);
    slot.shape = slot.initial;
    state->slots_.push_back(std::move(slot));
  }
  return state;
}

ProgramState::~ProgramState() {
  for (Slot &slot : slots_)
    ::munmap(slot.data, std::max<size_t>(slot.bytes, 1));
}

const std::string &ProgramState::name(size_t index) const {
  static const std::string none;
  return index < slots_.size() ? slots_[index].name : none;
}

int ProgramState::find(const std::string &name) const {
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].name == name)
      return static_cast<int>(i);
  return -1;
}

TensorView ProgramState::view(size_t index) const {
  if (index >= slots_.size())
    return TensorView();
  const Slot &slot = slots_[index];
  TensorView view;
  view.dtype = slot.dtype;
  view.shape = slot.shape;
  view.data = slot.data;
  return view;
}

const std::vector<int64_t> &ProgramState::capacity(size_t index) const {
  static const std::vector<int64_t> none;
  return index < slots_.size() ? slots_[index].capacity : none;
}

const std::vector<int64_t> &ProgramState::permutation(size_t index) const {
  static const std::vector<int64_t> none;
  return index < slots_.size() ? slots_[index].permutation : none;
}

namespace {

/// `stored` (stored dimension d is the model's dimension permutation[d])
/// in the model's order; `stored` itself for no permutation.
std::vector<int64_t> toModel(const std::vector<int64_t> &stored,
                             const std::vector<int64_t> &permutation) {
  if (permutation.empty())
    return stored;
  std::vector<int64_t> model(stored.size());
  for (size_t d = 0; d < stored.size(); ++d)
    model[permutation[d]] = stored[d];
  return model;
}

/// Copies `src`, row-major of shape `shape`, to `dst` transposed: `dst`'s
/// dimension d is `src`'s dimension order[d].
void copyPermuted(uint8_t *dst, const uint8_t *src,
                  const std::vector<int64_t> &shape,
                  const std::vector<int64_t> &order, size_t elementBytes) {
  size_t rank = shape.size();
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  if (count == 0)
    return;
  // Per dimension of `dst`: its extent and its stride in `src`.
  std::vector<std::pair<int64_t, int64_t>> dims(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t stride = 1;
    for (size_t e = order[d] + 1; e < rank; ++e)
      stride *= shape[e];
    dims[d] = {shape[order[d]], stride};
  }
  std::vector<int64_t> index(rank, 0);
  int64_t from = 0;
  for (int64_t to = 0; to < count; ++to) {
    std::memcpy(dst + to * elementBytes, src + from * elementBytes,
                elementBytes);
    for (size_t d = rank; d-- > 0;) {
      from += dims[d].second;
      if (++index[d] < dims[d].first)
        break;
      from -= dims[d].second * dims[d].first;
      index[d] = 0;
    }
  }
}

} // namespace

std::vector<int64_t> ProgramState::shape(size_t index) const {
  if (index >= slots_.size())
    return {};
  return toModel(slots_[index].shape, slots_[index].permutation);
}

void ProgramState::read(size_t index, void *out) const {
  if (index >= slots_.size())
    return;
  const Slot &slot = slots_[index];
  TensorView stored = view(index);
  if (slot.permutation.empty()) {
    if (stored.nbytes())
      std::memcpy(out, slot.data, stored.nbytes());
    return;
  }
  // The model's dimension m is the stored dimension d with permutation[d]
  // = m.
  std::vector<int64_t> order(slot.permutation.size());
  for (size_t d = 0; d < order.size(); ++d)
    order[slot.permutation[d]] = static_cast<int64_t>(d);
  copyPermuted(static_cast<uint8_t *>(out), slot.data, slot.shape, order,
               dtypeSize(slot.dtype));
}

Error ProgramState::set(size_t index, const TensorView &value) {
  if (index >= slots_.size() || slots_[index].permutation.empty() ||
      value.shape.size() != slots_[index].permutation.size())
    return setStored(index, value);
  Slot &slot = slots_[index];
  TensorView stored = value;
  for (size_t d = 0; d < stored.shape.size(); ++d)
    stored.shape[d] = value.shape[slot.permutation[d]];
  // Checked as stored (a dtype or extent that does not fit is refused
  // before a byte moves).
  STRATA_RETURN_IF_ERROR(
      setStored(index, TensorView{value.dtype, stored.shape, nullptr}));
  if (value.nbytes())
    copyPermuted(slot.data, static_cast<const uint8_t *>(value.data),
                 value.shape, slot.permutation, dtypeSize(slot.dtype));
  return Error::success();
}

Error ProgramState::setStored(size_t index, const TensorView &value) {
  if (index >= slots_.size())
    return Error(ErrorCode::InvalidArgument,
                 "state " + std::to_string(index) + " is out of range (" +
                     std::to_string(slots_.size()) + " states)");
  Slot &slot = slots_[index];
  bool fits =
      value.dtype == slot.dtype && value.shape.size() == slot.capacity.size();
  for (size_t d = 0; fits && d < value.shape.size(); ++d)
    fits = value.shape[d] >= 0 && value.shape[d] <= slot.capacity[d];
  if (!fits) {
    TensorView capacity;
    capacity.dtype = slot.dtype;
    capacity.shape = toModel(slot.capacity, slot.permutation);
    TensorView got = value;
    if (value.shape.size() == slot.permutation.size())
      got.shape = toModel(value.shape, slot.permutation);
    return Error(ErrorCode::InvalidArgument,
                 "state '" + slot.name + "' holds at most " +
                     capacity.typeString() + ", not " + got.typeString());
  }
  if (value.data && value.data != slot.data && value.nbytes())
    std::memmove(slot.data, value.data, value.nbytes());
  slot.shape = value.shape;
  return Error::success();
}

void ProgramState::setStoredShape(size_t index,
                                  const std::vector<int64_t> &shape) {
  if (index < slots_.size())
    slots_[index].shape = shape;
}

void ProgramState::reset() {
  // Only the bytes of the initial shape are read before a call writes the
  // state again (view() shows the current shape; set() writes all of it).
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].shape = slots_[i].initial;
    std::memset(slots_[i].data, 0, view(i).nbytes());
  }
}

} // namespace strata::runtime
