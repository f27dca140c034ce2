#include "rnn/recurrent_f32.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "math/gemm.h"
#include "onnx_light/runtime/thread_pool.h"
#include "simd/conv_simd.h"
#include "simd/denormals.h"
#include "simd/gemm_simd.h"

namespace onnx_light::kernels {
namespace {

// rows [row0, row0 + n) of m (row-major, k columns) packed as the transposed [k x n]
// operand, one block per direction `stride` floats apart.
Tensor PackRows(const float* m, int64_t dirs, int64_t rows_per_dir, int64_t row0, int64_t n,
                int64_t k, int64_t* stride) {
  const auto per_dir = static_cast<int64_t>(SgemmPackedBFloats(k, n));
  Result<Shape> shape = Shape::Create({dirs * per_dir});
  if (!shape.ok()) return Tensor();
  Result<Tensor> packed = Tensor::Allocate(DataType::kFloat, std::move(*shape));
  if (!packed.ok()) return Tensor();
  for (int64_t d = 0; d < dirs; ++d) {
    SgemmPackB(k, n, m + (d * rows_per_dir + row0) * k, k,
               packed->mutable_data<float>() + d * per_dir, /*b_trans=*/true);
  }
  *stride = per_dir;
  return std::move(*packed);
}

// c [m x n] += a [m x k] (rows k apart) times mat^T, mat [n x k] row-major (rows of W or R),
// read packed when `packed` is given.
void AddProduct(const float* a, int64_t m, int64_t k, const float* mat, const float* packed,
                float* c, int64_t n, ThreadPool* pool) {
  if (packed != nullptr && PrepackedGemm(a, k, packed, c, m, n, k, pool, /*force=*/true)) return;
  Gemm2D<float>(a, k, 1, mat, 1, k, c, m, n, k, pool);
}

// One core's L2 cache (glibc's sysconf; 1 MiB where it does not say).
int64_t L2Bytes() {
  static const int64_t bytes = [] {
#ifdef _SC_LEVEL2_CACHE_SIZE
    const long v = ::sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (v > 0) return static_cast<int64_t>(v);
#endif
    return int64_t{1} << 20;
  }();
  return bytes;
}

void Clip(float* x, int64_t n, float clip) {
  if (clip <= 0) return;
  for (int64_t i = 0; i < n; ++i)
    x[i] = std::min(clip, std::max(-clip, x[i]));
}

// One direction of one node run.
class Direction {
 public:
  Direction(const RecurrentF32Args& a, int64_t d)
      : a_(a),
        d_(d),
        h_(a.hidden),
        gh_(RnnGates(a.cell) * a.hidden),
        rev_(a.reverse || d == 1),
        s_(a.scratch->dir[d]) {
    const int per = RnnActivationsPerDirection(a.cell);
    f_ = a.acts[d * per];
    g_ = a.acts[d * per + (per > 1 ? 1 : 0)];
    hact_ = a.acts[d * per + per - 1];
    default_lstm_ = a.cell == RnnCell::kLstm && f_.kind == RnnActKind::kSigmoid &&
                    g_.kind == RnnActKind::kTanh && hact_.kind == RnnActKind::kTanh;
    // (null where DynamicQuantizeLSTM's float weights are not needed: see RecurrentF32Args)
    w_ = a.w != nullptr ? a.w + d * gh_ * a.input : nullptr;
    r_ = a.r != nullptr ? a.r + d * gh_ * h_ : nullptr;
    b_ = a.b != nullptr ? a.b + d * 2 * gh_ : nullptr;
    p_ = a.p != nullptr ? a.p + d * 3 * h_ : nullptr;
    if (a.packed != nullptr && a.packed->has_w()) {
      wp_ = a.packed->w.data<float>() + d * a.packed->w_stride;
    }
    if (a.packed != nullptr && a.packed->has_r()) {
      rp_ = a.packed->r.data<float>() + d * a.packed->r_stride;
      if (a.cell == RnnCell::kGru) rhp_ = a.packed->r_h.data<float>() + d * a.packed->r_h_stride;
    }
  }

