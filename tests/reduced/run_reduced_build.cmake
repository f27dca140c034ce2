# The reduced-operator build, end to end: generate a config from models with the full
# build's tool, configure and build a size-optimised reduced build in its own folder, then
# check that those models run, that another op is refused as excluded, and that `ops`
# lists exactly what was compiled in.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()

# The source tree must come out as it went in (generated files belong in the build
# folder): `git status` before and after, where the source is a git checkout.
find_program(GIT git)
set(tree_before "")
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE} status --porcelain --ignored=no
                  RESULT_VARIABLE git_rc OUTPUT_VARIABLE tree_before ERROR_QUIET)
  if(NOT git_rc EQUAL 0)
    set(GIT "")
  endif()
endif()

file(MAKE_DIRECTORY "${BUILD}")
run(${TOOL} reduced-config ${SOURCE}/models/default.onnx ${SOURCE}/tests/data/reduced/sub_cast.onnx
    -o ${BUILD}/ops.config)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "reduced-config failed: ${out}")
endif()
file(READ "${BUILD}/ops.config" config)
message(STATUS "config:\n${config}")

run(${CMAKE_COMMAND} -S ${SOURCE} -B ${BUILD} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
    -DONNX_LIGHT_REDUCED_OPS_CONFIG=${BUILD}/ops.config -DONNX_LIGHT_SIZE_OPTIMIZED=ON
    -DONNX_LIGHT_BUILD_TESTS=OFF -DONNX_LIGHT_BUILD_PYTHON=OFF -DONNX_LIGHT_BUILD_ORT_PLUGIN=OFF
    -DONNX_LIGHT_WERROR=ON)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the reduced build failed:\n${out}")
endif()
run(${CMAKE_COMMAND} --build ${BUILD} -j 2 --target onnx-light onnx_light_shared)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the reduced build failed:\n${out}")
endif()

foreach(model models/default.onnx tests/data/reduced/sub_cast.onnx)
  run(${BUILD}/onnx-light run ${SOURCE}/${model} --random --dim N=5)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the reduced build cannot run ${model}:\n${out}")
  endif()
endforeach()

run(${BUILD}/onnx-light run ${SOURCE}/tests/data/reduced/div.onnx --random)
if(rc EQUAL 0 OR NOT out MATCHES "op Div, domain ai.onnx, opset 17.*was excluded from this build")
  message(FATAL_ERROR "a model with an excluded op was not refused as excluded:\n${out}")
endif()

run(${BUILD}/onnx-light ops)
string(REGEX MATCHALL "\n(ai\\.onnx|onnx_light|onnx_light_cpu) +[A-Za-z]+" rows "${out}")
string(REGEX REPLACE " +" " " rows "${rows}")
string(REPLACE "\n" "" rows "${rows}")
set(expected "ai.onnx Add;ai.onnx Cast;ai.onnx Mul;ai.onnx Sub;onnx_light LeakyRelu;onnx_light_cpu Log")
if(NOT rows STREQUAL expected)
  message(FATAL_ERROR "onnx-light ops lists '${rows}', expected '${expected}'")
endif()
if(GIT)
  execute_process(COMMAND ${GIT} -C ${SOURCE} status --porcelain --ignored=no
                  OUTPUT_VARIABLE tree_after ERROR_QUIET)
  if(NOT tree_after STREQUAL tree_before)
    message(FATAL_ERROR "the reduced build changed the source tree (git status):\n"
                        "before:\n${tree_before}\nafter:\n${tree_after}")
  endif()
  message(STATUS "reduced build: git status of the source tree unchanged")
else()
  message(STATUS "reduced build: the source is not a git checkout; tree check skipped")
endif()
message(STATUS "reduced build: runs both models, refuses Div as excluded, ops = ${rows}")
