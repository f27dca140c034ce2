// Checks that scripts/setup.sh produced the pinned ORT API headers, and that the custom-op
// slots of the OrtApi table sit where the bridges rely on them (API 18 numbering).
#include <gtest/gtest.h>

#include <cstddef>

#include "onnxruntime_c_api.h"

namespace {

constexpr size_t Slot(size_t offset) {
  return offset / sizeof(void*);
}

TEST(OrtHeaders, PinnedApiVersion) {
  EXPECT_EQ(ORT_API_VERSION, 29);
}

TEST(OrtHeaders, CustomOpSlotsOfOrtApi) {
  static_assert(Slot(offsetof(OrtApi, CreateStatus)) == 0);
  static_assert(Slot(offsetof(OrtApi, GetErrorCode)) == 1);
  static_assert(Slot(offsetof(OrtApi, GetErrorMessage)) == 2);
  static_assert(Slot(offsetof(OrtApi, CreateCustomOpDomain)) == 26);
  static_assert(Slot(offsetof(OrtApi, CustomOpDomain_Add)) == 27);
  static_assert(Slot(offsetof(OrtApi, AddCustomOpDomain)) == 28);
  static_assert(Slot(offsetof(OrtApi, GetTensorMutableData)) == 51);
  static_assert(Slot(offsetof(OrtApi, GetTensorElementType)) == 60);
  static_assert(Slot(offsetof(OrtApi, GetDimensionsCount)) == 61);
  static_assert(Slot(offsetof(OrtApi, GetDimensions)) == 62);
  static_assert(Slot(offsetof(OrtApi, GetTensorShapeElementCount)) == 64);
  static_assert(Slot(offsetof(OrtApi, GetTensorTypeAndShape)) == 65);
  static_assert(Slot(offsetof(OrtApi, KernelInfoGetAttribute_float)) == 85);
  static_assert(Slot(offsetof(OrtApi, KernelInfoGetAttribute_int64)) == 86);
  static_assert(Slot(offsetof(OrtApi, KernelInfoGetAttribute_string)) == 87);
  static_assert(Slot(offsetof(OrtApi, KernelContext_GetInputCount)) == 88);
  static_assert(Slot(offsetof(OrtApi, KernelContext_GetOutputCount)) == 89);
  static_assert(Slot(offsetof(OrtApi, KernelContext_GetInput)) == 90);
  static_assert(Slot(offsetof(OrtApi, KernelContext_GetOutput)) == 91);
  static_assert(Slot(offsetof(OrtApi, ReleaseStatus)) == 93);
  static_assert(Slot(offsetof(OrtApi, ReleaseTensorTypeAndShapeInfo)) == 99);
  static_assert(Slot(offsetof(OrtApi, ReleaseCustomOpDomain)) == 101);
  SUCCEED();
}

}  // namespace
