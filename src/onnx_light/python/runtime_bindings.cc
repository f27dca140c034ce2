// onnx_light._core.RuntimeSession: the C++ RuntimeSession for the Python front end
// (python/onnx_light/runtime.py adds the numpy-facing API on top).
#include "runtime_bindings.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "map_values.h"
#include "onnx_light/runtime/session.h"
#include "onnx_light_ort/hosting/plugin_host.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace onnx_light::python {
namespace {

using Bytes1D = nb::ndarray<const uint8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

nb::list MetaList(const std::vector<ValueMeta>& values) {
  nb::list out;
  for (const ValueMeta& v : values) {
    nb::list shape;
    for (size_t i = 0; i < v.dims.size(); ++i) {
      if (v.dims[i] >= 0) {
        shape.append(v.dims[i]);
      } else if (!v.dim_params[i].empty()) {
        shape.append(v.dim_params[i]);
      } else {
        shape.append(nb::none());
      }
    }
    out.append(nb::make_tuple(v.name, static_cast<int32_t>(v.type),
                              v.has_shape ? nb::object(shape) : nb::none(),
                              static_cast<int>(v.kind), static_cast<int32_t>(v.key_type)));
  }
  return out;
}

// TypeError unless `value` (input `name`) is a list or a tuple (of `what`).
void RequireList(const std::string& name, nb::handle value, const char* what) {
  if (!nb::isinstance<nb::list>(value) && !nb::isinstance<nb::tuple>(value)) {
    throw nb::type_error(("input '" + name + "': expected a list of " + what + ", got " +
                          nb::cast<std::string>(nb::str(value.type().attr("__name__"))))
                             .c_str());
  }
}

// Owns a Py_buffer for the duration of a run.
struct BufferView {
  Py_buffer view{};
  bool held = false;
  BufferView() = default;
  BufferView(const BufferView&) = delete;
  BufferView& operator=(const BufferView&) = delete;
  BufferView(BufferView&& o) noexcept : view(o.view), held(o.held) { o.held = false; }
  ~BufferView() {
    if (held) PyBuffer_Release(&view);
  }
};

class PySession {
 public:
  explicit PySession(std::unique_ptr<RuntimeSession> s) : s_(std::move(s)) {}

  // numpy dtype objects of the inputs and outputs (from python/onnx_light/runtime.py).
  void SetDtypes(std::vector<nb::object> inputs, std::vector<nb::object> outputs) {
    input_dtypes_ = std::move(inputs);
    output_dtypes_ = std::move(outputs);
  }

