// A C++ program written for ONNX Runtime (onnxruntime_cxx_api.h of the pinned headers,
// linked with -lonnxruntime), used as a test of libonnxruntime.so.1 on onnx-light: the test
// runs it on onnx-light's library and on real ORT's (LD_LIBRARY_PATH picks which) and
// compares what it prints (tests/python/ort_c_api/test_cxx_client.py).
//
//   cxx_client MODEL_DIR [PLUGIN OUT_DIR]
//   cxx_client MODEL_DIR --global-pools
//
// MODEL_DIR holds the models the test writes: dense.onnx (MatMul + Add + Relu with a
// symbolic batch "N" and metadata), strings.onnx (Gather and Concat of strings), zipmap.onnx
// (ai.onnx.ml ZipMap) and sequence.onnx (SplitToSequence). Each line printed is one fact: a name, a
// type, a shape, values (full precision, compared with a tolerance) or an error's code.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

#include "onnxruntime_cxx_api.h"

namespace {

std::string Shape(const std::vector<int64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

void PrintTypeInfo(const char* what, size_t i, const std::string& name, const Ort::TypeInfo& t) {
  const ONNXType kind = t.GetONNXType();
  std::printf("%s %zu %s onnx_type=%d", what, i, name.c_str(), static_cast<int>(kind));
  if (kind == ONNX_TYPE_TENSOR) {
    auto info = t.GetTensorTypeAndShapeInfo();
    std::printf(" elem=%d shape=%s sym=", static_cast<int>(info.GetElementType()),
                Shape(info.GetShape()).c_str());
    for (const char* p : info.GetSymbolicDimensions())
      std::printf("'%s'", p);
  } else if (kind == ONNX_TYPE_SEQUENCE) {
    auto seq = t.GetSequenceTypeInfo();
    auto elem = seq.GetSequenceElementType();
    std::printf(" element_onnx_type=%d", static_cast<int>(elem.GetONNXType()));
  } else if (kind == ONNX_TYPE_MAP) {
    auto map = t.GetMapTypeInfo();
    std::printf(" key=%d", static_cast<int>(map.GetMapKeyType()));
  }
  std::printf("\n");
}

void PrintIo(const char* label, Ort::Session& s) {
  Ort::AllocatorWithDefaultOptions alloc;
  std::printf("%s inputs=%zu outputs=%zu\n", label, s.GetInputCount(), s.GetOutputCount());
  for (size_t i = 0; i < s.GetInputCount(); ++i)
    PrintTypeInfo("input", i, s.GetInputNameAllocated(i, alloc).get(), s.GetInputTypeInfo(i));
  for (size_t i = 0; i < s.GetOutputCount(); ++i)
    PrintTypeInfo("output", i, s.GetOutputNameAllocated(i, alloc).get(), s.GetOutputTypeInfo(i));
}

void PrintTensor(const char* label, const Ort::Value& v) {
  auto info = v.GetTensorTypeAndShapeInfo();
  const ONNXTensorElementDataType type = info.GetElementType();
  std::printf("value %s elem=%d shape=%s", label, static_cast<int>(type),
              Shape(info.GetShape()).c_str());
  const size_t n = info.GetElementCount();
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
    const float* p = v.GetTensorData<float>();
    for (size_t i = 0; i < n; ++i)
      std::printf(" %.9g", p[i]);
  } else if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64) {
    const int64_t* p = v.GetTensorData<int64_t>();
    for (size_t i = 0; i < n; ++i)
      std::printf(" %lld", static_cast<long long>(p[i]));
  } else if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING) {
    for (size_t i = 0; i < n; ++i)
      std::printf(" '%s'", v.GetStringTensorElement(i).c_str());
  }
  std::printf("\n");
}

// Runs `body`, printing the error code of an Ort::Exception (messages differ by runtime).
template <typename F>
void Expect(const char* label, F body) {
  try {
    body();
    std::printf("%s ok\n", label);
  } catch (const Ort::Exception& e) {
    std::printf("%s error code=%d\n", label, static_cast<int>(e.GetOrtErrorCode()));
  }
}

