// MatMul (numpy semantics: 1-D promotion and batch broadcasting) and Gemm.
//
// The products go through Gemm2D (gemm.h): OpenBLAS for float/double, a vectorized loop
// for integers; 16-bit floats are widened to float once per operand. The choice was made
// by bench/linalg_vs_ort.py against ONNX Runtime (docs/performance.md).
#include "math/linalg.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "math/gemm.h"
#include "math/packed_weights.h"
#include "math/widened.h"

namespace onnx_light::kernels {
namespace {

class MatMul : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::unique_ptr<MatMul>(new MatMul());
    k->weights_ = PackedWeights::Of(info, 1);
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    // The dims read where they are (no copies: a small MatMul in a loop body paid an
    // allocation for each copy and each growth of the output's dims).
    const std::vector<int64_t>& ad = a.shape().dims();
    const std::vector<int64_t>& bd = b.shape().dims();
    ONNX_LIGHT_RETURN_IF(ad.empty() || bd.empty(), kInvalidArgument,
                         "MatMul needs inputs of rank >= 1");
    const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
    const int64_t m = a_vec ? 1 : ad[ad.size() - 2], k = ad.back();
    const int64_t n = b_vec ? 1 : bd.back(), kb = b_vec ? bd[0] : bd[bd.size() - 2];
    ONNX_LIGHT_RETURN_IF(kb != k, kInvalidArgument,
                         "shapes " + a.shape().ToString() + " and " + b.shape().ToString() +
                             " do not align for a matrix product");
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape abatch, Shape::Create(ad.data(), a_vec ? 0 : ad.size() - 2));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape bbatch, Shape::Create(bd.data(), b_vec ? 0 : bd.size() - 2));
    ONNX_LIGHT_ASSIGN_OR_RETURN(auto batch, BroadcastDims(abatch, bbatch));
    std::vector<int64_t> out;
    out.reserve(batch.size() + 2);
    out = batch;
    if (!a_vec) out.push_back(m);
    if (!b_vec) out.push_back(n);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    int64_t nbatch = 1;
    for (int64_t d : batch)
      nbatch *= d;
    int64_t rows = m;  // rows of A per product
    if (b.num_elements() == k * n && abatch.dims() == batch) {
      // One B for every batch of A: a single (nbatch * m) x k product.
      rows = nbatch * m;
      nbatch = 1;
    }
    const std::vector<int64_t> sa = BroadcastStrides(abatch, batch);
    const std::vector<int64_t> sb = BroadcastStrides(bbatch, batch);
    ThreadPool* pool = ctx.thread_pool();
    Status status = Status::Ok();
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_same_v<T, bool>) {
        using C = MatAcc<T>;
        Widened<T> wa(a.data<T>(), a.num_elements()), wb(b.data<T>(), b.num_elements());
        std::vector<C> acc(std::is_same_v<C, T> ? 0 : static_cast<size_t>(rows * n));
        T* yp = y->mutable_data<T>();
        // Batch t's offsets into a and b (numpy broadcasting over the batch dims).
        auto offsets = [&](int64_t t, int64_t* oa, int64_t* ob) {
          *oa = 0;
          *ob = 0;
          for (size_t d = batch.size(); d-- > 0 && nbatch > 1;) {
            const int64_t p = t % batch[d];
            t /= batch[d];
            *oa += p * sa[d];
            *ob += p * sb[d];
          }
        };
        if constexpr (std::is_same_v<T, float>) {
          // Many small float products (attention heads): whole products split between the
          // threads, each on one thread (a product this small does not split itself).
          if (nbatch > 1 && pool != nullptr && pool->threads() > 1 &&
              rows * n * k < (int64_t{1} << 21) && nbatch * rows * n * k >= (int64_t{1} << 18)) {
            pool->ParallelFor(nbatch, 1, [&](int64_t t0, int64_t t1) {
              for (int64_t t = t0; t < t1; ++t) {
                int64_t oa, ob;
                offsets(t, &oa, &ob);
                float* dst = yp + t * rows * n;
                Gemm2DOverwrite<float>(wa.data + oa * m * k, k, 1, wb.data + ob * k * n, n, 1, dst,
                                       rows, n, k, nullptr);
              }
            });
            return;
          }
        }
        for (int64_t t = 0; t < nbatch; ++t) {
          int64_t oa, ob;
          offsets(t, &oa, &ob);
          C* dst;
          if constexpr (std::is_same_v<C, T>) {
            dst = yp + t * rows * n;
          } else {
            dst = acc.data();
          }
          // dst = a * b: the products write it (c not read), nothing clears it first.
          bool done = false;
          if constexpr (std::is_same_v<T, float>) {
            // A packed view (weights_.is_view()) is read by the packed product only.
            done = b.shape().rank() == 2 &&
                   PrepackedGemm(wa.data + oa * m * k, k, weights_.For(k, n), dst, rows, n, k, pool,
                                 /*force=*/weights_.is_view(), /*overwrite=*/true);
          }
          if (!done && weights_.is_view()) {
            status = Status(StatusCode::kInternal, "packed weights do not match B");
            return;
          }
          if (!done) {
            Gemm2DOverwrite<C>(wa.data + oa * m * k, k, 1, wb.data + ob * k * n, n, 1, dst, rows, n,
                               k, pool);
          }
          if constexpr (!std::is_same_v<C, T>) {
            for (int64_t i = 0; i < rows * n; ++i)
              yp[t * rows * n + i] = static_cast<T>(acc[static_cast<size_t>(i)]);
          }
        }
      }
    });
    return status;
  }

 private:
  PackedWeights weights_;
};

