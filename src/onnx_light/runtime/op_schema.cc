#include "op_schema.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <vector>

#include "op_schemas.inc"

namespace onnx_light {
namespace {

struct OpRows {
  const char* op;
  const char* rows;
};

// Ops that ONNX Runtime registers in the default domain and ONNX does not define: no rows,
// so their kernels state their arity.
#define ONNX_LIGHT_SCHEMA_SimplifiedLayerNormalization ""

// The ops of this build's kernel list that are ai.onnx ops, with their rows (a reduced
// build carries only the rows of the ops it compiles in).
#define ONNX_LIGHT_KERNEL(domain, op) ONNX_LIGHT_SCHEMA_ENTRY_##domain(op)
#define ONNX_LIGHT_SCHEMA_ENTRY_ai_onnx(op) {#op, ONNX_LIGHT_SCHEMA_##op},
#define ONNX_LIGHT_SCHEMA_ENTRY_onnx_light(op)
#define ONNX_LIGHT_SCHEMA_ENTRY_onnx_light_cpu(op)
#define ONNX_LIGHT_SCHEMA_ENTRY_com_microsoft(op)
#define ONNX_LIGHT_SCHEMA_ENTRY_ai_onnx_ml(op)
constexpr OpRows kRows[] = {
#include ONNX_LIGHT_KERNEL_LIST
    {nullptr, nullptr}};
#undef ONNX_LIGHT_SCHEMA_ENTRY_ai_onnx_ml
#undef ONNX_LIGHT_SCHEMA_ENTRY_com_microsoft
#undef ONNX_LIGHT_SCHEMA_ENTRY_onnx_light_cpu
#undef ONNX_LIGHT_SCHEMA_ENTRY_onnx_light
#undef ONNX_LIGHT_SCHEMA_ENTRY_ai_onnx
#undef ONNX_LIGHT_KERNEL

int ToInt(std::string_view s) {
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = s.find(sep, start);
    parts.push_back(s.substr(start, end == std::string_view::npos ? s.npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

OpSchemaRow ParseRow(std::string_view text) {
  const std::vector<std::string_view> f = Split(text, '|');
  OpSchemaRow row;
  row.since = ToInt(f[0]);
  row.arity.min_inputs = ToInt(f[1]);
  row.arity.max_inputs = ToInt(f[2]);
  row.arity.min_outputs = ToInt(f[3]);
  row.arity.max_outputs = ToInt(f[4]);
  row.arity.optional_inputs = static_cast<uint32_t>(ToInt(f[5]));
  row.arity.optional_outputs = static_cast<uint32_t>(ToInt(f[6]));
  row.attributes = f.size() > 7 ? f[7] : std::string_view();
  row.input_types = f.size() > 8 ? f[8] : std::string_view();
  return row;
}

std::string Where(const onnx::NodeProto& node, int opset) {
  std::string s = "node '" + node.name.get() + "' (" + node.op_type.get();
  if (!node.domain.get().empty()) s += ", domain " + node.domain.get();
  return s + ", opset " + std::to_string(opset) + ")";
}

std::string Range(int lo, int hi) {
  if (hi < 0) return "at least " + std::to_string(lo);
  if (lo == hi) return std::to_string(lo);
  return std::to_string(lo) + " to " + std::to_string(hi);
}

// Position i may be an empty name (an optional input or output left out). Positions of
// a variadic tail never may.
bool MayBeEmpty(uint32_t mask, size_t i) {
  return i < 32 && (mask >> i) & 1u;
}

}  // namespace

std::optional<OpSchemaRow> FindOnnxOpSchema(std::string_view op, int opset) {
  for (const OpRows* r = kRows; r->op != nullptr; ++r) {
    if (op != r->op) continue;
    // The latest row whose version is <= opset; only that one is parsed.
    const std::string_view rows = r->rows;
    std::string_view best;
    int best_since = 0;
    for (size_t start = 0; start < rows.size();) {
      const size_t end = std::min(rows.find(';', start), rows.size());
      const std::string_view row = rows.substr(start, end - start);
      const int since = ToInt(row.substr(0, row.find('|')));
      if (since <= opset && since > best_since) {
        best = row;
        best_since = since;
      }
      start = end + 1;
    }
    if (best.empty()) return std::nullopt;
    return ParseRow(best);
  }
  return std::nullopt;
}

Arity DeclaredArity(const KernelDef& def) {
  if (def.arity.min_inputs >= 0) return def.arity;
  int in = 0, out = 0;
  for (const TypeConstraint& c : def.constraints) {
    for (int p : c.inputs)
      in = std::max(in, p + 1);
    for (int p : c.outputs)
      out = std::max(out, p + 1);
  }
  Arity a;
  a.min_inputs = a.max_inputs = in;
  a.min_outputs = a.max_outputs = out;
  for (int p : def.optional_inputs)
    if (p < 32) a.optional_inputs |= 1u << p;
  for (int p : def.optional_outputs)
    if (p < 32) a.optional_outputs |= 1u << p;
  return a;
}

Status CheckArity(const onnx::NodeProto& node, const Arity& arity, int opset) {
  if (arity.min_inputs < 0) return Status::Ok();  // unchecked
  const int n_in = static_cast<int>(node.input.size());
  const int n_out = static_cast<int>(node.output.size());
  // Trailing empty names are inputs left out.
  int present = n_in;
  while (present > 0 && node.input[static_cast<size_t>(present) - 1].empty() &&
         MayBeEmpty(arity.optional_inputs, static_cast<size_t>(present) - 1)) {
    --present;
  }
  if (present < arity.min_inputs || (arity.max_inputs >= 0 && n_in > arity.max_inputs)) {
    return Status(StatusCode::kInvalidModel, Where(node, opset) + ": has " + std::to_string(n_in) +
                                                 " input" + (n_in == 1 ? "" : "s") +
                                                 ", the op takes " +
                                                 Range(arity.min_inputs, arity.max_inputs));
  }
  for (int i = 0; i < n_in; ++i) {
    if (node.input[static_cast<size_t>(i)].empty() &&
        !MayBeEmpty(arity.optional_inputs, static_cast<size_t>(i))) {
      return Status(StatusCode::kInvalidModel, Where(node, opset) + ": input " + std::to_string(i) +
                                                   " is required but its name is empty");
    }
  }
  if (n_out < arity.min_outputs || (arity.max_outputs >= 0 && n_out > arity.max_outputs)) {
    return Status(StatusCode::kInvalidModel, Where(node, opset) + ": has " + std::to_string(n_out) +
                                                 " output" + (n_out == 1 ? "" : "s") +
                                                 ", the op produces " +
                                                 Range(arity.min_outputs, arity.max_outputs));
  }
  return Status::Ok();
}

Status CheckInputTypes(const onnx::NodeProto& node, const OpSchemaRow& row,
                       const std::vector<DataType>& types, int opset) {
  if (row.input_types.empty()) return Status::Ok();
  const std::vector<std::string_view> entries = Split(row.input_types, ',');
  std::vector<DataType> group_type(entries.size(), DataType::kUndefined);
  std::vector<size_t> group_first(entries.size(), 0);
  const size_t n = std::min(types.size(), node.input.size());
  for (size_t i = 0; i < n; ++i) {
    const DataType t = types[i];
    if (t == DataType::kUndefined) continue;  // empty: an optional input left out
    const std::string_view e = entries[std::min(i, entries.size() - 1)];
    const size_t at = e.find('@');
    uint64_t mask = 0;
    std::from_chars(e.data(), e.data() + at, mask, 16);
    const int code = static_cast<int>(t);
    if (mask != 0 && (code >= 64 || ((mask >> code) & 1u) == 0)) {
      std::string allowed;
      for (int b = 0; b < 64; ++b) {
        if ((mask >> b) & 1u) {
          allowed +=
              std::string(allowed.empty() ? "" : ", ") + DataTypeName(static_cast<DataType>(b));
        }
      }
      return Status(StatusCode::kInvalidModel,
                    Where(node, opset) + ": input " + std::to_string(i) + " ('" + node.input[i] +
                        "') is " + DataTypeName(t) + "; the op takes " + allowed + " there");
    }
    const std::string_view group = e.substr(at + 1);
    if (group == "-") continue;
    const size_t g = static_cast<size_t>(ToInt(group));
    if (g >= group_type.size()) continue;
    if (group_type[g] == DataType::kUndefined) {
      group_type[g] = t;
      group_first[g] = i;
    } else if (group_type[g] != t) {
      return Status(StatusCode::kInvalidModel,
                    Where(node, opset) + ": inputs " + std::to_string(group_first[g]) + " and " +
                        std::to_string(i) + " must have one type, got " +
                        DataTypeName(group_type[g]) + " and " + DataTypeName(t));
    }
  }
  return Status::Ok();
}

Status CheckAttributes(const onnx::NodeProto& node, std::string_view attributes, int opset) {
  if (attributes.empty()) {
    return Status::Ok();
  }
  for (std::string_view spec : Split(attributes, ',')) {
    const size_t eq = spec.find('=');
    const std::string_view name = spec.substr(0, eq);
    std::string_view type_text = spec.substr(eq + 1);
    const bool required = !type_text.empty() && type_text.back() == '!';
    if (required) type_text.remove_suffix(1);
    const int32_t type = ToInt(type_text);
    const onnx::AttributeProto* found = nullptr;
    for (const onnx::AttributeProto& a : node.attribute) {
      if (a.name.get() == name) found = &a;
    }
    if (found == nullptr) {
      if (required) {
        return Status(StatusCode::kInvalidModel, Where(node, opset) + ": required attribute '" +
                                                     std::string(name) + "' is missing");
      }
      continue;
    }
    const int32_t got = found->type.get();
    if (got != 0 && got != type) {
      return Status(StatusCode::kInvalidModel,
                    Where(node, opset) + ": attribute '" + std::string(name) + "' has type " +
                        AttributeTypeName(got) + ", the op declares " + AttributeTypeName(type));
    }
  }
  return Status::Ok();
}

}  // namespace onnx_light