void Dense(Ort::Env& env, const std::string& dir) {
  Ort::SessionOptions so;
  so.SetIntraOpNumThreads(1);
  so.SetInterOpNumThreads(1);
  so.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  so.SetExecutionMode(ExecutionMode::ORT_SEQUENTIAL);
  const std::string path = dir + "/dense.onnx";
  Ort::Session from_file(env, path.c_str(), so);
  PrintIo("dense", from_file);

  Ort::AllocatorWithDefaultOptions alloc;
  Ort::ModelMetadata md = from_file.GetModelMetadata();
  std::printf("metadata producer=%s graph=%s version=%lld\n",
              md.GetProducerNameAllocated(alloc).get(), md.GetGraphNameAllocated(alloc).get(),
              static_cast<long long>(md.GetVersion()));
  std::vector<std::string> keys;  // sorted: ORT keeps them in a hash map
  for (auto& key : md.GetCustomMetadataMapKeysAllocated(alloc))
    keys.emplace_back(key.get());
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) {
    std::printf("metadata %s=%s\n", key.c_str(),
                md.LookupCustomMetadataMapAllocated(key.c_str(), alloc).get());
  }

  std::ifstream f(path, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  Ort::Session from_bytes(env, bytes.data(), bytes.size(), so);

  auto mem = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  std::printf("memory name=%s device=%d\n", mem.GetAllocatorName().c_str(),
              static_cast<int>(mem.GetDeviceType()));
  std::vector<float> x(3 * 4);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.25f * static_cast<float>(i) - 1.0f;
  const int64_t xs[] = {3, 4};
  Ort::Value input = Ort::Value::CreateTensor<float>(mem, x.data(), x.size(), xs, 2);
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  for (Ort::Session* s : {&from_file, &from_bytes}) {
    auto outs = s->Run(Ort::RunOptions{nullptr}, in_names, &input, 1, out_names, 1);
    PrintTensor(s == &from_file ? "dense_file" : "dense_bytes", outs[0]);
  }
  // Into a preallocated output.
  std::vector<float> y(3 * 5, -7.0f);
  const int64_t ys[] = {3, 5};
  Ort::Value output = Ort::Value::CreateTensor<float>(mem, y.data(), y.size(), ys, 2);
  Ort::RunOptions ro;
  ro.SetRunTag("tagged");
  from_file.Run(ro, in_names, &input, 1, out_names, &output, 1);
  std::printf("run_tag %s\n", ro.GetRunTag());
  PrintTensor("dense_preallocated", output);
  std::printf("preallocated_is_user_buffer %d\n", output.GetTensorData<float>() == y.data());

  // Errors: a missing input, a wrong type, an unknown output, a terminated run.
  Expect("missing_input",
         [&] { from_file.Run(Ort::RunOptions{nullptr}, nullptr, nullptr, 0, out_names, 1); });
  std::vector<double> xd(12, 1.0);
  Ort::Value wrong = Ort::Value::CreateTensor<double>(mem, xd.data(), xd.size(), xs, 2);
  Expect("wrong_type",
         [&] { from_file.Run(Ort::RunOptions{nullptr}, in_names, &wrong, 1, out_names, 1); });
  const char* bad_out[] = {"nope"};
  Expect("unknown_output",
         [&] { from_file.Run(Ort::RunOptions{nullptr}, in_names, &input, 1, bad_out, 1); });
  Expect("wrong_rank", [&] {
    const int64_t flat[] = {12};
    Ort::Value v = Ort::Value::CreateTensor<float>(mem, x.data(), x.size(), flat, 1);
    from_file.Run(Ort::RunOptions{nullptr}, in_names, &v, 1, out_names, 1);
  });
  Ort::RunOptions stop;
  stop.SetTerminate();
  Expect("terminated", [&] { from_file.Run(stop, in_names, &input, 1, out_names, 1); });
  stop.UnsetTerminate();
  Expect("unterminated", [&] { from_file.Run(stop, in_names, &input, 1, out_names, 1); });
  // The session is still usable.
  auto again = from_file.Run(Ort::RunOptions{nullptr}, in_names, &input, 1, out_names, 1);
  PrintTensor("dense_after_errors", again[0]);
}