  // feeds: {name: numpy array}. Arrays of a builtin dtype are read in place through the
  // buffer protocol (no copy); the Python layer hands bfloat16 arrays in as uint16 views
  // and makes non-contiguous arrays contiguous first.
  nb::list Run(const std::vector<std::string>& output_names, nb::dict feeds,
               const RunOptions* run_options) {
    const std::vector<ValueMeta>& inputs = s_->inputs();
    std::vector<NamedValue> values;
    std::deque<BufferView> views;  // a deque: held buffers never move
    values.reserve(feeds.size());
    for (auto [key, value] : feeds) {
      const std::string name = nb::cast<std::string>(key);
      size_t k = 0;
      while (k < inputs.size() && inputs[k].name != name)
        ++k;
      if (k == inputs.size()) {
        std::string known;
        for (const ValueMeta& m : inputs)
          known += (known.empty() ? "" : ", ") + m.name;
        throw nb::value_error(
            ("unknown input '" + name + "' (the model's inputs: " + known + ")").c_str());
      }
      if (inputs[k].is_optional() && value.is_none()) {
        Value none;
        none.none = true;
        values.push_back({name, std::move(none)});
        continue;
      }
      if (inputs[k].is_map()) {
        values.push_back({name, Value{}});
        values.back().second.map =
            std::make_shared<const TensorMap>(DictToMap(name, inputs[k], value, views));
        continue;
      }
      if (inputs[k].is_map_sequence()) {
        RequireList(name, value, "dicts");  // a sequence of maps: a list (or tuple) of dicts
        auto maps = std::make_shared<MapSequence>();
        for (nb::handle item : value)
          maps->push_back(DictToMap(name, inputs[k], item, views));
        values.push_back({name, Value{}});
        values.back().second.maps = std::move(maps);
        continue;
      }
      if (inputs[k].is_sequence()) {
        RequireList(name, value, "numpy arrays");  // a sequence: arrays of the element type
        auto seq = std::make_shared<TensorSequence>();
        for (nb::handle item : value)
          seq->push_back(ArrayToTensor(name, k, inputs[k].type, item, views));
        values.push_back({name, Value{Tensor(), std::move(seq)}});
        continue;
      }
      values.push_back(
          {name, Value{ArrayToTensor(name, k, inputs[k].type, value, views), nullptr}});
    }
    Result<std::vector<Value>> result = [&] {
      nb::gil_scoped_release release;
      return s_->RunValues(values, output_names, run_options);
    }();
    std::vector<Value> outputs = ValueOrThrow(std::move(result));
    nb::list out;
    for (Value& v : outputs) {
      if (v.none) {
        out.append(nb::none());
      } else if (v.is_sequence()) {
        nb::list items;
        for (const Tensor& t : *v.sequence)
          items.append(ToNumpy(t));
        out.append(items);
      } else if (v.is_map()) {
        std::vector<nb::object> keys;
        out.append(MapToDict(*v.map, keys));
      } else if (v.is_map_sequence()) {
        // A ZipMap's maps share one keys tensor: its Python keys are made once.
        nb::list items;
        std::vector<nb::object> keys;
        const void* keys_of = nullptr;
        for (const TensorMap& m : *v.maps) {
          if (m.keys.raw_data() != keys_of) keys.clear();
          keys_of = m.keys.raw_data();
          items.append(MapToDict(m, keys));
        }
        out.append(items);
      } else {
        out.append(ToNumpy(std::move(v.tensor)));
      }
    }
    return out;
  }

  // A dict as a map of input `meta` (map_values.h), its arrays read as inputs are.
  TensorMap DictToMap(const std::string& name, const ValueMeta& meta, nb::handle value,
                      std::deque<BufferView>& views) const {
    return python::DictToMap(name, meta, value, input_dtype(meta),
                             [&](DataType type, nb::handle array) {
                               return ArrayToTensor(name, SIZE_MAX, type, array, views);
                             });
  }

  // A map as a dict (map_values.h); values of other types go through numpy.
  nb::dict MapToDict(const TensorMap& m, std::vector<nb::object>& keys) const {
    return python::MapToDict(m, keys, [&](Tensor t) { return ToNumpy(std::move(t)); });
  }

  // The numpy dtype of input `meta` (its map values' for a map).
  nb::object input_dtype(const ValueMeta& meta) const {
    const std::vector<ValueMeta>& inputs = s_->inputs();
    for (size_t k = 0; k < inputs.size() && k < input_dtypes_.size(); ++k)
      if (inputs[k].name == meta.name) return input_dtypes_[k];
    return nb::none();
  }

