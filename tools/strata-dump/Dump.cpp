//===- Dump.cpp - readable and JSON listings of a .strata program ---------===//
#include "Dump.h"

#include "strata/Runtime/Schema/program_generated.h"

#include <cstdio>

using namespace strata::runtime;
namespace fbs = strata::fb;

namespace strata::tools {

namespace {

std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else
      out += c;
  }
  return out + "\"";
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos)
    s += ".0";
  return s;
}

template <typename T> std::string list(const T *vec, bool /*json*/) {
  std::string s = "[";
  if (vec)
    for (size_t i = 0; i < vec->size(); ++i)
      s += (i ? ", " : "") + std::to_string(vec->Get(i));
  return s + "]";
}

/// Value indices ("%3 'input', %7 'output'" with the method's names of
/// them, when it has names).
std::string valueList(
    const flatbuffers::Vector<uint32_t> *vec, bool json,
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *names =
        nullptr) {
  if (json)
    return list(vec, true);
  std::string s;
  if (vec)
    for (size_t i = 0; i < vec->size(); ++i) {
      s += (i ? ", %" : "%") + std::to_string(vec->Get(i));
      if (names && i < names->size())
        s += " '" + names->Get(i)->str() + "'";
    }
  return s;
}

/// ,\n      "KEY": ["a", "b"] (nothing when the method has no names).
std::string
nameList(const char *key,
         const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>
             *names) {
  if (!names)
    return "";
  std::string s = std::string(",\n      \"") + key + "\": [";
  for (size_t i = 0; i < names->size(); ++i)
    s += (i ? ", " : "") + quote(names->Get(i)->str());
  return s + "]";
}

std::string typeOf(const fbs::TensorType *type, bool json) {
  std::string dtype = dtypeName(static_cast<DType>(type->dtype()));
  const auto *registers = type->dim_registers();
  bool dynamic = registers && registers->size();
  if (json)
    return "\"dtype\": " + quote(dtype) +
           ", \"shape\": " + list(type->shape(), true) +
           (dynamic ? ", \"dim_registers\": " + list(registers, true) : "");
  // A dynamic dimension prints as rN<=BOUND.
  std::string shape;
  if (type->shape())
    for (size_t i = 0; i < type->shape()->size(); ++i) {
      shape += i ? "x" : "";
      if (dynamic && i < registers->size() && registers->Get(i) >= 0)
        shape += "r" + std::to_string(registers->Get(i)) + "<=";
      shape += std::to_string(type->shape()->Get(i));
    }
  return dtype + "[" + shape + "]";
}

const char *shapeOpName(fbs::ShapeOp op) {
  const char *name = fbs::EnumNameShapeOp(op);
  return *name ? name : "unknown";
}

/// A method's state bindings, a line each (empty for a stateless method):
/// "  state 'past': feeds input 0, takes output 1".
static std::string stateBindings(const fbs::Program *root,
                                 const fbs::Method *m) {
  std::string s;
  if (!m->state_bindings())
    return s;
  for (const fbs::StateBinding *b : *m->state_bindings()) {
    const fbs::State *state =
        root->states() && b->state() < root->states()->size()
            ? root->states()->Get(b->state())
            : nullptr;
    s += "  state #" + std::to_string(b->state()) + " '" +
         (state && state->name() ? state->name()->str() : std::string("?")) +
         "':";
    if (b->input() >= 0)
      s += " feeds input " + std::to_string(b->input());
    if (b->output() >= 0)
      s += std::string(b->input() >= 0 ? "," : "") + " takes output " +
           std::to_string(b->output());
    s += "\n";
  }
  return s;
}

