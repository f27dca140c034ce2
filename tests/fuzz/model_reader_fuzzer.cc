// libFuzzer target for the ONNX reader: any input either parses or fails with a status,
// and whatever parses survives serialize -> parse unchanged.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "onnx_light/onnx/onnx.h"

namespace {

template <typename M>
void CheckOne(const uint8_t* data, size_t size, std::shared_ptr<const void> owner) {
  onnx_light::onnx::ParseOptions options;
  options.max_depth = 64;
  M message;
  if (!onnx_light::onnx::ParseFromBytes(&message, data, size, options, std::move(owner)).ok()) {
    return;
  }
  const std::string bytes = onnx_light::onnx::SerializeToString(message);
  M again;
  if (!onnx_light::onnx::ParseFromBytes(&again, bytes.data(), bytes.size(), options).ok() ||
      !(again == message) || onnx_light::onnx::SerializeToString(again) != bytes) {
    std::abort();  // the writer produced something the reader reads differently
  }
  (void)onnx_light::onnx::MessageToText(M::descriptor(), &message);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Zero-copy parse: raw_data views a buffer that a keep-alive owns.
  auto copy = std::make_shared<std::string>(reinterpret_cast<const char*>(data), size);
  CheckOne<onnx_light::onnx::ModelProto>(reinterpret_cast<const uint8_t*>(copy->data()),
                                         copy->size(), copy);
  CheckOne<onnx_light::onnx::TensorProto>(data, size, nullptr);
  CheckOne<onnx_light::onnx::SequenceProto>(data, size, nullptr);
  return 0;
}
