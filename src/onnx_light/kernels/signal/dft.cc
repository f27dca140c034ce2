// DFT (opset 17 and 20) and STFT, with the ONNX reference's definitions. Transforms run
// in double: a radix-2 FFT for power-of-two lengths, Bluestein's chirp-z (power-of-two FFTs
// of a convolution, O(n log n)) for every other length.
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

// exp(-2 pi i k / n) for k < n / 2, each from cos and sin of its own angle (the inverse
// uses their conjugates); kept per thread for the last n, since a DFT or STFT node
// transforms many lines of one length. (A cos and sin per butterfly ran 5x ORT's time.)
const std::vector<Complex>& Twiddles(size_t n) {
  thread_local std::vector<Complex> table;
  thread_local size_t table_n = 0;
  if (table_n != n) {
    table.resize(n / 2);
    for (size_t k = 0; k < n / 2; ++k) {
      const double ang = -2 * kPi * static_cast<double>(k) / static_cast<double>(n);
      table[k] = Complex(std::cos(ang), std::sin(ang));
    }
    table_n = n;
  }
  return table;
}

// In-place radix-2 transform; n is a power of two (sign -1 forward, +1 inverse; no 1/n
// scaling). The twiddle of butterfly k at stage `len` is table[k * n / len].
void Radix2(std::vector<Complex>& a, int sign) {
  const size_t n = a.size();
  for (size_t i = 1, j = 0; i < n; ++i) {  // bit-reversal permutation
    size_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j) std::swap(a[i], a[j]);
  }
  const std::vector<Complex>& w = Twiddles(n);
  const double conj = sign < 0 ? 1.0 : -1.0;  // the inverse's twiddles: conjugates
  // On the interleaved doubles (std::complex's element access went through the stack: a
  // store-forwarding stall per butterfly, 5x ORT's time).
  auto* d = reinterpret_cast<double*>(a.data());
  const auto* tw = reinterpret_cast<const double*>(w.data());
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t step = n / len, half = len / 2;
    for (size_t i = 0; i < n; i += len) {
      double* lo = d + 2 * i;
      double* hi = d + 2 * (i + half);
      for (size_t k = 0; k < half; ++k) {
        const double tr = tw[2 * k * step], ti = conj * tw[2 * k * step + 1];
        const double xr = hi[2 * k], xi = hi[2 * k + 1];
        const double vr = xr * tr - xi * ti, vi = xr * ti + xi * tr;
        const double ur = lo[2 * k], ui = lo[2 * k + 1];
        lo[2 * k] = ur + vr;
        lo[2 * k + 1] = ui + vi;
        hi[2 * k] = ur - vr;
        hi[2 * k + 1] = ui - vi;
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
    ONNX_LIGHT_RETURN_IF(axis == rank - 1, kInvalidArgument,
                         "axis cannot be the last (complex) one");
    const int64_t len = x.shape()[static_cast<size_t>(axis)];
    LineSpec spec;
    spec.inverse = inverse_;
    spec.onesided = onesided_;
    spec.n = inverse_ && onesided_ ? 2 * (len - 1) : len;
    if (const Tensor* dl = ctx.input(1); dl != nullptr && dl->num_elements() == 1) {
      spec.n = IndexValues(*dl)[0];
    }
    ONNX_LIGHT_RETURN_IF(spec.n < 1, kInvalidArgument,
                         "dft_length must be >= 1, got " + std::to_string(spec.n));
    ONNX_LIGHT_RETURN_IF(onesided_ && !inverse_ && x.shape()[rank - 1] == 2, kInvalidArgument,
                         "onesided needs a real input");
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
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 3 || (x.shape()[2] != 1 && x.shape()[2] != 2),
                         kInvalidArgument,
                         "signal must be [batch, length, 1 or 2], got " + x.shape().ToString());
    const int64_t batch = x.shape()[0], length = x.shape()[1], comps = x.shape()[2];
    const Tensor* step_t = ctx.input(1);
    const Tensor* window_t = ctx.input(2);
    const Tensor* frame_t = ctx.input(3);
    ONNX_LIGHT_RETURN_IF(step_t == nullptr || step_t->num_elements() != 1, kInvalidArgument,
                         "frame_step must be a scalar");
    const int64_t step = IndexValues(*step_t)[0];
    std::vector<double> window = ToDoubles(window_t);
    int64_t frame = window_t != nullptr ? static_cast<int64_t>(window.size()) : 0;
    if (frame_t != nullptr && frame_t->num_elements() == 1) {
      const int64_t f = IndexValues(*frame_t)[0];
      ONNX_LIGHT_RETURN_IF(window_t != nullptr && f != frame, kInvalidArgument,
                           "frame_length " + std::to_string(f) + " differs from the window's " +
                               std::to_string(frame));
      frame = f;
    }
    ONNX_LIGHT_RETURN_IF(frame < 1 || frame > length || step < 1, kInvalidArgument,
                         "need 1 <= frame_length <= signal length and frame_step >= 1");
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

}  // namespace onnx_light::kernels
