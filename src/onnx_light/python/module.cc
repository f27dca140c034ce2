// onnx_light._core: the native extension behind the onnx_light Python package.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "cli.h"
#include "onnx_bindings.h"
#include "onnx_light/core/data_type.h"
#include "onnx_light/core/float16.h"
#include "onnx_light/core/shape.h"
#include "onnx_light/runtime/cpu.h"
#include "runtime_bindings.h"
#include "status_to_python.h"

namespace nb = nanobind;

namespace onnx_light::python {
namespace {

template <typename T>
using Array1D = nb::ndarray<T, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

template <typename Out, typename In, typename Fn>
nb::ndarray<nb::numpy, Out, nb::ndim<1>> MapBits(const Array1D<const In>& in, Fn fn) {
  const size_t n = in.shape(0);
  auto* out = new Out[n];
  nb::capsule owner(out, [](void* p) noexcept { delete[] static_cast<Out*>(p); });
  const In* src = in.data();
  {
    nb::gil_scoped_release release;
    for (size_t i = 0; i < n; ++i)
      out[i] = fn(src[i]);
  }
  return nb::ndarray<nb::numpy, Out, nb::ndim<1>>(out, {n}, owner);
}

// Accepts only an array of exactly T (no implicit conversion of values).
template <typename T>
Array1D<const T> AsArray(nb::handle h, const char* expected) {
  Array1D<const T> out;
  if (!nb::try_cast(h, out, /*convert=*/false)) {
    throw nb::type_error((std::string("expected a 1-D contiguous ") + expected + " array").c_str());
  }
  return out;
}

template <typename To, typename From>
To Bits(From v) {
  To t;
  std::memcpy(&t, &v, sizeof(t));
  return t;
}

// Conversions on raw bit patterns, so tests can compare every pattern (NaN payloads
// included) with numpy and ml_dtypes. `kind` names source and destination.
nb::object ConvertFloatBits(nb::handle bits, const std::string& kind) {
  if (kind == "float32->float16" || kind == "float32->bfloat16") {
    auto in = AsArray<uint32_t>(bits, "uint32");
    const bool bf = kind.find("bfloat") != std::string::npos;
    return nb::cast(MapBits<uint16_t>(in, [bf](uint32_t b) {
      const float f = Bits<float>(b);
      return bf ? FloatToBFloat16Bits(f) : FloatToFloat16Bits(f);
    }));
  }
  if (kind == "float64->float16" || kind == "float64->bfloat16") {
    auto in = AsArray<uint64_t>(bits, "uint64");
    const bool bf = kind.find("bfloat") != std::string::npos;
    return nb::cast(MapBits<uint16_t>(in, [bf](uint64_t b) {
      const double d = Bits<double>(b);
      return bf ? DoubleToBFloat16Bits(d) : DoubleToFloat16Bits(d);
    }));
  }
  if (kind == "float16->float32" || kind == "bfloat16->float32") {
    auto in = AsArray<uint16_t>(bits, "uint16");
    const bool bf = kind[0] == 'b';
    return nb::cast(MapBits<uint32_t>(in, [bf](uint16_t b) {
      return Bits<uint32_t>(bf ? BFloat16BitsToFloat(b) : Float16BitsToFloat(b));
    }));
  }
  if (kind == "float16->float64" || kind == "bfloat16->float64") {
    auto in = AsArray<uint16_t>(bits, "uint16");
    const bool bf = kind[0] == 'b';
    return nb::cast(MapBits<uint64_t>(in, [bf](uint16_t b) {
      return Bits<uint64_t>(bf ? BFloat16BitsToDouble(b) : Float16BitsToDouble(b));
    }));
  }
  throw nb::value_error(("unknown conversion '" + kind + "'").c_str());
}

}  // namespace
}  // namespace onnx_light::python

NB_MODULE(_core, m) {
  using namespace onnx_light;  // NOLINT: a source file, not a header
  namespace py = onnx_light::python;
  m.doc() = "Native core of onnx-light.";

  m.def(
      "data_types",
      [] {
        std::vector<std::tuple<int32_t, std::string, int>> rows;
        for (int32_t v = 0; v < kDataTypeCount; ++v) {
          const auto t = static_cast<DataType>(v);
          rows.emplace_back(v, DataTypeName(t), DataTypeBitWidth(t));
        }
        return rows;
      },
      "Every ONNX data type as (value, name, bits per element in memory).");
  m.def(
      "storage_bytes",
      [](int32_t type, int64_t count) {
        const DataType t = py::ValueOrThrow(DataTypeFromInt(type));
        return py::ValueOrThrow(StorageBytes(t, count));
      },
      nb::arg("data_type"), nb::arg("count"),
      "Bytes of in-memory storage for `count` elements of an ONNX data type.");
  m.def(
      "shape_num_elements",
      [](const std::vector<int64_t>& dims, size_t max_rank) {
        ShapeLimits limits;
        limits.max_rank = max_rank;
        return py::ValueOrThrow(Shape::Create(dims, limits)).num_elements();
      },
      nb::arg("dims"), nb::arg("max_rank") = ShapeLimits().max_rank,
      "Validates dimensions like the runtime does and returns the element count.");
  m.def("convert_float_bits", &py::ConvertFloatBits, nb::arg("bits"), nb::arg("kind"),
        "Converts raw bit patterns, e.g. kind='float32->float16' maps a uint32 array to a "
        "uint16 array. Kinds: float32|float64 -> float16|bfloat16 and back.");

  m.def(
      "simd_target", [] { return std::string(SimdTargetName()); },
      "The SIMD instruction set the kernels dispatch to on this CPU.");
  m.def(
      "cli_main",
      [](const std::vector<std::string>& args) {
        std::vector<char*> argv;
        argv.reserve(args.size() + 1);
        for (const std::string& a : args)
          argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        nb::gil_scoped_release release;
        return cli::CliMain(static_cast<int>(args.size()), argv.data());
      },
      nb::arg("argv"),
      "Runs the onnx-light command-line tool on argv (argv[0] is the program name) and "
      "returns its exit status; `python -m onnx_light` calls it.");
  m.attr("__version__") = ONNX_LIGHT_VERSION;
  py::BindOnnx(m);
  py::BindRuntime(m);
}
