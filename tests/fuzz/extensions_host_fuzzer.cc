// libFuzzer target for session-level hosting in the extensions profile with the real
// onnxruntime-extensions library (issue 29): the fuzzer's bytes build a graph of one or two
// of the library's CPU ops (string, math, tokenizer including the V1 BERT tokenizers, image
// and audio), each input fed from the graph or through a standard op (Identity), attributes
// present or dropped, declared types right or wrong, and feeds of any listed element type,
// rank and shape, strings drawn from words, patterns, random ASCII or raw bytes. Every
// Create and Run must return a status with a message (a plugin's throw included), and
// nothing may crash, leak or hang in the host.
//
// The library (its `_extensions_pydll*.so`, a Python extension module) is named by
// $ONNX_LIGHT_EXTENSIONS_LIBRARY; it references libpython's symbols, so the libpython
// named by $ONNX_LIGHT_LIBPYTHON is loaded first with RTLD_GLOBAL (Python is never
// initialized: the library's ops do not call it). scripts/fuzz.sh sets both from the test
// venv. The library is registered once per process: it keeps the host's API table in
// process-wide (GNU unique) symbols and cannot be unloaded.
#include <dlfcn.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "onnx_light/onnx/onnx.h"
#include "onnx_light/runtime/session.h"
#include "onnx_light_ort/hosting/plugin_host.h"

