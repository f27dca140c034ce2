// Signal processing: DFT (opset 17 and 20), STFT, the Hann / Hamming / Blackman windows
// and MelWeightMatrix, with the ONNX reference's definitions.
//
// Transforms run in double: a radix-2 FFT for power-of-two lengths, Bluestein's chirp-z
// (power-of-two FFTs of a convolution, O(n log n)) for every other length.
#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>
#include <vector>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/saturate.h"

namespace onnx_light::kernels {
namespace {

using Complex = std::complex<double>;
constexpr double kPi = 3.14159265358979323846;

// In-place radix-2 transform; n is a power of two (sign -1 forward, +1 inverse; no 1/n
// scaling).
void Radix2(std::vector<Complex>& a, int sign) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    for (size_t i = 0; i < n; i += len) {
      for (size_t k = 0; k < len / 2; ++k) {
        const double ang = sign * 2 * kPi * static_cast<double>(k) / static_cast<double>(len);
        const Complex w(std::cos(ang), std::sin(ang));
        const Complex u = a[i + k], v = a[i + k + len / 2] * w;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
    }
  }
}

// In-place transform of any length n in O(n log n) (sign -1 forward, +1 inverse; no 1/n
// scaling). Other lengths go through Bluestein's chirp-z: with jk = (j^2 + k^2 - (j-k)^2)/2
// the transform is a convolution, done by power-of-two FFTs. (A direct O(n^2) sum let a
// DFT node with a large prime dft_length run for hours: found by the node fuzzer.)
void Transform(std::vector<Complex>& a, int sign) {
  const size_t n = a.size();
  if (n <= 1) return;
  if ((n & (n - 1)) == 0) {
    Radix2(a, sign);
    return;
  }
  // chirp[k] = exp(sign * i * pi * k^2 / n), with k^2 reduced mod 2n exactly (kept
  // reduced step by step: (k + 1)^2 = k^2 + 2k + 1, so nothing overflows).
  std::vector<Complex> chirp(n);
  for (size_t k = 0, e = 0; k < n; ++k) {
    const double ang = sign * kPi * static_cast<double>(e) / static_cast<double>(n);
    chirp[k] = Complex(std::cos(ang), std::sin(ang));
    e = (e + 2 * k + 1) % (2 * n);
  }
  size_t m = 1;
  while (m < 2 * n - 1)
    m <<= 1;
  std::vector<Complex> u(m, Complex(0, 0)), v(m, Complex(0, 0));
  for (size_t k = 0; k < n; ++k)
    u[k] = a[k] * chirp[k];
  v[0] = std::conj(chirp[0]);
  for (size_t k = 1; k < n; ++k)
    v[k] = v[m - k] = std::conj(chirp[k]);
  Radix2(u, -1);
  Radix2(v, -1);
  for (size_t i = 0; i < m; ++i)
    u[i] *= v[i];
  Radix2(u, 1);
  const double scale = 1.0 / static_cast<double>(m);
  for (size_t k = 0; k < n; ++k)
    a[k] = chirp[k] * u[k] * scale;
}

// One transformed line. `in` holds the line's values (length len); the result has
// `out_len` complex values (or reals when `real_out`).
struct LineSpec {
  int64_t n = 0;          // transform length
  bool inverse = false;   // 1/n scaled inverse
  bool onesided = false;  // forward: keep n/2+1 bins; inverse: Hermitian input, real output
};

std::vector<Complex> TransformLine(const std::vector<Complex>& in, const LineSpec& s) {
  std::vector<Complex> a(static_cast<size_t>(s.n), Complex(0, 0));
  if (s.inverse && s.onesided) {
    // irfft: bins 0..n/2 from the input (zero-padded), the rest by Hermitian symmetry.
    const int64_t half = s.n / 2 + 1;
    for (int64_t k = 0; k < half && k < static_cast<int64_t>(in.size()); ++k)
      a[static_cast<size_t>(k)] = in[static_cast<size_t>(k)];
    a[0] = Complex(a[0].real(), 0);
    if (s.n % 2 == 0)
      a[static_cast<size_t>(s.n / 2)] = Complex(a[static_cast<size_t>(s.n / 2)].real(), 0);
    for (int64_t k = half; k < s.n; ++k)
      a[static_cast<size_t>(k)] = std::conj(a[static_cast<size_t>(s.n - k)]);
  } else {
    for (int64_t k = 0; k < s.n && k < static_cast<int64_t>(in.size()); ++k)
      a[static_cast<size_t>(k)] = in[static_cast<size_t>(k)];
  }
  Transform(a, s.inverse ? 1 : -1);
  if (s.inverse) {
    for (Complex& c : a)
      c /= static_cast<double>(s.n);
  } else if (s.onesided) {
    a.resize(static_cast<size_t>(s.n / 2 + 1));
  }
  return a;
}

class Dft : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Dft>();
    k->axis_input_ = info.opset() >= 20;
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->axis_, info.GetInt("axis", 1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->inverse_, GetFlag(info, "inverse", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->onesided_, GetFlag(info, "onesided", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto rank = static_cast<int64_t>(x.shape().rank());
    if (rank < 2 || (x.shape()[rank - 1] != 1 && x.shape()[rank - 1] != 2)) {
      return Status(
          StatusCode::kInvalidArgument,
          "input must be [..., 1] (real) or [..., 2] (complex), got " + x.shape().ToString());
    }
    int64_t axis = axis_input_ ? -2 : axis_;
    if (axis_input_) {
      if (const Tensor* a = ctx.input(2); a != nullptr && a->num_elements() == 1) {
        axis = IndexValues(*a)[0];
      }
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(axis, NormalizeAxis(axis, rank));
    if (axis == rank - 1) {
      return Status(StatusCode::kInvalidArgument, "axis cannot be the last (complex) one");
    }
    const int64_t len = x.shape()[static_cast<size_t>(axis)];
    LineSpec spec;
    spec.inverse = inverse_;
    spec.onesided = onesided_;
    spec.n = inverse_ && onesided_ ? 2 * (len - 1) : len;
    if (const Tensor* dl = ctx.input(1); dl != nullptr && dl->num_elements() == 1) {
      spec.n = IndexValues(*dl)[0];
    }
    if (spec.n < 1) {
      return Status(StatusCode::kInvalidArgument,
                    "dft_length must be >= 1, got " + std::to_string(spec.n));
    }
    if (onesided_ && !inverse_ && x.shape()[rank - 1] == 2) {
      return Status(StatusCode::kInvalidArgument, "onesided needs a real input");
    }
    std::vector<int64_t> out = x.shape().dims();
    const bool real_out = inverse_ && onesided_;
    out[static_cast<size_t>(axis)] = !inverse_ && onesided_ ? spec.n / 2 + 1 : spec.n;
    out.back() = real_out ? 1 : 2;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    const int64_t comps = x.shape()[rank - 1];
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank - 1; ++d) {
      if (d < axis) outer *= x.shape()[static_cast<size_t>(d)];
      if (d > axis) inner *= x.shape()[static_cast<size_t>(d)];
    }
    const int64_t out_len = out[static_cast<size_t>(axis)], out_comps = out.back();
    const std::vector<double> xv = ToDoubles(&x);
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* yp = y->mutable_data<T>();
      std::vector<Complex> line(static_cast<size_t>(len));
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          for (int64_t k = 0; k < len; ++k) {
            const int64_t at = ((o * len + k) * inner + i) * comps;
            line[static_cast<size_t>(k)] = Complex(
                xv[static_cast<size_t>(at)], comps == 2 ? xv[static_cast<size_t>(at + 1)] : 0.0);
          }
          const std::vector<Complex> r = TransformLine(line, spec);
          for (int64_t k = 0; k < out_len; ++k) {
            const int64_t at = ((o * out_len + k) * inner + i) * out_comps;
            yp[at] = static_cast<T>(r[static_cast<size_t>(k)].real());
            if (out_comps == 2) yp[at + 1] = static_cast<T>(r[static_cast<size_t>(k)].imag());
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool axis_input_ = false, inverse_ = false, onesided_ = false;
  int64_t axis_ = 1;
};

// STFT: frames of frame_length (the window's length when given) every frame_step
// samples, multiplied by the window, transformed (one-sided for real signals by
// default). Output [batch, frames, bins, 2].
class Stft : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Stft>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->onesided_, GetFlag(info, "onesided", true));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    if (x.shape().rank() != 3 || (x.shape()[2] != 1 && x.shape()[2] != 2)) {
      return Status(StatusCode::kInvalidArgument,
                    "signal must be [batch, length, 1 or 2], got " + x.shape().ToString());
    }
    const int64_t batch = x.shape()[0], length = x.shape()[1], comps = x.shape()[2];
    const Tensor* step_t = ctx.input(1);
    const Tensor* window_t = ctx.input(2);
    const Tensor* frame_t = ctx.input(3);
    if (step_t == nullptr || step_t->num_elements() != 1) {
      return Status(StatusCode::kInvalidArgument, "frame_step must be a scalar");
    }
    const int64_t step = IndexValues(*step_t)[0];
    std::vector<double> window = ToDoubles(window_t);
    int64_t frame = window_t != nullptr ? static_cast<int64_t>(window.size()) : 0;
    if (frame_t != nullptr && frame_t->num_elements() == 1) {
      const int64_t f = IndexValues(*frame_t)[0];
      if (window_t != nullptr && f != frame) {
        return Status(StatusCode::kInvalidArgument, "frame_length " + std::to_string(f) +
                                                        " differs from the window's " +
                                                        std::to_string(frame));
      }
      frame = f;
    }
    if (frame < 1 || frame > length || step < 1) {
      return Status(StatusCode::kInvalidArgument,
                    "need 1 <= frame_length <= signal length and frame_step >= 1");
    }
    if (window.empty()) window.assign(static_cast<size_t>(frame), 1.0);
    const bool onesided = onesided_ && comps == 1;
    const int64_t frames = 1 + (length - frame) / step;
    const int64_t bins = onesided ? frame / 2 + 1 : frame;
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {batch, frames, bins, 2}));
    const std::vector<double> xv = ToDoubles(&x);
    LineSpec spec;
    spec.n = frame;
    spec.onesided = onesided;
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* yp = y->mutable_data<T>();
      std::vector<Complex> line(static_cast<size_t>(frame));
      for (int64_t b = 0; b < batch; ++b) {
        for (int64_t f = 0; f < frames; ++f) {
          for (int64_t k = 0; k < frame; ++k) {
            const int64_t at = ((b * length) + f * step + k) * comps;
            const double w = window[static_cast<size_t>(k)];
            line[static_cast<size_t>(k)] =
                Complex(xv[static_cast<size_t>(at)] * w,
                        comps == 2 ? xv[static_cast<size_t>(at + 1)] * w : 0.0);
          }
          const std::vector<Complex> r = TransformLine(line, spec);
          for (int64_t k = 0; k < bins; ++k) {
            T* dst = yp + ((b * frames + f) * bins + k) * 2;
            dst[0] = static_cast<T>(r[static_cast<size_t>(k)].real());
            dst[1] = static_cast<T>(r[static_cast<size_t>(k)].imag());
          }
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool onesided_ = true;
};

enum class Win { kHann, kHamming, kBlackman };

// The window functions: size samples, periodic (N = size) or symmetric (N = size - 1).
template <Win kWin>
class Window : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Window>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->periodic_, GetFlag(info, "periodic", true));
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor* size_t_ = ctx.input(0);
    if (size_t_->num_elements() != 1) {
      return Status(StatusCode::kInvalidArgument, "size must be a scalar");
    }
    const int64_t size = IndexValues(*size_t_)[0];
    if (size < 0) {
      return Status(StatusCode::kInvalidArgument, "size must be >= 0, got " + std::to_string(size));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {size}));
    const double n1 = static_cast<double>(periodic_ ? size : size - 1);
    DispatchNumeric(y->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        T* out = y->mutable_data<T>();
        for (int64_t i = 0; i < size; ++i) {
          const double t = 2 * kPi * static_cast<double>(i) / n1;
          double v;
          if constexpr (kWin == Win::kHann) {
            v = 0.5 - 0.5 * std::cos(t);
          } else if constexpr (kWin == Win::kHamming) {
            v = 25.0 / 46.0 - (21.0 / 46.0) * std::cos(t);
          } else {
            v = 0.42 - 0.5 * std::cos(t) + 0.08 * std::cos(2 * t);
          }
          // A symmetric window of size 1 is 0/0: NaN, as in the ONNX reference and ORT; an
          // integer output takes it as 0 (a NaN cast to an integer is undefined).
          out[i] = FromDouble<T>(v);
        }
      }
    });
    return Status::Ok();
  }

 private:
  bool periodic_ = true;
};

