// Kernel definitions of com.microsoft ops, the contrib operators ONNX Runtime's tools write
// (its transformer optimizer, its quantizers, its saved optimized graphs). ORT registers
// them all at version 1 of the domain; they have no ONNX schema, so each definition states
// its arity here (docs/conformance.md lists the ops and what is left out).
#pragma once

#include <utility>
#include <vector>

#include "common/kernel_util.h"

namespace onnx_light::kernels {

// Input i, or null when the node leaves it out (empty name or past the end): most
// com.microsoft ops have trailing optional inputs.
inline const Tensor* OptionalInput(const KernelContext& ctx, size_t i) {
  return ctx.input_count() > i ? ctx.input(i) : nullptr;
}

// The com.microsoft kernel of `op`: `inputs` and `outputs` are {min, max} counts, bit i of
// `optional_inputs` / `optional_outputs` says position i may be empty.
inline KernelDef MsDef(const char* op, std::vector<TypeConstraint> c, KernelFactory f,
                       std::pair<int, int> inputs, std::pair<int, int> outputs = {1, 1},
                       uint32_t optional_inputs = 0, uint32_t optional_outputs = 0) {
  KernelDef def = Def(op, 1, std::move(c), std::move(f));
  def.domain = "com.microsoft";
  def.arity.min_inputs = inputs.first;
  def.arity.max_inputs = inputs.second;
  def.arity.min_outputs = outputs.first;
  def.arity.max_outputs = outputs.second;
  def.arity.optional_inputs = optional_inputs;
  def.arity.optional_outputs = optional_outputs;
  return def;
}

}  // namespace onnx_light::kernels