namespace {

namespace onnx = onnx_light::onnx;
using onnx_light::DataType;

constexpr int32_t kS = 8, kI = 7, kF = 1, kB = 9, kU = 2;
constexpr const char* kContrib = "ai.onnx.contrib";
constexpr const char* kExt = "com.microsoft.extensions";
constexpr const char* kBertVocab =
    "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nquick\nbrown\nfox\njump\n##s\n##ed\nover\nlazy\n"
    "dog\nhello\nworld\non\n##nx\nlight\n,\n.\n!\na\nb\nc";

struct Attr {
  const char* name;
  bool is_int;
  int64_t i;
  const char* s;
};

struct FeedBounds {
  int min_rank = 0;
  int max_rank = 3;
  int min_dim = 0;       // every dimension at least this
  int64_t min_int = -2;  // int64 values at least this
  bool any() const { return min_rank != 0 || max_rank != 3 || min_dim != 0 || min_int != -2; }
};

struct OpSpec {
  const char* domain;
  const char* name;
  std::vector<int32_t> inputs;  // element types
  std::vector<int32_t> outputs;
  std::vector<Attr> attrs;
  // Feeds the library's kernel does not check and crashes on (ONNX Runtime + extensions
  // too): this op's inputs come straight from the graph's inputs, fed within these bounds.
  FeedBounds bounds = {};
};

const std::vector<OpSpec>& Ops() {
  static const std::vector<OpSpec> ops = {
      {kContrib, "StringUpper", {kS}, {kS}, {}},
      {kContrib, "StringLower", {kS}, {kS}, {}},
      {kContrib, "StringStrip", {kS}, {kS}, {}},
      {kContrib, "StringLength", {kS}, {kI}, {}},
      {kContrib, "StringConcat", {kS, kS}, {kS}, {}},
      // Two scalars: a SEGV in its broadcasting (BroadcastIteratorRight::Init).
      {kContrib, "StringEqual", {kS, kS}, {kB}, {}, {1}},
      {kContrib, "StringRegexReplace", {kS, kS, kS}, {kS}, {{"global_replace", true, 0, ""}}},
      {kContrib, "StringECMARegexReplace", {kS, kS, kS}, {kS}, {}},
      // Text of a rank other than 1: a SEGV.
      {kContrib, "StringRegexSplitWithOffsets", {kS, kS, kS}, {kS, kI, kI, kI}, {}, {1, 1}},
      {kContrib, "StringSplit", {kS, kS, kB}, {kI, kS, kI}, {}},
      // An empty dimension other than the joined one: a SEGV.
      {kContrib, "StringJoin", {kS, kS, kI}, {kS}, {}, {0, 3, 1}},
      // Zero buckets: SIGFPE (a division by the count), in both.
      {kContrib, "StringToHashBucket", {kS, kI}, {kI}, {}, {0, 3, 0, 1}},
      {kContrib, "StringToHashBucketFast", {kS, kI}, {kI}, {}, {0, 3, 0, 1}},
      {kContrib, "MaskedFill", {kS, kB}, {kS}, {}},
      {kContrib, "StringMapping", {kS}, {kS}, {{"map", false, 0, "cat\tfeline\ndog\tcanine"}}},
      {kContrib,
       "StringToVector",
       {kS},
       {kI},
       {{"map", false, 0, "a\t0 1 2\nb\t3 4 5"}, {"unk", false, 0, "-1 -1 -1"}}},
      {kContrib,
       "VectorToString",
       {kI},
       {kS},
       {{"map", false, 0, "a\t0 1\nb\t2 3"}, {"unk", false, 0, "<unk>"}}},
      // Not Inverse: it aborts the process on an empty matrix the second time (dlib's
      // fatal_error throws once, then calls abort).
      {kContrib, "NegPos", {kF}, {kF, kF}, {}},
      {kContrib, "SegmentExtraction", {kI}, {kI, kI}, {}},
      // Not SegmentSum: its segment ids index the output unchecked (negative or unsorted ids
      // write outside it: heap corruption, SIGBUS), and empty data is a SIGFPE.
      // Not the ragged-tensor ops (RaggedTensorToSparse, RaggedTensorToDense,
      // StringRaggedTensorToDense): they index the values by the splits unchecked (a SEGV).
      {kContrib,
       "BasicTokenizer",  // V1
       {kS},
       {kS},
       {{"do_lower_case", true, 1, ""},
        {"strip_accents", true, 1, ""},
        {"tokenize_punctuation", true, 1, ""}}},
      {kContrib,
       "BertTokenizer",  // V1
       {kS},
       {kI, kI, kI, kI},
       {{"vocab_file", false, 0, kBertVocab}, {"do_lower_case", true, 1, ""}}},
      {kContrib,
       "BertTokenizerDecoder",
       {kI, kI},
       {kS},
       {{"vocab_file", false, 0, kBertVocab}, {"skip_special_tokens", true, 1, ""}}},
      {kExt, "DecodeImage", {kU}, {kU}, {}},
      {kExt, "EncodeImage", {kU}, {kU}, {{"format", false, 0, "png"}}},
      {kExt,
       "DrawBoundingBoxes",  // V1
       {kU, kF},
       {kU},
       {{"thickness", true, 2, ""}, {"num_classes", true, 3, ""}, {"mode", false, 0, "XYXY"}}},
      {kContrib, "AudioDecoder", {kU}, {kF}, {}},
  };
  return ops;
}

constexpr int32_t kAnyType[] = {kS, kI, kF, kB, kU, 6 /* int32 */};
constexpr const char* kWords[] = {"",
                                  " ",
                                  "hello",
                                  "Hello World",
                                  "a,b,,c",
                                  "na\xc3\xafve caf\xc3\xa9",
                                  "(\\w+)",
                                  "[\\1]",
                                  "o",
                                  "0",
                                  "\\s+",
                                  ",",
                                  "-",
                                  "cat",
                                  "dog",
                                  "[CLS]",
                                  "$2$1",
                                  "(\\w)(\\w*)",
                                  "  x ",
                                  "the quick brown fox jumps",
                                  "\xc3\x9c\x42\x45R",
                                  "[,\\s]"};

template <typename T, size_t N>
const T& Pick(FuzzedDataProvider& fdp, const T (&table)[N]) {
  return table[fdp.ConsumeIntegralInRange<size_t>(0, N - 1)];
}

std::string DrawString(FuzzedDataProvider& fdp) {
  switch (fdp.ConsumeIntegralInRange(0, 15)) {
    case 0: {  // printable ASCII
      std::string s = fdp.ConsumeRandomLengthString(24);
      for (char& c : s)
        c = static_cast<char>(' ' + (static_cast<unsigned char>(c) % 95));
      return s;
    }
    case 1:  // raw bytes, invalid UTF-8 included
      return fdp.ConsumeRandomLengthString(24);
    default:
      return Pick(fdp, kWords);
  }
}

onnx::ValueInfoProto Info(const std::string& name, int32_t type, bool with_type) {
  onnx::ValueInfoProto vi;
  vi.name = name;
  if (with_type) vi.type.mutable_get()->tensor_type.mutable_get()->elem_type = type;
  return vi;
}

struct Built {
  std::string model;
  struct Input {
    std::string name;
    int32_t type;
    FeedBounds bounds;
  };
  std::vector<Input> inputs;  // the graph's inputs
  std::string description;    // the nodes, for triage
};

bool Verbose() {
  static const bool verbose = std::getenv("FUZZ_PRINT") != nullptr;
  return verbose;
}

// A standard op between a value and its user: Identity(from) -> from + suffix.
std::string ThroughIdentity(onnx::GraphProto* g, const std::string& from, const char* suffix) {
  onnx::NodeProto id;
  id.op_type = std::string("Identity");
  id.input = {from};
  id.output = {from + suffix};
  g->node.push_back(std::move(id));
  return from + suffix;
}

Built BuildModel(FuzzedDataProvider& fdp) {
  Built b;
  onnx::ModelProto m;
  m.ir_version = 8;
  for (const char* d : {"", kContrib, kExt}) {
    onnx::OperatorSetIdProto* o = m.opset_import.Add();
    o->domain = std::string(d);
    o->version = d[0] == '\0' ? 17 : 1;
  }
  onnx::GraphProto* g = m.graph.mutable_get();
  g->name = std::string("g");
  const auto& ops = Ops();
  // Values available to later nodes: name and type.
  std::vector<std::pair<std::string, int32_t>> values;
  const int nodes = fdp.ConsumeIntegralInRange(0, 3) == 0 ? 2 : 1;
  for (int n = 0; n < nodes; ++n) {
    const OpSpec& op = ops[fdp.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)];
    onnx::NodeProto node;
    node.op_type = std::string(op.name);
    node.domain = std::string(op.domain);
    size_t inputs = op.inputs.size();
    if (fdp.ConsumeIntegralInRange(0, 15) == 0) inputs = fdp.ConsumeIntegralInRange<size_t>(0, 7);
    for (size_t k = 0; k < inputs; ++k) {
      const int32_t want = k < op.inputs.size() ? op.inputs[k] : Pick(fdp, kAnyType);
      // An earlier value of the wanted type, or a new graph input (rarely of another type).
      std::string name;
      for (const auto& [v, t] : values) {
        if (!op.bounds.any() && t == want && fdp.ConsumeBool()) {
          name = v;
          break;
        }
      }
      if (name.empty()) {
        name = "i" + std::to_string(b.inputs.size());
        const int32_t type = fdp.ConsumeIntegralInRange(0, 15) == 0 ? Pick(fdp, kAnyType) : want;
        b.inputs.push_back({name, type, op.bounds});
        g->input.push_back(Info(name, type, fdp.ConsumeIntegralInRange(0, 15) != 0));
        if (fdp.ConsumeIntegralInRange(0, 3) == 0) name = ThroughIdentity(g, name, "_id");
      }
      node.input.push_back(fdp.ConsumeIntegralInRange(0, 31) == 0 ? std::string() : name);
    }
    size_t outputs = op.outputs.size();
    if (fdp.ConsumeIntegralInRange(0, 15) == 0) outputs = fdp.ConsumeIntegralInRange<size_t>(0, 5);
    for (size_t k = 0; k < outputs; ++k) {
      const std::string name = "n" + std::to_string(n) + "_" + std::to_string(k);
      node.output.push_back(name);
      values.emplace_back(name, k < op.outputs.size() ? op.outputs[k] : kF);
    }
    for (const Attr& a : op.attrs) {
      if (fdp.ConsumeIntegralInRange(0, 15) == 0) continue;  // dropped: the plugin refuses
      onnx::AttributeProto* attr = node.attribute.Add();
      attr->name = std::string(a.name);
      const bool wrong = fdp.ConsumeIntegralInRange(0, 31) == 0;
      if (a.is_int != wrong) {
        attr->type = static_cast<int32_t>(onnx::AttributeType::kInt);
        attr->i = fdp.ConsumeBool() ? a.i : fdp.ConsumeIntegralInRange<int64_t>(-2, 8);
      } else {
        attr->type = static_cast<int32_t>(onnx::AttributeType::kString);
        attr->s = std::string(fdp.ConsumeIntegralInRange(0, 15) == 0 ? DrawString(fdp) : a.s);
      }
    }
    b.description += std::string("node ") + op.name + "(";
    for (const std::string& in : node.input)
      b.description += in + " ";
    b.description += ") -> " + std::to_string(node.output.size()) + " outputs\n";
    g->node.push_back(std::move(node));
  }
  // Graph outputs: every node output, some through Identity (a standard op after a plugin's).
  for (const auto& [v, t] : values) {
    const std::string name =
        fdp.ConsumeIntegralInRange(0, 3) == 0 ? ThroughIdentity(g, v, "_out") : v;
    const bool wrong = fdp.ConsumeIntegralInRange(0, 15) == 0;
    g->output.push_back(Info(name, wrong ? Pick(fdp, kAnyType) : t, fdp.ConsumeBool()));
  }
  b.model = onnx::SerializeToString(m);
  return b;
}

