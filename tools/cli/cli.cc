// onnx-light: the command-line front end (CliMain; main.cc and `python -m onnx_light` call
// it).
//
//   onnx-light run MODEL [--input NAME=FILE.npy|VALUE]... [--random] [--dim NAME=N]...
//                        [--repeat N] [--threads N] [--save DIR] [--profile FILE.json]
//                        [--optimization none|basic|extended|all]
//   onnx-light ops
//   onnx-light dtypes | version | help
#include "cli.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "literal.h"
#include "npy.h"
#include "onnx_light/core/data_type.h"
#include "onnx_light/onnx/model_io.h"
#include "onnx_light/runtime/cpu.h"
#include "onnx_light/runtime/session.h"
#include "summary.h"

namespace ol = onnx_light;

namespace {

constexpr const char* kUsage =
    "usage: onnx-light <command> [args]\n"
    "commands:\n"
    "  run MODEL [--input NAME=FILE.npy|VALUE]... [--random] [--dim NAME=N]... [--repeat N]\n"
    "            [--threads N] [--save DIR] [--profile FILE.json]\n"
    "            [--optimization none|basic|extended|all]\n"
    "             run a model; inputs from .npy files or literals (16000, 0.5, [1, 2],\n"
    "             [[1, 2], [3, 4]]), the others random with --random, their symbolic\n"
    "             dimensions set by --dim (default 1); prints each output's name, type,\n"
    "             shape and a summary, and the timing; --save writes outputs as .npy\n"
    "             into DIR (created);\n"
    "             --profile writes every node's time as a Chrome trace (Perfetto opens\n"
    "             it) and prints the time by op type; --optimization sets the graph\n"
    "             optimization level (default all)\n"
    "  ops        list every registered kernel: domain, op, opsets, types\n"
    "  reduced-config MODEL_OR_FOLDER... -o OPS.config\n"
    "             write the minimal required_operators config for the models (subgraphs\n"
    "             and local functions included), for -DONNX_LIGHT_REDUCED_OPS_CONFIG\n"
    "  dtypes     list every ONNX data type with its value and storage size\n"
    "  version    print the version\n"
    "  help       print this text\n";

int Fail(const std::string& msg) {
  std::fprintf(stderr, "onnx-light: %s\n", msg.c_str());
  return 1;
}

// A failed status in words: its message first, the code name after it.
int Fail(const ol::Status& s) {
  return Fail(s.message() + " (" + ol::StatusCodeName(s.code()) + ")");
}

std::string Join(const std::set<std::string>& names) {
  if (names.empty()) return "(none)";
  std::string s;
  for (const std::string& n : names)
    s += (s.empty() ? "" : ", ") + n;
  return s;
}

int Usage(const std::string& msg) {
  std::fprintf(stderr, "onnx-light: %s\n%s", msg.c_str(), kUsage);
  return 2;
}

ol::Result<ol::Tensor> RandomTensor(const ol::ValueMeta& meta,
                                    const std::map<std::string, int64_t>& dims, std::mt19937& rng) {
  std::vector<int64_t> shape;
  for (size_t i = 0; i < meta.dims.size(); ++i) {
    if (meta.dims[i] >= 0) {
      shape.push_back(meta.dims[i]);
    } else {
      auto it = dims.find(meta.dim_params[i]);
      shape.push_back(it == dims.end() ? 1 : it->second);
    }
  }
  ONNX_LIGHT_ASSIGN_OR_RETURN(ol::Shape s, ol::Shape::Create(shape));
  ONNX_LIGHT_ASSIGN_OR_RETURN(ol::Tensor t, ol::Tensor::Allocate(meta.type, std::move(s)));
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> small(0, 9);
  const int64_t n = t.num_elements();
  for (int64_t i = 0; i < n; ++i) {
    switch (meta.type) {
      case ol::DataType::kFloat:
        t.mutable_data<float>()[i] = static_cast<float>(real(rng));
        break;
      case ol::DataType::kDouble:
        t.mutable_data<double>()[i] = real(rng);
        break;
      case ol::DataType::kFloat16:
        t.mutable_data<ol::float16>()[i] = ol::float16(real(rng));
        break;
      case ol::DataType::kBFloat16:
        t.mutable_data<ol::bfloat16>()[i] = ol::bfloat16(real(rng));
        break;
      case ol::DataType::kInt32:
        t.mutable_data<int32_t>()[i] = small(rng);
        break;
      case ol::DataType::kInt64:
        t.mutable_data<int64_t>()[i] = small(rng);
        break;
      case ol::DataType::kBool:
        t.mutable_data<bool>()[i] = small(rng) < 5;
        break;
      case ol::DataType::kString:
        t.mutable_data<std::string>()[i] = "s" + std::to_string(small(rng));
        break;
      default:
        std::memset(t.mutable_raw_data(), 0, t.byte_size());
        i = n;
    }
  }
  return t;
}

std::string ShapeText(const ol::ValueMeta& m) {
  if (!m.has_shape) return "(unknown shape)";
  std::string s = "[";
  for (size_t i = 0; i < m.dims.size(); ++i) {
    if (i) s += ", ";
    s += m.dims[i] >= 0 ? std::to_string(m.dims[i])
                        : (m.dim_params[i].empty() ? "?" : m.dim_params[i]);
  }
  return s + "]";
}

// Peak resident memory of this process in KiB (VmHWM), or -1 where /proc is missing.
long PeakRssKiB() {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::strtol(line + 6, nullptr, 10);
  }
  std::fclose(f);
  return kib;
}

