# host_example with a model file one byte over LIGHT_ORT_MAX_MODEL_BYTES (the real model
# padded with trailing bytes): exit 1 and a message naming the limit, instead of a model
# silently cut to 16 MiB. Inputs: EXAMPLE, PLUGIN, MODEL, WORK.
file(MAKE_DIRECTORY ${WORK})
file(SIZE ${MODEL} model_bytes)
math(EXPR limit "16 * 1024 * 1024")
math(EXPR want "${limit} + 1")
math(EXPR pad "${want} - ${model_bytes}")
string(REPEAT "z" ${pad} padding)
file(COPY_FILE ${MODEL} ${WORK}/over.onnx)
file(APPEND ${WORK}/over.onnx "${padding}")
file(SIZE ${WORK}/over.onnx size)
if(NOT size EQUAL want)
  message(FATAL_ERROR "made a file of ${size} bytes, wanted ${want}")
endif()
execute_process(COMMAND ${EXAMPLE} ${PLUGIN} ${WORK}/over.onnx
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
file(REMOVE ${WORK}/over.onnx)
if(NOT rc EQUAL 1 OR NOT err MATCHES "model file is over the host's limit of 16777216 bytes")
  message(FATAL_ERROR "over the limit: rc=${rc}, stdout '${out}', stderr '${err}'")
endif()
message(STATUS "over the limit: ${err}")