  void Run() {
    // The whole recurrence with subnormals read and made as zero (simd/denormals.h), as its
    // products already ran: a state that decays (a cell whose forget gate keeps halving it,
    // an input gate at sigmoid(-70)) passes through subnormal values, and every gate step
    // that reads one took a microcode assist (madmom's downbeat BLSTM: its 50-input layers
    // 0.49-0.70 ms a run -> 0.37, ORT 0.42). Only states below FLT_MIN change.
    const DenormalsAsZero ftz_daz;
    const int64_t rows = a_.seq * a_.batch, batch = a_.batch;
    // xw [seq * batch, gh], gates [batch, gh], recurrent parts [batch, gh], hidden, cell and
    // a temporary [batch, h] each.
    s_.f.resize(static_cast<size_t>(rows * gh_ + 2 * batch * gh_ + 3 * batch * h_));
    xw_ = s_.f.data();
    gates_ = xw_ + rows * gh_;
    rec_ = gates_ + batch * gh_;
    hid_ = rec_ + batch * gh_;
    cell_ = hid_ + batch * h_;
    tmp_ = cell_ + batch * h_;
    Project(rows);
    for (int64_t n = 0; n < batch; ++n) {
      const int64_t at = StateAt(n);
      for (int64_t j = 0; j < h_; ++j) {
        hid_[n * h_ + j] = a_.h0 != nullptr ? a_.h0[at + j] : 0.0f;
        cell_[n * h_ + j] = a_.c0 != nullptr ? a_.c0[at + j] : 0.0f;
      }
    }
    int64_t longest = 0;
    for (int64_t n = 0; n < batch; ++n)
      longest = std::max(longest, Len(n));
    // Layout 0 with every sequence full: a step's gate rows lie together in xw, and the
    // step works on them there (the gather's copies were 8% of a batch-16 LSTM's time).
    const bool direct = a_.layout == 0 && a_.lens == nullptr;
    float* const gathered = gates_;
    for (int64_t step = 0; step < longest; ++step) {
      if (direct) {
        gates_ = xw_ + Time(0, step) * batch * gh_;
      } else {
        gates_ = gathered;
        Gather(step);
      }
      if (a_.cell == RnnCell::kLstm) {
        LstmStep(step);
      } else if (a_.cell == RnnCell::kGru) {
        GruStep(step);
      } else {
        RnnStep(step);
      }
    }
    for (int64_t n = 0; n < batch; ++n) {
      const int64_t at = StateAt(n);
      const size_t bytes = static_cast<size_t>(h_) * sizeof(float);
      if (a_.y_h != nullptr) std::memcpy(a_.y_h + at, hid_ + n * h_, bytes);
      if (a_.y_c != nullptr) std::memcpy(a_.y_c + at, cell_ + n * h_, bytes);
    }
  }

 private:
  int64_t Len(int64_t n) const { return a_.lens != nullptr ? a_.lens[n] : a_.seq; }
  int64_t Time(int64_t n, int64_t step) const { return rev_ ? Len(n) - 1 - step : step; }
  int64_t XRow(int64_t t, int64_t n) const {
    return a_.layout == 0 ? t * a_.batch + n : n * a_.seq + t;
  }
  int64_t StateAt(int64_t n) const {
    return a_.layout == 0 ? (d_ * a_.batch + n) * h_ : (n * a_.dirs + d_) * h_;
  }
  float* YAt(int64_t t, int64_t n) const {
    return a_.layout == 0 ? a_.y + ((t * a_.dirs + d_) * a_.batch + n) * h_
                          : a_.y + ((n * a_.seq + t) * a_.dirs + d_) * h_;
  }

  bool Quantized() const { return a_.wq != nullptr && a_.rq != nullptr; }

  // xw = X W^T + biases, every time step at once: Wb + Rb for every gate, except a GRU's
  // Rbh (inside the reset gate's product with linear_before_reset, else added here too).
  void Project(int64_t rows) {
    for (int64_t j = 0; j < gh_; ++j) {
      float v = 0.0f;
      if (b_ != nullptr) {
        const bool gru_h = a_.cell == RnnCell::kGru && j >= 2 * h_;
        v = b_[j] + (gru_h && a_.linear_before_reset ? 0.0f : b_[gh_ + j]);
      }
      xw_[j] = v;
    }
    for (int64_t i = 1; i < rows; ++i)
      std::memcpy(xw_ + i * gh_, xw_, static_cast<size_t>(gh_) * sizeof(float));
    if (rows == 0) return;
    if (Quantized() && a_.scratch->x_quantized) {
      AddQuantizedProduct(*a_.wq, d_, a_.scratch->xq, rows, xw_, &s_.acc, a_.pool);
      return;
    }
    AddProduct(a_.x, rows, a_.input, w_, wp_, xw_, gh_, a_.pool);
  }

  // The gate rows of this step (every active entry's time step) into gates_.
  void Gather(int64_t step) {
    for (int64_t n = 0; n < a_.batch; ++n) {
      if (step >= Len(n)) continue;
      std::memcpy(gates_ + n * gh_, xw_ + XRow(Time(n, step), n) * gh_,
                  static_cast<size_t>(gh_) * sizeof(float));
    }
  }

