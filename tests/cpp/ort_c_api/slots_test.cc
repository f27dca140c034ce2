// libonnxruntime.so.1 on onnx-light: the table as a whole. Every slot is set; every stub,
// called with value-initialized arguments of its exact types, returns ORT_NOT_IMPLEMENTED
// naming its function (a status slot), nothing (a void slot) or zero/null (the others, the
// sub-API getters among them); GetApi answers as ORT's; Release*(NULL) is a no-op; the
// library survives dlopen/dlclose cycles with sessions made and run in between.
#include "onnx_light_ort/ort_c_api/slots.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>

#include "onnxruntime_c_api.h"

#pragma GCC diagnostic ignored "-Wignored-attributes"  // the slots' warn_unused_result

namespace {

const OrtApi* Api() {
  return OrtGetApiBase()->GetApi(ORT_API_VERSION);
}

// Calls slot `fn` of a stub with value-initialized arguments and checks its answer.
template <typename F>
struct CallStub;
template <typename R, typename... A>
struct CallStub<R (*)(A...) noexcept> {
  static void Run(R (*fn)(A...) noexcept, const char* name) {
    if constexpr (std::is_same_v<R, OrtStatus*>) {
      OrtStatus* st = fn(A{}...);
      ASSERT_NE(st, nullptr) << name << " returned success";
      EXPECT_EQ(Api()->GetErrorCode(st), ORT_NOT_IMPLEMENTED) << name;
      const std::string msg = Api()->GetErrorMessage(st);
      EXPECT_NE(msg.find(name), std::string::npos) << name << ": " << msg;
      EXPECT_NE(msg.find("not supported by onnx-light"), std::string::npos) << msg;
      Api()->ReleaseStatus(st);
    } else if constexpr (std::is_void_v<R>) {
      fn(A{}...);
    } else {
      EXPECT_EQ(fn(A{}...), R{}) << name;
    }
  }
};
template <typename R, typename... A>
struct CallStub<R (*)(A...)> {
  static void Run(R (*fn)(A...), const char* name) {
    if constexpr (std::is_same_v<R, OrtStatus*>) {
      OrtStatus* st = fn(A{}...);
      ASSERT_NE(st, nullptr) << name;
      EXPECT_EQ(Api()->GetErrorCode(st), ORT_NOT_IMPLEMENTED) << name;
      Api()->ReleaseStatus(st);
    } else if constexpr (std::is_void_v<R>) {
      fn(A{}...);
    } else {
      EXPECT_EQ(fn(A{}...), R{}) << name;
    }
  }
};

TEST(OrtCApiTable, EverySlotIsSetAndNamed) {
  const OrtApi* api = Api();
  ASSERT_NE(api, nullptr);
  ASSERT_EQ(OnnxLightOrtApiSlotCount(), 425u);  // ORT_API_VERSION 29
  const auto* slots = reinterpret_cast<void (*const*)()>(api);
  size_t stubs = 0;
  for (size_t i = 0; i < OnnxLightOrtApiSlotCount(); ++i) {
    EXPECT_NE(slots[i], nullptr) << "slot " << i << " " << OnnxLightOrtApiSlotName(i);
    ASSERT_NE(OnnxLightOrtApiSlotName(i), nullptr);
    stubs += OnnxLightOrtApiSlotIsStub(i) == 1 ? 1 : 0;
  }
  EXPECT_EQ(OnnxLightOrtApiSlotName(425), nullptr);
  EXPECT_EQ(OnnxLightOrtApiSlotIsStub(425), -1);
  EXPECT_STREQ(OnnxLightOrtApiSlotName(0), "CreateStatus");
  EXPECT_STREQ(OnnxLightOrtApiSlotName(424), "SessionOptionsSetWeightlessSourceModelBuffer");
  // Most of the table is ORT's long tail (EPs, training, model editor, devices); the
  // implemented part is listed in docs/ort_c_api.md.
  EXPECT_GT(stubs, 0u);
  EXPECT_LT(stubs, 425u);
}

TEST(OrtCApiTable, EveryStubAnswersAsDocumented) {
  const OrtApi* api = Api();
  size_t called = 0;
#define ONNX_LIGHT_ORT_SLOT(index, name)                                                        \
  if (OnnxLightOrtApiSlotIsStub(index) == 1) {                                                  \
    CallStub<std::remove_const_t<std::remove_reference_t<decltype(api->name)>>>::Run(api->name, \
                                                                                     #name);    \
    ++called;                                                                                   \
  }
#include "ort_api_slots.inc"
#undef ONNX_LIGHT_ORT_SLOT
  EXPECT_GT(called, 0u);
}

TEST(OrtCApiTable, SubApiGettersAreNull) {
  const OrtApi* api = Api();
  EXPECT_EQ(api->GetTrainingApi(ORT_API_VERSION), nullptr);
  EXPECT_EQ(api->GetModelEditorApi(), nullptr);
  EXPECT_EQ(api->GetCompileApi(), nullptr);
  EXPECT_EQ(api->GetEpApi(), nullptr);
}

TEST(OrtCApiTable, GetApiAnswersLikeOrt) {
  const OrtApiBase* base = OrtGetApiBase();
  EXPECT_STREQ(base->GetVersionString(), "1.29.0");
  for (uint32_t v = 1; v <= ORT_API_VERSION; ++v)
    EXPECT_EQ(base->GetApi(v), Api()) << v;
  EXPECT_EQ(base->GetApi(0), nullptr);
  EXPECT_EQ(base->GetApi(ORT_API_VERSION + 1), nullptr);
  EXPECT_EQ(base->GetApi(1000), nullptr);
}

TEST(OrtCApiTable, ReleaseOfNullIsANoOp) {
  const OrtApi* api = Api();
  api->ReleaseEnv(nullptr);
  api->ReleaseStatus(nullptr);
  api->ReleaseMemoryInfo(nullptr);
  api->ReleaseSession(nullptr);
  api->ReleaseValue(nullptr);
  api->ReleaseRunOptions(nullptr);
  api->ReleaseTypeInfo(nullptr);
  api->ReleaseTensorTypeAndShapeInfo(nullptr);
  api->ReleaseSessionOptions(nullptr);
  api->ReleaseModelMetadata(nullptr);
  api->ReleaseAllocator(nullptr);
  api->ReleaseArenaCfg(nullptr);
  OrtStatus* st = api->ReleaseAvailableProviders(nullptr, 0);
  EXPECT_EQ(st, nullptr);
}

TEST(OrtCApiTable, DefaultAllocatorWorksThroughItsMembers) {
  const OrtApi* api = Api();
  OrtAllocator* a = nullptr;
  ASSERT_EQ(api->GetAllocatorWithDefaultOptions(&a), nullptr);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->version, static_cast<uint32_t>(ORT_API_VERSION));
  void* p = a->Alloc(a, 100);
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 100);
  a->Free(a, p);
  p = a->Reserve(a, 10);
  ASSERT_NE(p, nullptr);
  a->Free(a, p);
  const OrtMemoryInfo* info = a->Info(a);
  const char* name = nullptr;
  ASSERT_EQ(api->MemoryInfoGetName(info, &name), nullptr);
  EXPECT_STREQ(name, "Cpu");
  OrtMemoryInfoDeviceType type = OrtMemoryInfoDeviceType_GPU;
  api->MemoryInfoGetDeviceType(info, &type);
  EXPECT_EQ(type, OrtMemoryInfoDeviceType_CPU);
}