void Strings(Ort::Env& env, const std::string& dir) {
  Ort::SessionOptions so;
  so.SetIntraOpNumThreads(1);
  Ort::Session s(env, (dir + "/strings.onnx").c_str(), so);
  PrintIo("strings", s);
  Ort::AllocatorWithDefaultOptions alloc;
  const int64_t shape[] = {3};
  Ort::Value in = Ort::Value::CreateTensor(alloc, shape, 1, ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING);
  const char* words[] = {"Hello", "wOrLd", ""};
  in.FillStringTensor(words, 3);
  const char* in_names[] = {"text"};
  const char* out_names[] = {"picked"};
  auto outs = s.Run(Ort::RunOptions{nullptr}, in_names, &in, 1, out_names, 1);
  PrintTensor("strings", outs[0]);
  std::printf("strings_total_length %zu\n", outs[0].GetStringTensorDataLength());
  std::string content(outs[0].GetStringTensorDataLength(), '\0');
  std::vector<size_t> offsets(outs[0].GetTensorTypeAndShapeInfo().GetElementCount());
  outs[0].GetStringTensorContent(content.data(), content.size(), offsets.data(), offsets.size());
  std::printf("strings_content '%s' offsets", content.c_str());
  for (size_t o : offsets)
    std::printf(" %zu", o);
  std::printf("\n");
  Expect("strings_short_offsets", [&] {
    outs[0].GetStringTensorContent(content.data(), content.size(), offsets.data(), 2);
  });
}

void ZipMap(Ort::Env& env, const std::string& dir) {
  Ort::SessionOptions so;
  Ort::Session s(env, (dir + "/zipmap.onnx").c_str(), so);
  PrintIo("zipmap", s);
  auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  std::vector<float> x = {0.1f, 0.2f, 0.7f, 0.5f, 0.25f, 0.25f};
  const int64_t xs[] = {2, 3};
  Ort::Value in = Ort::Value::CreateTensor<float>(mem, x.data(), x.size(), xs, 2);
  const char* in_names[] = {"probabilities"};
  const char* out_names[] = {"labels"};
  auto outs = s.Run(Ort::RunOptions{nullptr}, in_names, &in, 1, out_names, 1);
  Ort::AllocatorWithDefaultOptions alloc;
  std::printf("zipmap onnx_type=%d count=%zu\n",
              static_cast<int>(outs[0].GetTypeInfo().GetONNXType()), outs[0].GetCount());
  for (size_t i = 0; i < outs[0].GetCount(); ++i) {
    Ort::Value map = outs[0].GetValue(static_cast<int>(i), alloc);
    std::printf("zipmap %zu onnx_type=%d count=%zu\n", i,
                static_cast<int>(map.GetTypeInfo().GetONNXType()), map.GetCount());
    PrintTensor("zipmap_keys", map.GetValue(0, alloc));
    PrintTensor("zipmap_values", map.GetValue(1, alloc));
  }
}

void Sequence(Ort::Env& env, const std::string& dir) {
  Ort::SessionOptions so;
  Ort::Session s(env, (dir + "/sequence.onnx").c_str(), so);
  PrintIo("sequence", s);
  auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  std::vector<float> x = {1, 2, 3, 4, 5, 6};
  const int64_t xs[] = {3, 2};
  Ort::Value in = Ort::Value::CreateTensor<float>(mem, x.data(), x.size(), xs, 2);
  const char* in_names[] = {"x"};
  const char* out_names[] = {"parts"};
  auto outs = s.Run(Ort::RunOptions{nullptr}, in_names, &in, 1, out_names, 1);
  Ort::AllocatorWithDefaultOptions alloc;
  std::printf("sequence count=%zu\n", outs[0].GetCount());
  for (size_t i = 0; i < outs[0].GetCount(); ++i)
    PrintTensor("sequence_part", outs[0].GetValue(static_cast<int>(i), alloc));
  // A sequence built by the program: two tensors.
  std::vector<Ort::Value> parts;
  parts.push_back(Ort::Value::CreateTensor<float>(mem, x.data(), 2, xs + 1, 1));
  parts.push_back(Ort::Value::CreateTensor<float>(mem, x.data() + 2, 2, xs + 1, 1));
  Ort::Value seq = Ort::Value::CreateSequence(parts);
  std::printf("made_sequence count=%zu\n", seq.GetCount());
  PrintTensor("made_sequence_1", seq.GetValue(1, alloc));
}