  // gates_ += hid_ R^T over every gate (RNN, LSTM).
  void AddRecurrent() {
    const bool centered = Quantized() && a_.wq->vnni.empty();
    if (Quantized() && QuantizeOperand(hid_, a_.batch, h_, centered, &s_.hq)) {
      AddQuantizedProduct(*a_.rq, d_, s_.hq, a_.batch, gates_, &s_.acc, nullptr);
      return;
    }
    AddProduct(hid_, a_.batch, h_, r_, rp_, gates_, gh_, a_.pool);
  }

  void Emit(int64_t step, int64_t n) {
    if (a_.y != nullptr) {
      std::memcpy(YAt(Time(n, step), n), hid_ + n * h_, static_cast<size_t>(h_) * sizeof(float));
    }
  }

  void RnnStep(int64_t step) {
    AddRecurrent();
    for (int64_t n = 0; n < a_.batch; ++n) {
      if (step >= Len(n)) continue;
      float* g = gates_ + n * gh_;
      Clip(g, h_, a_.clip);
      ApplyRnnActivation(f_, g, static_cast<size_t>(h_));
      std::memcpy(hid_ + n * h_, g, static_cast<size_t>(h_) * sizeof(float));
      Emit(step, n);
    }
  }

  // ONNX's gate order z, r, h.
  void GruStep(int64_t step) {
    const int64_t batch = a_.batch, h = h_;
    float* rec_zr = rec_;                 // [batch, 2h]
    float* rec_h = rec_ + batch * 2 * h;  // [batch, h]
    std::fill(rec_, rec_ + batch * gh_, 0.0f);
    AddProduct(hid_, batch, h, r_, rp_, rec_zr, 2 * h, a_.pool);
    for (int64_t n = 0; n < batch; ++n) {
      float* g = gates_ + n * gh_;
      const float* rz = rec_zr + n * 2 * h;
      for (int64_t j = 0; j < 2 * h; ++j)
        g[j] += rz[j];
      Clip(g, 2 * h, a_.clip);
      ApplyRnnActivation(f_, g, static_cast<size_t>(2 * h));
    }
    const float* rh_rows = r_ + 2 * h * h;
    if (a_.linear_before_reset) {
      AddProduct(hid_, batch, h, rh_rows, rhp_, rec_h, h, a_.pool);
      const float* rbh = b_ != nullptr ? b_ + gh_ + 2 * h : nullptr;
      for (int64_t n = 0; n < batch; ++n) {
        float* g = gates_ + n * gh_;
        const float* rr = rec_h + n * h;
        for (int64_t j = 0; j < h; ++j)
          g[2 * h + j] += g[h + j] * (rr[j] + (rbh != nullptr ? rbh[j] : 0.0f));
      }
    } else {
      for (int64_t n = 0; n < batch; ++n) {
        const float* g = gates_ + n * gh_;
        for (int64_t j = 0; j < h; ++j)
          tmp_[n * h + j] = g[h + j] * hid_[n * h + j];
      }
      AddProduct(tmp_, batch, h, rh_rows, rhp_, rec_h, h, a_.pool);
      for (int64_t n = 0; n < batch; ++n) {
        float* g = gates_ + n * gh_;
        for (int64_t j = 0; j < h; ++j)
          g[2 * h + j] += rec_h[n * h + j];
      }
    }
    for (int64_t n = 0; n < batch; ++n) {
      if (step >= Len(n)) continue;
      float* g = gates_ + n * gh_;
      Clip(g + 2 * h, h, a_.clip);
      ApplyRnnActivation(g_, g + 2 * h, static_cast<size_t>(h));
      float* hn = hid_ + n * h;
      for (int64_t j = 0; j < h; ++j)
        hn[j] = (1.0f - g[j]) * g[2 * h + j] + g[j] * hn[j];
      Emit(step, n);
    }
  }

  // ONNX's gate order i, o, f, c; peepholes i, o, f.
  void LstmStep(int64_t step) {
    const int64_t h = h_;
    const auto uh = static_cast<size_t>(h);
    AddRecurrent();
    for (int64_t n = 0; n < a_.batch; ++n) {
      if (step >= Len(n)) continue;
      float* g = gates_ + n * gh_;
      float* c = cell_ + n * h;
      if (default_lstm_) {  // one vector pass (simd/conv_simd.cc)
        LstmCellF32({g, c, hid_ + n * h, p_, uh, a_.clip, a_.input_forget});
        Emit(step, n);
        continue;
      }
      if (p_ == nullptr) {  // i, o and f activated together
        Clip(g, 4 * h, a_.clip);
        ApplyRnnActivation(f_, g, 3 * uh);
      } else {
        for (int64_t j = 0; j < h; ++j) {
          g[j] += p_[j] * c[j];
          g[2 * h + j] += p_[2 * h + j] * c[j];
        }
        Clip(g, h, a_.clip);
        Clip(g + 2 * h, 2 * h, a_.clip);
        ApplyRnnActivation(f_, g, uh);
        ApplyRnnActivation(f_, g + 2 * h, uh);
      }
      ApplyRnnActivation(g_, g + 3 * h, uh);
      if (a_.input_forget) {
        for (int64_t j = 0; j < h; ++j)
          g[2 * h + j] = 1.0f - g[j];
      }
      for (int64_t j = 0; j < h; ++j)
        c[j] = g[2 * h + j] * c[j] + g[j] * g[3 * h + j];
      if (p_ != nullptr) {
        for (int64_t j = 0; j < h; ++j)
          g[h + j] += p_[h + j] * c[j];
        Clip(g + h, h, a_.clip);
        ApplyRnnActivation(f_, g + h, uh);
      }
      std::memcpy(tmp_, c, uh * sizeof(float));
      ApplyRnnActivation(hact_, tmp_, uh);
      float* hn = hid_ + n * h;
      for (int64_t j = 0; j < h; ++j)
        hn[j] = g[h + j] * tmp_[j];
      Emit(step, n);
    }
  }

