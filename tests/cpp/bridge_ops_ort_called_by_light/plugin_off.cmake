# Configures onnx-light with the plugin target OFF and the bridge's Python suites ON, then
# checks what ctest would run there: the Python suite is registered with
# ONNX_LIGHT_ORT_PLUGIN_BUILT=0, and with that setting pytest collects no case of
# test_plugin_under_host.py (and still collects the CustomOpSession cases).
# Inputs: SOURCE, BUILD, PYTHON, GENERATOR.
execute_process(
  COMMAND ${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G ${GENERATOR}
    -DONNX_LIGHT_BUILD_ORT_PLUGIN=OFF -DONNX_LIGHT_ORT_TEST_PYTHON=ON
    -DPython_EXECUTABLE=${PYTHON}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configure with the plugin target OFF failed:\n${out}\n${err}")
endif()
execute_process(
  COMMAND ${CMAKE_CTEST_COMMAND} --test-dir ${BUILD} -N --show-only=json-v1
  RESULT_VARIABLE rc OUTPUT_VARIABLE json ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "ctest -N failed: ${err}")
endif()
string(JSON count LENGTH "${json}" tests)
set(found "")
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${json}" tests ${i} name)
  if(name MATCHES "^bridge_ops_light_called_by_ort")
    message(FATAL_ERROR "${name} is registered although the plugin target is OFF")
  endif()
  if(name STREQUAL "bridge_ops_ort_called_by_light.python")
    string(JSON nprops LENGTH "${json}" tests ${i} properties)
    math(EXPR plast "${nprops} - 1")
    foreach(p RANGE ${plast})
      string(JSON pname GET "${json}" tests ${i} properties ${p} name)
      if(pname STREQUAL "ENVIRONMENT")
        string(JSON found GET "${json}" tests ${i} properties ${p} value)
      endif()
    endforeach()
  endif()
endforeach()
if(NOT found MATCHES "ONNX_LIGHT_ORT_PLUGIN_BUILT=0")
  message(FATAL_ERROR "the Python suite's environment lacks ONNX_LIGHT_ORT_PLUGIN_BUILT=0: '${found}'")
endif()
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env ONNX_LIGHT_ORT_PLUGIN_BUILT=0
    ${PYTHON} -m pytest --collect-only -q -p no:cacheprovider
    ${SOURCE}/tests/python/bridge_ops_ort_called_by_light
  WORKING_DIRECTORY ${SOURCE}
  RESULT_VARIABLE rc OUTPUT_VARIABLE collected ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pytest --collect-only failed:\n${collected}\n${err}")
endif()
if(collected MATCHES "test_plugin_under_host")
  message(FATAL_ERROR "test_plugin_under_host.py is collected without the plugin target:\n${collected}")
endif()
if(NOT collected MATCHES "test_custom_op_session.py::")
  message(FATAL_ERROR "the CustomOpSession cases were not collected:\n${collected}")
endif()
message(STATUS "plugin target OFF: Python suite registered without the plugin's cases")