// Session and run options beyond the common path: free-dimension overrides, config
// entries, AddInitializer, overridable initializers, I/O binding, RunAsync, profiling and the
// optimized model written to disk, external data from a file and from memory, a custom-op
// library, global thread pools.
void Extras(Ort::Env& env, const std::string& dir, const std::string& plugin,
            const std::string& out_dir) {
  Ort::AllocatorWithDefaultOptions alloc;
  auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  {
    Ort::SessionOptions so;
    so.AddFreeDimensionOverrideByName("N", 3);
    so.AddConfigEntry("session.use_env_allocators", "0");
    std::printf("config has=%d value=%s missing_has=%d\n",
                static_cast<int>(so.HasConfigEntry("session.use_env_allocators")),
                so.GetConfigEntry("session.use_env_allocators").c_str(),
                static_cast<int>(so.HasConfigEntry("session.nothing")));
    Ort::Session s(env, (dir + "/dense.onnx").c_str(), so);
    PrintIo("dense_fixed_batch", s);
  }
  std::vector<float> x(12);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = 0.5f * static_cast<float>(i) - 2.0f;
  const int64_t xs[] = {3, 4};
  Ort::Value input = Ort::Value::CreateTensor<float>(mem, x.data(), x.size(), xs, 2);
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  {
    Ort::SessionOptions so;
    std::vector<float> b(5, 10.0f);
    const int64_t bs[] = {5};
    Ort::Value bias = Ort::Value::CreateTensor<float>(mem, b.data(), b.size(), bs, 1);
    so.AddInitializer("b", bias);
    Ort::Session s(env, (dir + "/dense.onnx").c_str(), so);
    auto outs = s.Run(Ort::RunOptions{nullptr}, in_names, &input, 1, out_names, 1);
    PrintTensor("dense_added_initializer", outs[0]);
  }
  {
    Ort::Session s(env, (dir + "/overridable.onnx").c_str(), Ort::SessionOptions{});
    std::printf("overridable inputs=%zu overridable=%zu name=%s\n", s.GetInputCount(),
                s.GetOverridableInitializerCount(),
                s.GetOverridableInitializerNameAllocated(0, alloc).get());
    std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {100, 200, 300};
    const int64_t as[] = {2, 3}, bs[] = {3};
    Ort::Value feeds[] = {Ort::Value::CreateTensor<float>(mem, a.data(), a.size(), as, 2),
                          Ort::Value::CreateTensor<float>(mem, b.data(), b.size(), bs, 1)};
    const char* names[] = {"x", "b"};
    auto kept = s.Run(Ort::RunOptions{nullptr}, names, feeds, 1, out_names, 1);
    PrintTensor("overridable_kept", kept[0]);
    auto over = s.Run(Ort::RunOptions{nullptr}, names, feeds, 2, out_names, 1);
    PrintTensor("overridable_fed", over[0]);
  }
  Ort::Session dense(env, (dir + "/dense.onnx").c_str(), Ort::SessionOptions{});
  {
    Ort::IoBinding binding(dense);
    binding.BindInput("x", input);
    binding.BindOutput("y", mem);
    dense.Run(Ort::RunOptions{nullptr}, binding);
    binding.SynchronizeOutputs();
    for (const std::string& n : binding.GetOutputNames())
      std::printf("binding output %s\n", n.c_str());
    std::vector<Ort::Value> values = binding.GetOutputValues();
    PrintTensor("binding_allocated", values[0]);
    std::vector<float> y(15, 0.0f);
    const int64_t ys[] = {3, 5};
    Ort::Value into = Ort::Value::CreateTensor<float>(mem, y.data(), y.size(), ys, 2);
    binding.ClearBoundOutputs();
    binding.BindOutput("y", into);
    dense.Run(Ort::RunOptions{nullptr}, binding);
    PrintTensor("binding_preallocated", into);
    std::printf("binding_wrote_user_buffer %d\n", static_cast<int>(y[1] != 0.0f));
  }
  {
    std::promise<std::string> done;
    Ort::Value out{nullptr};
    struct Context {
      std::promise<std::string>* done;
    } context{&done};
    dense.RunAsync(
        Ort::RunOptions{nullptr}, in_names, &input, 1, out_names, &out, 1,
        [](void* user, OrtValue** values, size_t n, OrtStatusPtr status) {
          auto* c = static_cast<Context*>(user);
          Ort::Status st(status);
          std::string line =
              "run_async ok=" + std::to_string(st.IsOK()) + " outputs=" + std::to_string(n);
          if (st.IsOK()) {
            Ort::Value v(values[0]);
            line += " first=" + std::to_string(v.GetTensorData<float>()[1]);
            v.release();  // still the program's `out`
          }
          c->done->set_value(line);
        },
        &context);
    std::printf("%s\n", done.get_future().get().c_str());
  }
  {
    Ort::SessionOptions so;
    const std::string prefix = out_dir + "/profile";
    const std::string optimized = out_dir + "/optimized.onnx";
    so.EnableProfiling(prefix.c_str());
    so.SetOptimizedModelFilePath(optimized.c_str());
    Ort::Session s(env, (dir + "/dense.onnx").c_str(), so);
    s.Run(Ort::RunOptions{nullptr}, in_names, &input, 1, out_names, 1);
    const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    const auto start = static_cast<int64_t>(s.GetProfilingStartTimeNs());
    std::printf("profiling_started_recently %d\n",
                static_cast<int>(start > 0 && now - start < int64_t{60} * 1000000000));
    auto file = s.EndProfilingAllocated(alloc);
    std::ifstream profile(file.get());
    std::ifstream model(optimized);
    std::printf("profile_written %d prefixed %d optimized_written %d\n",
                static_cast<int>(profile.good()),
                static_cast<int>(std::string(file.get()).rfind(prefix, 0) == 0),
                static_cast<int>(model.good()));
  }
  {
    std::vector<float> a(8, 1.0f);
    const int64_t as[] = {2, 4};
    Ort::Value ones = Ort::Value::CreateTensor<float>(mem, a.data(), a.size(), as, 2);
    const char* names[] = {"x"};
    Ort::Session from_file(env, (dir + "/external.onnx").c_str(), Ort::SessionOptions{});
    PrintTensor("external_from_file",
                from_file.Run(Ort::RunOptions{nullptr}, names, &ones, 1, out_names, 1)[0]);
    std::ifstream m(dir + "/external.onnx", std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(m)), std::istreambuf_iterator<char>());
    std::ifstream w(dir + "/weights.bin", std::ios::binary);
    std::vector<char> weights((std::istreambuf_iterator<char>(w)),
                              std::istreambuf_iterator<char>());
    Ort::SessionOptions so;
    std::vector<std::basic_string<ORTCHAR_T>> files = {"weights.bin"};
    std::vector<char*> buffers = {weights.data()};
    std::vector<size_t> lengths = {weights.size()};
    so.AddExternalInitializersFromFilesInMemory(files, buffers, lengths);
    Ort::Session from_memory(env, bytes.data(), bytes.size(), so);
    PrintTensor("external_from_memory",
                from_memory.Run(Ort::RunOptions{nullptr}, names, &ones, 1, out_names, 1)[0]);
  }
  if (!plugin.empty()) {
    Ort::SessionOptions so;
    so.RegisterCustomOpsLibrary(plugin.c_str());
    Ort::Session s(env, (dir + "/custom_op.onnx").c_str(), so);
    std::vector<float> a = {-1, 2, -3, 4};
    const int64_t as[] = {4};
    Ort::Value v = Ort::Value::CreateTensor<float>(mem, a.data(), a.size(), as, 1);
    const char* names[] = {"x"};
    PrintTensor("custom_op", s.Run(Ort::RunOptions{nullptr}, names, &v, 1, out_names, 1)[0]);
  }
  {
    Ort::SessionOptions so;
    so.DisablePerSessionThreads();
    Expect("per_session_threads_off_without_global_pools",
           [&] { Ort::Session s(env, (dir + "/dense.onnx").c_str(), so); });
  }
}

