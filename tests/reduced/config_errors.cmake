# Malformed reduced-ops configs fail with the file and line.
function(expect_error text expected)
  file(WRITE "${OUT}/bad.config" "${text}")
  execute_process(COMMAND ${CMAKE_COMMAND} -DCONFIG=${OUT}/bad.config -DFULL_LIST=${FULL_LIST}
                  -DOUT_DIR=${OUT}/gen -P ${SCRIPT}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(REGEX REPLACE "[ \n]+" " " flat "${err}")  # CMake wraps long messages
  if(rc EQUAL 0 OR NOT "${flat}" MATCHES "${expected}")
    message(FATAL_ERROR "config '${text}': expected an error matching '${expected}', got:\n${err}")
  endif()
endfunction()
file(MAKE_DIRECTORY ${OUT})
expect_error("# ok\nai.onnx;17;Add\nai.onnx;17\n" "bad.config:3: expected 'domain;opsets;ops'")
expect_error("ai.onnx;x;Add\n" "bad.config:1: opset 'x' is not a positive integer")
expect_error("ai.onnx;0;Add\n" "bad.config:1: opset '0' is not a positive integer")
expect_error("\n\nai.onnx;17;Add-Sub\n" "bad.config:3: invalid operator name 'Add-Sub'")
expect_error("a b;1;Add\n" "bad.config:1: invalid domain 'a b'")
expect_error("ai.onnx;;Add\n" "bad.config:1: no opset version")
# A good one: comments, empty domain, several opsets; "Nope" only warns.
file(WRITE "${OUT}/good.config" "# c\n;13,17;Add , Relu # trailing\nonnx_light;1;LeakyRelu\nx;1;Nope\n")
execute_process(COMMAND ${CMAKE_COMMAND} -DCONFIG=${OUT}/good.config -DFULL_LIST=${FULL_LIST}
                -DOUT_DIR=${OUT}/gen -P ${SCRIPT} RESULT_VARIABLE rc ERROR_VARIABLE err)
file(READ ${OUT}/gen/kernel_list.inc list)
string(REGEX REPLACE "[ \n]+" " " flat "${err}")
if(NOT rc EQUAL 0 OR NOT list MATCHES "onnx_light, LeakyRelu" OR NOT list MATCHES "ai_onnx, Add"
   OR NOT list MATCHES "ai_onnx, Relu" OR list MATCHES "Log" OR NOT flat MATCHES "no kernel for x::Nope")
  message(FATAL_ERROR "good config not turned into the right list:\n${list}\n${err}")
endif()
message(STATUS "config errors name file and line; a good config selects Add, Relu, LeakyRelu")
