// com.microsoft FusedMatMul (and TransposeMatMul, its older name): Y = alpha * A' @ B' with
// numpy's matmul semantics, where A' is A with, when transBatchA, its first dimension moved
// behind the other batch dimensions ([d0, d1, .., dr-2, dr-1] -> [d1, .., dr-2, d0, dr-1]),
// then, when transA, its last two dimensions swapped (B likewise). ORT's optimizer folds a
// Transpose and a Mul/Div by a constant into it (attention's Q @ K^T / sqrt(d)).
// transA/transB are read as strides by the product; transBatch moves the data once and, as
// in ORT, needs inputs of the same rank >= 3. One case differs from ORT on purpose: transA
// with a 1-D B is the documented transposition here, while ORT 1.30 reads A untransposed.
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "com_microsoft/ms_def.h"
#include "common/broadcast.h"
#include "math/gemm.h"
#include "onnx_light/runtime/thread_pool.h"

namespace onnx_light::kernels {
namespace {

class FusedMatMul : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<FusedMatMul>();
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->alpha_, info.GetFloat("alpha", 1.0f));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->trans_[0], GetFlag(info, "transA", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->trans_[1], GetFlag(info, "transB", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->trans_batch_[0], GetFlag(info, "transBatchA", false));
    ONNX_LIGHT_ASSIGN_OR_RETURN(k->trans_batch_[1], GetFlag(info, "transBatchB", false));
    return std::unique_ptr<KernelBase>(std::move(k));
  }

