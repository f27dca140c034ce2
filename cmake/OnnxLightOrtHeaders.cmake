# The pinned ONNX Runtime C API headers (npm com.github.asus4.onnxruntime@0.4.9), fetched
# and checksum-verified by scripts/setup.sh. Only the bridges use them; the runtime never
# includes an ORT header.
set(ONNX_LIGHT_ORT_INCLUDE_DIR "${PROJECT_SOURCE_DIR}/third_party/ort-headers/include"
    CACHE PATH "Folder holding onnxruntime_c_api.h (pinned ORT API headers)")
if(NOT EXISTS "${ONNX_LIGHT_ORT_INCLUDE_DIR}/onnxruntime_c_api.h")
  message(FATAL_ERROR
    "ONNX Runtime C API headers not found in ${ONNX_LIGHT_ORT_INCLUDE_DIR}. "
    "Run scripts/setup.sh, which fetches the pinned npm package and checks its checksum, "
    "or pass -DONNX_LIGHT_ORT_INCLUDE_DIR=<folder with onnxruntime_c_api.h>.")
endif()
add_library(onnx_light_ort_api_headers INTERFACE)
add_library(onnx_light_ort::api_headers ALIAS onnx_light_ort_api_headers)
# SYSTEM: the third-party header is not held to our warning flags.
target_include_directories(onnx_light_ort_api_headers SYSTEM INTERFACE
  $<BUILD_INTERFACE:${ONNX_LIGHT_ORT_INCLUDE_DIR}>)