// The slots no other part of the program reaches, one call each with what it answers.
void Rest(Ort::Env& env, const std::string& dir, const std::string& plugin) {
  const OrtApi& api = Ort::GetApi();
  auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  auto mem2 = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeCPU);
  std::printf("memory_equal same=%d other=%d\n", static_cast<int>(mem == mem),
              static_cast<int>(mem == mem2));
  Ort::Env logged(
      ORT_LOGGING_LEVEL_WARNING, "logged",
      [](void*, OrtLoggingLevel, const char*, const char*, const char*, const char*) {}, nullptr);
  Ort::ArenaCfg arena(std::unordered_map<std::string, size_t>{{"max_mem", 1 << 20}});
  Ort::SessionOptions so;
  so.DisableCpuMemArena().DisableMemPattern().SetLogId("rest").SetLogSeverityLevel(2);
  so.SetDeterministicCompute(true);
  Ort::ThrowOnError(api.SetSessionLogVerbosityLevel(so, 0));
  // (The C API: the header's C++ AddFreeDimensionOverride calls the ByName slot.)
  Ort::ThrowOnError(api.AddFreeDimensionOverride(so, "DATA_BATCH", 2));
  Ort::SessionOptions copy = so.Clone();
  if (!plugin.empty()) {
    void* handle = nullptr;
    Ort::ThrowOnError(api.RegisterCustomOpsLibrary(copy, plugin.c_str(), &handle));
    std::printf("custom_ops_handle %d\n", static_cast<int>(handle != nullptr));
  }
  Ort::Session s(env, (dir + "/dense.onnx").c_str(), copy);
  PrintIo("dense_by_denotation", s);
  std::printf("profiling_start_ns %d\n", static_cast<int>(s.GetProfilingStartTimeNs() == 0));
  std::vector<float> x(8, 1.0f);
  const int64_t xs[] = {2, 4};
  Ort::Value input = Ort::Value::CreateTensor<float>(mem, x.data(), x.size(), xs, 2);
  std::printf("size_in_bytes %zu has_value %d\n", input.GetTensorSizeInBytes(),
              static_cast<int>(input.HasValue()));
  Ort::RunOptions ro;
  ro.SetRunLogVerbosityLevel(1).SetRunLogSeverityLevel(3).AddConfigEntry("run.key", "value");
  std::printf("run_options verbosity=%d severity=%d entry=%s missing=%d\n",
              ro.GetRunLogVerbosityLevel(), ro.GetRunLogSeverityLevel(),
              ro.GetConfigEntry("run.key"), static_cast<int>(ro.GetConfigEntry("nope") == nullptr));
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  PrintTensor("dense_run_options", s.Run(ro, in_names, &input, 1, out_names, 1)[0]);
  {
    // AddExternalInitializers replaces initializers whose data is external (w of
    // external.onnx), and refuses the others (ORT: ORT_FAIL).
    std::vector<float> w(12, 0.5f);
    const int64_t ws[] = {4, 3};
    std::vector<Ort::Value> values;
    values.push_back(Ort::Value::CreateTensor<float>(mem, w.data(), w.size(), ws, 2));
    Ort::SessionOptions ext;
    ext.AddExternalInitializers({"w"}, values);
    Ort::Session e(env, (dir + "/external.onnx").c_str(), ext);
    PrintTensor("external_initializer",
                e.Run(Ort::RunOptions{nullptr}, in_names, &input, 1, out_names, 1)[0]);
    Ort::SessionOptions bad;
    std::vector<float> b(5, 1.0f);
    const int64_t bs[] = {5};
    std::vector<Ort::Value> not_external;
    not_external.push_back(Ort::Value::CreateTensor<float>(mem, b.data(), b.size(), bs, 1));
    bad.AddExternalInitializers({"b"}, not_external);
    Expect("external_initializer_not_external",
           [&] { Ort::Session d(env, (dir + "/dense.onnx").c_str(), bad); });
  }
  {
    Ort::IoBinding binding(s);
    binding.BindInput("x", input);
    binding.SynchronizeInputs();
    binding.ClearBoundInputs();
    binding.BindOutput("y", mem);
    Expect("binding_without_inputs", [&] { s.Run(Ort::RunOptions{nullptr}, binding); });
  }
  Ort::Session over(env, (dir + "/overridable.onnx").c_str(), Ort::SessionOptions{});
  Ort::AllocatorWithDefaultOptions alloc;
  PrintTypeInfo("overridable_initializer", 0,
                over.GetOverridableInitializerNameAllocated(0, alloc).get(),
                over.GetOverridableInitializerTypeInfo(0));
  Ort::Session opt(env, (dir + "/optional.onnx").c_str(), Ort::SessionOptions{});
  Ort::TypeInfo t = opt.GetInputTypeInfo(0);
  const char* denotation = nullptr;
  size_t length = 0;
  Ort::ThrowOnError(api.GetDenotationFromTypeInfo(t, &denotation, &length));
  std::printf("optional onnx_type=%d denotation_length=%zu\n", static_cast<int>(t.GetONNXType()),
              length);
  Ort::TypeInfo contained = t.GetOptionalTypeInfo().GetOptionalElementType();
  std::printf("optional contains onnx_type=%d elem=%d\n", static_cast<int>(contained.GetONNXType()),
              static_cast<int>(contained.GetTensorTypeAndShapeInfo().GetElementType()));
  api.ReleaseMapTypeInfo(nullptr);
  api.ReleaseSequenceTypeInfo(nullptr);
}