/// A method's dim symbols and shape program (empty for a static method).
std::string shapeProgram(const fbs::Method *m, bool json) {
  const auto *symbols = m->dim_symbols();
  const auto *program = m->shape_program();
  if (!symbols || !symbols->size())
    return "";
  std::string s;
  if (json) {
    s += ",\n      \"dim_symbols\": [";
    for (size_t i = 0; i < symbols->size(); ++i) {
      const fbs::DimSymbol *d = symbols->Get(i);
      s += std::string(i ? ", " : "") +
           "{\"name\": " + quote(d->name() ? d->name()->str() : "") +
           ", \"min\": " + std::to_string(d->min()) +
           ", \"max\": " + std::to_string(d->max()) + "}";
    }
    s += "],\n      \"shape_program\": [";
    if (program)
      for (size_t i = 0; i < program->size(); ++i) {
        const fbs::ShapeInstruction *inst = program->Get(i);
        s += std::string(i ? ", " : "") +
             "{\"op\": " + quote(shapeOpName(inst->op())) +
             ", \"lhs\": " + std::to_string(inst->lhs()) +
             ", \"rhs\": " + std::to_string(inst->rhs()) +
             ", \"value\": " + std::to_string(inst->value()) + "}";
      }
    return s + "]";
  }
  s += "  dim symbols:";
  for (const fbs::DimSymbol *d : *symbols)
    s += " " + (d->name() ? d->name()->str() : "") + "=" +
         std::to_string(d->min()) + ".." + std::to_string(d->max());
  s += "\n  shape program:\n";
  if (program)
    for (size_t i = 0; i < program->size(); ++i) {
      const fbs::ShapeInstruction *inst = program->Get(i);
      s += "    r" + std::to_string(i) + " = ";
      if (inst->op() == fbs::ShapeOp::Constant)
        s += std::to_string(inst->value());
      else if (inst->op() == fbs::ShapeOp::Symbol)
        s += "symbol " + std::to_string(inst->value());
      else
        s += std::string(shapeOpName(inst->op())) + " r" +
             std::to_string(inst->lhs()) + ", r" + std::to_string(inst->rhs());
      s += "\n";
    }
  return s;
}

/// Params as a JSON object or `{a = 1, b = [1, 2]}`.
std::string
params(const flatbuffers::Vector<flatbuffers::Offset<fbs::Param>> *ps,
       bool json) {
  std::string s = "{";
  if (ps)
    for (size_t i = 0; i < ps->size(); ++i) {
      const fbs::Param *p = ps->Get(i);
      std::string name = p->name() ? p->name()->str() : "";
      s += i ? ", " : "";
      s += json ? quote(name) + ": " : name + " = ";
      switch (p->kind()) {
      case fbs::ParamKind::Int:
        s += std::to_string(p->int_value());
        break;
      case fbs::ParamKind::Bool:
        s += p->int_value() ? "true" : "false";
        break;
      case fbs::ParamKind::Float:
        s += number(p->float_value());
        break;
      case fbs::ParamKind::String:
        s += quote(p->string_value() ? p->string_value()->str() : "");
        break;
      case fbs::ParamKind::IntList:
        s += list(p->ints(), json);
        break;
      case fbs::ParamKind::FloatList: {
        s += "[";
        if (p->floats())
          for (size_t j = 0; j < p->floats()->size(); ++j)
            s += (j ? ", " : "") + number(p->floats()->Get(j));
        s += "]";
        break;
      }
      default:
        s += "null";
      }
    }
  return s + "}";
}

std::string strings(
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *v) {
  std::string s = "[";
  if (v)
    for (size_t i = 0; i < v->size(); ++i)
      s += (i ? ", " : "") + quote(v->Get(i)->str());
  return s + "]";
}

const char *opName(const fbs::Program *root, uint32_t op) {
  return root->operators() && op < root->operators()->size()
             ? root->operators()->Get(op)->name()->c_str()
             : "?";
}

const char *delegateName(const fbs::Program *root, uint32_t d) {
  return root->delegates() && d < root->delegates()->size() &&
                 root->delegates()->Get(d)->name()
             ? root->delegates()->Get(d)->name()->c_str()
             : "?";
}

/// Node names per instruction index.
const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *
nodesOf(const fbs::Method *method, size_t instruction) {
  if (method->debug_handles())
    for (const fbs::DebugHandle *h : *method->debug_handles())
      if (h->instruction() == instruction)
        return h->node_names();
  return nullptr;
}

} // namespace

