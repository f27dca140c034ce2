# Warning flags for onnx-light's own targets (never for third-party code).
function(onnx_light_set_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual
    -Wimplicit-fallthrough -Wmissing-declarations)
  if(ONNX_LIGHT_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
