# libonnxruntime.so.1: ORT's C API (OrtGetApiBase, the 425-slot OrtApi of the pinned headers)
# on onnx-light, so programs written for ORT in C, C++, Rust, Node.js, Java or Go run on it
# unchanged (docs/ort_c_api.md). A thin layer: the runtime comes from libonnx_light.so, which
# it links as the plugin-host bridge does.
#
# The slot list is read from the fetched header at build time (third-party text is not
# committed): tools/gen_ort_api_slots.py writes one X-macro line per slot, in order.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
set(ONNX_LIGHT_ORT_SLOTS_INC "${PROJECT_BINARY_DIR}/generated/ort_c_api/ort_api_slots.inc")
add_custom_command(OUTPUT "${ONNX_LIGHT_ORT_SLOTS_INC}"
  COMMAND "${CMAKE_COMMAND}" -E make_directory "${PROJECT_BINARY_DIR}/generated/ort_c_api"
  COMMAND "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/tools/gen_ort_api_slots.py"
    "${ONNX_LIGHT_ORT_INCLUDE_DIR}/onnxruntime_c_api.h" "${ONNX_LIGHT_ORT_SLOTS_INC}"
  DEPENDS "${PROJECT_SOURCE_DIR}/tools/gen_ort_api_slots.py"
    "${ONNX_LIGHT_ORT_INCLUDE_DIR}/onnxruntime_c_api.h"
  COMMENT "Reading OrtApi's slots from onnxruntime_c_api.h")
add_custom_target(onnx_light_ort_api_slots DEPENDS "${ONNX_LIGHT_ORT_SLOTS_INC}")

add_library(onnx_light_ort_c_api SHARED
  onnx_light_ort/ort_c_api/binding.cc
  onnx_light_ort/ort_c_api/env.cc
  onnx_light_ort/ort_c_api/metadata.cc
  onnx_light_ort/ort_c_api/model_edits.cc
  onnx_light_ort/ort_c_api/options.cc
  onnx_light_ort/ort_c_api/session.cc
  onnx_light_ort/ort_c_api/table.cc
  onnx_light_ort/ort_c_api/type_info.cc
  onnx_light_ort/ort_c_api/values.cc
  "${ONNX_LIGHT_ORT_SLOTS_INC}")
add_library(onnx_light_ort::c_api ALIAS onnx_light_ort_c_api)
add_dependencies(onnx_light_ort_c_api onnx_light_ort_api_slots)
target_include_directories(onnx_light_ort_c_api PRIVATE
  "${PROJECT_BINARY_DIR}/generated/ort_c_api" $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>)
target_link_libraries(onnx_light_ort_c_api PRIVATE onnx_light_shared_cxx)
# Exports: OrtGetApiBase, OrtSessionOptionsAppendExecutionProvider_CPU (the Java binding
# imports it) and OnnxLightOrtApiSlot* (tests, docs), unversioned: a client linked against
# real ORT binds them (a VERS_1.x node other than the client's would be fatal).
target_link_options(onnx_light_ort_c_api PRIVATE ${ONNX_LIGHT_NO_UNDEFINED}
  -Wl,--version-script=${PROJECT_SOURCE_DIR}/onnx_light_ort/ort_c_api/exports.map)
set_target_properties(onnx_light_ort_c_api PROPERTIES
  OUTPUT_NAME onnxruntime
  SOVERSION 1
  EXPORT_NAME c_api
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON
  BUILD_RPATH "$ORIGIN"
  INSTALL_RPATH "$ORIGIN"
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/lib"
  LINK_DEPENDS ${PROJECT_SOURCE_DIR}/onnx_light_ort/ort_c_api/exports.map)
onnx_light_set_warnings(onnx_light_ort_c_api)
# For size: the layer is argument checks, messages and hand-offs to the runtime (no
# compute); -Os: 383 -> 235 KiB stripped, a run of 1 element 0.46 -> 0.51 us (ORT: 1.03)
# (bench/ort_c_api_vs_ort.py).
target_compile_options(onnx_light_ort_c_api PRIVATE -Os)