  Status Compute(KernelContext& ctx) const override {
    const Tensor* in[2] = {ctx.input(0), ctx.input(1)};
    Tensor moved[2];
    ONNX_LIGHT_RETURN_IF(
        (trans_batch_[0] || trans_batch_[1]) &&
            (in[0]->shape().rank() < 3 || in[0]->shape().rank() != in[1]->shape().rank()),
        kInvalidArgument,
        "transBatchA and transBatchB need inputs of the same rank >= 3, got " +
            in[0]->shape().ToString() + " and " + in[1]->shape().ToString());
    for (int i = 0; i < 2; ++i) {
      ONNX_LIGHT_RETURN_IF(in[i]->shape().rank() == 0, kInvalidArgument,
                           "FusedMatMul needs inputs of rank >= 1");
      if (trans_batch_[i] && in[i]->shape().rank() >= 3) {
        ONNX_LIGHT_ASSIGN_OR_RETURN(moved[i], MoveFirstBehindBatch(ctx, *in[i]));
        in[i] = &moved[i];
      }
    }
    std::vector<int64_t> ad = in[0]->shape().dims(), bd = in[1]->shape().dims();
    const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
    if (a_vec) ad.insert(ad.begin(), 1);
    if (b_vec) bd.push_back(1);
    const bool ta = trans_[0] && !a_vec, tb = trans_[1] && !b_vec;
    const int64_t ar = ad[ad.size() - 2], ac = ad.back(), br = bd[bd.size() - 2], bc = bd.back();
    const int64_t m = ta ? ac : ar, k = ta ? ar : ac, kb = tb ? bc : br, n = tb ? br : bc;
    ONNX_LIGHT_RETURN_IF(k != kb, kInvalidArgument,
                         "shapes " + in[0]->shape().ToString() + " and " +
                             in[1]->shape().ToString() + " do not align for the product" +
                             (ta || tb ? " (after transA/transB)" : ""));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape abatch,
                                Shape::Create(std::vector<int64_t>(ad.begin(), ad.end() - 2)));
    ONNX_LIGHT_ASSIGN_OR_RETURN(Shape bbatch,
                                Shape::Create(std::vector<int64_t>(bd.begin(), bd.end() - 2)));
    ONNX_LIGHT_ASSIGN_OR_RETURN(std::vector<int64_t> batch, BroadcastDims(abatch, bbatch));
    std::vector<int64_t> out = batch;
    if (!a_vec) out.push_back(m);
    if (!b_vec) out.push_back(n);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out));
    Product p;
    p.m = m, p.n = n, p.k = k;
    p.lda_row = ta ? 1 : ac, p.lda_col = ta ? ac : 1;
    p.ldb_row = tb ? 1 : bc, p.ldb_col = tb ? bc : 1;
    p.batch = batch;
    p.sa = BroadcastStrides(abatch, batch);
    p.sb = BroadcastStrides(bbatch, batch);
    if (y->dtype() == DataType::kFloat) {
      Run<float>(in[0]->data<float>(), in[1]->data<float>(), y->mutable_data<float>(), p, ctx);
    } else {
      Run<double>(in[0]->data<double>(), in[1]->data<double>(), y->mutable_data<double>(), p, ctx);
    }
    return Status::Ok();
  }

 private:
  struct Product {
    int64_t m = 0, n = 0, k = 0, lda_row = 0, lda_col = 0, ldb_row = 0, ldb_col = 0;
    std::vector<int64_t> batch, sa, sb;  // broadcast batch dims; strides in matrices
  };

  // x [d0, d1, .., dr-2, dr-1] as [d1, .., dr-2, d0, dr-1]: a [d0, P, dr-1] -> [P, d0, dr-1]
  // transpose.
  static Result<Tensor> MoveFirstBehindBatch(const KernelContext& ctx, const Tensor& x) {
    std::vector<int64_t> d = x.shape().dims();
    const int64_t d0 = d[0], last = d.back();
    const int64_t p = d0 == 0 || last == 0 ? 0 : x.num_elements() / (d0 * last);
    std::vector<int64_t> nd(d.begin() + 1, d.end() - 1);
    nd.push_back(d0);
    nd.push_back(last);
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor t, ctx.AllocateTemporary(x.dtype(), nd));
    const size_t es = x.dtype() == DataType::kFloat ? sizeof(float) : sizeof(double);
    const auto* src = static_cast<const char*>(x.raw_data());
    auto* dst = static_cast<char*>(t.mutable_raw_data());
    const auto row = static_cast<size_t>(last) * es;
    for (int64_t i = 0; i < d0; ++i) {
      for (int64_t q = 0; q < p; ++q)
        std::memcpy(dst + static_cast<size_t>(q * d0 + i) * row,
                    src + static_cast<size_t>(i * p + q) * row, row);
    }
    return t;
  }

  template <typename T>
  void Run(const T* a, const T* b, T* y, const Product& p, KernelContext& ctx) const {
    int64_t nbatch = 1;
    for (int64_t d : p.batch)
      nbatch *= d;
    const int64_t mn = p.m * p.n, a_size = p.m * p.k, b_size = p.k * p.n;
    auto one = [&](int64_t t, ThreadPool* pool) {
      int64_t oa = 0, ob = 0;
      for (size_t d = p.batch.size(), rest = static_cast<size_t>(t); d-- > 0;) {
        const auto at = static_cast<int64_t>(rest % static_cast<size_t>(p.batch[d]));
        rest /= static_cast<size_t>(p.batch[d]);
        oa += at * p.sa[d];
        ob += at * p.sb[d];
      }
      T* dst = y + t * mn;
      Gemm2DOverwrite<T>(a + oa * a_size, p.lda_row, p.lda_col, b + ob * b_size, p.ldb_row,
                         p.ldb_col, dst, p.m, p.n, p.k, pool);
      if (alpha_ != 1.0f) {
        const auto alpha = static_cast<T>(alpha_);
        for (int64_t i = 0; i < mn; ++i)
          dst[i] *= alpha;
      }
    };
    ThreadPool* pool = ctx.thread_pool();
    // Many small products (attention heads): whole products split between the threads.
    if (nbatch > 1 && pool != nullptr && pool->threads() > 1 && mn * p.k < (int64_t{1} << 21) &&
        nbatch * mn * p.k >= (int64_t{1} << 17)) {
      pool->ParallelFor(nbatch, 1, [&](int64_t t0, int64_t t1) {
        for (int64_t t = t0; t < t1; ++t)
          one(t, nullptr);
      });
      return;
    }
    for (int64_t t = 0; t < nbatch; ++t)
      one(t, pool);
  }

  float alpha_ = 1;
  bool trans_[2] = {false, false};
  bool trans_batch_[2] = {false, false};
};

KernelDef FusedMatMulDef(const char* op) {
  return MsDef(op, {{"T", {0, 1}, {0}, {DataType::kFloat, DataType::kDouble}}},
               FactoryOf<FusedMatMul>(), {2, 2});
}

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, FusedMatMul) {
  return r.Register(FusedMatMulDef("FusedMatMul"));
}
ONNX_LIGHT_REGISTER_KERNEL(com_microsoft, TransposeMatMul) {
  return r.Register(FusedMatMulDef("TransposeMatMul"));
}

}  // namespace onnx_light::kernels