// Run as `cxx_client MODEL_DIR --global-pools`: ORT's environment is one per process, so
// an env with global thread pools is the first and only one made.
int GlobalPools(const std::string& dir) {
  Ort::ThreadingOptions tp;
  tp.SetGlobalIntraOpNumThreads(2);
  tp.SetGlobalInterOpNumThreads(1);
  tp.SetGlobalSpinControl(0);
  tp.SetGlobalDenormalAsZero();
  Ort::Env env(
      tp, [](void*, OrtLoggingLevel, const char*, const char*, const char*, const char*) {},
      nullptr, ORT_LOGGING_LEVEL_WARNING, "global");
  Ort::Env again(tp, ORT_LOGGING_LEVEL_WARNING, "again");  // ORT: the same env
  Ort::SessionOptions so;
  so.DisablePerSessionThreads();
  Ort::Session s(env, (dir + "/dense.onnx").c_str(), so);
  auto mem = Ort::MemoryInfo::CreateCpu(OrtDeviceAllocator, OrtMemTypeCPU);
  std::vector<float> x(12, 0.5f);
  const int64_t xs[] = {3, 4};
  Ort::Value input = Ort::Value::CreateTensor<float>(mem, x.data(), x.size(), xs, 2);
  const char* in_names[] = {"x"};
  const char* out_names[] = {"y"};
  PrintTensor("global_pools",
              s.Run(Ort::RunOptions{nullptr}, in_names, &input, 1, out_names, 1)[0]);
  std::printf("done\n");
  return 0;
}