  // One numpy array as a tensor of input k: dtype checked, read in place where it can be.
  Tensor ArrayToTensor(const std::string& name, size_t k, DataType type, nb::handle value,
                       std::deque<BufferView>& views) const {
    if (!nb::isinstance(value, NumpyArrayType())) {
      throw nb::type_error(("input '" + name + "': expected a numpy array, got " +
                            nb::cast<std::string>(nb::str(value.type().attr("__name__"))))
                               .c_str());
    }
    if (k < input_dtypes_.size()) {
      nb::object got = value.attr("dtype");
      const nb::object& want = input_dtypes_[k];
      // Strings from object, bytes and str arrays, and as ORT from unstructured void ones
      // (np.void: each element's fixed-width bytes, NULs kept); a structured dtype is not.
      const std::string kind = nb::cast<std::string>(got.attr("kind"));
      const bool string_ok =
          type == DataType::kString &&
          (kind.find_first_of("OSU") == 0 || (kind == "V" && got.attr("names").is_none()));
      if (!got.is(want) && !got.equal(want) && !string_ok) {
        throw nb::type_error(("input '" + name + "': expected " +
                              nb::cast<std::string>(nb::str(want)) + ", got " +
                              nb::cast<std::string>(nb::str(got)))
                                 .c_str());
      }
    }
    if (type == DataType::kString) return StringTensor(name, value);
    BufferView& b = views.emplace_back();
    if (PyObject_GetBuffer(value.ptr(), &b.view, PyBUF_C_CONTIGUOUS) != 0) {
      // Not contiguous: read a contiguous copy instead.
      PyErr_Clear();
      nb::object copy = nb::module_::import_("numpy").attr("ascontiguousarray")(value);
      if (PyObject_GetBuffer(copy.ptr(), &b.view, PyBUF_C_CONTIGUOUS) != 0) {
        PyErr_Clear();
        throw nb::type_error(("input '" + name + "': cannot read the array's buffer").c_str());
      }
    }
    b.held = true;
    std::vector<int64_t> dims(b.view.shape, b.view.shape + b.view.ndim);
    Result<Shape> shape = Shape::Create(dims, ShapeLimits{});
    if (!shape.ok()) ThrowStatus(shape.status().WithContext("input '" + name + "'"));
    if (IsSubByteType(type)) {
      // numpy (ml_dtypes) keeps one element per byte; the runtime packs them.
      return PackSubByte(name, type, std::move(*shape), b.view);
    }
    Result<Tensor> t =
        Tensor::Borrow(type, std::move(*shape), b.view.buf, static_cast<size_t>(b.view.len));
    if (!t.ok()) ThrowStatus(t.status().WithContext("input '" + name + "'"));
    return std::move(*t);
  }

  nb::list Inputs() const { return MetaList(s_->inputs()); }
  // The inputs that also have an initializer (a feed replaces it; ORT lists them apart,
  // as its "overridable initializers").
  std::vector<std::string> InitializerInputs() const {
    std::vector<std::string> names;
    const onnx::GraphProto& g = s_->model().graph.get();
    for (const ValueMeta& v : s_->inputs()) {
      for (const onnx::TensorProto& t : g.initializer) {
        if (t.name.get() == v.name) {
          names.push_back(v.name);
          break;
        }
      }
    }
    return names;
  }
  size_t FoldedNodes() const { return s_->folded_nodes(); }
  // Writes the Chrome trace; fails when the session was made without profiling.
  void WriteProfile(const std::string& path) const {
    if (s_->profiler() == nullptr) {
      ThrowStatus(Status(StatusCode::kFailedPrecondition,
                         "profiling is off: create the session with enable_profiling=True"));
    }
    ThrowIfError(s_->profiler()->WriteChromeTrace(path));
    s_->profiler()->Clear();
  }
  nb::list ProfileSummary() const {
    if (s_->profiler() == nullptr) {
      ThrowStatus(Status(StatusCode::kFailedPrecondition,
                         "profiling is off: create the session with enable_profiling=True"));
    }
    nb::list rows;
    for (const OpTypeTime& t : s_->profiler()->Summary())
      rows.append(nb::make_tuple(t.op_type, t.total_ms, t.share, t.calls));
    return rows;
  }
  size_t RemovedNodes() const { return s_->removed_nodes(); }
  size_t PlannedNodes() const { return s_->planned_nodes(); }
  nb::dict MemoryPatternStats() const {
    const RuntimeSession::MemoryPatternStats st = s_->memory_pattern_stats();
    nb::dict d;
    d["planned_frames"] = st.planned_frames;
    d["arena_bytes"] = st.arena_bytes;
    d["placed_values"] = st.placed_values;
    return d;
  }
  nb::list Outputs() const { return MetaList(s_->outputs()); }
  // The model's metadata as ONNX Runtime's ModelMetadata has it: (producer_name,
  // graph_name, domain, description (the model's doc_string), graph_description,
  // version (model_version), {metadata_props key: value}).
  nb::tuple ModelMetadata() const {
    const onnx::ModelProto& m = s_->model();
    auto str = [](const std::string& v) { return nb::str(v.data(), v.size()); };
    nb::dict custom;
    for (const onnx::StringStringEntryProto& e : m.metadata_props)
      custom[str(e.key.get())] = str(e.value.get());
    return nb::make_tuple(str(m.producer_name.get()), str(m.graph->name.get()), str(m.domain.get()),
                          str(m.doc_string.get()), str(m.graph->doc_string.get()),
                          m.model_version.get(), custom);
  }

