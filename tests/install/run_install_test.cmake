# ctest `install.consumer`: installs the build into a fresh prefix, then builds the programs
# of tests/install against that prefix only -- with find_package(onnx_light CONFIG), then
# again with pkg-config -- and runs them, and the installed onnx-light tool.
#   -DBUILD_DIR= -DSOURCE_DIR= -DPREFIX= -DWORK= -DGENERATOR= -DEXAMPLE_PLUGIN= -DCXX= -DCC=
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${what}: ${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
endfunction()

set(model "${SOURCE_DIR}/models/default.onnx")
file(REMOVE_RECURSE "${PREFIX}" "${WORK}")
run("install" ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}")
# The consumer's sources copied into the scratch folder, away from the source tree: nothing
# of onnx-light but the installed prefix is in reach.
set(src "${WORK}/src")
file(COPY "${SOURCE_DIR}/tests/install/CMakeLists.txt" "${SOURCE_DIR}/tests/install/runtime_consumer.cc"
     "${SOURCE_DIR}/tests/install/c_consumer.c" "${SOURCE_DIR}/tests/consumer/consumer.cc"
     DESTINATION "${src}")

# CMake package. Nothing of the build tree is searched: only the prefix, no package registry.
run("configure" ${CMAKE_COMMAND} -S "${src}" -B "${WORK}/cmake"
    -G "${GENERATOR}" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=${PREFIX}"
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run("build" ${CMAKE_COMMAND} --build "${WORK}/cmake")
run("runtime_consumer" "${WORK}/cmake/runtime_consumer" "${model}")
run("c_consumer" "${WORK}/cmake/c_consumer" "${model}")
run("bridge_consumer" "${WORK}/cmake/bridge_consumer" "${EXAMPLE_PLUGIN}")
file(READ "${WORK}/cmake/ort_plugin_path.txt" plugin)
if(NOT plugin STREQUAL "${PREFIX}/lib/libonnx_light_ort_bridge_ops_light_called_by_ort.so")
  message(FATAL_ERROR "onnx_light_ORT_PLUGIN_LIBRARY is ${plugin}, not the installed plugin")
endif()

# pkg-config.
set(ENV{PKG_CONFIG_PATH} "${PREFIX}/lib/pkgconfig")
foreach(pc onnx_light onnx_light_c onnx_light_ort)
  execute_process(COMMAND pkg-config --cflags --libs ${pc} OUTPUT_VARIABLE flags_${pc}
    RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pkg-config ${pc} failed")
  endif()
  separate_arguments(flags_${pc} UNIX_COMMAND "${flags_${pc}}")
endforeach()
run("pkg-config runtime_consumer" ${CXX} -O1 "${src}/runtime_consumer.cc"
    -o "${WORK}/runtime_consumer_pc" ${flags_onnx_light})
run("runtime_consumer (pkg-config)" "${WORK}/runtime_consumer_pc" "${model}")
run("pkg-config c_consumer" ${CC} "${src}/c_consumer.c"
    -o "${WORK}/c_consumer_pc" ${flags_onnx_light_c} -lm)
run("c_consumer (pkg-config)" "${WORK}/c_consumer_pc" "${model}")
run("pkg-config bridge_consumer" ${CXX} -std=c++17 "${src}/consumer.cc"
    -o "${WORK}/bridge_consumer_pc" ${flags_onnx_light_ort})
run("bridge_consumer (pkg-config)" "${WORK}/bridge_consumer_pc" "${EXAMPLE_PLUGIN}")

# ORT's C API on onnx-light: a C program written for ONNX Runtime, compiled against the
# installed ORT headers and linked with -lonnxruntime from lib/onnx_light_ort_c_api.
set(capi "${PREFIX}/lib/onnx_light_ort_c_api")
run("ort_c_api_consumer" ${CC} "${SOURCE_DIR}/examples/ort_c_api/run_default.c"
    -I "${PREFIX}/include/onnx_light_ort/ort" -o "${WORK}/ort_c_api_consumer"
    -L "${capi}" -lonnxruntime "-Wl,-rpath,${capi}")
run("ort_c_api_consumer (run)" "${WORK}/ort_c_api_consumer" "${model}")
if(NOT last_out MATCHES "^1\\.29\\.0 y: ")
  message(FATAL_ERROR "ort_c_api_consumer printed: ${last_out}")
endif()

# The installed tool.
run("onnx-light" "${PREFIX}/bin/onnx-light" run "${model}" --random --dim N=2)
