// Transpose: axes permuted, every tensor type (blocked for the 2-D-like cases).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/broadcast.h"
#include "common/kernel_util.h"
#include "onnx_light/runtime/tensor_proto.h"
#include "simd/byte_transpose_x86.h"
#include "simd/transpose_simd.h"
#include "tensor/permute.h"

namespace onnx_light::kernels {
namespace {

// Fixed-size elements: one output row (the last output axis) at a time, a strided gather
// with typed loads, the index carried once per row. When the last axis keeps its place
// (unit stride) the row is a contiguous copy.
// dst[b][r][c] = src[b * batch_stride + c * ld + r]: a batch of R x C transposes, in
// 16 x 16 blocks so that reads and writes both stay within a few cache lines. Bands of
// output rows (16, or 256 when there are few columns) are the tasks split across the pool
// for a large tensor (a quantized CNN's NCHW -> NHWC uint8 input: 20 us at 3 x 128 x 128).
// d[r * cols + c] = s[c * ld + r] for r in [r0, r1), c < cols (at most 4). The sizes are
// parameters, not a lambda's captures: byte stores may alias anything, and the loop
// reloaded its bounds at every byte (a 3 x 128 x 128 uint8 image took 28 us, ORT 11).
template <typename U>
void InterleaveStreams(const U* __restrict s, int64_t ld, int64_t cols, int64_t r0, int64_t r1,
                       U* __restrict d) {
  if (cols == 3) {
    const U* __restrict s0 = s;
    const U* __restrict s1 = s + ld;
    const U* __restrict s2 = s + 2 * ld;
    for (int64_t r = r0; r < r1; ++r) {
      d[3 * r] = s0[r];
      d[3 * r + 1] = s1[r];
      d[3 * r + 2] = s2[r];
    }
    return;
  }
  for (int64_t c = 0; c < cols; ++c) {
    const U* __restrict sc = s + c * ld;
    U* __restrict dc = d + c;
    for (int64_t r = r0; r < r1; ++r)
      dc[r * cols] = sc[r];
  }
}

// One R x C tile set: d[r * ldd + c] = s[c * ld + r] for r < rows, c < cols, in 16 x 16
// blocks (rows [r0, r1) of them) so that reads and writes both stay within a few cache
// lines; `cols` <= 4 from that many streams.
template <typename U>
void TransposeTile(const U* s, U* d, int64_t r0, int64_t r1, int64_t cols, int64_t ld,
                   int64_t ldd) {
  constexpr int64_t kBlock = 16;
  if (cols <= 4 && ldd == cols) {  // (an image's few channels last: `cols` streams)
    InterleaveStreams(s, ld, cols, r0, r1, d);
    return;
  }
  for (int64_t c0 = 0; c0 < cols; c0 += kBlock) {
    const int64_t c1 = std::min(cols, c0 + kBlock);
    if constexpr (sizeof(U) ==
                  4) {  // 4 x 4 blocks in vector code (NCHW -> NHWC: 3.36x -> 1.22x ORT)
      TransposeTileU32(reinterpret_cast<const uint32_t*>(s), reinterpret_cast<uint32_t*>(d), r0, r1,
                       c0, c1, ld, ldd);
      continue;
    }
    int64_t r = r0;
#ifdef ONNX_LIGHT_BYTE_TRANSPOSE_SSE2
    if constexpr (sizeof(U) == 1) {  // whole 16 x 16 blocks in SSE2 registers (a quantized
      // NCHW convolution's NHWC copies in and out: 30% of its time element by element)
      if (c1 - c0 == kBlock) {
        for (; r + kBlock <= r1; r += kBlock)
          TransposeBlock16x16U8(reinterpret_cast<const uint8_t*>(s + c0 * ld + r), ld,
                                reinterpret_cast<uint8_t*>(d + r * ldd + c0), ldd);
      }
    }
#endif
    for (; r < r1; ++r) {
      for (int64_t c = c0; c < c1; ++c)
        d[r * ldd + c] = s[c * ld + r];
    }
  }
}

// A batch of 2-D transposes: for every index of the batch axes (`batch_dims`, with the
// input's and the output's strides), the R x C tile above. Bands of rows (16, or 256 when
// there are few columns) of every tile are the tasks split across the pool for a large
// tensor (a quantized CNN's NCHW -> NHWC uint8 input: 20 us at 3 x 128 x 128).
template <typename U>
void TransposeBlocked(const U* src, U* dst, const std::vector<int64_t>& batch_dims,
                      const std::vector<int64_t>& batch_in, const std::vector<int64_t>& batch_out,
                      int64_t rows, int64_t cols, int64_t ld, int64_t ldd, ThreadPool* pool) {
  int64_t batch = 1;
  for (int64_t b : batch_dims)
    batch *= b;
  auto batch_offsets = [&](int64_t index, int64_t* in_off, int64_t* out_off) {
    *in_off = *out_off = 0;
    for (size_t k = batch_dims.size(); k-- > 0;) {
      const int64_t i = index % batch_dims[k];
      index /= batch_dims[k];
      *in_off += i * batch_in[k];
      *out_off += i * batch_out[k];
    }
  };
  if (rows >= 2 && rows <= 4 && ld == rows) {
    // 2 to 4 streams interleaved in the input (NHWC -> NCHW of 3 channels, SpaceToDepth's
    // column pairs): split apart in vector code, the tasks spans of at most 4096 columns.
    // (As 4 x 4 blocks with 3 rows: a [1,224,224,3] float image 2.1x ORT's time, 0.53x now.)
    constexpr int64_t kSpan = 4096;
    const int64_t spans = (cols + kSpan - 1) / kSpan;
    auto split = [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        int64_t in_off = 0, out_off = 0;
        batch_offsets(t / spans, &in_off, &out_off);
        const int64_t c0 = (t % spans) * kSpan;
        DeinterleaveStreams(src + in_off + c0 * rows, sizeof(U), rows, std::min(kSpan, cols - c0),
                            dst + out_off + c0, ldd);
      }
    };
    const int64_t per_task = std::min(kSpan, cols) * rows;
    ParallelElements(pool, batch * spans, split,
                     std::max<int64_t>(1, (int64_t{1} << 14) / per_task));
    return;
  }
  const int64_t band = cols <= 4 ? 256 : 16;
  const int64_t bands = (rows + band - 1) / band;
  auto run = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      int64_t in_off = 0, out_off = 0;
      batch_offsets(t / bands, &in_off, &out_off);
      const int64_t r0 = (t % bands) * band;
      TransposeTile(src + in_off, dst + out_off, r0, std::min(rows, r0 + band), cols, ld, ldd);
    }
  };
  // Chunks of at least 16k elements: a strided side makes even a byte transpose cost
  // about 0.4 ns an element, so 16k elements outweigh the pool's hand-off.
  const int64_t per_task = std::min(band, rows) * cols;
  ParallelElements(pool, batch * bands, run, std::max<int64_t>(1, (int64_t{1} << 14) / per_task));
}