  const RecurrentF32Args& a_;
  const int64_t d_, h_, gh_;
  const bool rev_;
  RecurrentScratch::Direction& s_;
  RnnActivation f_, g_, hact_;
  bool default_lstm_ = false;  // Sigmoid, Tanh, Tanh: LstmCellF32
  const float *w_ = nullptr, *r_ = nullptr, *b_ = nullptr, *p_ = nullptr;
  const float *wp_ = nullptr, *rp_ = nullptr, *rhp_ = nullptr;
  float *xw_ = nullptr, *gates_ = nullptr, *rec_ = nullptr, *hid_ = nullptr, *cell_ = nullptr,
        *tmp_ = nullptr;
};

}  // namespace

RecurrentPacked PackRecurrent(RnnCell cell, const float* w, const float* r, int64_t dirs,
                              int64_t input, int64_t hidden, bool pack_w) {
  RecurrentPacked p;
  const int64_t gh = RnnGates(cell) * hidden;
  if (pack_w) p.w = PackRows(w, dirs, gh, 0, gh, input, &p.w_stride);
  const int64_t first = cell == RnnCell::kGru ? 2 * hidden : gh;
  p.r = PackRows(r, dirs, gh, 0, first, hidden, &p.r_stride);
  if (cell == RnnCell::kGru) {
    p.r_h = PackRows(r, dirs, gh, 2 * hidden, hidden, hidden, &p.r_h_stride);
    if (p.r_h.byte_size() == 0) p.r = Tensor();  // both or neither
  }
  return p;
}

void RecurrentF32(const RecurrentF32Args& a) {
  bool full = true;
  for (int64_t n = 0; a.lens != nullptr && n < a.batch; ++n)
    full = full && a.lens[n] == a.seq;
  if (a.y != nullptr && !full) {
    std::fill(a.y, a.y + a.seq * a.dirs * a.batch * a.hidden, 0.0f);
  }
  // DynamicQuantizeLSTM: X quantized once for both directions (the int16 kernel takes it
  // centered); a NaN or an infinity leaves the float product.
  a.scratch->x_quantized =
      a.wq != nullptr && a.rq != nullptr &&
      QuantizeOperand(a.x, a.seq * a.batch, a.input, a.wq->vnni.empty(), &a.scratch->xq);
  auto direction = [&](int64_t d) { Direction(a, d).Run(); };
  // Two directions on two threads or more: side by side, each whole, the products inside
  // on the calling thread (the pool's workers are busy: ParallelFor runs inline) -- unless
  // a direction's R is too big for one core's L2 but each thread's share of it fits: then
  // one direction after the other, each step's product split between the threads, every
  // thread reading the same rows of R from its own L2 at every step. ddddocr's
  // bidirectional 512-wide LSTM (4 MiB of R a direction): on a Xeon with 2 MiB of L2 a
  // core, side by side 5.2 ms, split 3.0 ms (ORT 3.1); on an EPYC with 512 KiB, where no
  // share fits, split was slower than 1 thread.
  const int64_t threads = a.pool != nullptr ? a.pool->threads() : 1;
  const int64_t r_bytes =
      RnnGates(a.cell) * a.hidden * a.hidden * static_cast<int64_t>(sizeof(float));
  const bool shares_in_l2 = r_bytes > L2Bytes() && r_bytes / threads <= L2Bytes();
  if (a.dirs == 2 && threads > 1 && !shares_in_l2) {
    a.pool->ParallelFor(2, 1, [&](int64_t d0, int64_t d1) {
      for (int64_t d = d0; d < d1; ++d)
        direction(d);
    });
    return;
  }
  for (int64_t d = 0; d < a.dirs; ++d)
    direction(d);
}

}  // namespace onnx_light::kernels