std::string dumpText(const Program &program, size_t fileSize,
                     const BackendRegistry *backends) {
  const fbs::Program *root = program.flatbuffer();
  const FileHeader &h = program.header();
  std::string s = "program @" + program.name() + " (format version " +
                  std::to_string(root->version()) + ", " +
                  std::to_string(fileSize) + " bytes: flatbuffer " +
                  std::to_string(h.flatbufferSize) + " at " +
                  std::to_string(h.flatbufferOffset) + ", segment data " +
                  std::to_string(h.segmentDataSize) + " at " +
                  std::to_string(h.segmentBaseOffset) + ", alignment " +
                  std::to_string(h.segmentAlignment) + ")\n";
  if (root->segments()) {
    s += "segments:\n";
    for (size_t i = 0; i < root->segments()->size(); ++i) {
      const fbs::Segment *seg = root->segments()->Get(i);
      s += "  #" + std::to_string(i) + " offset " +
           std::to_string(seg->offset()) + " size " +
           std::to_string(seg->size()) + "\n";
    }
  }
  if (root->constants() && root->constants()->size()) {
    s += "constants:\n";
    for (size_t i = 0; i < root->constants()->size(); ++i) {
      const fbs::Constant *c = root->constants()->Get(i);
      s += "  #" + std::to_string(i) + " @" + program.constantName(i) + " " +
           typeOf(c->type(), false) + " segment " +
           std::to_string(c->segment()) + " offset " +
           std::to_string(c->offset()) + " size " + std::to_string(c->size()) +
           "\n";
    }
  }
  if (root->delegates() && root->delegates()->size()) {
    s += "delegates:\n";
    for (size_t i = 0; i < root->delegates()->size(); ++i) {
      const fbs::Delegate *d = root->delegates()->Get(i);
      s += "  #" + std::to_string(i) + " @" + delegateName(root, i) +
           " backend " + d->backend()->str() + " specs " +
           params(d->compile_specs(), false);
      if (d->segment() >= 0)
        s += " blob in segment " + std::to_string(d->segment());
      else
        s += " blob inline (" +
             std::to_string(d->inline_blob() ? d->inline_blob()->size() : 0) +
             " bytes)";
      if (d->debug_handles() && d->debug_handles()->size())
        s += ", " + std::to_string(d->debug_handles()->size()) +
             " debug handles";
      s += "\n";
      const Backend *backend = backends && d->backend()
                                   ? backends->lookup(d->backend()->str())
                                   : nullptr;
      if (backend) {
        ByteSpan blob;
        if (d->segment() >= 0) {
          Result<ByteSpan> bytes = program.segment(d->segment());
          if (bytes.ok())
            blob = *bytes;
        } else if (d->inline_blob()) {
          blob = {d->inline_blob()->data(), d->inline_blob()->size()};
        }
        s += backend->describe(blob);
      }
    }
  }
  if (root->named_data() && root->named_data()->size()) {
    s += "named data:\n";
    for (const fbs::NamedData *n : *root->named_data()) {
      Result<ByteSpan> bytes = program.segment(n->segment());
      s += "  " + (n->key() ? n->key()->str() : std::string("?")) +
           " segment " + std::to_string(n->segment()) + " (" +
           std::to_string(bytes.ok() ? bytes->size : 0) + " bytes)\n";
    }
  }
  if (root->states() && root->states()->size()) {
    s += "states:\n";
    for (size_t i = 0; i < root->states()->size(); ++i) {
      const fbs::State *state = root->states()->Get(i);
      s += "  #" + std::to_string(i) + " '" +
           (state->name() ? state->name()->str() : std::string("?")) +
           "' capacity " + typeOf(state->type(), false) + " initial " +
           list(state->initial_shape(), false) +
           (state->permutation() ? " stored in the order of the model's dims " +
                                       list(state->permutation(), false)
                                 : std::string()) +
           "\n";
    }
  }
  s += "operators:";
  if (root->operators())
    for (size_t i = 0; i < root->operators()->size(); ++i)
      s += " #" + std::to_string(i) + " " + opName(root, i);
  s += "\n";
  if (root->methods())
    for (const fbs::Method *m : *root->methods()) {
      s += "method @" + m->name()->str() + "\n  arenas: " +
           list(m->memory_plan() ? m->memory_plan()->arena_sizes() : nullptr,
                false) +
           "\n  inputs: " + valueList(m->inputs(), false, m->input_names()) +
           "\n  outputs: " + valueList(m->outputs(), false, m->output_names()) +
           "\n" + stateBindings(root, m) + shapeProgram(m, false) +
           "  values:\n";
      if (m->values())
        for (size_t i = 0; i < m->values()->size(); ++i) {
          const fbs::Value *v = m->values()->Get(i);
          s += "    %" + std::to_string(i) + " " + typeOf(v->type(), false);
          if (v->kind() == fbs::ValueKind::Constant)
            s += " constant #" + std::to_string(v->constant()) + " @" +
                 program.constantName(v->constant());
          else
            s += " arena " + std::to_string(v->memory_id()) + " offset " +
                 std::to_string(v->offset());
          s += "\n";
        }
      s += "  instructions:\n";
      if (m->instructions())
        for (size_t i = 0; i < m->instructions()->size(); ++i) {
          const fbs::Instruction *inst = m->instructions()->Get(i);
          s += "    " + std::to_string(i) + ": ";
          if (auto *k = inst->args_as_KernelCall()) {
            s += "kernel " + std::string(opName(root, k->op())) + "(" +
                 valueList(k->ins(), false) + ") -> (" +
                 valueList(k->outs(), false) + ")";
            if (k->params() && k->params()->size())
              s += " " + params(k->params(), false);
            // Value-dependent extents, by symbol name.
            if (k->binds() && k->binds()->size()) {
              s += " binds [";
              for (size_t b = 0; b < k->binds()->size(); ++b) {
                uint32_t symbol = k->binds()->Get(b);
                s += b ? ", " : "";
                s += m->dim_symbols() && symbol < m->dim_symbols()->size() &&
                             m->dim_symbols()->Get(symbol)->name()
                         ? m->dim_symbols()->Get(symbol)->name()->str()
                         : "#" + std::to_string(symbol);
              }
              s += "]";
            }
          } else if (auto *d = inst->args_as_DelegateCall()) {
            s += "delegate @" + std::string(delegateName(root, d->delegate())) +
                 "(" + valueList(d->ins(), false) + ") -> (" +
                 valueList(d->outs(), false) + ")";
            if (d->extents() && d->extents()->size()) {
              s += " extents [";
              for (size_t k = 0; k < d->extents()->size(); ++k)
                s += (k ? ", r" : "r") + std::to_string(d->extents()->Get(k));
              s += "]";
            }
          } else if (auto *mv = inst->args_as_Move()) {
            s += "move %" + std::to_string(mv->source()) + " -> %" +
                 std::to_string(mv->target());
          } else if (auto *jf = inst->args_as_JumpIfFalse()) {
            s += "jump_if_false %" + std::to_string(jf->condition()) + " -> " +
                 std::to_string(jf->target());
          } else if (auto *j = inst->args_as_Jump()) {
            s += "jump -> " + std::to_string(j->target());
            if (j->max_trips())
              s += " (loop, at most " + std::to_string(j->max_trips()) +
                   " trips)";
          }
          if (auto *nodes = nodesOf(m, i))
            s += "  # nodes " + strings(nodes);
          s += "\n";
        }
    }
  return s;
}

