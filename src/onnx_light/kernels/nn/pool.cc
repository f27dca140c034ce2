// MaxPool, AveragePool, LpPool, GlobalAveragePool and GlobalMaxPool over N-d images. The
// general paths accumulate in double and round once to the storage type; float 1-D and
// 2-D windows without dilation take the vector row passes of nn/pool_rows.cc (float sums,
// as ONNX Runtime takes them).
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "common/window.h"
#include "math/gemm.h"
#include "nn/pool_max2x2.h"
#include "nn/pool_rows.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/elementwise_simd.h"

namespace onnx_light::kernels {
namespace {

// ---- Pools ----------------------------------------------------------------------------

enum class PoolKind { kMax, kAverage, kLp };

// The max order of MaxPool: a NaN beats every number (the window's maximum is NaN when it
// holds one, as numpy's max and the ONNX reference give); otherwise the larger value,
// and the first of equals.
// (MaxNaN, in nn/pool_max2x2.h, is that rule for float, written to vectorize.)

template <typename T>
bool Above(T v, T best) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(v)) return !std::isnan(best);
  }
  return v > best;
}

// MaxPool (with Indices, storage_order 0 or 1), AveragePool (count_include_pad) and
// LpPool ((sum |x|^p)^(1/p) over the taps inside the input; padding adds nothing).
template <PoolKind kKind>
class Pool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Pool>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->attrs_, ReadWindowAttrs(info, true));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->count_include_pad_, GetFlag(info, "count_include_pad", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->column_major_, GetFlag(info, "storage_order", false));
    if (kKind == PoolKind::kLp) {
      double p = 2;
      if (info.opset() < 2) {  // LpPool-1 had a FLOAT p
        ONNX_LIGHT_ASSIGN_OR_RETURN(float pf, info.GetFloat("p", 2.0f));
        p = pf;
      } else {
        ONNX_LIGHT_ASSIGN_OR_RETURN(int64_t pi, info.GetInt("p", 2));
        p = static_cast<double>(pi);
      }
      ONNX_LIGHT_RETURN_IF(!(p >= 1), kInvalidModel, "p must be >= 1, got " + std::to_string(p));
      k->p_ = p;
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    constexpr bool kMax = kKind == PoolKind::kMax;
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Window w, MakeWindow(attrs_, Spatial(x.shape()), attrs_.kernel));
    const int64_t nc = x.shape()[0] * x.shape()[1];
    // kernel_shape is an attribute that no tensor backs: a few bytes of model can have each
    // output visit 2^40 taps, a loop that no cancellation reaches. Past 2^36 visits in all
    // (minutes of work; a 3 x 3 pool over 64 x 224 x 224 makes 2^25) the node is refused.
    constexpr uint64_t kMaxVisits = uint64_t{1} << 36;
    const uint64_t visits = SaturatedProduct({nc, w.OutCount(), w.KernelCount()});
    ONNX_LIGHT_RETURN_IF(visits > kMaxVisits, kOutOfRange,
                         std::to_string(w.OutCount()) + " outputs per channel of a " +
                             std::to_string(w.KernelCount()) + "-tap window are more than " +
                             std::to_string(kMaxVisits) + " tap visits");
    std::vector<int64_t> dims = {x.shape()[0], x.shape()[1]};
    dims.insert(dims.end(), w.out.begin(), w.out.end());
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    int64_t* indices = nullptr;
    if (kMax && ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * ind, ctx.AllocateOutput(1, DataType::kInt64, dims));
      indices = ind->mutable_data<int64_t>();
    }
    // An empty output (a zero-size dimension in, or a window that fits nowhere): nothing to
    // compute, and the 2-D paths' row buffers would be sized from the empty extent.
    if (y->num_elements() == 0) return Status::Ok();
    const int64_t in_sz = w.InCount(), out_sz = w.OutCount();
    if (kKind != PoolKind::kLp && w.in.size() == 2 && x.dtype() == DataType::kFloat) {
      if (kKind == PoolKind::kMax && indices == nullptr &&
          MaxPool2x2Stride2F32(w, x.data<float>(), y->mutable_data<float>(), nc,
                               ctx.thread_pool())) {
        return Status::Ok();
      }
      if (kKind == PoolKind::kMax && indices == nullptr && PaddedMaxPool2D(w)) {
        PaddedMaxPool2D(w, x.data<float>(), y->mutable_data<float>(), nc, ctx.thread_pool());
        return Status::Ok();
      }
      if (indices == nullptr && PoolRowsF32(w, kMax, count_include_pad_, x.data<float>(),
                                            y->mutable_data<float>(), nc, ctx.thread_pool())) {
        return Status::Ok();
      }
      Pool2D(w, x.data<float>(), y->mutable_data<float>(), indices, nc, ctx.thread_pool());
      return Status::Ok();
    }
    if (kKind != PoolKind::kLp && indices == nullptr && w.in.size() == 1 &&
        x.dtype() == DataType::kFloat &&
        PoolRowsF32(w, kMax, count_include_pad_, x.data<float>(), y->mutable_data<float>(), nc,
                    ctx.thread_pool())) {
      return Status::Ok();
    }
    if (kMax && indices == nullptr && w.in.size() == 2 &&
        (x.dtype() == DataType::kUint8 || x.dtype() == DataType::kInt8)) {
      if (x.dtype() == DataType::kUint8) {
        MaxPool2DBytes(w, x.data<uint8_t>(), y->mutable_data<uint8_t>(), nc, ctx.thread_pool());
      } else {
        MaxPool2DBytes(w, x.data<int8_t>(), y->mutable_data<int8_t>(), nc, ctx.thread_pool());
      }
      return Status::Ok();
    }
    // The run's cancellation and deadline are checked between channels: a large window over
    // many channels may take long.
    Status stopped = Status::Ok();
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        const T* xp = x.data<T>();
        T* yp = y->mutable_data<T>();
        for (int64_t p = 0; p < nc && stopped.ok(); ++p) {
          stopped = ctx.CheckRun();
          const T* xc = xp + p * in_sz;
          ForEachOutput(w, [&](int64_t o, const std::vector<int64_t>& start) {
            if constexpr (kMax) {
              double best = -std::numeric_limits<double>::infinity();
              int64_t arg = -1;
              ForEachTap(w, start, [&](int64_t, int64_t off) {
                const auto v = static_cast<double>(xc[off]);
                if (arg < 0 || Above(v, best)) {
                  best = v;
                  arg = off;
                }
              });
              yp[p * out_sz + o] = arg < 0 ? static_cast<T>(0.0f) : xc[arg];
              if (indices != nullptr) {
                const int64_t at = std::max<int64_t>(arg, 0);
                indices[p * out_sz + o] = p * in_sz + (column_major_ ? ColumnMajor(w, at) : at);
              }
            } else if constexpr (kKind == PoolKind::kAverage) {
              double sum = 0;
              int64_t count = 0;
              ForEachTap(w, start, [&](int64_t, int64_t off) {
                sum += static_cast<double>(xc[off]);
                ++count;
              });
              if (count_include_pad_) count = PaddedCount(w, start);
              yp[p * out_sz + o] =
                  static_cast<T>(count > 0 ? sum / static_cast<double>(count) : 0.0);
            } else {
              // p = 2 and p = 1 (the common norms) without std::pow, which was 2/3 of the
              // time (1.5x ORT's at p = 2).
              double sum = 0;
              if (p_ == 2.0) {
                ForEachTap(w, start, [&](int64_t, int64_t off) {
                  const auto v = static_cast<double>(xc[off]);
                  sum += v * v;
                });
                yp[p * out_sz + o] = static_cast<T>(std::sqrt(sum));
              } else if (p_ == 1.0) {
                ForEachTap(w, start, [&](int64_t, int64_t off) {
                  sum += std::fabs(static_cast<double>(xc[off]));
                });
                yp[p * out_sz + o] = static_cast<T>(sum);
              } else {
                ForEachTap(w, start, [&](int64_t, int64_t off) {
                  sum += std::pow(std::fabs(static_cast<double>(xc[off])), p_);
                });
                yp[p * out_sz + o] = static_cast<T>(std::pow(sum, 1.0 / p_));
              }
            }
          });
        }
      }
    });
    return stopped;
  }

 private:
  // Window taps inside the padded input (what count_include_pad divides by).
  static int64_t PaddedCount(const Window& w, const std::vector<int64_t>& start) {
    int64_t count = 1;
    for (size_t i = 0; i < w.kernel.size(); ++i) {
      int64_t first = 0, last = 0;
      TapRange(start[i], w.dilations[i], w.kernel[i], -w.pad_begin[i], w.in[i] + w.pad_end[i],
               &first, &last);
      count *= last - first;
    }
    return count;
  }

  // MaxPool 2-D of 8-bit codes (quantized CNNs: the codes' order is the values' order):
  // each output's taps inside the input, directly; 0 where none is. The generic path's
  // result, without its per-output bookkeeping.
  template <typename T>
  static void MaxPool2DBytes(const Window& w, const T* xp, T* yp, int64_t nc, ThreadPool* pool) {
    const int64_t height = w.in[0], width = w.in[1], oh_n = w.out[0], ow_n = w.out[1];
    // The taps inside the input, per output row and column, once: [first, last) tap
    // indices (the loops below then have no bounds tests).
    auto range = [&](size_t d, int64_t o, int64_t size) {
      const int64_t start = o * w.strides[d] - w.pad_begin[d], step = w.dilations[d];
      int64_t first = 0, last = w.kernel[d];
      while (first < last && start + first * step < 0)
        ++first;
      while (last > first && start + (last - 1) * step >= size)
        --last;
      return std::pair<int64_t, int64_t>(first, last);
    };
    std::vector<std::pair<int64_t, int64_t>> cols(static_cast<size_t>(ow_n));
    for (int64_t ow = 0; ow < ow_n; ++ow)
      cols[static_cast<size_t>(ow)] = range(1, ow, width);
    // The columns whose whole window row is inside: [in0, in1).
    int64_t in0 = 0, in1 = 0;
    while (in0 < ow_n && cols[static_cast<size_t>(in0)] != std::make_pair(int64_t{0}, w.kernel[1]))
      ++in0;
    in1 = in0;
    while (in1 < ow_n && cols[static_cast<size_t>(in1)] == std::make_pair(int64_t{0}, w.kernel[1]))
      ++in1;
    const int64_t sw = w.strides[1], dw = w.dilations[1], kw_n = w.kernel[1];
    auto planes = [&](int64_t p0, int64_t p1) {
      std::vector<T> rowmax(static_cast<size_t>(ow_n));
      for (int64_t p = p0; p < p1; ++p) {
        const T* xc = xp + p * height * width;
        for (int64_t oh = 0; oh < oh_n; ++oh) {
          const auto [r0, r1] = range(0, oh, height);
          const int64_t h0 = oh * w.strides[0] - w.pad_begin[0];
          T* yr = yp + (p * oh_n + oh) * ow_n;
          if (r0 >= r1) {
            std::fill(yr, yr + ow_n, T{0});
            continue;
          }
          // Row by row of the window: the maximum over each row's taps (the inner columns
          // without range lookups), then over the rows.
          std::fill(rowmax.begin(), rowmax.end(), std::numeric_limits<T>::lowest());
          for (int64_t kh = r0; kh < r1; ++kh) {
            const T* xr = xc + (h0 + kh * w.dilations[0]) * width;
            for (int64_t ow = 0; ow < ow_n; ++ow) {
              if (ow == in0 && in1 > in0) {
                if (kw_n == 2 && dw == 1) {
                  for (; ow < in1; ++ow) {
                    const T* q = xr + ow * sw - w.pad_begin[1];
                    rowmax[static_cast<size_t>(ow)] =
                        std::max(rowmax[static_cast<size_t>(ow)], std::max(q[0], q[1]));
                  }
                } else if (kw_n == 3 && dw == 1) {
                  for (; ow < in1; ++ow) {
                    const T* q = xr + ow * sw - w.pad_begin[1];
                    rowmax[static_cast<size_t>(ow)] = std::max(
                        rowmax[static_cast<size_t>(ow)], std::max(std::max(q[0], q[1]), q[2]));
                  }
                }
                if (ow >= ow_n) break;
              }
              const auto [c0, c1] = cols[static_cast<size_t>(ow)];
              const T* q = xr + ow * sw - w.pad_begin[1];
              T best = rowmax[static_cast<size_t>(ow)];
              for (int64_t kw = c0; kw < c1; ++kw)
                best = std::max(best, q[kw * dw]);
              rowmax[static_cast<size_t>(ow)] = best;
            }
          }
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const auto [c0, c1] = cols[static_cast<size_t>(ow)];
            yr[ow] = c0 < c1 ? rowmax[static_cast<size_t>(ow)] : T{0};
          }
        }
      }
    };
    // Planes split across the pool in chunks of ~64k taps.
    const int64_t per_plane = std::max<int64_t>(1, oh_n * ow_n * w.kernel[0] * kw_n);
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / per_plane);
    if (pool != nullptr && pool->threads() > 1 && nc >= 2 * grain) {
      pool->ParallelFor(nc, grain, planes);
    } else {
      planes(0, nc);
    }
  }

  // MaxPool 2-D with unit strides and dilations and pads inside the window (the SPP
  // blocks of detectors): each plane is copied once into a buffer padded with -inf, and
  // both separable passes run over whole flattened planes, one long loop per tap that the
  // compiler vectorizes (rows of the small planes these pools see are a few elements;
  // the columns past each row's end are computed and dropped). Planes split across the
  // pool. The same taps in the same order as Pool2D: the same results.
  static bool PaddedMaxPool2D(const Window& w) {
    for (size_t d = 0; d < 2; ++d) {
      // (Pads no wider than the input: the passes run over the whole padded plane, tap by
      // tap, so a window mostly in the padding, [1, 10^5] over 3 columns, would cost 10^10
      // steps here; Pool2D visits only the taps inside.)
      if (w.strides[d] != 1 || w.dilations[d] != 1 || w.pad_begin[d] >= w.kernel[d] ||
          w.pad_end[d] >= w.kernel[d] || w.out[d] <= 0 || w.pad_begin[d] + w.pad_end[d] > w.in[d] ||
          w.out[d] + w.kernel[d] - 1 > w.in[d] + w.pad_begin[d] + w.pad_end[d]) {
        return false;
      }
    }
    return true;
  }
  static void PaddedMaxPool2D(const Window& w, const float* xp, float* yp, int64_t nc,
                              ThreadPool* pool) {
    const int64_t height = w.in[0], width = w.in[1], oh_n = w.out[0], ow_n = w.out[1];
    const int64_t kh = w.kernel[0], kw = w.kernel[1];
    const int64_t pw = width + w.pad_begin[1] + w.pad_end[1];
    const int64_t ph = height + w.pad_begin[0] + w.pad_end[0];
    const int64_t plane = ph * pw;
    // t[i] = max(t[i], t[i + step]) for i < n, in place: ascending, t[i + step] still holds
    // the previous pass's value when it is read. In SIMD (this file is built for the
    // baseline CPU: its own loop ran 4 lanes wide).
    auto pass = [](float* t, int64_t n, int64_t step) {
      if (n > 0) MaxAheadF32(t, static_cast<size_t>(n), static_cast<size_t>(step));
    };
    // The maximum over a window of k taps `step` apart (t has n floats): windows of 2, 4,
    // 8 .. taps by doubling, then two overlapping ones of the largest cover the k
    // (13 taps: 4 passes, not 12; SPP's 5, 9 and 13). Ties keep the earlier value, as a
    // scan does. Only the windows inside t come out right: the kept outputs' are.
    auto window = [&](float* t, int64_t n, int64_t k, int64_t step) {
      int64_t taps = 1;
      for (; 2 * taps <= k; taps *= 2)
        pass(t, n - taps * step, taps * step);
      if (taps < k) pass(t, n - (k - taps) * step, (k - taps) * step);
    };
    auto run = [&](int64_t p0, int64_t p1) {
      // The padded plane, with kw floats of slack read by the last row's dropped columns.
      std::vector<float> t(static_cast<size_t>(plane + kw));
      for (int64_t p = p0; p < p1; ++p) {
        float* tp = t.data();
        std::fill(tp, tp + plane + kw, -std::numeric_limits<float>::infinity());
        const float* xc = xp + p * height * width;
        for (int64_t h = 0; h < height; ++h) {
          std::memcpy(tp + (h + w.pad_begin[0]) * pw + w.pad_begin[1], xc + h * width,
                      static_cast<size_t>(width) * sizeof(float));
        }
        window(tp, plane + kw, kw, 1);  // each row's windows
        window(tp, plane, kh, pw);      // then each column's
        float* yc = yp + p * oh_n * ow_n;
        for (int64_t oh = 0; oh < oh_n; ++oh) {
          std::memcpy(yc + oh * ow_n, tp + oh * pw, static_cast<size_t>(ow_n) * sizeof(float));
        }
      }
    };
    // Chunks of at least ~64k window-row operations.
    const int64_t per_plane = std::max<int64_t>(1, plane * (kw + kh));
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / per_plane);
    if (pool != nullptr && pool->threads() > 1 && nc >= 2 * grain) {
      pool->ParallelFor(nc, grain, run);
    } else {
      run(0, nc);
    }
  }

  // MaxPool 2-D without indices is separable: the maximum over each row's taps first, then
  // over the rows' maxima, kh + kw comparisons per output instead of kh * kw. `rows` and
  // `cols` are the input positions inside each output's window.
  static void SeparableMax2D(const Window& w, const float* xp, float* yp, int64_t nc,
                             ThreadPool* pool, const std::vector<std::vector<int64_t>>& rows,
                             const std::vector<std::vector<int64_t>>& cols) {
    const int64_t height = w.in[0], width = w.in[1], oh_n = w.out[0], ow_n = w.out[1];
    const int64_t in_sz = height * width, out_sz = oh_n * ow_n;
    // A NaN anywhere in the window makes the output NaN, in both passes as in the 2-D scan.
    // Unit dilation: each tap is a shifted row, maxed in over the dense positions (every
    // column, a loop the compiler vectorizes) with the same NaN rule as Above; a stride
    // then keeps every s-th dense maximum.
    // (Only while the dense row stays near the input's width: a stride of 2^40 between
    // two outputs would ask for a row of 2^40 floats; those take the per-output scan.)
    const int64_t sw = w.strides[1], dense_n = (ow_n - 1) * sw + 1;
    const bool unit_dilation = w.dilations[1] == 1 && dense_n <= 4 * (width + w.kernel[1]) + 64;
    std::vector<char> any(static_cast<size_t>(ow_n));
    for (int64_t o = 0; o < ow_n; ++o)
      any[static_cast<size_t>(o)] = !cols[static_cast<size_t>(o)].empty();
    auto run = [&](int64_t p0, int64_t p1) {
      std::vector<float> tmp(static_cast<size_t>(height * ow_n));
      std::vector<float> dense(unit_dilation && sw > 1 ? static_cast<size_t>(dense_n) : 0);
      for (int64_t p = p0; p < p1; ++p) {
        const float* xc = xp + p * in_sz;
        float* yc = yp + p * out_sz;
        if (unit_dilation) {
          for (int64_t h = 0; h < height; ++h) {
            const float* xr = xc + h * width;
            float* tr = tmp.data() + h * ow_n;
            float* dr = sw > 1 ? dense.data() : tr;
            std::fill(dr, dr + dense_n, -std::numeric_limits<float>::infinity());
            // Only the taps that reach a column of the input for some dense position.
            const int64_t k0 = std::max<int64_t>(0, w.pad_begin[1] - dense_n + 1);
            const int64_t k1 = std::min<int64_t>(w.kernel[1], w.pad_begin[1] + width);
            for (int64_t k = k0; k < k1; ++k) {
              const int64_t off = k - w.pad_begin[1];
              const int64_t lo = std::max<int64_t>(0, -off);
              const int64_t hi = std::min<int64_t>(dense_n, width - off);
              for (int64_t j = lo; j < hi; ++j) {
                const float v = xr[j + off];
                dr[j] = MaxNaN(v, dr[j]);
              }
            }
            if (sw > 1) {
              for (int64_t ow = 0; ow < ow_n; ++ow)
                tr[ow] = dr[ow * sw];
            }
          }
        }
        for (int64_t h = 0; h < height && !unit_dilation; ++h) {
          const float* xr = xc + h * width;
          float* tr = tmp.data() + h * ow_n;
          for (int64_t ow = 0; ow < ow_n; ++ow) {
            const std::vector<int64_t>& ws = cols[static_cast<size_t>(ow)];
            if (ws.empty()) {  // no column inside: the output is 0 (below), never this
              tr[ow] = -std::numeric_limits<float>::infinity();
              continue;
            }
            float best = xr[ws[0]];
            for (size_t i = 1; i < ws.size(); ++i)
              if (Above(xr[ws[i]], best)) best = xr[ws[i]];
            tr[ow] = best;
          }
        }
        for (int64_t oh = 0; oh < oh_n; ++oh) {
          const std::vector<int64_t>& hs = rows[static_cast<size_t>(oh)];
          float* yr = yc + oh * ow_n;
          if (hs.empty()) {
            std::fill(yr, yr + ow_n, 0.0f);
            continue;
          }
          const float* first = tmp.data() + hs[0] * ow_n;
          for (int64_t ow = 0; ow < ow_n; ++ow)
            yr[ow] = any[static_cast<size_t>(ow)] ? first[ow] : 0.0f;
          for (size_t i = 1; i < hs.size(); ++i) {
            const float* tr = tmp.data() + hs[i] * ow_n;
            for (int64_t ow = 0; ow < ow_n; ++ow)
              yr[ow] = MaxNaN(tr[ow], yr[ow]);
          }
        }
      }
    };
    // Chunks of at least ~64k window operations.
    const int64_t per_plane =
        std::max<int64_t>(1, height * dense_n * w.kernel[1] + out_sz * w.kernel[0]);
    const int64_t grain = std::max<int64_t>(1, (int64_t{1} << 16) / per_plane);
    if (pool != nullptr && pool->threads() > 1 && nc >= 2 * grain) {
      pool->ParallelFor(nc, grain, run);
    } else {
      run(0, nc);
    }
  }

  // The float 2-D case of MaxPool / AveragePool (the CNN hot path): the taps inside the
  // input are listed once per output row and column, then every channel loops over them
  // directly. Same results as the generic path (max ignores NaN after a number, as there).
  void Pool2D(const Window& w, const float* xp, float* yp, int64_t* indices, int64_t nc,
              ThreadPool* pool) const {
    const int64_t height = w.in[0], width = w.in[1], oh_n = w.out[0], ow_n = w.out[1];
    // Per output index along one dim: the valid input positions, and the padded tap count.
    auto taps = [&](size_t d, int64_t o, std::vector<int64_t>* pos) {
      pos->clear();
      const int64_t start = o * w.strides[d] - w.pad_begin[d];
      int64_t first = 0, last = 0;
      TapRange(start, w.dilations[d], w.kernel[d], 0, w.in[d], &first, &last);
      for (int64_t k = first; k < last; ++k)
        pos->push_back(start + k * w.dilations[d]);
      TapRange(start, w.dilations[d], w.kernel[d], -w.pad_begin[d], w.in[d] + w.pad_end[d], &first,
               &last);
      return last - first;
    };
    std::vector<std::vector<int64_t>> rows(static_cast<size_t>(oh_n)),
        cols(static_cast<size_t>(ow_n));
    std::vector<int64_t> row_pad(static_cast<size_t>(oh_n)), col_pad(static_cast<size_t>(ow_n));
    for (int64_t o = 0; o < oh_n; ++o)
      row_pad[static_cast<size_t>(o)] = taps(0, o, &rows[static_cast<size_t>(o)]);
    for (int64_t o = 0; o < ow_n; ++o)
      col_pad[static_cast<size_t>(o)] = taps(1, o, &cols[static_cast<size_t>(o)]);
    const int64_t in_sz = height * width, out_sz = oh_n * ow_n;
    if (kKind == PoolKind::kMax && indices == nullptr) {
      SeparableMax2D(w, xp, yp, nc, pool, rows, cols);
      return;
    }
    for (int64_t p = 0; p < nc; ++p) {
      const float* xc = xp + p * in_sz;
      float* yc = yp + p * out_sz;
      for (int64_t oh = 0; oh < oh_n; ++oh) {
        const std::vector<int64_t>& hs = rows[static_cast<size_t>(oh)];
        for (int64_t ow = 0; ow < ow_n; ++ow) {
          const std::vector<int64_t>& ws = cols[static_cast<size_t>(ow)];
          const int64_t o = oh * ow_n + ow;
          if constexpr (kKind == PoolKind::kMax) {
            float best = 0;
            int64_t arg = -1;
            for (int64_t h : hs) {
              const float* xr = xc + h * width;
              for (int64_t c : ws) {
                if (arg < 0 || Above(xr[c], best)) {
                  best = xr[c];
                  arg = h * width + c;
                }
              }
            }
            yc[o] = arg < 0 ? 0.0f : best;
            if (indices != nullptr) {
              const int64_t at = std::max<int64_t>(arg, 0);
              indices[p * out_sz + o] = p * in_sz + (column_major_ ? ColumnMajor(w, at) : at);
            }
          } else {
            double sum = 0;
            for (int64_t h : hs) {
              const float* xr = xc + h * width;
              for (int64_t c : ws)
                sum += static_cast<double>(xr[c]);
            }
            const int64_t count = count_include_pad_ ? row_pad[static_cast<size_t>(oh)] *
                                                           col_pad[static_cast<size_t>(ow)]
                                                     : static_cast<int64_t>(hs.size() * ws.size());
            yc[o] = static_cast<float>(count > 0 ? sum / static_cast<double>(count) : 0.0);
          }
        }
      }
    }
  }

  // A row-major offset within one channel's spatial block as a column-major one.
  static int64_t ColumnMajor(const Window& w, int64_t off) {
    const size_t n = w.in.size();
    std::vector<int64_t> pos(n);
    for (size_t i = n; i-- > 0;) {
      pos[i] = off % w.in[i];
      off /= w.in[i];
    }
    int64_t cm = 0, stride = 1;
    for (size_t i = 0; i < n; ++i) {
      cm += pos[i] * stride;
      stride *= w.in[i];
    }
    return cm;
  }

  WindowAttrs attrs_;
  bool count_include_pad_ = false, column_major_ = false;
  double p_ = 2;
};

