# RE2, the regular-expression library RegexFullMatch matches with (Debian: libre2-dev), as
# the imported target re2::re2. Included by CMakeLists.txt and, installed beside it, by
# onnx_lightConfig.cmake (the static runtime library links it). RE2 releases that ship a
# CMake package define re2::re2 themselves; Debian's ships pkg-config only, so the library
# and its header are found by name.
if(NOT TARGET re2::re2)
  find_package(re2 CONFIG QUIET)
endif()
if(NOT TARGET re2::re2)
  find_path(ONNX_LIGHT_RE2_INCLUDE_DIR re2/re2.h)
  find_library(ONNX_LIGHT_RE2_LIBRARY NAMES re2)
  if(NOT ONNX_LIGHT_RE2_INCLUDE_DIR OR NOT ONNX_LIGHT_RE2_LIBRARY)
    message(FATAL_ERROR "RE2 not found (RegexFullMatch needs it): install Debian's libre2-dev "
                        "(scripts/setup.sh does), or point CMAKE_PREFIX_PATH at an RE2 install")
  endif()
  find_package(Threads REQUIRED)
  add_library(re2::re2 SHARED IMPORTED)
  set_target_properties(re2::re2 PROPERTIES
    IMPORTED_LOCATION "${ONNX_LIGHT_RE2_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ONNX_LIGHT_RE2_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