/// The JSON objects `object(i, element)` writes for the elements of the
/// flatbuffer vector `items` (none when it is absent), each on its own line
/// of a list in the top-level object.
template <typename Vector, typename Object>
static std::string objectLines(const Vector *items, Object object) {
  std::string s;
  if (items)
    for (size_t i = 0; i < items->size(); ++i)
      s += std::string(i ? "," : "") + "\n    " + object(i, items->Get(i));
  return s;
}

std::string dumpJson(const Program &program, size_t fileSize) {
  const fbs::Program *root = program.flatbuffer();
  const FileHeader &h = program.header();
  std::string s =
      "{\n  \"name\": " + quote(program.name()) +
      ",\n  \"version\": " + std::to_string(root->version()) +
      ",\n  \"file_size\": " + std::to_string(fileSize) +
      ",\n  \"header\": {\"flatbuffer_offset\": " +
      std::to_string(h.flatbufferOffset) +
      ", \"flatbuffer_size\": " + std::to_string(h.flatbufferSize) +
      ", \"segment_base_offset\": " + std::to_string(h.segmentBaseOffset) +
      ", \"segment_data_size\": " + std::to_string(h.segmentDataSize) +
      ", \"segment_alignment\": " + std::to_string(h.segmentAlignment) + "},\n";
  s += "  \"segments\": [";
  s += objectLines(root->segments(), [](size_t, const auto *segment) {
    return "{\"offset\": " + std::to_string(segment->offset()) +
           ", \"size\": " + std::to_string(segment->size()) + "}";
  });
  s += "\n  ],\n  \"constants\": [";
  s += objectLines(root->constants(), [&](size_t i, const fbs::Constant *c) {
    return "{\"name\": " + quote(program.constantName(i)) + ", " +
           typeOf(c->type(), true) +
           ", \"segment\": " + std::to_string(c->segment()) +
           ", \"offset\": " + std::to_string(c->offset()) +
           ", \"size\": " + std::to_string(c->size()) + "}";
  });
  s += "\n  ],\n  \"delegates\": [";
  s += objectLines(root->delegates(), [&](size_t i, const fbs::Delegate *d) {
    return "{\"name\": " + quote(delegateName(root, i)) +
           ", \"backend\": " + quote(d->backend()->str()) +
           ", \"compile_specs\": " + params(d->compile_specs(), true) +
           ", \"segment\": " + std::to_string(d->segment()) +
           ", \"inline_size\": " +
           std::to_string(d->inline_blob() ? d->inline_blob()->size() : 0) +
           "}";
  });
  s += "\n  ],\n  \"named_data\": [";
  s += objectLines(root->named_data(), [](size_t, const fbs::NamedData *n) {
    return "{\"key\": " + quote(n->key() ? n->key()->str() : "") +
           ", \"segment\": " + std::to_string(n->segment()) + "}";
  });
  s += "\n  ],\n  \"states\": [";
  s += objectLines(root->states(), [](size_t, const fbs::State *state) {
    return "{\"name\": " + quote(state->name() ? state->name()->str() : "") +
           ", " + typeOf(state->type(), true) +
           ", \"initial_shape\": " + list(state->initial_shape(), true) +
           (state->permutation()
                ? ", \"permutation\": " + list(state->permutation(), true)
                : std::string()) +
           "}";
  });
  s += "\n  ],\n  \"operators\": [";
  if (root->operators())
    for (size_t i = 0; i < root->operators()->size(); ++i)
      s += (i ? ", " : "") + quote(opName(root, i));
  s += "],\n  \"methods\": [";
  if (root->methods())
    for (size_t mi = 0; mi < root->methods()->size(); ++mi) {
      const fbs::Method *m = root->methods()->Get(mi);
      s += std::string(mi ? "," : "") +
           "\n    {\n      \"name\": " + quote(m->name()->str()) +
           ",\n      \"arena_sizes\": " +
           list(m->memory_plan() ? m->memory_plan()->arena_sizes() : nullptr,
                true) +
           ",\n      \"inputs\": " + valueList(m->inputs(), true) +
           ",\n      \"outputs\": " + valueList(m->outputs(), true) +
           nameList("input_names", m->input_names()) +
           nameList("output_names", m->output_names()) + shapeProgram(m, true);
      if (m->state_bindings()) {
        s += ",\n      \"state_bindings\": [";
        for (size_t i = 0; i < m->state_bindings()->size(); ++i) {
          const fbs::StateBinding *b = m->state_bindings()->Get(i);
          s += std::string(i ? ", " : "") +
               "{\"state\": " + std::to_string(b->state()) +
               ", \"input\": " + std::to_string(b->input()) +
               ", \"output\": " + std::to_string(b->output()) + "}";
        }
        s += "]";
      }
      s += ",\n      \"values\": [";
      if (m->values())
        for (size_t i = 0; i < m->values()->size(); ++i) {
          const fbs::Value *v = m->values()->Get(i);
          s += std::string(i ? "," : "") +
               "\n        {\"id\": " + std::to_string(i) + ", " +
               typeOf(v->type(), true);
          if (v->kind() == fbs::ValueKind::Constant)
            s += ", \"constant\": " + std::to_string(v->constant());
          else
            s += ", \"memory_id\": " + std::to_string(v->memory_id()) +
                 ", \"offset\": " + std::to_string(v->offset());
          s += "}";
        }
      s += "\n      ],\n      \"instructions\": [";
      if (m->instructions())
        for (size_t i = 0; i < m->instructions()->size(); ++i) {
          const fbs::Instruction *inst = m->instructions()->Get(i);
          s += std::string(i ? "," : "") + "\n        {";
          if (auto *k = inst->args_as_KernelCall())
            s += "\"kernel\": " + quote(opName(root, k->op())) +
                 ", \"ins\": " + valueList(k->ins(), true) +
                 ", \"outs\": " + valueList(k->outs(), true) +
                 ", \"params\": " + params(k->params(), true);
          else if (auto *d = inst->args_as_DelegateCall())
            s += "\"delegate\": " + quote(delegateName(root, d->delegate())) +
                 ", \"ins\": " + valueList(d->ins(), true) +
                 ", \"outs\": " + valueList(d->outs(), true);
          else if (auto *mv = inst->args_as_Move())
            s += "\"move\": {\"source\": " + std::to_string(mv->source()) +
                 ", \"target\": " + std::to_string(mv->target()) + "}";
          else if (auto *jf = inst->args_as_JumpIfFalse())
            s += "\"jump_if_false\": {\"condition\": " +
                 std::to_string(jf->condition()) +
                 ", \"target\": " + std::to_string(jf->target()) + "}";
          else if (auto *j = inst->args_as_Jump())
            s += "\"jump\": {\"target\": " + std::to_string(j->target()) +
                 (j->max_trips()
                      ? ", \"max_trips\": " + std::to_string(j->max_trips())
                      : std::string()) +
                 "}";
          s += ", \"nodes\": " + strings(nodesOf(m, i)) + "}";
        }
      s += "\n      ]\n    }";
    }
  s += "\n  ]\n}\n";
  return s;
}

} // namespace strata::tools