 private:
  static Tensor StringTensor(const std::string& name, nb::handle value) {
    nb::object flat = value.attr("ravel")();
    const std::vector<int64_t> dims = nb::cast<std::vector<int64_t>>(value.attr("shape"));
    Result<Shape> shape = Shape::Create(dims, ShapeLimits{});
    if (!shape.ok()) ThrowStatus(shape.status().WithContext("input '" + name + "'"));
    Tensor t = ValueOrThrow(Tensor::Allocate(DataType::kString, std::move(*shape)));
    std::string* dst = t.mutable_data<std::string>();
    // One C-level list of the elements, read item by item: str as its UTF-8 (no new
    // object), bytes as they are, anything else through str().
    nb::object items = flat.attr("tolist")();
    if (!PyList_Check(items.ptr())) throw nb::type_error("a string array's tolist() is no list");
    const Py_ssize_t n = PyList_GET_SIZE(items.ptr());
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PyList_GET_ITEM(items.ptr(), i);
      if (PyUnicode_Check(item)) {
        Py_ssize_t size = 0;
        const char* utf8 = PyUnicode_AsUTF8AndSize(item, &size);
        if (utf8 == nullptr) throw nb::python_error();
        dst[i].assign(utf8, static_cast<size_t>(size));
      } else if (PyBytes_Check(item)) {
        dst[i].assign(PyBytes_AS_STRING(item), static_cast<size_t>(PyBytes_GET_SIZE(item)));
      } else {
        dst[i] = nb::cast<std::string>(nb::str(nb::handle(item)));
      }
    }
    return t;
  }

  // INT4/UINT4/INT2/UINT2/FLOAT4E2M1 from one element per byte (the value in the low
  // bits) to ONNX's packed layout, element 0 in the low bits of byte 0.
  static Tensor PackSubByte(const std::string& name, DataType type, Shape shape,
                            const Py_buffer& view) {
    const int64_t n = shape.num_elements();
    if (view.len != n) {
      throw nb::value_error(
          ("input '" + name + "': expected one byte per " + DataTypeName(type) + " element")
              .c_str());
    }
    Tensor t = ValueOrThrow(Tensor::Allocate(type, std::move(shape)));
    const int bits = DataTypeBitWidth(type), per = 8 / bits;
    const auto* src = static_cast<const uint8_t*>(view.buf);
    auto* dst = static_cast<uint8_t*>(t.mutable_raw_data());
    if (t.byte_size() != 0) std::memset(dst, 0, t.byte_size());
    const auto mask = static_cast<uint8_t>((1u << bits) - 1u);
    for (int64_t i = 0; i < n; ++i)
      dst[i / per] = static_cast<uint8_t>(dst[i / per] | ((src[i] & mask) << ((i % per) * bits)));
    return t;
  }

