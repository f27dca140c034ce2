// Helpers shared by the kernel sources.
#pragma once

#include <memory>
#include <vector>

#include "onnx_light/runtime/kernel.h"
#include "onnx_light/runtime/kernel_registry.h"
#include "onnx_light/runtime/thread_pool.h"
#include "registrations.h"

namespace onnx_light::kernels {

inline const std::vector<DataType>& FloatTypes() {
  static const std::vector<DataType> types = {DataType::kFloat16, DataType::kBFloat16,
                                              DataType::kFloat, DataType::kDouble};
  return types;
}

inline const std::vector<DataType>& NumericTypes() {
  static const std::vector<DataType> types = {
      DataType::kFloat16, DataType::kBFloat16, DataType::kFloat,  DataType::kDouble,
      DataType::kInt8,    DataType::kInt16,    DataType::kInt32,  DataType::kInt64,
      DataType::kUint8,   DataType::kUint16,   DataType::kUint32, DataType::kUint64};
  return types;
}

inline std::vector<DataType> AllTensorTypes() {
  std::vector<DataType> types = NumericTypes();
  types.push_back(DataType::kBool);
  types.push_back(DataType::kString);
  types.push_back(DataType::kComplex64);
  types.push_back(DataType::kComplex128);
  return types;
}

// Factory for a kernel class constructed from (const KernelInfo&) after a static
// Create(const KernelInfo&) -> Result<std::unique_ptr<KernelBase>>.
template <typename K>
KernelFactory FactoryOf() {
  return
      [](const KernelInfo& info) -> Result<std::unique_ptr<KernelBase>> { return K::Create(info); };
}

// A unary element-wise def: T binds input 0 and output 0.
inline KernelDef UnaryDef(std::string domain, std::string op, int since,
                          std::vector<DataType> types, KernelFactory factory) {
  KernelDef def;
  def.domain = std::move(domain);
  def.op_type = std::move(op);
  def.since_version = since;
  def.constraints = {{"T", {0}, {0}, std::move(types)}};
  def.create = std::move(factory);
  return def;
}

// Runs fn(begin, end) over [0, n), split across the pool when n is large.
template <typename Fn>
void ParallelElements(ThreadPool* pool, int64_t n, Fn fn) {
  constexpr int64_t kMinChunk = 1 << 16;
  if (pool == nullptr || pool->threads() == 1 || n < 2 * kMinChunk) {
    fn(int64_t{0}, n);
    return;
  }
  pool->ParallelFor(n, kMinChunk, fn);
}

}  // namespace onnx_light::kernels
