// What the fuzzers count as a crash although the runtime answered with a status: a kernel
// that threw (runtime/compute.h turns it into INTERNAL so that a service lives on, but it
// is a bug), any "out of memory" (the fuzzers run under tensor limits, and the node fuzzer
// under a budget, that should refuse so large an allocation before the allocator fails),
// and the C ABI's "unexpected exception" (an exception its wrapper caught: a bug too).
#pragma once

#include <string>

inline void TrapIfAKernelThrew(const std::string& message) {
  for (const char* bug : {"the kernel threw", "out of memory", "unexpected exception"}) {
    if (message.find(bug) != std::string::npos) __builtin_trap();
  }
}
