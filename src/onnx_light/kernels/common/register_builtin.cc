// Registers the kernels of ONNX_LIGHT_KERNEL_LIST (kernel_list.inc in a full build, a
// generated list in a reduced build).
#include "common/registrations.h"
#include "onnx_light/runtime/kernel_registry.h"

namespace onnx_light {

namespace {
constexpr bool Same(const char* a, const char* b) {
  return *a == *b && (*a == '\0' || Same(a + 1, b + 1));
}
// A kernel_list.inc domain token as the domain string of the model's nodes: ai_onnx -> "",
// com_microsoft -> "com.microsoft", ai_onnx_ml -> "ai.onnx.ml"; onnx_light and onnx_light_cpu
// are their own names.
constexpr const char* DomainOf(const char* token) {
  return Same(token, "ai_onnx")         ? ""
         : Same(token, "com_microsoft") ? "com.microsoft"
         : Same(token, "ai_onnx_ml")    ? "ai.onnx.ml"
                                        : token;
}
static_assert(Same(DomainOf("ai_onnx"), "") && Same(DomainOf("com_microsoft"), "com.microsoft") &&
              Same(DomainOf("ai_onnx_ml"), "ai.onnx.ml") &&
              Same(DomainOf("onnx_light"), "onnx_light"));
constexpr KernelRegistry::LazyOp kLazyOps[] = {
#define ONNX_LIGHT_KERNEL(domain, op) \
  {DomainOf(#domain), #op, &kernels::RegisterKernel_##domain##_##op},
#include ONNX_LIGHT_KERNEL_LIST
#undef ONNX_LIGHT_KERNEL
    {nullptr, nullptr, nullptr}};
}  // namespace

void BuiltinLazyOps(const KernelRegistry::LazyOp** ops, size_t* count) {
  *ops = kLazyOps;
  *count = sizeof(kLazyOps) / sizeof(kLazyOps[0]) - 1;
}

Status RegisterBuiltinKernels(KernelRegistry& registry) {
  for (const KernelRegistry::LazyOp* op = kLazyOps; op->register_op != nullptr; ++op) {
    ONNX_LIGHT_RETURN_IF_ERROR(op->register_op(registry));
  }
  MarkBuiltinExclusions(registry);
  return Status::Ok();
}

void MarkBuiltinExclusions([[maybe_unused]] KernelRegistry& registry) {
#ifdef ONNX_LIGHT_EXCLUDED_OPS
#define ONNX_LIGHT_EXCLUDED(domain, op) registry.MarkExcluded(domain, op);
#include ONNX_LIGHT_EXCLUDED_OPS
#undef ONNX_LIGHT_EXCLUDED
#endif
}

}  // namespace onnx_light