template <bool kMax>
class GlobalPool : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo&) {
    return std::unique_ptr<KernelBase>(new GlobalPool());
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    ONNX_LIGHT_RETURN_IF_ERROR(NeedRank3(x));
    std::vector<int64_t> dims(x.shape().rank(), 1);
    dims[0] = x.shape()[0];
    dims[1] = x.shape()[1];
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, dims));
    const int64_t nc = dims[0] * dims[1];
    const int64_t sz = nc == 0 ? 0 : x.num_elements() / nc;
    ForFloat(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      const T* xp = x.data<T>();
      T* yp = y->mutable_data<T>();
      auto planes = [&](int64_t p0, int64_t p1) {
        for (int64_t p = p0; p < p1; ++p) {
          const T* xc = xp + p * sz;
          if constexpr (!kMax && std::is_same_v<T, float>) {  // in SIMD doubles
            yp[p] = static_cast<float>(SumF32InF64(xc, static_cast<size_t>(sz), false) /
                                       static_cast<double>(sz));
          } else if constexpr (!kMax) {
            yp[p] = static_cast<T>(SumF64(xc, sz) / static_cast<double>(sz));  // in double
          } else if constexpr (std::is_same_v<T, float>) {
            yp[p] = MaxF32(xc, sz);  // NaN skipped, as std::max skips it below
          } else {
            double acc = -std::numeric_limits<double>::infinity();
            for (int64_t i = 0; i < sz; ++i)
              acc = std::max(acc, static_cast<double>(xc[i]));
            yp[p] = static_cast<T>(acc);
          }
        }
      };
      // Planes split between threads in chunks of at least ~32k elements.
      ParallelElements(ctx.thread_pool(), nc, planes,
                       std::max<int64_t>(1, (int64_t{1} << 15) / std::max<int64_t>(1, sz)));
    });
    return Status::Ok();
  }
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, MaxPool) {
  KernelDef def = Def("MaxPool", 1,
                      {{"T",
                        {0},
                        {0},
                        {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat,
                         DataType::kDouble, DataType::kInt8, DataType::kUint8}},
                       {"I", {}, {1}, {DataType::kInt64}}},
                      FactoryOf<Pool<PoolKind::kMax>>());
  return r.Register(std::move(def));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, AveragePool) {
  return r.Register(Def("AveragePool", 1, {{"T", {0}, {0}, FloatTypes()}},
                        FactoryOf<Pool<PoolKind::kAverage>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LpPool) {
  return r.Register(
      Def("LpPool", 1, {{"T", {0}, {0}, FloatTypes()}}, FactoryOf<Pool<PoolKind::kLp>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GlobalAveragePool) {
  return r.Register(
      UnaryDef("", "GlobalAveragePool", 1, FloatTypes(), FactoryOf<GlobalPool<false>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GlobalMaxPool) {
  return r.Register(UnaryDef("", "GlobalMaxPool", 1, FloatTypes(), FactoryOf<GlobalPool<true>>()));
}
}  // namespace onnx_light::kernels
