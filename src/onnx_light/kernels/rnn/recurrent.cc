// RNN, GRU and LSTM (forward, reverse, bidirectional; sequence_lens; initial states;
// LSTM peepholes and input_forget; GRU linear_before_reset; layout 0 and 1; clip; the
// ONNX activation functions with their alpha/beta). float runs the float32 engine
// (rnn/recurrent_f32.h) on W and R packed once when they are constants; float16 converts
// to float32 around it (the constant weights once, when the kernel is made); double runs
// the reference path below, in double per time step.
#include "rnn/recurrent.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/platform/mapped_file.h"
#include "rnn/recurrent_f32.h"
#include "simd/elementwise_simd.h"
#include "simd/qgemm_simd.h"

namespace onnx_light::kernels {
namespace {

template <RnnCell kCell>
class Recurrent : public KernelBase {
 public:
  static constexpr int kGates = RnnGates(kCell);
  static constexpr int kActsPerDir = RnnActivationsPerDirection(kCell);

  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Recurrent>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->hidden_, info.GetInt("hidden_size"));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::string dir, info.GetString("direction", "forward"));
    ONNX_LIGHT_RETURN_IF(dir != "forward" && dir != "reverse" && dir != "bidirectional",
                         kInvalidModel, "unknown direction '" + dir + "'");
    k->reverse_ = dir == "reverse";
    k->dirs_ = dir == "bidirectional" ? 2 : 1;
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->layout_, info.GetInt("layout", 0));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->clip_, info.GetFloat("clip", 0.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->linear_before_reset_,
                                GetFlag(info, "linear_before_reset", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->input_forget_, GetFlag(info, "input_forget", false));
    std::vector<std::string> names;
    if (const onnx::AttributeProto* a = info.Find("activations")) names = a->strings;
    if (names.empty()) {
      for (int d = 0; d < k->dirs_; ++d) {
        if (kCell == RnnCell::kRnn) names.push_back("Tanh");
        if (kCell == RnnCell::kGru) names.insert(names.end(), {"Sigmoid", "Tanh"});
        if (kCell == RnnCell::kLstm) names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
      }
    }
    if (names.size() == static_cast<size_t>(kActsPerDir) && k->dirs_ == 2) {
      const std::vector<std::string> once = names;
      names.insert(names.end(), once.begin(), once.end());
    }
    ONNX_LIGHT_RETURN_IF(names.size() != static_cast<size_t>(kActsPerDir * k->dirs_), kInvalidModel,
                         "expected " + std::to_string(kActsPerDir * k->dirs_) +
                             " activations, got " + std::to_string(names.size()));
    std::vector<float> alphas, betas;
    if (info.HasAttribute("activation_alpha")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(alphas, info.GetFloats("activation_alpha"));
    }
    if (info.HasAttribute("activation_beta")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(betas, info.GetFloats("activation_beta"));
    }
    size_t next_alpha = 0, next_beta = 0;
    for (const std::string& name : names) {
      RnnActivation act;
      ONNX_LIGHT_RETURN_IF(!ParseRnnActivation(name, &act), kNotImplemented,
                           "activation '" + name + "' is not supported");
      if (RnnActivationTakesAlpha(act.kind) && next_alpha < alphas.size()) {
        act.alpha = alphas[next_alpha++];
      }
      if (RnnActivationTakesBeta(act.kind) && next_beta < betas.size()) {
        act.beta = betas[next_beta++];
      }
      k->acts_.push_back(act);
    }
    ONNX_LIGHT_RETURN_IF(k->hidden_ < 1, kInvalidModel, "hidden_size must be >= 1");
    // The weights' shapes are products of up to 2 * 4 gates and hidden_size: they must fit
    // int64 (a hidden_size near INT64_MAX overflowed them).
    ONNX_LIGHT_RETURN_IF(k->hidden_ > INT64_MAX / 8, kOutOfRange,
                         "hidden_size " + std::to_string(k->hidden_) + " is too large");
    k->PrepareWeights(info.constant_input(1), info.constant_input(2));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Shape& w_shape = given_ ? given_shape_[0] : ctx.input(1)->shape();
    const Shape& r_shape = given_ ? given_shape_[1] : ctx.input(2)->shape();
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 3, kInvalidArgument, "X must be 3-D");
    const int64_t seq = layout_ == 0 ? x.shape()[0] : x.shape()[1];
    const int64_t batch = layout_ == 0 ? x.shape()[1] : x.shape()[0];
    const int64_t in_sz = x.shape()[2], h = hidden_, g = kGates;
    auto check = [&](const Shape* s, std::vector<int64_t> dims, const char* what) -> Status {
      if (s != nullptr && s->dims() != dims) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(Shape want, Shape::Create(dims));
        return Status(StatusCode::kInvalidArgument,
                      std::string(what) + " is " + s->ToString() + ", expected " + want.ToString());
      }
      return Status::Ok();
    };
    auto shape_of = [&](size_t i) -> const Shape* {
      const Tensor* t = ctx.input(i);
      return t != nullptr ? &t->shape() : nullptr;
    };
    ONNX_LIGHT_RETURN_IF_ERROR(check(&w_shape, {dirs_, g * h, in_sz}, "W"));
    ONNX_LIGHT_RETURN_IF_ERROR(check(&r_shape, {dirs_, g * h, h}, "R"));
    ONNX_LIGHT_RETURN_IF_ERROR(check(shape_of(3), {dirs_, 2 * g * h}, "B"));
    ONNX_LIGHT_RETURN_IF_ERROR(check(shape_of(4), {batch}, "sequence_lens"));
    const std::vector<int64_t> state_dims = layout_ == 0 ? std::vector<int64_t>{dirs_, batch, h}
                                                         : std::vector<int64_t>{batch, dirs_, h};
    ONNX_LIGHT_RETURN_IF_ERROR(check(shape_of(5), state_dims, "initial_h"));
    if (kCell == RnnCell::kLstm) {
      ONNX_LIGHT_RETURN_IF_ERROR(check(shape_of(6), state_dims, "initial_c"));
      ONNX_LIGHT_RETURN_IF_ERROR(check(shape_of(7), {dirs_, 3 * h}, "P"));
    }
    std::vector<int64_t> lens(static_cast<size_t>(batch), seq);
    if (const Tensor* sl = ctx.input(4)) {
      lens = IndexValues(*sl);
      for (int64_t v : lens) {
        ONNX_LIGHT_RETURN_IF(v < 0 || v > seq, kInvalidArgument,
                             "sequence length " + std::to_string(v) + " is outside [0, " +
                                 std::to_string(seq) + "]");
      }
    }
    const std::vector<int64_t> y_dims = layout_ == 0 ? std::vector<int64_t>{seq, dirs_, batch, h}
                                                     : std::vector<int64_t>{batch, seq, dirs_, h};
    Tensor* y = nullptr;
    Tensor* yh = nullptr;
    Tensor* yc = nullptr;
    if (ctx.output_count() > 0) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(y, ctx.AllocateOutput(0, y_dims));
    }
    if (ctx.output_count() > 1) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(yh, ctx.AllocateOutput(1, state_dims));
    }
    if (kCell == RnnCell::kLstm && ctx.output_count() > 2) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(yc, ctx.AllocateOutput(2, state_dims));
    }
    if (x.dtype() == DataType::kDouble) {
      Run<double>(ctx, seq, batch, in_sz, lens, y, yh, yc);
    } else {
      const bool full =
          std::all_of(lens.begin(), lens.end(), [seq](int64_t v) { return v == seq; });
      if (given_ && !(quantized_ && full && QuantizedStaysFinite(ctx))) {
        ONNX_LIGHT_RETURN_IF_ERROR(MakeGivenWeights());
      }
      RunF32(ctx, seq, batch, in_sz, lens, y, yh, yc);
    }
    return Status::Ok();
  }

 private:
  // A float or float16 input (or DynamicQuantizeLSTM's weights) as float32: the tensor's
  // own data, or converted into `buf`.
  static const float* AsFloats(const Tensor* t, std::vector<float>* buf) {
    if (t == nullptr) return nullptr;
    if (t->dtype() == DataType::kFloat) return t->data<float>();
    buf->resize(static_cast<size_t>(t->num_elements()));
    Float16ToFloat32(static_cast<const uint16_t*>(t->raw_data()), buf->data(), buf->size());
    return buf->data();
  }

  // The float32 engine; float16 inputs and outputs converted around it.
  void RunF32(KernelContext& ctx, int64_t seq, int64_t batch, int64_t in_sz,
              const std::vector<int64_t>& lens, Tensor* y, Tensor* yh, Tensor* yc) const {
    struct Scratch : KernelState {
      RecurrentScratch buf;
    };
    const bool half = ctx.input(0)->dtype() == DataType::kFloat16;
    std::vector<float> conv[7], outs[3];
    RecurrentF32Args a;
    a.cell = kCell;
    a.x = AsFloats(ctx.input(0), &conv[0]);
    a.layout = layout_;
    a.seq = seq;
    a.batch = batch;
    a.input = in_sz;
    a.hidden = hidden_;
    a.dirs = dirs_;
    a.reverse = reverse_;
    const bool full = std::all_of(lens.begin(), lens.end(), [seq](int64_t v) { return v == seq; });
    a.lens = full ? nullptr : lens.data();
    a.w = wf_.byte_size() > 0 ? wf_.data<float>() : AsFloats(In(ctx, 1), &conv[1]);
    a.r = rf_.byte_size() > 0 ? rf_.data<float>() : AsFloats(In(ctx, 2), &conv[2]);
    a.packed = &packed_;  // (constant W and R: their shapes were checked above)
    a.b = AsFloats(ctx.input(3), &conv[3]);
    a.h0 = AsFloats(ctx.input(5), &conv[4]);
    if (kCell == RnnCell::kLstm) {
      a.c0 = AsFloats(ctx.input(6), &conv[5]);
      a.p = AsFloats(ctx.input(7), &conv[6]);
    }
    a.clip = clip_;
    a.linear_before_reset = linear_before_reset_;
    a.input_forget = input_forget_;
    a.acts = acts_.data();
    auto out = [&](Tensor* t, std::vector<float>* buf) -> float* {
      if (t == nullptr) return nullptr;
      if (!half) return t->mutable_data<float>();
      buf->resize(static_cast<size_t>(t->num_elements()));
      return buf->data();
    };
    a.y = out(y, &outs[0]);
    a.y_h = out(yh, &outs[1]);
    a.y_c = out(yc, &outs[2]);
    a.scratch = &ctx.State<Scratch>().buf;
    a.pool = ctx.thread_pool();
    if (quantized_ && full) {  // ORT's quantized products take full-length sequences
      a.wq = &wq_;
      a.rq = &rq_;
    }
    RecurrentF32(a);
    if (!half) return;
    Tensor* dst[3] = {y, yh, yc};
    for (int i = 0; i < 3; ++i) {
      if (dst[i] == nullptr) continue;
      Float32ToFloat16(outs[i].data(), static_cast<uint16_t*>(dst[i]->mutable_raw_data()),
                       outs[i].size());
    }
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx, int64_t seq, int64_t batch, int64_t in_sz,
           const std::vector<int64_t>& lens, Tensor* y, Tensor* yh, Tensor* yc) const {
    const int64_t h = hidden_, g = kGates;
    const std::vector<double> x = ToDoubles(ctx.input(0)), w = ToDoubles(In(ctx, 1)),
                              r = ToDoubles(In(ctx, 2)), b = ToDoubles(ctx.input(3)),
                              h0 = ToDoubles(ctx.input(5)),
                              c0 = kCell == RnnCell::kLstm ? ToDoubles(ctx.input(6))
                                                           : std::vector<double>(),
                              p = kCell == RnnCell::kLstm ? ToDoubles(ctx.input(7))
                                                          : std::vector<double>();
    // Index helpers for the two layouts.
    auto x_at = [&](int64_t t, int64_t n) {
      return layout_ == 0 ? (t * batch + n) * in_sz : (n * seq + t) * in_sz;
    };
    auto state_at = [&](int64_t d, int64_t n) {
      return layout_ == 0 ? (d * batch + n) * h : (n * dirs_ + d) * h;
    };
    auto y_at = [&](int64_t t, int64_t d, int64_t n) {
      return layout_ == 0 ? ((t * dirs_ + d) * batch + n) * h : ((n * seq + t) * dirs_ + d) * h;
    };
    if (y != nullptr) {
      for (int64_t i = 0; i < y->num_elements(); ++i)
        y->mutable_data<T>()[i] = static_cast<T>(0.0f);
    }
    auto clip = [&](double v) {
      return clip_ > 0 ? std::fmax(-clip_, std::fmin(static_cast<double>(clip_), v)) : v;
    };
    std::vector<double> gates(static_cast<size_t>(g * h)), hid(static_cast<size_t>(h)),
        cell(static_cast<size_t>(h)), rh(static_cast<size_t>(h));
    for (int64_t d = 0; d < dirs_; ++d) {
      const bool rev = reverse_ || d == 1;
      const double* wd = w.data() + d * g * h * in_sz;
      const double* rd = r.data() + d * g * h * h;
      const double* wb = b.empty() ? nullptr : b.data() + d * 2 * g * h;
      const double* pd = p.empty() ? nullptr : p.data() + d * 3 * h;
      const RnnActivation& f = acts_[static_cast<size_t>(d * kActsPerDir)];
      const RnnActivation& ga =
          acts_[static_cast<size_t>(d * kActsPerDir + (kActsPerDir > 1 ? 1 : 0))];
      const RnnActivation& ha = acts_[static_cast<size_t>(d * kActsPerDir + kActsPerDir - 1)];
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t j = 0; j < h; ++j) {
          hid[static_cast<size_t>(j)] =
              h0.empty() ? 0.0 : h0[static_cast<size_t>(state_at(d, n) + j)];
          cell[static_cast<size_t>(j)] =
              c0.empty() ? 0.0 : c0[static_cast<size_t>(state_at(d, n) + j)];
        }
        const int64_t len = lens[static_cast<size_t>(n)];
        for (int64_t s = 0; s < len; ++s) {
          const int64_t t = rev ? len - 1 - s : s;
          const double* xt = x.data() + x_at(t, n);
          // gates = W x + (biases); the recurrent part is added per cell type below.
          for (int64_t q = 0; q < g * h; ++q) {
            double acc = wb ? wb[q] : 0.0;
            const double* wr = wd + q * in_sz;
            for (int64_t i = 0; i < in_sz; ++i)
              acc += wr[i] * xt[i];
            gates[static_cast<size_t>(q)] = acc;
          }
          auto rdot = [&](int64_t q, const std::vector<double>& v) {
            double acc = 0;
            const double* rr = rd + q * h;
            for (int64_t i = 0; i < h; ++i)
              acc += rr[i] * v[static_cast<size_t>(i)];
            return acc;
          };
          auto rbias = [&](int64_t q) { return wb ? wb[g * h + q] : 0.0; };
          if constexpr (kCell == RnnCell::kRnn) {
            for (int64_t j = 0; j < h; ++j)
              rh[static_cast<size_t>(j)] =
                  f(clip(gates[static_cast<size_t>(j)] + rdot(j, hid) + rbias(j)));
            hid = rh;
          } else if constexpr (kCell == RnnCell::kGru) {  // gate order z, r, h
            std::vector<double> z(static_cast<size_t>(h)), rr(static_cast<size_t>(h));
            for (int64_t j = 0; j < h; ++j) {
              z[static_cast<size_t>(j)] =
                  f(clip(gates[static_cast<size_t>(j)] + rdot(j, hid) + rbias(j)));
              rr[static_cast<size_t>(j)] =
                  f(clip(gates[static_cast<size_t>(h + j)] + rdot(h + j, hid) + rbias(h + j)));
            }
            for (int64_t j = 0; j < h; ++j)
              rh[static_cast<size_t>(j)] = rr[static_cast<size_t>(j)] * hid[static_cast<size_t>(j)];
            std::vector<double> next(static_cast<size_t>(h));
            for (int64_t j = 0; j < h; ++j) {
              const int64_t q = 2 * h + j;
              const double rec = linear_before_reset_
                                     ? rr[static_cast<size_t>(j)] * (rdot(q, hid) + rbias(q))
                                     : rdot(q, rh) + rbias(q);
              const double cand = ga(clip(gates[static_cast<size_t>(q)] + rec));
              const double zj = z[static_cast<size_t>(j)];
              next[static_cast<size_t>(j)] = (1 - zj) * cand + zj * hid[static_cast<size_t>(j)];
            }
            hid = next;
          } else {  // LSTM, gate order i, o, f, c
            std::vector<double> next_c(static_cast<size_t>(h));
            for (int64_t j = 0; j < h; ++j) {
              const auto u = static_cast<size_t>(j);
              const double cp = cell[u];
              double i_g = gates[u] + rdot(j, hid) + rbias(j) + (pd ? pd[j] * cp : 0.0);
              double f_g = gates[static_cast<size_t>(2 * h + j)] + rdot(2 * h + j, hid) +
                           rbias(2 * h + j) + (pd ? pd[2 * h + j] * cp : 0.0);
              const double c_g = ga(clip(gates[static_cast<size_t>(3 * h + j)] +
                                         rdot(3 * h + j, hid) + rbias(3 * h + j)));
              i_g = f(clip(i_g));
              f_g = input_forget_ ? 1.0 - i_g : f(clip(f_g));
              next_c[u] = f_g * cp + i_g * c_g;
            }
            for (int64_t j = 0; j < h; ++j) {
              const auto u = static_cast<size_t>(j);
              const double o_g = f(clip(gates[static_cast<size_t>(h + j)] + rdot(h + j, hid) +
                                        rbias(h + j) + (pd ? pd[h + j] * next_c[u] : 0.0)));
              rh[u] = o_g * ha(next_c[u]);
            }
            cell = next_c;
            hid = rh;
          }
          if (y != nullptr) {
            for (int64_t j = 0; j < h; ++j)
              y->mutable_data<T>()[y_at(t, d, n) + j] = static_cast<T>(hid[static_cast<size_t>(j)]);
          }
        }
        for (int64_t j = 0; j < h; ++j) {
          if (yh != nullptr) {
            yh->mutable_data<T>()[state_at(d, n) + j] = static_cast<T>(hid[static_cast<size_t>(j)]);
          }
          if (yc != nullptr) {
            yc->mutable_data<T>()[state_at(d, n) + j] =
                static_cast<T>(cell[static_cast<size_t>(j)]);
          }
        }
      }
    }
  }

  // Constant W [dirs, gh, input] and R [dirs, gh, h] (float or float16) made ready once:
  // float16 converted to float32, R packed for the step's product (read at every step),
  // W packed for the input projection when it is large (ddddocr's 2 x 2048 x 512 on AVX2:
  // gathering its columns was 10% of the model's time; Silero's 512 x 128 gathers cheaply,
  // and packing it would cost the first run more than it saves). A packed float matrix's
  // model-file pages go back (the double path maps them in again if it ever reads them).
  void PrepareWeights(const Tensor* w, const Tensor* r) {
    const int64_t gh = kGates * hidden_;
    auto usable = [&](const Tensor* t, int64_t cols) {
      return t != nullptr && (t->dtype() == DataType::kFloat || t->dtype() == DataType::kFloat16) &&
             t->shape().rank() == 3 && t->shape()[0] == dirs_ && t->shape()[1] == gh &&
             (cols < 0 || t->shape()[2] == cols);
    };
    const bool w_ok = usable(w, -1), r_ok = usable(r, hidden_);
    if (!r_ok) return;
    auto as_float = [](const Tensor* t, Tensor* out) -> const float* {
      if (t->dtype() == DataType::kFloat) return t->data<float>();
      Result<Tensor> f = Tensor::Allocate(DataType::kFloat, t->shape());
      if (!f.ok()) return nullptr;
      Float16ToFloat32(static_cast<const uint16_t*>(t->raw_data()), f->mutable_data<float>(),
                       static_cast<size_t>(t->num_elements()));
      *out = std::move(*f);
      return out->data<float>();
    };
    const float* rd = as_float(r, &rf_);
    const float* wd = w_ok ? as_float(w, &wf_) : nullptr;
    if (rd == nullptr) return;
    const bool pack_w = wd != nullptr && w->num_elements() >= (int64_t{1} << 18);
    const int64_t in = w_ok ? w->shape()[2] : 0;
    packed_ = PackRecurrent(kCell, wd, rd, dirs_, in, hidden_, pack_w);
    if (packed_.has_w() && w->dtype() == DataType::kFloat) {
      ReleaseMappedPages(w->raw_data(), w->byte_size());
    }
    if (packed_.has_r() && r->dtype() == DataType::kFloat) {
      ReleaseMappedPages(r->raw_data(), r->byte_size());
    }
  }

  // W and R given as float tensors instead of read from inputs 1 and 2 (GivenWeights;
  // null until made).
  const Tensor* In(const KernelContext& ctx, size_t i) const {
    if (given_ && (i == 1 || i == 2)) {
      if (!given_ready_.load(std::memory_order_acquire)) return nullptr;
      return i == 1 ? &w_given_ : &r_given_;
    }
    return ctx.input(i);
  }

  // Whether no step of the quantized products can meet an operand without a finite range
  // (which takes the float weights): X, B, the initial states and P finite, and the default
  // activations, under which the hidden state stays within (-1, 1) and the cell state
  // changes by less than 1 a step.
  bool QuantizedStaysFinite(const KernelContext& ctx) const {
    for (int64_t d = 0; d < dirs_; ++d) {
      const RnnActivation* a = &acts_[static_cast<size_t>(d * kActsPerDir)];
      if (kCell != RnnCell::kLstm || a[0].kind != RnnActKind::kSigmoid ||
          a[1].kind != RnnActKind::kTanh || a[2].kind != RnnActKind::kTanh) {
        return false;
      }
    }
    for (size_t i : {size_t{0}, size_t{3}, size_t{5}, size_t{6}, size_t{7}}) {
      const Tensor* t = ctx.input(i);
      if (t == nullptr || t->num_elements() == 0) continue;
      if (t->dtype() != DataType::kFloat) return false;
      float lo = 0, hi = 0;
      bool nan = false;
      RangeF32(t->data<float>(), static_cast<size_t>(t->num_elements()), &lo, &hi, &nan);
      if (nan || !std::isfinite(lo) || !std::isfinite(hi)) return false;
    }
    return true;
  }

  // The given float weights, made once (by the first run that needs them).
  Status MakeGivenWeights() const {
    if (given_ready_.load(std::memory_order_acquire)) return Status::Ok();
    std::lock_guard<std::mutex> lock(given_mu_);
    if (given_ready_.load(std::memory_order_relaxed)) return Status::Ok();
    ONNX_LIGHT_ASSIGN_OR_RETURN(w_given_, float_weights_(1));
    ONNX_LIGHT_ASSIGN_OR_RETURN(r_given_, float_weights_(2));
    given_ready_.store(true, std::memory_order_release);
    return Status::Ok();
  }

 public:
  Status GivenWeights(Shape w_shape, Shape r_shape, FloatWeightsFn float_weights,
                      QuantizedMatrix wq, QuantizedMatrix rq) {
    given_ = true;
    given_shape_[0] = std::move(w_shape);
    given_shape_[1] = std::move(r_shape);
    float_weights_ = std::move(float_weights);
    quantized_ = wq.usable() && rq.usable();
    if (quantized_) {
      wq_ = std::move(wq);
      rq_ = std::move(rq);
      return Status::Ok();
    }
    ONNX_LIGHT_RETURN_IF_ERROR(MakeGivenWeights());
    PrepareWeights(&w_given_, &r_given_);
    return Status::Ok();
  }

 private:
  FloatWeightsFn float_weights_;
  Shape given_shape_[2];
  mutable std::mutex given_mu_;
  mutable std::atomic<bool> given_ready_{false};
  mutable Tensor w_given_, r_given_;
  QuantizedMatrix wq_, rq_;  // DynamicQuantizeLSTM's 8-bit weights, packed
  bool quantized_ = false;
  bool given_ = false;
  Tensor wf_, rf_;          // constant float16 W and R as float32 (or empty)
  RecurrentPacked packed_;  // constant W and R packed (or empty)
  int64_t hidden_ = 0;
  int64_t dirs_ = 1;
  int64_t layout_ = 0;
  bool reverse_ = false;
  bool linear_before_reset_ = false;
  bool input_forget_ = false;
  float clip_ = 0;
  std::vector<RnnActivation> acts_;
};