DataType TypeOf(int32_t onnx_type) {
  return static_cast<DataType>(onnx_type);
}

onnx_light::Result<onnx_light::Tensor> Feed(FuzzedDataProvider& fdp, int32_t type,
                                            const FeedBounds& bounds) {
  std::vector<int64_t> dims;
  const int rank = fdp.ConsumeIntegralInRange(bounds.min_rank, bounds.max_rank);
  int64_t count = 1;
  for (int d = 0; d < rank; ++d) {
    const int64_t v = fdp.ConsumeIntegralInRange<int64_t>(bounds.min_dim, count > 16 ? 1 : 6);
    dims.push_back(v);
    count *= v;
  }
  auto shape = onnx_light::Shape::Create(dims);
  if (!shape.ok()) return shape.status();
  auto tensor = onnx_light::Tensor::Allocate(TypeOf(type), *shape);
  if (!tensor.ok()) return tensor.status();
  onnx_light::Tensor& t = *tensor;
  for (int64_t i = 0; i < count; ++i) {
    switch (type) {
      case kS:
        t.mutable_data<std::string>()[i] = DrawString(fdp);
        break;
      case kI: {
        int64_t v = fdp.ConsumeIntegralInRange<int64_t>(bounds.min_int, 12);
        if (fdp.ConsumeIntegralInRange(0, 63) == 0)
          v = std::max(bounds.min_int, fdp.ConsumeIntegral<int64_t>());
        t.mutable_data<int64_t>()[i] = v;
        break;
      }
      case kF:
        t.mutable_data<float>()[i] = fdp.ConsumeIntegralInRange(0, 15) == 0
                                         ? fdp.ConsumeFloatingPoint<float>()
                                         : fdp.ConsumeFloatingPointInRange<float>(-4.f, 4.f);
        break;
      case kB:
        t.mutable_data<bool>()[i] = fdp.ConsumeBool();
        break;
      case kU:
        t.mutable_data<uint8_t>()[i] = fdp.ConsumeIntegral<uint8_t>();
        break;
      default:
        t.mutable_data<int32_t>()[i] = fdp.ConsumeIntegralInRange<int32_t>(-2, 12);
        break;
    }
  }
  return tensor;
}