// The output type of the windows and MelWeightMatrix: `output_datatype` (float default).
Status OutputDatatype(const onnx::NodeProto& node, int, const std::vector<DataType>&,
                      std::vector<DataType>* out, const NodeSubgraphs&) {
  (*out)[0] = DataType::kFloat;
  for (const onnx::AttributeProto& a : node.attribute) {
    if (a.name.get() == "output_datatype") {
      ONNX_LIGHT_ASSIGN_OR_RETURN((*out)[0], DataTypeFromInt(static_cast<int32_t>(a.i.get())));
    }
  }
  return Status::Ok();
}

// MelWeightMatrix: [dft_length/2 + 1, num_mel_bins] triangular filters, as the ONNX
// reference computes them (mel scale 2595 log10(1 + f/700), edges floored to bins).
class MelWeightMatrix : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new MelWeightMatrix());
  }
  Status Compute(KernelContext& ctx) const override {
    for (size_t i = 0; i < 5; ++i) {
      if (ctx.input(i) == nullptr || ctx.input(i)->num_elements() != 1) {
        return Status(StatusCode::kInvalidArgument,
                      "input " + std::to_string(i) + " must be a scalar");
      }
    }
    const int64_t mel = IndexValues(*ctx.input(0))[0], dft = IndexValues(*ctx.input(1))[0];
    const int64_t rate = IndexValues(*ctx.input(2))[0];
    const double lo = ToDoubles(ctx.input(3))[0], hi = ToDoubles(ctx.input(4))[0];
    if (mel < 1 || dft < 1 || rate < 1 || !(lo >= 0) || !(hi > lo)) {
      return Status(StatusCode::kInvalidArgument,
                    "need num_mel_bins, dft_length, sample_rate >= 1 and "
                    "0 <= lower_edge_hertz < upper_edge_hertz");
    }
    const int64_t bins = dft / 2 + 1;
    // The output first: [bins, mel] is checked (overflow, the tensor limits, the budget)
    // before the filter edges and weights, which are as large, are made.
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {bins, mel}));
    const double lo_mel = 2595 * std::log10(1 + lo / 700), hi_mel = 2595 * std::log10(1 + hi / 700);
    const double step = (hi_mel - lo_mel) / (static_cast<double>(mel) + 2);
    std::vector<int64_t> edge(static_cast<size_t>(mel) + 2);
    for (int64_t i = 0; i < static_cast<int64_t>(edge.size()); ++i) {
      const double f = 700 * (std::pow(10.0, (static_cast<double>(i) * step + lo_mel) / 2595) - 1);
      // Edges past the bins (or NaN) are clamped to just outside them: the weights are
      // the same, the int64 conversion is defined and the loops below stay within bins.
      const double e = std::floor((static_cast<double>(dft) + 1) * f / static_cast<double>(rate));
      edge[static_cast<size_t>(i)] =
          !(e >= -1) ? -1
                     : (e > static_cast<double>(bins + 1) ? bins + 1 : static_cast<int64_t>(e));
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor weights,
                                ctx.AllocateTemporary(DataType::kDouble, {bins, mel}));
    double* w = weights.mutable_data<double>();
    const auto count = static_cast<size_t>(weights.num_elements());
    std::fill(w, w + count, 0.0);
    auto at = [&](int64_t j, int64_t i) -> double* {
      if (j < 0 || j >= bins) return nullptr;
      return &w[static_cast<size_t>(j * mel + i)];
    };
    for (int64_t i = 0; i < mel; ++i) {
      const int64_t l = edge[static_cast<size_t>(i)], c = edge[static_cast<size_t>(i + 1)],
                    h = edge[static_cast<size_t>(i + 2)];
      if (c == l) {
        if (double* p = at(c, i)) *p = 1;
      } else {
        for (int64_t j = l; j <= c; ++j)
          if (double* p = at(j, i)) *p = static_cast<double>(j - l) / static_cast<double>(c - l);
      }
      if (h > c) {
        for (int64_t j = c; j < h; ++j)
          if (double* p = at(j, i)) *p = static_cast<double>(h - j) / static_cast<double>(h - c);
      }
    }
    DispatchNumeric(y->dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        for (size_t k = 0; k < count; ++k)
          y->mutable_data<T>()[k] = static_cast<T>(w[k]);
      }
    });
    return Status::Ok();
  }
};