// The same permutation with unit axes dropped and axes that stay neighbours merged: an
// NCHW -> NHWC transpose becomes [N, HW, C] from [N, C, HW], a 4-D one with unit axes a
// plain 2-D transpose.
void SimplifyPermutation(std::vector<int64_t>* dims, std::vector<int64_t>* strides) {
  std::vector<int64_t> d, st;
  for (size_t i = 0; i < dims->size(); ++i) {
    if ((*dims)[i] == 1) continue;
    if (!d.empty() && st.back() == (*strides)[i] * (*dims)[i]) {
      d.back() *= (*dims)[i];
      st.back() = (*strides)[i];
      continue;
    }
    d.push_back((*dims)[i]);
    st.push_back((*strides)[i]);
  }
  if (d.empty()) {  // a single element
    d.push_back(1);
    st.push_back(1);
  }
  *dims = std::move(d);
  *strides = std::move(st);
}

template <typename U>
void TransposeRows(const Tensor& x, Tensor* y, std::vector<int64_t> out_dims,
                   std::vector<int64_t> strides, ThreadPool* pool) {
  SimplifyPermutation(&out_dims, &strides);
  const size_t rank = out_dims.size();
  // The last output axis strided: a batch of 2-D transposes between it and the axis the
  // input runs along (unit stride), every other axis a batch axis (DepthToSpace's and
  // SpaceToDepth's blocks as well as NCHW <-> NHWC).
  if (rank >= 2 && strides[rank - 1] != 1) {
    const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
    size_t a = 0;
    while (a + 1 < rank && strides[a] != 1)
      ++a;
    if (strides[a] == 1) {
      std::vector<int64_t> bd, bi, bo;
      for (size_t k = 0; k + 1 < rank; ++k) {
        if (k == a) continue;
        bd.push_back(out_dims[k]);
        bi.push_back(strides[k]);
        bo.push_back(out_strides[k]);
      }
      TransposeBlocked(static_cast<const U*>(x.raw_data()), static_cast<U*>(y->mutable_raw_data()),
                       bd, bi, bo, out_dims[a], out_dims[rank - 1], strides[rank - 1],
                       out_strides[a], pool);
      return;
    }
  }
  // Output rows one at a time (a copy when the last axis keeps its place, as in a
  // transformer's 0213 head split), bands of rows split between the threads: the copy is
  // memory-bound, and two cores' bandwidth halves it ([8,128,12,64] 0213 at 2 threads:
  // 201 -> 105 us, ORT 111).
  const U* src = static_cast<const U*>(x.raw_data());
  U* dst = static_cast<U*>(y->mutable_raw_data());
  const int64_t row = out_dims[rank - 1], step = strides[rank - 1];
  auto rows = [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> idx(rank, 0);
    int64_t off = 0, rest = r0;
    for (size_t d = rank - 1; d-- > 0;) {
      idx[d] = rest % out_dims[d];
      rest /= out_dims[d];
      off += idx[d] * strides[d];
    }
    for (int64_t r = r0; r < r1; ++r) {
      U* out = dst + r * row;
      if (step == 1) {
        std::memcpy(out, src + off, static_cast<size_t>(row) * sizeof(U));
      } else {
        for (int64_t k = 0; k < row; ++k)
          out[k] = src[off + k * step];
      }
      for (size_t d = rank - 1; d-- > 0;) {
        off += strides[d];
        if (++idx[d] < out_dims[d]) break;
        off -= strides[d] * out_dims[d];
        idx[d] = 0;
      }
    }
  };
  // (Bands of at least 64 KiB: below that the hand-off costs more than it saves.)
  const int64_t band =
      std::max<int64_t>(1, (int64_t{1} << 16) / std::max<int64_t>(row * sizeof(U), 1));
  ParallelElements(pool, y->num_elements() / row, rows, band);
}

}  // namespace