void Refused(Ort::Env& env, const std::string& dir) {
  Ort::SessionOptions so;
  Expect("missing_file", [&] { Ort::Session s(env, (dir + "/no_such.onnx").c_str(), so); });
  const char junk[] = "this is not an ONNX model";
  Expect("junk_bytes", [&] { Ort::Session s(env, junk, sizeof(junk), so); });
  Expect("unknown_op", [&] { Ort::Session s(env, (dir + "/unknown_op.onnx").c_str(), so); });
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: cxx_client MODEL_DIR [PLUGIN OUT_DIR | --global-pools]\n");
    return 2;
  }
  const std::string dir = argv[1];
  if (argc == 3 && std::string(argv[2]) == "--global-pools") {
    try {
      return GlobalPools(dir);
    } catch (const Ort::Exception& e) {
      std::printf("FAILED code=%d %s\n", static_cast<int>(e.GetOrtErrorCode()), e.what());
      return 1;
    }
  }
  const std::string plugin = argc == 4 ? argv[2] : "";
  const std::string out_dir = argc == 4 ? argv[3] : dir;
  try {
    std::printf("version %s\n", Ort::GetVersionString().c_str());
    std::printf("build_info %s\n", Ort::GetBuildInfoString().c_str());
    Ort::Env env(ORT_LOGGING_LEVEL_WARNING, "cxx_client");
    auto providers = Ort::GetAvailableProviders();
    std::printf("has_cpu_provider %d\n",
                static_cast<int>(std::find(providers.begin(), providers.end(),
                                           "CPUExecutionProvider") != providers.end()));
    Dense(env, dir);
    Strings(env, dir);
    ZipMap(env, dir);
    Sequence(env, dir);
    Extras(env, dir, plugin, out_dir);
    Rest(env, dir, plugin);
    Refused(env, dir);
  } catch (const Ort::Exception& e) {
    std::printf("FAILED code=%d %s\n", static_cast<int>(e.GetOrtErrorCode()), e.what());
    return 1;
  }
  std::printf("done\n");
  return 0;
}