// X, W, R, B, initial_h (and initial_c, P for LSTM) share T; sequence_lens is int32.
KernelDef RecurrentDef(const char* op, int since, int n_t_inputs, KernelFactory f) {
  std::vector<int> t_inputs = {0, 1, 2, 3, 5};
  if (n_t_inputs > 5) t_inputs.insert(t_inputs.end(), {6, 7});
  return Def(op, since,
             {{"T", t_inputs, {0, 1, 2}, {DataType::kFloat, DataType::kDouble, DataType::kFloat16}},
              {"T1", {4}, {}, {DataType::kInt32}}},
             std::move(f));
}

}  // namespace

Result<std::unique_ptr<KernelBase>> CreateLstmWithWeights(const KernelInfo& info, Shape w_shape,
                                                          Shape r_shape,
                                                          FloatWeightsFn float_weights,
                                                          QuantizedMatrix wq, QuantizedMatrix rq) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::unique_ptr<KernelBase> k,
                              Recurrent<RnnCell::kLstm>::Create(info));
  ONNX_LIGHT_RETURN_IF_ERROR(static_cast<Recurrent<RnnCell::kLstm>*>(k.get())->GivenWeights(
      std::move(w_shape), std::move(r_shape), std::move(float_weights), std::move(wq),
      std::move(rq)));
  return k;
}

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, RNN) {
  return r.Register(RecurrentDef("RNN", 7, 5, FactoryOf<Recurrent<RnnCell::kRnn>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GRU) {
  return r.Register(RecurrentDef("GRU", 7, 5, FactoryOf<Recurrent<RnnCell::kGru>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LSTM) {
  return r.Register(RecurrentDef("LSTM", 7, 7, FactoryOf<Recurrent<RnnCell::kLstm>>()));
}

}  // namespace onnx_light::kernels