int CmdRun(int argc, char** argv) {
  if (argc < 1) return Usage("run needs a model path");
  const std::string model_path = argv[0];
  std::map<std::string, std::string> input_files;  // NAME -> a .npy path or a literal
  std::map<std::string, int64_t> dims;
  bool random = false;
  int repeat = 1, threads = 1;
  std::string save_dir, profile_path;
  ol::GraphOptimizationLevel level = ol::GraphOptimizationLevel::kAll;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> const char* {
      if (i + 1 >= argc) return nullptr;
      (void)flag;
      return argv[++i];
    };
    if (arg == "--random") {
      random = true;
    } else if (arg == "--input" || arg == "--dim") {
      const char* v = value(arg.c_str());
      if (!v) return Usage(arg + " needs NAME=VALUE");
      const std::string kv = v;
      const size_t eq = kv.find('=');
      if (eq == std::string::npos || eq == 0) return Usage(arg + " needs NAME=VALUE, got " + kv);
      if (arg == "--input") {
        input_files[kv.substr(0, eq)] = kv.substr(eq + 1);
      } else {
        char* end = nullptr;
        const long long n = std::strtoll(kv.c_str() + eq + 1, &end, 10);
        if (*end != '\0' || n < 0) return Usage("--dim needs a nonnegative integer: " + kv);
        dims[kv.substr(0, eq)] = n;
      }
    } else if (arg == "--repeat" || arg == "--threads") {
      const char* v = value(arg.c_str());
      char* end = nullptr;
      const long n = v ? std::strtol(v, &end, 10) : 0;
      if (!v || *end != '\0' || n < (arg == "--threads" ? 0 : 1)) {
        return Usage(arg + (arg == "--threads" ? " needs 0 (one per physical core) or more"
                                               : " needs a positive integer"));
      }
      (arg == "--repeat" ? repeat : threads) = static_cast<int>(n);
    } else if (arg == "--save") {
      const char* v = value(arg.c_str());
      if (!v) return Usage("--save needs a folder");
      save_dir = v;
    } else if (arg == "--profile") {
      const char* v = value(arg.c_str());
      if (!v) return Usage("--profile needs a file");
      profile_path = v;
    } else if (arg == "--optimization") {
      const char* v = value(arg.c_str());
      const std::string name = v ? v : "";
      if (name == "none") {
        level = ol::GraphOptimizationLevel::kNone;
      } else if (name == "basic") {
        level = ol::GraphOptimizationLevel::kBasic;
      } else if (name == "extended") {
        level = ol::GraphOptimizationLevel::kExtended;
      } else if (name == "all") {
        level = ol::GraphOptimizationLevel::kAll;
      } else {
        return Usage("--optimization needs none, basic, extended or all");
      }
    } else {
      return Usage("unknown option '" + arg + "'");
    }
  }

  ol::SessionOptions options;
  options.intra_op_threads = threads;
  options.graph_optimization_level = level;
  options.enable_profiling = !profile_path.empty();
  const auto t0 = std::chrono::steady_clock::now();
  auto session = ol::RuntimeSession::CreateFromFile(model_path, options);
  const auto t1 = std::chrono::steady_clock::now();
  if (!session.ok()) {
    // Bytes that do not even parse as a ModelProto: say so before the parser's detail.
    if (session.status().code() == ol::StatusCode::kInvalidModel &&
        !ol::onnx::LoadModel(model_path).ok()) {
      return Fail(model_path + " is not an ONNX model: " + session.status().message());
    }
    return Fail(session.status());
  }
  ol::RuntimeSession& s = **session;

  // Every name given must be the model's, and every input must get a value, before
  // anything runs.
  std::set<std::string> input_names, dim_names;
  for (const ol::ValueMeta& meta : s.inputs()) {
    input_names.insert(meta.name);
    for (const std::string& p : meta.dim_params)
      if (!p.empty()) dim_names.insert(p);
  }
  for (const auto& [name, value] : input_files) {
    if (!input_names.count(name)) {
      return Fail("the model has no input '" + name + "'; its inputs: " + Join(input_names));
    }
  }
  for (const auto& [name, value] : dims) {
    if (!dim_names.count(name)) {
      return Fail("the model's inputs have no symbolic dimension '" + name +
                  "'; theirs: " + Join(dim_names));
    }
  }
  for (const ol::ValueMeta& meta : s.inputs()) {
    if (meta.kind != ol::ValueKind::kTensor && !meta.is_optional()) {
      return Fail("input '" + meta.name + "' is a " + ol::ValueKindName(meta.kind) +
                  ": `onnx-light run` feeds tensors only (use the Python or C++ API)");
    }
    if (!input_files.count(meta.name) && !random && !meta.is_optional()) {
      return Fail("input '" + meta.name + "' (" + ol::DataTypeName(meta.type) + " " +
                  ShapeText(meta) + ") has no value: give it with --input " + meta.name +
                  "=FILE.npy or --input " + meta.name + "=VALUE, or pass --random");
    }
  }
  if (!save_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(save_dir, ec);
    if (ec) return Fail("cannot create the --save folder " + save_dir + ": " + ec.message());
  }

  std::printf("model  %s\n", model_path.c_str());
  std::printf("opsets");
  for (const auto& o : s.model().opset_import) {
    std::printf(" %s:%lld", o.domain.get().empty() ? "ai.onnx" : o.domain.get().c_str(),
                static_cast<long long>(o.version.get()));
  }
  std::printf("\nsession created in %.3f ms (SIMD %s, %d thread%s)\n",
              std::chrono::duration<double, std::milli>(t1 - t0).count(), ol::SimdTargetName(),
              threads == 0 ? ol::PhysicalCores() : threads,
              (threads == 0 ? ol::PhysicalCores() : threads) == 1 ? "" : "s");

  std::vector<ol::NamedValue> feeds;
  std::mt19937 rng(1234);
  for (const ol::ValueMeta& meta : s.inputs()) {
    auto file = input_files.find(meta.name);
    if (file != input_files.end()) {
      // A value ending in .npy is a file; anything else a literal.
      const std::string& v = file->second;
      const bool npy = v.size() >= 4 && v.compare(v.size() - 4, 4, ".npy") == 0;
      auto t = npy ? onnx_light::cli::ReadNpy(v, meta.type)
                   : onnx_light::cli::ParseLiteral(v, meta.type);
      if (!t.ok()) return Fail("input '" + meta.name + "': " + t.status().message());
      std::printf("input  %-12s %-8s %s %s %s\n", meta.name.c_str(), ol::DataTypeName(t->dtype()),
                  t->shape().ToString().c_str(), npy ? "from" : "=", v.c_str());
      feeds.emplace_back(meta.name, ol::Value{std::move(*t), nullptr});
    } else if (random) {
      auto t = RandomTensor(meta, dims, rng);
      if (!t.ok()) return Fail("input '" + meta.name + "': " + t.status().message());
      std::printf("input  %-12s %-8s %s random (declared %s)\n", meta.name.c_str(),
                  ol::DataTypeName(meta.type), t->shape().ToString().c_str(),
                  ShapeText(meta).c_str());
      feeds.emplace_back(meta.name, ol::Value{std::move(*t), nullptr});
    }
  }

  std::vector<double> times;
  ol::Result<std::vector<ol::Value>> outputs = std::vector<ol::Value>();
  for (int r = 0; r < repeat; ++r) {
    const auto a = std::chrono::steady_clock::now();
    outputs = s.RunValues(feeds);
    const auto b = std::chrono::steady_clock::now();
    if (!outputs.ok()) {
      // Symbolic dimensions left at 1 are the usual cause of a shape error in a random run.
      std::set<std::string> defaulted;
      if (random) {
        for (const std::string& d : dim_names)
          if (!dims.count(d)) defaulted.insert(d);
      }
      if (!defaulted.empty()) {
        return Fail(outputs.status().message() + " (" +
                    ol::StatusCodeName(outputs.status().code()) +
                    ")\nhint: these symbolic dimensions were set to 1: " + Join(defaulted) +
                    "; give them real sizes with --dim NAME=N");
      }
      return Fail(outputs.status());
    }
    times.push_back(std::chrono::duration<double, std::micro>(b - a).count());
  }
  for (size_t i = 0; i < outputs->size(); ++i) {
    const ol::Value& v = (*outputs)[i];
    const std::string& name = s.outputs()[i].name;
    if (v.is_container() || !v.tensor.is_defined()) {  // a map, a sequence, none
      std::printf("output %-12s %s %s\n", name.c_str(), onnx_light::cli::TypeText(v).c_str(),
                  onnx_light::cli::ValueSummary(v).c_str());
      if (!save_dir.empty()) std::printf("       not saved: .npy holds tensors only\n");
      continue;
    }
    const ol::Tensor& t = v.tensor;
    std::printf("output %-12s %-8s %s %s\n", name.c_str(), ol::DataTypeName(t.dtype()),
                t.shape().ToString().c_str(), onnx_light::cli::Summary(t).c_str());
    if (!save_dir.empty()) {
      const std::string path = save_dir + "/" + name + ".npy";
      ol::Status st = onnx_light::cli::WriteNpy(t, path);
      if (!st.ok()) return Fail(st);
      std::printf("       saved %s\n", path.c_str());
    }
  }
  std::sort(times.begin(), times.end());
  double mean = 0;
  for (double t : times)
    mean += t;
  mean /= static_cast<double>(times.size());
  std::printf("run    %d time%s: mean %.2f us, median %.2f us, min %.2f us\n", repeat,
              repeat == 1 ? "" : "s", mean, times[times.size() / 2], times.front());
  const long peak = PeakRssKiB();
  if (peak >= 0) std::printf("memory peak RSS %.2f MiB\n", static_cast<double>(peak) / 1024.0);
  if (ol::Profiler* profiler = s.profiler()) {
    std::printf("profile: time per run by op type (%zu nodes planned)\n", s.planned_nodes());
    std::printf("  %-28s %10s %7s %7s\n", "op", "ms/run", "share", "calls");
    for (const ol::OpTypeTime& t : profiler->Summary()) {
      std::printf("  %-28s %10.4f %6.1f%% %7.1f\n", t.op_type.c_str(), t.total_ms / repeat,
                  100.0 * t.share, static_cast<double>(t.calls) / repeat);
    }
    ol::Status st = profiler->WriteChromeTrace(profile_path);
    if (!st.ok()) return Fail(st);
    std::printf("profile written to %s\n", profile_path.c_str());
  }
  return 0;
}

