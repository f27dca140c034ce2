// onnx-light: the command-line front end.
#include <cstdio>
#include <cstring>
#include <string>

#include "onnx_light/core/data_type.h"

namespace {

constexpr const char* kUsage =
    "usage: onnx-light <command> [args]\n"
    "commands:\n"
    "  dtypes     list every ONNX data type with its value and storage size\n"
    "  version    print the version\n"
    "  help       print this text\n";

int CmdDtypes() {
  using onnx_light::DataType;
  std::printf("%-6s %-16s %s\n", "value", "name", "bits/element");
  for (int32_t v = 0; v < onnx_light::kDataTypeCount; ++v) {
    const auto t = static_cast<DataType>(v);
    const int bits = onnx_light::DataTypeBitWidth(t);
    std::string size =
        bits == 0 ? (t == DataType::kString ? "variable" : "-") : std::to_string(bits);
    std::printf("%-6d %-16s %s\n", v, onnx_light::DataTypeName(t), size.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::strcmp(argv[1], "help") == 0 || std::strcmp(argv[1], "--help") == 0) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string cmd = argv[1];
  if (cmd == "dtypes") return CmdDtypes();
  if (cmd == "version" || cmd == "--version") {
    std::printf("onnx-light %s\n", ONNX_LIGHT_VERSION);
    return 0;
  }
  std::fprintf(stderr, "onnx-light: unknown command '%s'\n%s", cmd.c_str(), kUsage);
  return 2;
}