  // The inverse of PackSubByte (ml_dtypes keeps the code in the low bits, unextended).
  nb::object UnpackSubByte(const Tensor& t) const {
    const int64_t n = t.num_elements();
    const int bits = DataTypeBitWidth(t.dtype()), per = 8 / bits;
    nb::object np = nb::module_::import_("numpy");
    nb::object arr = np.attr("zeros")(n, nb::arg("dtype") = "uint8");
    Py_buffer view;
    if (PyObject_GetBuffer(arr.ptr(), &view, PyBUF_WRITABLE) != 0) throw nb::python_error();
    auto* dst = static_cast<uint8_t*>(view.buf);
    const auto* src = static_cast<const uint8_t*>(t.raw_data());
    for (int64_t i = 0; i < n; ++i) {
      dst[i] = static_cast<uint8_t>((src[i / per] >> ((i % per) * bits)) & ((1u << bits) - 1u));
    }
    PyBuffer_Release(&view);
    std::vector<size_t> shape(t.shape().dims().begin(), t.shape().dims().end());
    return arr.attr("view")(DtypeOf(t.dtype())).attr("reshape")(nb::cast(shape));
  }

  static nb::handle NumpyArrayType() {
    static nb::object type = nb::module_::import_("numpy").attr("ndarray");
    return type;
  }

  // A numpy array that owns a reference to the tensor's storage.
  nb::object ToNumpy(Tensor t) const {
    if (t.dtype() == DataType::kString) {
      // An object array made empty (every item None), then each item replaced at the C
      // level by a new str: the array owns one reference per item, as numpy's own
      // setitem leaves it (invalid UTF-8 is a UnicodeDecodeError).
      static nb::handle empty = nb::object(nb::module_::import_("numpy").attr("empty")).release();
      const std::string* s = t.data<std::string>();
      const int64_t n = t.num_elements();
      nb::object arr = empty(n, nb::arg("dtype") = "O");
      auto** items = reinterpret_cast<PyObject**>(
          nb::cast<uintptr_t>(arr.attr("__array_interface__")["data"][0]));
      for (int64_t i = 0; i < n; ++i) {
        PyObject* str =
            PyUnicode_DecodeUTF8(s[i].data(), static_cast<Py_ssize_t>(s[i].size()), nullptr);
        if (str == nullptr) throw nb::python_error();
        Py_XDECREF(items[i]);
        items[i] = str;
      }
      return arr.attr("reshape")(nb::cast(t.shape().dims()));
    }
    if (IsSubByteType(t.dtype())) return UnpackSubByte(t);
    std::optional<nb::dlpack::dtype> direct = DlpackTypeOf(t.dtype());
    if (direct && t.num_elements() > 0) {
      // numpy's own types: one array of the right type and shape over the storage (viewing
      // bytes, then reshaping, cost two more Python calls an array: 2 us an output, 128 us
      // for a SplitToSequence of 64 tensors where ORT took 20).
      auto* keep = new Tensor(std::move(t));
      nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
      std::vector<size_t> shape(keep->shape().dims().begin(), keep->shape().dims().end());
      return nb::cast(nb::ndarray<nb::numpy>(keep->mutable_raw_data(), shape.size(), shape.data(),
                                             owner, nullptr, *direct));
    }
    auto* keep = new Tensor(std::move(t));
    nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
    std::vector<size_t> shape(keep->shape().dims().begin(), keep->shape().dims().end());
    auto* data = static_cast<uint8_t*>(keep->mutable_raw_data());
    nb::object bytes =
        nb::cast(nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(data, {keep->byte_size()}, owner));
    return bytes.attr("view")(DtypeOf(keep->dtype())).attr("reshape")(nb::cast(shape));
  }

  // The DLPack type numpy reads back as the same dtype, for the types numpy has itself.
  static std::optional<nb::dlpack::dtype> DlpackTypeOf(DataType type) {
    using Code = nb::dlpack::dtype_code;
    auto of = [](Code code, int bits) {
      return nb::dlpack::dtype{static_cast<uint8_t>(code), static_cast<uint8_t>(bits), 1};
    };
    switch (type) {
      case DataType::kFloat:
        return of(Code::Float, 32);
      case DataType::kDouble:
        return of(Code::Float, 64);
      case DataType::kFloat16:
        return of(Code::Float, 16);
      case DataType::kInt8:
        return of(Code::Int, 8);
      case DataType::kInt16:
        return of(Code::Int, 16);
      case DataType::kInt32:
        return of(Code::Int, 32);
      case DataType::kInt64:
        return of(Code::Int, 64);
      case DataType::kUint8:
        return of(Code::UInt, 8);
      case DataType::kUint16:
        return of(Code::UInt, 16);
      case DataType::kUint32:
        return of(Code::UInt, 32);
      case DataType::kUint64:
        return of(Code::UInt, 64);
      case DataType::kBool:
        return of(Code::Bool, 8);
      default:
        return std::nullopt;  // bfloat16, float8, complex: through a view of bytes
    }
  }

