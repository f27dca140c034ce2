// What the model fuzzers count as a crash although the runtime answered with a status: an
// exception a kernel threw (runtime/compute.h turns it into a status so that a service
// lives on: std::bad_alloc into RESOURCE_EXHAUSTED, anything else into INTERNAL). Either is
// a bug here: the fuzzers run under tensor limits, and the node fuzzer under a budget, that
// must refuse so large an allocation before the allocator fails. Counted, not read from
// the message: a model's node names appear in messages, and the fuzzer learns strings.
#pragma once

#include <cstdint>

#include "onnx_light/runtime/compute.h"

class KernelExceptionWatch {
 public:
  KernelExceptionWatch() : before_(onnx_light::KernelExceptionsCaught()) {}
  // Traps when a kernel threw since the watch began.
  void Check() const {
    if (onnx_light::KernelExceptionsCaught() != before_) __builtin_trap();
  }

 private:
  uint64_t before_;
};