int CmdOps() {
  auto registry = ol::KernelRegistry::BuiltinCpu();
  std::vector<const ol::KernelDef*> defs = registry->All();
  std::sort(defs.begin(), defs.end(), [](const ol::KernelDef* a, const ol::KernelDef* b) {
    return std::tie(a->domain, a->op_type, a->since_version) <
           std::tie(b->domain, b->op_type, b->since_version);
  });
  std::printf("%-16s %-16s %-10s %s\n", "domain", "op", "opsets", "types");
  for (const ol::KernelDef* d : defs) {
    std::string range =
        std::to_string(d->since_version) +
        (d->end_version == ol::kMaxOpset ? "+" : "-" + std::to_string(d->end_version));
    std::string types;
    for (const ol::TypeConstraint& c : d->constraints) {
      if (!types.empty()) types += "; ";
      types += c.name + ": " + ol::TypeList(c.types);
    }
    std::printf("%-16s %-16s %-10s %s\n", d->domain.empty() ? "ai.onnx" : d->domain.c_str(),
                d->op_type.c_str(), range.c_str(), types.c_str());
  }
  std::printf("%zu kernels\n", defs.size());
  return 0;
}

// (domain, opset) -> ops, for the reduced-ops config.
using OpsByOpset = std::map<std::pair<std::string, int64_t>, std::set<std::string>>;

