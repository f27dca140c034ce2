// The onnx-light command-line tool as a function: the `onnx-light` executable and the
// Python package's `python -m onnx_light` both call it.
#pragma once

namespace onnx_light::cli {

// Runs the tool on argv (argv[0] is the program name) and returns its exit status:
// 0 success, 1 a failed command, 2 a usage error. Writes to stdout and stderr; flushes
// stdout before it returns.
int CliMain(int argc, char** argv);

}  // namespace onnx_light::cli