onnx_light::SessionOptions* Options() {
  static onnx_light::SessionOptions* options = [] {
    const char* python = std::getenv("ONNX_LIGHT_LIBPYTHON");
    const char* library = std::getenv("ONNX_LIGHT_EXTENSIONS_LIBRARY");
    if (python == nullptr || library == nullptr) {
      std::fprintf(stderr,
                   "extensions_host_fuzzer: set ONNX_LIGHT_LIBPYTHON and "
                   "ONNX_LIGHT_EXTENSIONS_LIBRARY (scripts/fuzz.sh does)\n");
      std::exit(1);
    }
    if (dlopen(python, RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      std::fprintf(stderr, "extensions_host_fuzzer: %s\n", dlerror());
      std::exit(1);
    }
    auto* o = new onnx_light::SessionOptions();
    o->intra_op_threads = 1;
    o->max_tensor_bytes = uint64_t{64} << 20;
    o->shape_limits.max_elements = int64_t{1} << 22;
    const onnx_light::Status s = onnx_light_ort::hosting::RegisterCustomOpsLibrary(
        o, library, onnx_light_ort::hosting::Profile::kExtensions);
    if (!s.ok()) {
      std::fprintf(stderr, "extensions_host_fuzzer: %s\n", s.message().c_str());
      std::exit(1);
    }
    return o;
  }();
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  Options();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider fdp(data, size);
  const Built built = BuildModel(fdp);
  KernelExceptionWatch watch;
  auto session = onnx_light::RuntimeSession::CreateFromBytes(built.model.data(), built.model.size(),
                                                             *Options());
  if (!session.ok()) {
    if (session.status().message().empty()) __builtin_trap();
    return 0;
  }
  const int runs = fdp.ConsumeIntegralInRange(1, 2);
  for (int r = 0; r < runs; ++r) {
    std::vector<onnx_light::NamedTensor> feeds;
    for (const Built::Input& in : built.inputs) {
      if (fdp.ConsumeIntegralInRange(0, 63) == 0) continue;  // a feed missing
      const int32_t t = fdp.ConsumeIntegralInRange(0, 31) == 0 ? Pick(fdp, kAnyType) : in.type;
      auto feed = Feed(fdp, t, in.bounds);
      if (!feed.ok()) __builtin_trap();
      feeds.emplace_back(in.name, std::move(*feed));
    }
    if (Verbose()) {  // triage: the graph's nodes and the feeds' shapes
      std::fprintf(stderr, "%s", built.description.c_str());
      for (const auto& [name, t] : feeds) {
        std::fprintf(stderr, "feed %s type %d shape [", name.c_str(), static_cast<int>(t.dtype()));
        for (int64_t d : t.shape().dims())
          std::fprintf(stderr, "%lld ", static_cast<long long>(d));
        std::fprintf(stderr, "]");
        if (const std::string* v = t.data<std::string>()) {
          for (int64_t i = 0; i < t.num_elements(); ++i)
            std::fprintf(stderr, " '%s'", v[i].c_str());
        }
        if (const int64_t* v = t.data<int64_t>()) {
          for (int64_t i = 0; i < t.num_elements(); ++i)
            std::fprintf(stderr, " %lld", static_cast<long long>(v[i]));
        }
        std::fprintf(stderr, "\n");
      }
    }
    auto out = (*session)->Run(feeds);
    if (!out.ok() && out.status().message().empty()) __builtin_trap();
  }
  watch.Check();
  return 0;
}
