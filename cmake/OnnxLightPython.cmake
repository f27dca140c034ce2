# The onnx_light._core extension, built with nanobind from the project venv. It is written
# to <build>/python/onnx_light/, where python/onnx_light/__init__.py finds it; nothing is
# installed into site-packages.
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
  src/onnx_light/python/runtime_bindings.cc)
set_target_properties(onnx_light_python PROPERTIES
  OUTPUT_NAME _core
  LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/python/onnx_light")
target_link_libraries(onnx_light_python PRIVATE onnx_light::runtime)
onnx_light_set_warnings(onnx_light_python)
