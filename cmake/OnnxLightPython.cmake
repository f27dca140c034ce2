# The onnx_light._core extension, built with nanobind from the project venv. It is written
# to <build>/python/onnx_light/, where python/onnx_light/__init__.py finds it when the
# package is imported from the checkout; a wheel build (pyproject.toml) installs it into the
# package instead (cmake/OnnxLightInstall.cmake).
find_package(Python 3.9 REQUIRED COMPONENTS Interpreter Development.Module)
execute_process(
  COMMAND "${Python_EXECUTABLE}" -m nanobind --cmake_dir
  OUTPUT_VARIABLE nanobind_ROOT OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE nanobind_found)
if(NOT nanobind_found EQUAL 0)
  message(FATAL_ERROR
    "nanobind is not importable by ${Python_EXECUTABLE}. Run scripts/setup.sh and configure "
    "with -DPython_EXECUTABLE=<repo>/.venv/bin/python (scripts/build.sh does this).")
endif()
find_package(nanobind CONFIG REQUIRED)

nanobind_add_module(onnx_light_python NB_STATIC NB_SUPPRESS_WARNINGS
  src/onnx_light/python/module.cc
  src/onnx_light/python/onnx_bindings.cc
  src/onnx_light/python/onnx_values.cc
  src/onnx_light/python/onnx_message_fields.cc
  src/onnx_light/python/runtime_bindings.cc
  src/onnx_light/python/map_values.cc)
set_target_properties(onnx_light_python PROPERTIES
  OUTPUT_NAME _core
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/python/onnx_light")
# The runtime from libonnx_light.so (one copy in the process and in the wheel, shared with
# the plugin-host bridge).
target_link_libraries(onnx_light_python PRIVATE onnx_light_shared_cxx onnx_light_cli)
target_compile_definitions(onnx_light_python PRIVATE ONNX_LIGHT_VERSION="${PROJECT_VERSION}")
onnx_light_set_warnings(onnx_light_python)

# Type stubs of _core (nanobind's stubgen imports the built module: <build>/python/stubs/
# _core/__init__.pyi and onnx.pyi, shipped in the wheel). Off in sanitizer and fuzz builds,
# whose module cannot be imported without the sanitizer runtime preloaded.
if(ONNX_LIGHT_SANITIZE OR ONNX_LIGHT_FUZZ)
  set(_stubs_default OFF)
else()
  set(_stubs_default ON)
endif()
option(ONNX_LIGHT_PYTHON_STUBS "Generate the .pyi type stubs of onnx_light._core" ${_stubs_default})
if(ONNX_LIGHT_PYTHON_STUBS)
  set(ONNX_LIGHT_STUB_DIR "${PROJECT_BINARY_DIR}/python/stubs")
  add_custom_command(
    OUTPUT "${ONNX_LIGHT_STUB_DIR}/_core/__init__.pyi" "${ONNX_LIGHT_STUB_DIR}/_core/onnx.pyi"
    COMMAND ${CMAKE_COMMAND} -E env "ONNX_LIGHT_BUILD_DIR=${PROJECT_BINARY_DIR}"
      "${Python_EXECUTABLE}" -m nanobind.stubgen -q -r -i "${PROJECT_SOURCE_DIR}/python"
      -m onnx_light._core -O "${ONNX_LIGHT_STUB_DIR}"
    DEPENDS onnx_light_python
    COMMENT "Generating the type stubs of onnx_light._core"
    VERBATIM)
  add_custom_target(onnx_light_stub ALL
    DEPENDS "${ONNX_LIGHT_STUB_DIR}/_core/__init__.pyi" "${ONNX_LIGHT_STUB_DIR}/_core/onnx.pyi")
endif()