bool PermuteInto(const Tensor& x, const std::vector<int64_t>& in_dims,
                 const std::vector<int64_t>& perm, Tensor* y, ThreadPool* pool) {
  const size_t rank = in_dims.size(), item = ItemSize(x.dtype());
  if (rank == 0 || y->num_elements() == 0 || (item != 1 && item != 2 && item != 4 && item != 8) ||
      static_cast<size_t>(DataTypeBitWidth(x.dtype())) != 8 * item) {
    return false;
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in_dims);
  std::vector<int64_t> out_dims(rank), strides(rank);
  for (size_t i = 0; i < rank; ++i) {
    out_dims[i] = in_dims[static_cast<size_t>(perm[i])];
    strides[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  switch (item) {
    case 1:
      TransposeRows<uint8_t>(x, y, out_dims, strides, pool);
      break;
    case 2:
      TransposeRows<uint16_t>(x, y, out_dims, strides, pool);
      break;
    case 4:
      TransposeRows<uint32_t>(x, y, out_dims, strides, pool);
      break;
    default:
      TransposeRows<uint64_t>(x, y, out_dims, strides, pool);
  }
  return true;
}

namespace {

class Transpose : public KernelBase {
 public:
  static Result<std::unique_ptr<KernelBase>> Create(const KernelInfo& info) {
    auto k = std::make_unique<Transpose>();
    if (info.HasAttribute("perm")) {
      ONNX_LIGHT_ASSIGN_OR_RETURN(k->perm_, info.GetInts("perm"));
    }
    return std::unique_ptr<KernelBase>(std::move(k));
  }
  Status Compute(KernelContext& ctx) const override {
    const Tensor& x = *ctx.input(0);
    const auto& in = x.shape().dims();
    const size_t rank = in.size();
    std::vector<int64_t> perm = perm_;
    if (perm.empty()) {
      for (size_t i = 0; i < rank; ++i)
        perm.push_back(static_cast<int64_t>(rank - 1 - i));
    }
    ONNX_LIGHT_RETURN_IF(perm.size() != rank, kInvalidArgument, "perm has the wrong length");
    const std::vector<int64_t> in_strides = RowMajorStrides(in);
    std::vector<int64_t> out_dims(rank), strides(rank);
    std::vector<bool> seen(rank, false);
    for (size_t i = 0; i < rank; ++i) {
      const int64_t p = perm[i];
      ONNX_LIGHT_RETURN_IF(p < 0 || p >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(p)],
                           kInvalidArgument, "invalid perm");
      seen[static_cast<size_t>(p)] = true;
      out_dims[i] = in[static_cast<size_t>(p)];
      strides[i] = in_strides[static_cast<size_t>(p)];
    }
    ONNX_LIGHT_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0, out_dims));
    if (PermuteInto(x, in, perm, y, ctx.thread_pool())) return Status::Ok();
    const size_t item = ItemSize(x.dtype());
    std::vector<int64_t> idx(rank, 0);
    int64_t off = 0;
    for (int64_t j = 0; j < y->num_elements(); ++j) {
      CopyElement(x, off, y, j, item);
      for (size_t d = rank; d-- > 0;) {
        off += strides[d];
        if (++idx[d] < out_dims[d]) break;
        off -= strides[d] * out_dims[d];
        idx[d] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  std::vector<int64_t> perm_;
};

}  // namespace

ONNX_LIGHT_REGISTER_KERNEL(ai_onnx, Transpose) {
  return r.Register(
      Def("Transpose", 1, {{"T", {0}, {0}, AllTensorTypes()}}, FactoryOf<Transpose>()));
}

}  // namespace onnx_light::kernels
