// libFuzzer target for the whole runtime: model bytes -> RuntimeSession -> one run with
// feeds made from the declared inputs. Any step may fail with a status; none may crash,
// leak, trip a sanitizer or hang. Tensors are capped (64 MiB each, 4M elements) and the
// run has a one-second timeout (RunOptions), so an endless Loop is an error, not a hang.
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "onnx_light/runtime/session.h"

namespace {

using onnx_light::DataType;

// A feed for a declared input: its dims with symbols as 2 (and unknown as 1), values
// drawn from the model's bytes; nothing when the input is optional or too large to bother.
bool MakeFeed(const onnx_light::ValueMeta& meta, const uint8_t* data, size_t size,
              onnx_light::Value* out) {
  std::vector<int64_t> dims;
  int64_t n = 1;
  for (size_t d = 0; d < meta.dims.size(); ++d) {
    const int64_t v = meta.dims[d] >= 0 ? meta.dims[d] : (meta.dim_params[d].empty() ? 1 : 2);
    if (v > 4096) return false;
    n *= v;
    if (n > 65536) return false;
    dims.push_back(v);
  }
  auto shape = onnx_light::Shape::Create(dims);
  if (!shape.ok()) return false;
  auto t = onnx_light::Tensor::Allocate(meta.type, std::move(*shape));
  if (!t.ok()) return false;
  if (meta.type != DataType::kString && t->byte_size() > 0 && size > 0) {
    auto* bytes = static_cast<uint8_t*>(t->mutable_raw_data());
    for (size_t i = 0; i < t->byte_size(); ++i)
      bytes[i] = data[(i * 131) % size];
    if (meta.type == DataType::kBool) {  // only 0 and 1 are bools
      for (size_t i = 0; i < t->byte_size(); ++i)
        bytes[i] &= 1;
    }
  }
  if (meta.is_sequence()) {
    auto seq = std::make_shared<onnx_light::TensorSequence>();
    seq->push_back(std::move(*t));
    out->sequence = std::move(seq);
  } else {
    out->tensor = std::move(*t);
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onnx_light::SessionOptions options;
  options.intra_op_threads = 1;
  options.max_tensor_bytes = uint64_t{64} << 20;
  options.shape_limits.max_elements = int64_t{1} << 22;
  const KernelExceptionWatch watch;
  auto session = onnx_light::RuntimeSession::CreateFromBytes(data, size, options);
  watch.Check();  // constant folding runs kernels
  if (!session.ok()) return 0;
  std::vector<onnx_light::NamedValue> feeds;
  for (const onnx_light::ValueMeta& meta : (*session)->inputs()) {
    if (meta.is_optional()) continue;
    onnx_light::Value v;
    if (!MakeFeed(meta, data, size, &v)) return 0;
    feeds.push_back({meta.name, std::move(v)});
  }
  onnx_light::RunOptions run;
  run.timeout = std::chrono::seconds(1);
  (void)(*session)->RunValues(feeds, {}, &run);
  watch.Check();
  return 0;
}