void CollectNodes(const ol::onnx::Repeated<ol::onnx::NodeProto>& nodes,
                  const std::map<std::string, int64_t>& opsets,
                  const std::set<std::pair<std::string, std::string>>& functions, OpsByOpset* out);

void CollectGraph(const ol::onnx::GraphProto& g, const std::map<std::string, int64_t>& opsets,
                  const std::set<std::pair<std::string, std::string>>& functions, OpsByOpset* out) {
  CollectNodes(g.node, opsets, functions, out);
}

void CollectNodes(const ol::onnx::Repeated<ol::onnx::NodeProto>& nodes,
                  const std::map<std::string, int64_t>& opsets,
                  const std::set<std::pair<std::string, std::string>>& functions, OpsByOpset* out) {
  for (const ol::onnx::NodeProto& node : nodes) {
    const std::string domain = ol::NormalizeDomain(node.domain.get());
    const std::string& op = node.op_type.get();
    for (const ol::onnx::AttributeProto& a : node.attribute) {
      if (a.g.has()) CollectGraph(a.g.get(), opsets, functions, out);
      for (const ol::onnx::GraphProto& g : a.graphs)
        CollectGraph(g, opsets, functions, out);
    }
    // Constant is evaluated at session creation; calls of local functions are expanded.
    if ((domain.empty() && op == "Constant") || functions.count({domain, op})) continue;
    auto it = opsets.find(domain);
    (*out)[{domain, it == opsets.end() ? 1 : it->second}].insert(op);
  }
}

