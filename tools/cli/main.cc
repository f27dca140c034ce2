// onnx-light: the command-line tool (tools/cli/cli.cc).
#include "cli.h"

int main(int argc, char** argv) {
  return onnx_light::cli::CliMain(argc, argv);
}