template <Win kWin>
Status RegisterWindow(KernelRegistry& r, const char* op) {
  KernelDef def = Def(op, 17, {{"T1", {0}, {}, IndexTypes()}, {"T2", {}, {0}, NumericTypes()}},
                      FactoryOf<Window<kWin>>());
  def.output_types = &OutputDatatype;
  return r.Register(std::move(def));
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, DFT) {
  return r.Register(Def("DFT", 17,
                        {{"T1", {0}, {0}, FloatTypes()}, {"T2", {1, 2}, {}, IndexTypes()}},
                        FactoryOf<Dft>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, STFT) {
  return r.Register(Def("STFT", 17,
                        {{"T1", {0, 2}, {0}, FloatTypes()}, {"T2", {1, 3}, {}, IndexTypes()}},
                        FactoryOf<Stft>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, HannWindow) {
  return RegisterWindow<Win::kHann>(r, "HannWindow");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, HammingWindow) {
  return RegisterWindow<Win::kHamming>(r, "HammingWindow");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, BlackmanWindow) {
  return RegisterWindow<Win::kBlackman>(r, "BlackmanWindow");
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, MelWeightMatrix) {
  std::vector<DataType> num = NumericTypes();
  KernelDef def = Def(
      "MelWeightMatrix", 17,
      {{"T1", {0, 1, 2}, {}, IndexTypes()}, {"T2", {3, 4}, {}, FloatTypes()}, {"T3", {}, {0}, num}},
      FactoryOf<MelWeightMatrix>());
  def.output_types = &OutputDatatype;
  return r.Register(std::move(def));
}

}  // namespace onnx_light::kernels
