// A Java program written for ONNX Runtime (Maven com.microsoft.onnxruntime:onnxruntime
// 1.29.0), used as a test of libonnxruntime.so.1 on onnx-light: the test runs it with
// -Donnxruntime.native.onnxruntime.path at onnx-light's library and without (the jar's own
// real ORT) and compares what it prints (tests/python/ort_c_api/test_java_client.py).
//
//   java -cp onnxruntime-1.29.0.jar JavaClient.java MODEL_DIR
//
// One fact per line: names, types, shapes, values (full precision) and error codes.
import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxMap;
import ai.onnxruntime.OnnxSequence;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

public class JavaClient {
  interface Body {
    void run() throws Exception;
  }

  static void expect(String label, Body body) {
    try {
      body.run();
      System.out.println(label + " ok");
    } catch (OrtException e) {
      System.out.println(label + " error code=" + e.getCode());
    } catch (Exception e) {
      System.out.println(label + " error " + e.getClass().getSimpleName());
    }
  }

  static void info(String label, Map<String, NodeInfo> infos) {
    for (NodeInfo n : infos.values()) {
      String line = label + " " + n.getName() + " " + n.getInfo().getClass().getSimpleName();
      if (n.getInfo() instanceof TensorInfo) {
        TensorInfo t = (TensorInfo) n.getInfo();
        line += " type=" + t.type + " shape=" + Arrays.toString(t.getShape())
            + " names=" + Arrays.toString(t.getDimensionNames());
      }
      System.out.println(line);
    }
  }

  static String values(Object o) {
    if (o instanceof float[]) {
      float[] a = (float[]) o;
      List<String> s = new ArrayList<>();
      for (float f : a) s.add(Float.toString(f));
      return String.join(" ", s);
    }
    if (o instanceof Object[]) {
      return Arrays.stream((Object[]) o).map(JavaClient::values).collect(Collectors.joining(" | "));
    }
    if (o instanceof Map) return new TreeMap<>((Map<?, ?>) o).toString();
    if (o instanceof OnnxValue) {
      try {
        return values(((OnnxValue) o).getValue());
      } catch (OrtException e) {
        return "error code=" + e.getCode();
      }
    }
    if (o instanceof List) {
      return ((List<?>) o).stream().map(JavaClient::values).collect(Collectors.joining(" ; "));
    }
    return String.valueOf(o);
  }

  static void show(String label, OnnxValue v) throws OrtException {
    String line = "value " + label + " " + v.getType();
    if (v instanceof OnnxTensor) {
      OnnxTensor t = (OnnxTensor) v;
      line += " shape=" + Arrays.toString(t.getInfo().getShape());
    }
    System.out.println(line + " " + values(v.getValue()));
  }

  public static void main(String[] args) throws Exception {
    String dir = args[0];
    OrtEnvironment env = OrtEnvironment.getEnvironment();
    System.out.println("version " + env.getVersion());
    System.out.println("providers " + OrtEnvironment.getAvailableProviders());
    // Which libonnxruntime the JVM loaded (not compared: the test checks it).
    for (String line : Files.readAllLines(Path.of("/proc/self/maps"))) {
      if (line.contains("libonnxruntime.so")) {
        System.out.println("library " + Path.of(line.substring(line.indexOf('/'))).toRealPath());
        break;
      }
    }
    OrtSession.SessionOptions so = new OrtSession.SessionOptions();
    so.setIntraOpNumThreads(1);
    so.setInterOpNumThreads(1);
    so.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
    so.setExecutionMode(OrtSession.SessionOptions.ExecutionMode.SEQUENTIAL);

    String dense = dir + "/dense.onnx";
    try (OrtSession s = env.createSession(dense, so);
        OrtSession b = env.createSession(Files.readAllBytes(Path.of(dense)), so)) {
      info("input", s.getInputInfo());
      info("output", s.getOutputInfo());
      System.out.println("metadata producer=" + s.getMetadata().getProducerName()
          + " graph=" + s.getMetadata().getGraphName() + " version=" + s.getMetadata().getVersion()
          + " custom=" + new TreeMap<>(s.getMetadata().getCustomMetadata()));
      float[] x = new float[12];
      for (int i = 0; i < 12; ++i) x[i] = 0.25f * i - 1.0f;
      try (OnnxTensor in = OnnxTensor.createTensor(env, FloatBuffer.wrap(x), new long[] {3, 4})) {
        try (OrtSession.Result r = s.run(Collections.singletonMap("x", in))) {
          show("dense_file", r.get(0));
        }
        try (OrtSession.Result r = b.run(Collections.singletonMap("x", in))) {
          show("dense_bytes", r.get("y").get());
        }
        expect("missing_input", () -> s.run(Collections.emptyMap()).close());
        expect("unknown_output",
            () -> s.run(Collections.singletonMap("x", in), Collections.singleton("nope")).close());
        try (OnnxTensor wrongType = OnnxTensor.createTensor(env, new double[][] {{1, 2, 3, 4}});
            OnnxTensor wrongRank = OnnxTensor.createTensor(env, new float[] {1, 2, 3, 4})) {
          expect("wrong_type", () -> s.run(Collections.singletonMap("x", wrongType)).close());
          expect("wrong_rank", () -> s.run(Collections.singletonMap("x", wrongRank)).close());
        }
        OrtSession.RunOptions ro = new OrtSession.RunOptions();
        ro.setRunTag("tagged");
        System.out.println("run_tag " + ro.getRunTag());
        ro.setTerminate(true);
        expect("terminated", () -> s.run(Collections.singletonMap("x", in), ro).close());
        ro.setTerminate(false);
        try (OrtSession.Result r = s.run(Collections.singletonMap("x", in), ro)) {
          show("dense_after_errors", r.get(0));
        }
      }
    }

    try (OrtSession s = env.createSession(dir + "/strings.onnx", so);
        OnnxTensor text = OnnxTensor.createTensor(env, new String[] {"Hello", "wOrLd", ""});
        OrtSession.Result r = s.run(Collections.singletonMap("text", text))) {
      info("input", s.getInputInfo());
      show("strings", r.get(0));
    }

    try (OrtSession s = env.createSession(dir + "/zipmap.onnx", so);
        OnnxTensor p = OnnxTensor.createTensor(env,
            new float[][] {{0.1f, 0.2f, 0.7f}, {0.5f, 0.25f, 0.25f}});
        OrtSession.Result r = s.run(Collections.singletonMap("probabilities", p))) {
      info("output", s.getOutputInfo());
      OnnxSequence seq = (OnnxSequence) r.get(0);
      System.out.println("zipmap " + seq.getInfo());
      show("zipmap", seq);
    }

    try (OrtSession s = env.createSession(dir + "/sequence.onnx", so);
        OnnxTensor x = OnnxTensor.createTensor(env, new float[][] {{1, 2}, {3, 4}, {5, 6}});
        OrtSession.Result r = s.run(Collections.singletonMap("x", x))) {
      OnnxSequence seq = (OnnxSequence) r.get(0);
      System.out.println("sequence " + seq.getInfo());
      for (OnnxValue part : seq.getValue()) show("sequence_part", part);
    }

    expect("missing_file", () -> env.createSession(dir + "/no_such.onnx", so).close());
    expect("junk_bytes", () -> env.createSession("not a model".getBytes(), so).close());
    expect("unknown_op", () -> env.createSession(dir + "/unknown_op.onnx", so).close());
    so.close();
    System.out.println("done");
  }
}