  nb::object DtypeOf(DataType type) const {
    auto it = dtype_cache_.find(static_cast<int32_t>(type));
    if (it != dtype_cache_.end()) return it->second;
    nb::object dt = nb::module_::import_("onnx_light.onnx._mapping")
                        .attr("TENSOR_TYPE_MAP")[nb::int_(static_cast<int32_t>(type))]
                        .attr("np_dtype");
    dtype_cache_.emplace(static_cast<int32_t>(type), dt);
    return dt;
  }

  std::unique_ptr<RuntimeSession> s_;
  std::vector<nb::object> input_dtypes_;
  std::vector<nb::object> output_dtypes_;
  mutable std::map<int32_t, nb::object> dtype_cache_;
};

SessionOptions Options(int intra_op_threads, bool constant_folding, int level,
                       const std::string& optimized_model_path, bool profiling, bool mem_pattern,
                       std::vector<std::string> disabled, uint64_t budget,
                       const std::vector<std::string>& custom_ops_libraries) {
  SessionOptions o;
  // ORT plugins registered for the session (SessionOptions.register_custom_ops_library):
  // the extensions profile, their kernels layered over the built-in ones.
  for (const std::string& library : custom_ops_libraries) {
    ThrowIfError(onnx_light_ort::hosting::RegisterCustomOpsLibrary(
        &o, library, onnx_light_ort::hosting::Profile::kExtensions));
  }
  o.memory_budget_bytes = budget;
  o.disabled_passes = std::move(disabled);
  o.enable_mem_pattern = mem_pattern;
  o.enable_profiling = profiling;
  o.intra_op_threads = intra_op_threads;
  o.constant_folding = constant_folding;
  o.graph_optimization_level = static_cast<GraphOptimizationLevel>(level);
  o.optimized_model_path = optimized_model_path;
  return o;
}

}  // namespace

