// Registers the kernels of ONNX_LIGHT_KERNEL_LIST (kernel_list.inc in a full build, a
// generated list in a reduced build).
#include "onnx_light/runtime/kernel_registry.h"
#include "registrations.h"

namespace onnx_light {

Status RegisterBuiltinKernels(KernelRegistry& registry) {
#define ONNX_LIGHT_KERNEL(domain, op) \
  ONNX_LIGHT_RETURN_IF_ERROR(kernels::RegisterKernel_##domain##_##op(registry));
#include ONNX_LIGHT_KERNEL_LIST
#undef ONNX_LIGHT_KERNEL
#ifdef ONNX_LIGHT_EXCLUDED_OPS
#define ONNX_LIGHT_EXCLUDED(domain, op) registry.MarkExcluded(domain, op);
#include ONNX_LIGHT_EXCLUDED_OPS
#undef ONNX_LIGHT_EXCLUDED
#endif
  return Status::Ok();
}

}  // namespace onnx_light
