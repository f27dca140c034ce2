// onnx_light._core.RuntimeSession: the C++ RuntimeSession for the Python front end
// (python/onnx_light/runtime.py adds the numpy-facing API on top).
#include "runtime_bindings.h"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "onnx_light/runtime/session.h"
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
                              v.has_shape ? nb::object(shape) : nb::none()));
  }
  return out;
}

class PySession {
 public:
  explicit PySession(std::unique_ptr<RuntimeSession> s) : s_(std::move(s)) {}

  // feeds: (name, onnx type, shape, 1-D uint8 array of the contiguous bytes) or, for STRING,
  // (name, 8, shape, list of bytes).
  nb::list Run(const std::vector<std::string>& output_names, nb::list feeds) {
    std::vector<NamedTensor> tensors;
    tensors.reserve(feeds.size());
    for (nb::handle item : feeds) {
      auto [name, type_code, dims, data] =
          nb::cast<std::tuple<std::string, int32_t, std::vector<int64_t>, nb::object>>(item);
      const DataType type = ValueOrThrow(DataTypeFromInt(type_code));
      Result<Shape> shape = Shape::Create(dims, ShapeLimits{});
      if (!shape.ok()) ThrowStatus(shape.status().WithContext("input '" + name + "'"));
      if (type == DataType::kString) {
        Tensor t = ValueOrThrow(Tensor::Allocate(type, *shape));
        std::string* out = t.mutable_data<std::string>();
        size_t i = 0;
        for (nb::handle s : nb::iter(data)) {
          if (i >= static_cast<size_t>(t.num_elements())) break;
          nb::bytes b = nb::borrow<nb::bytes>(s);
          out[i++] = std::string(b.c_str(), b.size());
        }
        tensors.emplace_back(name, std::move(t));
        continue;
      }
      Bytes1D bytes;
      if (!nb::try_cast(data, bytes, /*convert=*/false)) {
        throw nb::type_error(("input '" + name + "': expected a contiguous buffer").c_str());
      }
      Result<Tensor> t = Tensor::Borrow(type, *shape, bytes.data(), bytes.shape(0));
      if (!t.ok()) ThrowStatus(t.status().WithContext("input '" + name + "'"));
      tensors.emplace_back(name, std::move(*t));
    }
    Result<std::vector<Tensor>> result = [&] {
      nb::gil_scoped_release release;
      return s_->Run(tensors, output_names);
    }();
    std::vector<Tensor> outputs = ValueOrThrow(std::move(result));
    nb::list out;
    for (Tensor& t : outputs) {
      nb::object payload;
      if (t.dtype() == DataType::kString) {
        nb::list strings;
        const std::string* s = t.data<std::string>();
        for (int64_t i = 0; i < t.num_elements(); ++i) {
          strings.append(nb::bytes(s[i].data(), s[i].size()));
        }
        payload = strings;
      } else {
        auto* keep = new Tensor(t);  // the array owns a reference to the tensor's storage
        nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
        payload = nb::cast(nb::ndarray<nb::numpy, uint8_t, nb::ndim<1>>(
            static_cast<uint8_t*>(keep->mutable_raw_data()), {keep->byte_size()}, owner));
      }
      out.append(nb::make_tuple(static_cast<int32_t>(t.dtype()), t.shape().dims(), payload));
    }
    return out;
  }

  nb::list Inputs() const { return MetaList(s_->inputs()); }
  nb::list Outputs() const { return MetaList(s_->outputs()); }

 private:
  std::unique_ptr<RuntimeSession> s_;
};

SessionOptions Options(int intra_op_threads) {
  SessionOptions o;
  o.intra_op_threads = intra_op_threads;
  return o;
}

}  // namespace

void BindRuntime(nb::module_& m) {
  nb::class_<PySession>(m, "RuntimeSession")
      .def_static(
          "from_model",
          [](const onnx::ModelProto& model, int threads) {
            return new PySession(ValueOrThrow(RuntimeSession::Create(model, Options(threads))));
          },
          nb::arg("model"), nb::arg("intra_op_threads") = 1)
      .def_static(
          "from_bytes",
          [](nb::bytes data, int threads) {
            return new PySession(ValueOrThrow(
                RuntimeSession::CreateFromBytes(data.c_str(), data.size(), Options(threads))));
          },
          nb::arg("data"), nb::arg("intra_op_threads") = 1)
      .def_static(
          "from_file",
          [](const std::string& path, int threads) {
            return new PySession(
                ValueOrThrow(RuntimeSession::CreateFromFile(path, Options(threads))));
          },
          nb::arg("path"), nb::arg("intra_op_threads") = 1)
      .def("run", &PySession::Run, nb::arg("output_names"), nb::arg("feeds"))
      .def("inputs", &PySession::Inputs)
      .def("outputs", &PySession::Outputs);
}

}  // namespace onnx_light::python