TEST(OrtCApiTable, NullArgumentsAreErrorsNotCrashes) {
  const OrtApi* api = Api();
  for (OrtStatus* st :
       {api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "x", nullptr), api->CreateSessionOptions(nullptr),
        api->CreateSession(nullptr, "m.onnx", nullptr, nullptr),
        api->Run(nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr),
        api->GetTensorMutableData(nullptr, nullptr), api->SessionGetInputCount(nullptr, nullptr)}) {
    ASSERT_NE(st, nullptr);
    EXPECT_EQ(api->GetErrorCode(st), ORT_INVALID_ARGUMENT);
    EXPECT_NE(std::string(api->GetErrorMessage(st)).find("is null"), std::string::npos);
    api->ReleaseStatus(st);
  }
}

// Go's binding closes and reopens the library around every test.
TEST(OrtCApiTable, SurvivesDlcloseAndReopen) {
  Dl_info where{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&OrtGetApiBase), &where), 0);
  const std::string model = std::string(ONNX_LIGHT_SOURCE_DIR) + "/models/default.onnx";
  for (int round = 0; round < 30; ++round) {
    void* lib = dlopen(where.dli_fname, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr) << dlerror();
    auto get_base = reinterpret_cast<const OrtApiBase* (*)()>(dlsym(lib, "OrtGetApiBase"));
    ASSERT_NE(get_base, nullptr);
    const OrtApi* api = get_base()->GetApi(ORT_API_VERSION);
    OrtEnv* env = nullptr;
    ASSERT_EQ(api->CreateEnv(ORT_LOGGING_LEVEL_WARNING, "cycle", &env), nullptr);
    OrtSessionOptions* so = nullptr;
    ASSERT_EQ(api->CreateSessionOptions(&so), nullptr);
    ASSERT_EQ(api->SetIntraOpNumThreads(so, 2), nullptr);
    OrtSession* s = nullptr;
    OrtStatus* st = api->CreateSession(env, model.c_str(), so, &s);
    ASSERT_EQ(st, nullptr) << api->GetErrorMessage(st);
    size_t n = 0;
    ASSERT_EQ(api->SessionGetInputCount(s, &n), nullptr);
    EXPECT_GE(n, 1u);
    api->ReleaseSession(s);
    api->ReleaseSessionOptions(so);
    api->ReleaseEnv(env);
    EXPECT_EQ(dlclose(lib), 0);
  }
}

}  // namespace