int CmdReducedConfig(int argc, char** argv) {
  std::vector<std::string> inputs;
  std::string output;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-o" || arg == "--output") {
      if (i + 1 >= argc) return Usage("-o needs a file");
      output = argv[++i];
    } else {
      inputs.push_back(arg);
    }
  }
  if (inputs.empty() || output.empty()) {
    return Usage("reduced-config needs models or folders and -o OPS.config");
  }
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (std::filesystem::is_directory(in, ec)) {
      std::vector<std::string> found;
      for (const auto& e : std::filesystem::recursive_directory_iterator(in, ec)) {
        if (e.is_regular_file() && e.path().extension() == ".onnx") found.push_back(e.path());
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(in);
    }
  }
  OpsByOpset ops;
  ol::onnx::LoadOptions load;
  load.load_external_data = false;  // only the graph matters
  for (const std::string& f : files) {
    auto model = ol::onnx::LoadModel(f, load);
    if (!model.ok()) return Fail(model.status());
    std::map<std::string, int64_t> opsets;
    for (const auto& o : model->opset_import) {
      opsets[ol::NormalizeDomain(o.domain.get())] = o.version.get();
    }
    std::set<std::pair<std::string, std::string>> functions;
    for (const auto& fn : model->functions) {
      functions.insert({ol::NormalizeDomain(fn.domain.get()), fn.name.get()});
    }
    CollectGraph(model->graph.get(), opsets, functions, &ops);
    for (const auto& fn : model->functions) {
      std::map<std::string, int64_t> fn_opsets = opsets;
      for (const auto& o : fn.opset_import) {
        fn_opsets[ol::NormalizeDomain(o.domain.get())] = o.version.get();
      }
      CollectNodes(fn.node, fn_opsets, functions, &ops);
    }
  }
  std::FILE* out = std::fopen(output.c_str(), "w");
  if (out == nullptr) return Fail("cannot write '" + output + "'");
  std::fprintf(out, "# Generated by onnx-light reduced-config from %zu model(s).\n", files.size());
  std::fprintf(out, "# domain;opset;ops (required_operators.config format)\n");
  for (const auto& [key, names] : ops) {
    std::string list;
    for (const std::string& n : names)
      list += (list.empty() ? "" : ",") + n;
    std::fprintf(out, "%s;%lld;%s\n", key.first.empty() ? "ai.onnx" : key.first.c_str(),
                 static_cast<long long>(key.second), list.c_str());
  }
  const bool ok = std::fclose(out) == 0;
  if (!ok) return Fail("cannot write '" + output + "'");
  std::printf("wrote %s: %zu model(s), %zu domain/opset line(s)\n", output.c_str(), files.size(),
              ops.size());
  return 0;
}

int CmdDtypes() {
  using ol::DataType;
  std::printf("%-6s %-16s %s\n", "value", "name", "bits/element");
  for (int32_t v = 0; v < ol::kDataTypeCount; ++v) {
    const auto t = static_cast<DataType>(v);
    const int bits = ol::DataTypeBitWidth(t);
    std::string size =
        bits == 0 ? (t == DataType::kString ? "variable" : "-") : std::to_string(bits);
    std::printf("%-6d %-16s %s\n", v, ol::DataTypeName(t), size.c_str());
  }
  return 0;
}

int Dispatch(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  if (cmd == "help" || cmd == "--help" || cmd == "-h") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (cmd == "run") return CmdRun(argc - 2, argv + 2);
  if (cmd == "ops") return CmdOps();
  if (cmd == "reduced-config") return CmdReducedConfig(argc - 2, argv + 2);
  if (cmd == "dtypes") return CmdDtypes();
  if (cmd == "version" || cmd == "--version") {
    std::printf("onnx-light %s\n", ONNX_LIGHT_VERSION);
    return 0;
  }
  return Usage("unknown command '" + cmd + "'");
}

}  // namespace

int onnx_light::cli::CliMain(int argc, char** argv) {
  const int status = Dispatch(argc, argv);
  // The Python front end shares the process's stdout with Python's own buffered writer.
  std::fflush(stdout);
  std::fflush(stderr);
  return status;
}