void BindRuntime(nb::module_& m) {
  // What an ORT custom-op library registers in the extensions profile, one tuple per
  // overload: (domain, op, input types, output types, refusal: "" when it can run). For
  // tests and docs; loading runs the library's RegisterCustomOps.
  // The OrtApi slots a host profile sets ("initial" or "extensions"), by index: every
  // other slot of its API-18 table is null. For the tracer test and the docs.
  m.def("_host_api_slots", [](const std::string& profile) {
    const auto p = profile == "extensions" ? onnx_light_ort::hosting::Profile::kExtensions
                                           : onnx_light_ort::hosting::Profile::kInitial;
    const auto* slots = reinterpret_cast<const void* const*>(onnx_light_ort::hosting::HostApi(p));
    std::vector<int> set;
    for (size_t i = 0; i < sizeof(OrtApi) / sizeof(void*); ++i)
      if (slots[i] != nullptr) set.push_back(static_cast<int>(i));
    return set;
  });
  m.def("_custom_op_library_ops", [](const std::string& path) {
    std::unique_ptr<onnx_light_ort::hosting::PluginHost> host =
        ValueOrThrow(onnx_light_ort::hosting::PluginHost::Load(
            path, onnx_light_ort::hosting::Profile::kExtensions));
    std::vector<
        std::tuple<std::string, std::string, std::vector<int>, std::vector<int>, std::string>>
        out;
    for (const onnx_light_ort::hosting::HostedOp& h : host->ops()) {
      std::vector<int> in(h.input_types.begin(), h.input_types.end());
      std::vector<int> o(h.output_types.begin(), h.output_types.end());
      out.emplace_back(h.domain, h.name, std::move(in), std::move(o), h.refusal);
    }
    return out;
  });
  nb::class_<RunOptions>(m, "RunOptions")
      .def(nb::init<>())
      .def("terminate", &RunOptions::Terminate)
      .def("reset", &RunOptions::Reset)
      .def_prop_ro("terminated", &RunOptions::terminated)
      .def_prop_rw(
          "timeout_ns", [](const RunOptions& o) { return static_cast<int64_t>(o.timeout.count()); },
          [](RunOptions& o, int64_t ns) { o.timeout = std::chrono::nanoseconds(ns); });
  nb::class_<PySession>(m, "RuntimeSession")
      .def_static(
          "from_model",
          [](const onnx::ModelProto& model, int threads, bool fold, int level,
             const std::string& path, bool profiling, bool mem_pattern,
             std::vector<std::string> disabled, uint64_t budget,
             const std::vector<std::string>& libraries) {
            return new PySession(ValueOrThrow(RuntimeSession::Create(
                model, Options(threads, fold, level, path, profiling, mem_pattern,
                               std::move(disabled), budget, libraries))));
          },
          nb::arg("model"), nb::arg("intra_op_threads"), nb::arg("constant_folding"),
          nb::arg("graph_optimization_level"), nb::arg("optimized_model_path"),
          nb::arg("enable_profiling"), nb::arg("enable_mem_pattern"), nb::arg("disabled_passes"),
          nb::arg("memory_budget"), nb::arg("custom_ops_libraries"))
      .def_static(
          "from_bytes",
          [](nb::bytes data, int threads, bool fold, int level, const std::string& path,
             bool profiling, bool mem_pattern, std::vector<std::string> disabled, uint64_t budget,
             const std::vector<std::string>& libraries) {
            return new PySession(ValueOrThrow(RuntimeSession::CreateFromBytes(
                data.c_str(), data.size(),
                Options(threads, fold, level, path, profiling, mem_pattern, std::move(disabled),
                        budget, libraries))));
          },
          nb::arg("data"), nb::arg("intra_op_threads"), nb::arg("constant_folding"),
          nb::arg("graph_optimization_level"), nb::arg("optimized_model_path"),
          nb::arg("enable_profiling"), nb::arg("enable_mem_pattern"), nb::arg("disabled_passes"),
          nb::arg("memory_budget"), nb::arg("custom_ops_libraries"))
      .def_static(
          "from_file",
          [](const std::string& file, int threads, bool fold, int level, const std::string& path,
             bool profiling, bool mem_pattern, std::vector<std::string> disabled, uint64_t budget,
             const std::vector<std::string>& libraries) {
            return new PySession(ValueOrThrow(RuntimeSession::CreateFromFile(
                file, Options(threads, fold, level, path, profiling, mem_pattern,
                              std::move(disabled), budget, libraries))));
          },
          nb::arg("path"), nb::arg("intra_op_threads"), nb::arg("constant_folding"),
          nb::arg("graph_optimization_level"), nb::arg("optimized_model_path"),
          nb::arg("enable_profiling"), nb::arg("enable_mem_pattern"), nb::arg("disabled_passes"),
          nb::arg("memory_budget"), nb::arg("custom_ops_libraries"))
      .def("run", &PySession::Run, nb::arg("output_names"), nb::arg("feeds"),
           nb::arg("run_options").none())
      .def("folded_nodes", &PySession::FoldedNodes)
      .def("write_profile", &PySession::WriteProfile, nb::arg("path"))
      .def("profile_summary", &PySession::ProfileSummary)
      .def("removed_nodes", &PySession::RemovedNodes)
      .def("planned_nodes", &PySession::PlannedNodes)
      .def("memory_pattern_stats", &PySession::MemoryPatternStats)
      .def("set_dtypes", &PySession::SetDtypes)
      .def("inputs", &PySession::Inputs)
      .def("initializer_inputs", &PySession::InitializerInputs)
      .def("outputs", &PySession::Outputs)
      .def("model_metadata", &PySession::ModelMetadata);
}

}  // namespace onnx_light::python