// Y = alpha * op(A) * op(B) + beta * C, C broadcast to (M, N).
class Gemm : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto g = std::make_unique<Gemm>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(g->alpha_, info.GetFloat("alpha", 1.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(g->beta_, info.GetFloat("beta", 1.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(g->trans_a_, GetFlag(info, "transA", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(g->trans_b_, GetFlag(info, "transB", false));
    if (info.opset() < 7 && info.domain().empty()) {  // opset 1-6: C broadcasts with broadcast=1
      ONNX_LIGHT_ASSIGN_OR_RETURN(bool broadcast, GetFlag(info, "broadcast", false));
      g->exact_c_ = !broadcast;
    }
    // Constant weights read row-major (transpose_gemm_weights makes most Gemm so): packed
    // once, as MatMul's.
    if (!g->trans_a_ && !g->trans_b_) g->weights_ = PackedWeights::Of(info, 1);
    return std::unique_ptr<KernelBase>(std::move(g));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& a = *ctx.input(0);
    const Tensor& b = *ctx.input(1);
    const Tensor* c = ctx.input(2);
    if (a.shape().rank() != 2 || b.shape().rank() != 2) {
      return Status(
          StatusCode::kInvalidArgument,
          "A and B must be 2-D, got " + a.shape().ToString() + " and " + b.shape().ToString());
    }
    const int64_t m = trans_a_ ? a.shape()[1] : a.shape()[0];
    const int64_t k = trans_a_ ? a.shape()[0] : a.shape()[1];
    const int64_t kb = trans_b_ ? b.shape()[1] : b.shape()[0];
    const int64_t n = trans_b_ ? b.shape()[0] : b.shape()[1];
    ONNX_LIGHT_RETURN_IF(
        k != kb, kInvalidArgument,
        "inner dimensions " + std::to_string(k) + " and " + std::to_string(kb) + " differ");
    std::vector<int64_t> cs;
    if (c != nullptr) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(Shape mn, Shape::Create({m, n}));
      ONNX_LIGHT_ASSIGN_OR_RETURN(auto dims, BroadcastDims(c->shape(), mn));
      ONNX_LIGHT_RETURN_IF((dims != std::vector<int64_t>{m, n}), kInvalidArgument,
                           "C " + c->shape().ToString() + " does not broadcast to [" +
                               std::to_string(m) + ", " + std::to_string(n) + "]");
      ONNX_LIGHT_RETURN_IF((exact_c_ && c->shape().dims() != std::vector<int64_t>{m, n}),
                           kInvalidArgument,
                           "C " + c->shape().ToString() + " must be [" + std::to_string(m) + ", " +
                               std::to_string(n) + "] when broadcast is 0");
      cs = BroadcastStrides(c->shape(), dims);
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, {m, n}));
    Status status;
    DispatchNumeric(a.dtype(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (!std::is_integral_v<T>) {
        using C = MatAcc<T>;
        Widened<T> wa(a.data<T>(), a.num_elements()), wb(b.data<T>(), b.num_elements());
        T* yp = y->mutable_data<T>();
        const C alpha = static_cast<C>(alpha_), beta = static_cast<C>(beta_);
        // alpha 1 in float or double: y starts as beta * C (or 0) and the product adds to it
        // (no buffer of m x n sums, no second pass). Otherwise the sums, then the scaling.
        const bool direct = std::is_same_v<C, T> && alpha_ == 1.0f;
        std::vector<C> acc(direct ? 0 : static_cast<size_t>(m * n), C(0));
        C* dst = nullptr;
        // Without C the product writes y (nothing cleared first); with C it adds to beta * C.
        const bool overwrite = direct && c == nullptr;
        if constexpr (std::is_same_v<C, T>) {
          if (direct && c != nullptr) {
            for (int64_t i = 0; i < m; ++i) {
              for (int64_t j = 0; j < n; ++j)
                yp[i * n + j] = beta * c->data<T>()[i * cs[0] + j * cs[1]];
            }
          }
          if (direct) dst = yp;
        }
        if (!direct) dst = acc.data();
        bool done = false;
        if constexpr (std::is_same_v<T, float>) {
          // A packed view (weights_.is_view()) is read by the packed product only.
          done = !trans_a_ && !trans_b_ &&
                 PrepackedGemm(wa.data, k, weights_.For(k, n), dst, m, n, k, ctx.thread_pool(),
                               /*force=*/weights_.is_view(), overwrite);
        }
        if (!done && weights_.is_view()) {
          status = Status(StatusCode::kInternal, "packed weights do not match B");
          return;
        }
        if (!done && overwrite) {
          Gemm2DOverwrite<C>(wa.data, trans_a_ ? 1 : k, trans_a_ ? m : 1, wb.data, trans_b_ ? 1 : n,
                             trans_b_ ? k : 1, dst, m, n, k, ctx.thread_pool());
        } else if (!done) {
          Gemm2D<C>(wa.data, trans_a_ ? 1 : k, trans_a_ ? m : 1, wb.data, trans_b_ ? 1 : n,
                    trans_b_ ? k : 1, dst, m, n, k, ctx.thread_pool());
        }
        if (!direct) {
          for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
              C v = alpha * acc[static_cast<size_t>(i * n + j)];
              if (c != nullptr) {
                v += beta * static_cast<C>(c->data<T>()[i * cs[0] + j * cs[1]]);
              }
              yp[i * n + j] = static_cast<T>(v);
            }
          }
        }
        if constexpr (std::is_same_v<T, float>) {
          if (epilogue_) epilogue_(yp, m * n);
        }
      }
    });
    return status;
  }
  void set_epilogue(FloatEpilogue epilogue) { epilogue_ = std::move(epilogue); }

 private:
  FloatEpilogue epilogue_;
  PackedWeights weights_;
  float alpha_ = 1, beta_ = 1;
  bool trans_a_ = false, trans_b_ = false;
  bool exact_c_ = false;
};

std::vector<DataType> MatMulTypes() {
  return {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat,  DataType::kDouble,
          DataType::kInt32,   DataType::kInt64,    DataType::kUint32, DataType::kUint64};
}

}  // namespace

Result<std::unique_ptr<KernelBase>> CreateGemm(const KernelInfo& info, FloatEpilogue epilogue) {
  ONNX_LIGHT_ASSIGN_OR_RETURN(std::unique_ptr<KernelBase> k, Gemm::Create(info));
  static_cast<Gemm&>(*k).set_epilogue(std::move(epilogue));
  return k;
}

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, MatMul) {
  return r.Register(Def("MatMul", 1, {{"T", {0, 1}, {0}, MatMulTypes()}}, FactoryOf<MatMul>()));
}
ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Gemm) {
  // Opset 1-6 differ only by the `broadcast` attribute for C (read in Create).
  return r.Register(Def("Gemm", 1, {{"T", {0, 1, 2}, {0}, FloatTypes()}}, FactoryOf<Gemm>()));
}

}  // namespace onnx_light::kernels
