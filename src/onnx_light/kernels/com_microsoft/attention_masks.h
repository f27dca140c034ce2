// The masks of com.microsoft's attention ops (Attention, MultiHeadAttention), as additive
// rows for the attention core (llm/attention_core.h), with the rules of ORT's CPU kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/kernel_util.h"
#include "llm/attention_core.h"

namespace onnx_light::kernels {

// mask_index / key_padding_mask (int32): [B] key lengths (keys from the length on are
// masked), [2B] ends then starts (keys before the start masked too), [B, T] or [B, S, T]
// with 0 for masked. A masked key's score gets `filter` added.
class KeyMask {
 public:
  static Result<KeyMask> Read(const Tensor& m, int64_t batch, int64_t seq, int64_t total,
                              float filter) {
    KeyMask k;
    k.data_ = m.data<int32_t>();
    k.total_ = total;
    k.filter_ = filter;
    const std::vector<int64_t>& d = m.shape().dims();
    const std::string want = "mask " + m.shape().ToString() + " must be [" + std::to_string(batch) +
                             "], [" + std::to_string(2 * batch) + "], [" + std::to_string(batch) +
                             ", " + std::to_string(total) + "] or [" + std::to_string(batch) +
                             ", " + std::to_string(seq) + ", " + std::to_string(total) + "]";
    if (d.size() == 1 && (d[0] == batch || d[0] == 2 * batch)) {
      k.kind_ = d[0] == batch ? kEnds : kEndsAndStarts;
      k.batch_ = batch;
    } else if (d.size() == 2 && d[0] == batch && d[1] == total) {
      k.kind_ = kRaw;
    } else if (d.size() == 3 && d[0] == batch && d[1] == seq && d[2] == total) {
      k.kind_ = kRaw3;
      k.seq_ = seq;
    } else {
      return Status(StatusCode::kInvalidArgument,
                    want + (d.size() == 4 ? " (the 4-D Megatron mask is not supported)" : ""));
    }
    return k;
  }

  bool present() const { return data_ != nullptr; }

  // Adds the mask of batch b, query i to row[0..T).
  void Add(int64_t b, int64_t i, float* row) const {
    if (data_ == nullptr) return;
    if (kind_ == kEnds || kind_ == kEndsAndStarts) {
      const int64_t end = std::max<int64_t>(0, data_[b]);
      for (int64_t j = end; j < total_; ++j)
        row[j] += filter_;
      if (kind_ == kEndsAndStarts) {
        const int64_t start = std::min<int64_t>(data_[batch_ + b], total_);
        for (int64_t j = 0; j < start && j < end; ++j)
          row[j] += filter_;
      }
      return;
    }
    const int32_t* m = data_ + (kind_ == kRaw ? b * total_ : (b * seq_ + i) * total_);
    for (int64_t j = 0; j < total_; ++j)
      if (m[j] <= 0) row[j] += filter_;
  }

 private:
  enum Kind { kEnds, kEndsAndStarts, kRaw, kRaw3 };
  const int32_t* data_ = nullptr;
  Kind kind_ = kRaw;
  int64_t batch_ = 0, seq_ = 0, total_ = 0;
  float filter_ = -10000.0f;
};

// attention_bias [B or 1, N or 1, S, T] (float), added to the scores.
class AttentionBias {
 public:
  static Result<AttentionBias> Read(const Tensor& t, int64_t batch, int64_t heads, int64_t seq,
                                    int64_t total) {
    const std::vector<int64_t>& d = t.shape().dims();
    ONNX_LIGHT_RETURN_IF(d.size() != 4 || (d[0] != 1 && d[0] != batch) ||
                             (d[1] != 1 && d[1] != heads) || d[2] != seq || d[3] != total,
                         kInvalidArgument,
                         "attention_bias " + t.shape().ToString() + " must be [" +
                             std::to_string(batch) + " or 1, " + std::to_string(heads) + " or 1, " +
                             std::to_string(seq) + ", " + std::to_string(total) + "]");
    AttentionBias a;
    a.data_ = t.data<float>();
    a.total_ = total;
    a.sh_ = d[1] == 1 ? 0 : seq * total;
    a.sb_ = d[0] == 1 ? 0 : d[1] * seq * total;
    return a;
  }

  bool present() const { return data_ != nullptr; }

  void Add(int64_t b, int64_t h, int64_t i, float* row) const {
    if (data_ == nullptr) return;
    const float* src = data_ + b * sb_ + h * sh_ + i * total_;
    for (int64_t j = 0; j < total_; ++j)
      row[j] += src[j];
  }

 private:
  const float* data_ = nullptr;
  int64_t total_ = 0, sb_ = 0, sh_ = 0;
};

// The row bias of Attention and MultiHeadAttention: the key mask, the causal mask (keys
// after past + i get the lowest float, as ORT adds it) and attention_bias; empty when none
// applies. `mask` and `extra` must outlive the run.
inline RowBias MaskCausalBias(const KeyMask& mask, const AttentionBias& extra, bool causal,
                              int64_t past, int64_t total) {
  if (!mask.present() && !extra.present() && !causal) return {};
  return [&mask, &extra, causal, past, total](int64_t b, int64_t h, int64_t i, float* row) {
    mask.Add(b, i, row);
    if (causal) {
      for (int64_t j = past + i + 1; j < total; ++j)
        row[j] += std::numeric_limits<float>::lowest();
    }
    extra.Add(b, h, i, row);
  };
}

}  // namespace onnx_light::kernels
