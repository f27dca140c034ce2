// RNN, GRU and LSTM (forward, reverse, bidirectional; sequence_lens; initial states;
// LSTM peepholes and input_forget; GRU linear_before_reset; layout 0 and 1; clip; the
// ONNX activation functions with their alpha/beta). Computed in double per time step,
// rounded once to the storage type.
#include "rnn/recurrent.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/platform/mapped_file.h"
#include "rnn/lstm_f32.h"
#include "simd/gemm_simd.h"

namespace onnx_light::kernels {
namespace {

enum class Cell { kRnn, kGru, kLstm };

struct Activation {
  std::string name;
  double alpha = 0, beta = 0;
  double operator()(double x) const {
    if (name == "Sigmoid") return 1.0 / (1.0 + std::exp(-x));
    if (name == "Tanh") return std::tanh(x);
    if (name == "Relu") return x > 0 ? x : 0;
    if (name == "LeakyRelu") return x >= 0 ? x : alpha * x;
    if (name == "ThresholdedRelu") return x > alpha ? x : 0;
    if (name == "ScaledTanh") return alpha * std::tanh(beta * x);
    if (name == "HardSigmoid") return std::fmax(0.0, std::fmin(1.0, alpha * x + beta));
    if (name == "Elu") return x >= 0 ? x : alpha * (std::exp(x) - 1);
    if (name == "Softsign") return x / (1 + std::fabs(x));
    if (name == "Softplus") return std::log1p(std::exp(x));
    return alpha * x + beta;  // Affine
  }
};

bool KnownActivation(const std::string& n) {
  for (const char* k : {"Sigmoid", "Tanh", "Relu", "LeakyRelu", "ThresholdedRelu", "ScaledTanh",
                        "HardSigmoid", "Elu", "Softsign", "Softplus", "Affine"}) {
    if (n == k) return true;
  }
  return false;
}

// Default alpha for the activations that take one (ONNX's defaults).
double DefaultAlpha(const std::string& n) {
  if (n == "LeakyRelu") return 0.01;
  if (n == "HardSigmoid") return 0.2;
  if (n == "ThresholdedRelu" || n == "Elu" || n == "ScaledTanh" || n == "Affine") return 1.0;
  return 0;
}
double DefaultBeta(const std::string& n) {
  if (n == "HardSigmoid") return 0.5;
  if (n == "ScaledTanh") return 1.0;
  return 0;
}

template <Cell kCell>
class Recurrent : public KernelBase {
 public:
  static constexpr int kGates = kCell == Cell::kLstm ? 4 : (kCell == Cell::kGru ? 3 : 1);
  static constexpr int kActsPerDir = kCell == Cell::kRnn ? 1 : (kCell == Cell::kGru ? 2 : 3);

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
        if (kCell == Cell::kRnn) names.push_back("Tanh");
        if (kCell == Cell::kGru) names.insert(names.end(), {"Sigmoid", "Tanh"});
        if (kCell == Cell::kLstm) names.insert(names.end(), {"Sigmoid", "Tanh", "Tanh"});
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
    for (size_t i = 0; i < names.size(); ++i) {
      ONNX_LIGHT_RETURN_IF(!KnownActivation(names[i]), kNotImplemented,
                           "activation '" + names[i] + "' is not supported");
      Activation act{names[i], DefaultAlpha(names[i]), DefaultBeta(names[i])};
      if (i < alphas.size()) act.alpha = alphas[i];
      if (i < betas.size()) act.beta = betas[i];
      k->acts_.push_back(act);
    }
    ONNX_LIGHT_RETURN_IF(k->hidden_ < 1, kInvalidModel, "hidden_size must be >= 1");
    // The weights' shapes are products of up to 2 * 4 gates and hidden_size: they must fit
    // int64 (a hidden_size near INT64_MAX overflowed them).
    ONNX_LIGHT_RETURN_IF(k->hidden_ > INT64_MAX / 8, kOutOfRange,
                         "hidden_size " + std::to_string(k->hidden_) + " is too large");
    if constexpr (kCell == Cell::kLstm) k->PackInputWeights(info.constant_input(1));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const Tensor& w = *In(ctx, 1);
    const Tensor& r = *In(ctx, 2);
    ONNX_LIGHT_RETURN_IF(x.shape().rank() != 3, kInvalidArgument, "X must be 3-D");
    const int64_t seq = layout_ == 0 ? x.shape()[0] : x.shape()[1];
    const int64_t batch = layout_ == 0 ? x.shape()[1] : x.shape()[0];
    const int64_t in_sz = x.shape()[2], h = hidden_, g = kGates;
    auto check = [&](const Tensor* t, std::vector<int64_t> dims, const char* what) -> Status {
      if (t != nullptr && t->shape().dims() != dims) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(Shape want, Shape::Create(dims));
        return Status(
            StatusCode::kInvalidArgument,
            std::string(what) + " is " + t->shape().ToString() + ", expected " + want.ToString());
      }
      return Status::Ok();
    };
    ONNX_LIGHT_RETURN_IF_ERROR(check(&w, {dirs_, g * h, in_sz}, "W"));
    ONNX_LIGHT_RETURN_IF_ERROR(check(&r, {dirs_, g * h, h}, "R"));
    ONNX_LIGHT_RETURN_IF_ERROR(check(ctx.input(3), {dirs_, 2 * g * h}, "B"));
    ONNX_LIGHT_RETURN_IF_ERROR(check(ctx.input(4), {batch}, "sequence_lens"));
    const std::vector<int64_t> state_dims = layout_ == 0 ? std::vector<int64_t>{dirs_, batch, h}
                                                         : std::vector<int64_t>{batch, dirs_, h};
    ONNX_LIGHT_RETURN_IF_ERROR(check(ctx.input(5), state_dims, "initial_h"));
    if (kCell == Cell::kLstm) {
      ONNX_LIGHT_RETURN_IF_ERROR(check(ctx.input(6), state_dims, "initial_c"));
      ONNX_LIGHT_RETURN_IF_ERROR(check(ctx.input(7), {dirs_, 3 * h}, "P"));
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
    if (kCell == Cell::kLstm && ctx.output_count() > 2) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(yc, ctx.AllocateOutput(2, state_dims));
    }
    if (FastLstm(ctx, lens)) {
      struct Scratch : KernelState {
        LstmScratch buf;
      };
      auto data = [](const Tensor* t) { return t != nullptr ? t->data<float>() : nullptr; };
      auto out = [](Tensor* t) { return t != nullptr ? t->mutable_data<float>() : nullptr; };
      const bool packed = w_packed_.num_elements() > 0 && w_packed_k_ == in_sz;
      LstmF32({x.data<float>(),
               w.data<float>(),
               r.data<float>(),
               data(ctx.input(3)),
               data(ctx.input(5)),
               data(ctx.input(6)),
               seq,
               batch,
               in_sz,
               h,
               dirs_,
               reverse_,
               out(y),
               out(yh),
               out(yc),
               &ctx.State<Scratch>().buf,
               ctx.thread_pool(),
               packed ? w_packed_.data<float>() : nullptr,
               w_packed_stride_,
               quantized_ ? &wq_ : nullptr,
               quantized_ ? &rq_ : nullptr});
      return Status::Ok();
    }
    DispatchNumeric(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) Run<T>(ctx, seq, batch, in_sz, lens, y, yh, yc);
    });
    return Status::Ok();
  }

 private:
  // The configuration rnn/lstm_f32.h computes in float32.
  bool FastLstm(const KernelContext& ctx, const std::vector<int64_t>& lens) const {
    if (kCell != Cell::kLstm || ctx.input(0)->dtype() != DataType::kFloat || layout_ != 0 ||
        clip_ > 0 || input_forget_ || ctx.input(7) != nullptr) {
      return false;
    }
    const int64_t seq = ctx.input(0)->shape()[0];
    for (int64_t len : lens) {
      if (len != seq) return false;
    }
    for (size_t i = 0; i < acts_.size(); ++i) {
      if (acts_[i].name != (i % 3 == 0 ? "Sigmoid" : "Tanh")) return false;
    }
    return true;
  }

 private:
  template <typename T>
  void Run(KernelContext& ctx, int64_t seq, int64_t batch, int64_t in_sz,
           const std::vector<int64_t>& lens, Tensor* y, Tensor* yh, Tensor* yc) const {
    const int64_t h = hidden_, g = kGates;
    const std::vector<double> x = ToDoubles(ctx.input(0)), w = ToDoubles(In(ctx, 1)),
                              r = ToDoubles(In(ctx, 2)), b = ToDoubles(ctx.input(3)),
                              h0 = ToDoubles(ctx.input(5)),
                              c0 = kCell == Cell::kLstm ? ToDoubles(ctx.input(6))
                                                        : std::vector<double>(),
                              p = kCell == Cell::kLstm ? ToDoubles(ctx.input(7))
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
      const Activation& f = acts_[static_cast<size_t>(d * kActsPerDir)];
      const Activation& ga =
          acts_[static_cast<size_t>(d * kActsPerDir + (kActsPerDir > 1 ? 1 : 0))];
      const Activation& ha = acts_[static_cast<size_t>(d * kActsPerDir + kActsPerDir - 1)];
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
          if constexpr (kCell == Cell::kRnn) {
            for (int64_t j = 0; j < h; ++j)
              rh[static_cast<size_t>(j)] =
                  f(clip(gates[static_cast<size_t>(j)] + rdot(j, hid) + rbias(j)));
            hid = rh;
          } else if constexpr (kCell == Cell::kGru) {  // gate order z, r, h
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

  // A constant float W [dirs, 4h, input] of an LSTM: each direction's W^T [input, 4h]
  // packed once (SgemmPackB), so the input projection of every run reads it as constant
  // weights instead of gathering the columns of W (ddddocr's 2 x 2048 x 512 on AVX2: the
  // gather was 10% of the model's time). W itself stays: the general path reads it.
  void PackInputWeights(const Tensor* w) {
    if (w == nullptr || w->dtype() != DataType::kFloat || w->shape().rank() != 3 ||
        w->shape()[0] != dirs_ || w->shape()[1] != 4 * hidden_ ||
        w->num_elements() < (int64_t{1} << 18)) {
      return;  // small weights (Silero's 512 x 128) gather cheaply; packing them would cost
               // the first run more than it saves
    }
    const int64_t g4 = w->shape()[1], in = w->shape()[2];
    const auto per_dir = static_cast<int64_t>(SgemmPackedBFloats(in, g4));
    Result<Shape> shape = Shape::Create({dirs_ * per_dir});
    if (!shape.ok()) return;
    Result<Tensor> packed = Tensor::Allocate(DataType::kFloat, std::move(*shape));
    if (!packed.ok()) return;
    for (int64_t d = 0; d < dirs_; ++d) {  // W [4h, in] read as W^T [in, 4h]: transposed
      SgemmPackB(in, g4, w->data<float>() + d * g4 * in, in,
                 packed->mutable_data<float>() + d * per_dir, /*b_trans=*/true);
    }
    w_packed_ = std::move(*packed);
    w_packed_k_ = in;
    w_packed_stride_ = per_dir;
    // The model file's pages of W go back: the packed copy serves every full-length run,
    // and the general path maps them in again if it ever reads W.
    ReleaseMappedPages(w->raw_data(), w->byte_size());
  }

  // W and R given as float tensors instead of read from inputs 1 and 2 (GivenWeights).
  const Tensor* In(const KernelContext& ctx, size_t i) const {
    if (given_ && (i == 1 || i == 2)) return i == 1 ? &w_given_ : &r_given_;
    return ctx.input(i);
  }

 public:
  void GivenWeights(Tensor w, Tensor r, QuantizedMatrix wq, QuantizedMatrix rq) {
    w_given_ = std::move(w);
    r_given_ = std::move(r);
    given_ = true;
    quantized_ = wq.usable() && rq.usable();
    if (quantized_) {
      wq_ = std::move(wq);
      rq_ = std::move(rq);
    } else if constexpr (kCell == Cell::kLstm) {
      PackInputWeights(&w_given_);
    }
  }

 private:
  Tensor w_given_, r_given_;
  QuantizedMatrix wq_, rq_;  // DynamicQuantizeLSTM's 8-bit weights, packed
  bool quantized_ = false;
  bool given_ = false;
  Tensor w_packed_;
  int64_t w_packed_k_ = 0, w_packed_stride_ = 0;
  int64_t hidden_ = 0;
  int64_t dirs_ = 1;
  int64_t layout_ = 0;
  bool reverse_ = false;
  bool linear_before_reset_ = false;
  bool input_forget_ = false;
  float clip_ = 0;
  std::vector<Activation> acts_;
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

Result<std::unique_ptr<KernelBase>> CreateLstmWithWeights(const KernelInfo& info, Tensor w,
                                                          Tensor r, QuantizedMatrix wq,
                                                          QuantizedMatrix rq) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::unique_ptr<KernelBase> k, Recurrent<Cell::kLstm>::Create(info));
  static_cast<Recurrent<Cell::kLstm>*>(k.get())->GivenWeights(std::move(w), std::move(r),
                                                              std::move(wq), std::move(rq));
  return k;
}

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, RNN) {
  return r.Register(RecurrentDef("RNN", 7, 5, FactoryOf<Recurrent<Cell::kRnn>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, GRU) {
  return r.Register(RecurrentDef("GRU", 7, 5, FactoryOf<Recurrent<Cell::kGru>>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, LSTM) {
  return r.Register(RecurrentDef("LSTM", 7, 7, FactoryOf<Recurrent<Cell::kLstm>>()));
}

}  // namespace onnx_light::kernels
