//! A Rust program written for ONNX Runtime (the `ort` crate, `load-dynamic`, API 29), used as
//! a test of libonnxruntime.so.1 on onnx-light: the test runs it on onnx-light's library and
//! on real ORT 1.29 and compares what it prints (tests/python/ort_c_api/test_rust_client.py).
//!
//!     ort_rust_client LIBRARY MODEL_DIR
//!
//! First the model's facts (inputs, outputs, metadata: what `ort`'s model-info example
//! prints), then runs. One fact per line; error lines carry the error code only.
use ort::session::builder::GraphOptimizationLevel;
use ort::session::{RunOptions, Session};
use ort::value::{DynMap, Tensor, ValueType};

fn describe(label: &str, name: &str, t: &ValueType) {
    match t {
        ValueType::Tensor {
            ty,
            shape,
            dimension_symbols,
        } => {
            let symbols: Vec<String> = dimension_symbols.iter().map(|s| format!("'{s}'")).collect();
            println!(
                "{label} {name} tensor {ty:?} {:?} {}",
                &shape[..],
                symbols.join("")
            );
        }
        ValueType::Sequence(inner) => println!("{label} {name} sequence of {inner:?}"),
        ValueType::Map { key, value } => println!("{label} {name} map {key:?} {value:?}"),
        other => println!("{label} {name} {other:?}"),
    }
}

fn info(session: &Session) {
    for i in session.inputs() {
        describe("input", i.name(), i.dtype());
    }
    for o in session.outputs() {
        describe("output", o.name(), o.dtype());
    }
}

fn expect<T>(label: &str, r: ort::Result<T>) {
    match r {
        Ok(_) => println!("{label} ok"),
        Err(e) => println!("{label} error code={:?}", e.code()),
    }
}

fn floats(label: &str, shape: &[i64], data: &[f32]) {
    let text: Vec<String> = data.iter().map(|v| format!("{v:e}")).collect();
    println!("value {label} {shape:?} {}", text.join(" "));
}

fn main() -> ort::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (library, dir) = (&args[1], &args[2]);
    let env = ort::init_from(library)
        .expect("the library loads")
        .with_name("rust_client")
        .build()?;
    let x: Vec<f32> = (0..12).map(|i| 0.25 * i as f32 - 1.0).collect();

    let dense = format!("{dir}/dense.onnx");
    let mut from_file = Session::builder(&env)?
        .with_intra_threads(1)?
        .with_inter_threads(1)?
        .with_optimization_level(GraphOptimizationLevel::Level3)?
        .commit_from_file(&dense)?;
    info(&from_file);
    {
        let md = from_file.metadata()?;
        println!(
            "metadata producer={:?} name={:?} version={:?}",
            md.producer(),
            md.name(),
            md.version()
        );
        let mut keys = md.custom_keys()?;
        keys.sort();
        for k in keys {
            println!("metadata {k}={:?}", md.custom(&k));
        }
    }
    let bytes = std::fs::read(&dense).expect("the model reads");
    let mut from_bytes = Session::builder(&env)?.commit_from_memory(&bytes)?;
    {
        let input = Tensor::from_array(([3usize, 4], x.clone()))?;
        let out = from_file.run(ort::inputs!["x" => input])?;
        let (shape, data) = out["y"].try_extract_tensor::<f32>()?;
        floats("dense_file", shape, data);
    }
    {
        let input = Tensor::from_array(([3usize, 4], x.clone()))?;
        let out = from_bytes.run(ort::inputs!["x" => input])?;
        let (shape, data) = out["y"].try_extract_tensor::<f32>()?;
        floats("dense_bytes", shape, data);
    }
    let none: Vec<(String, ort::value::DynValue)> = Vec::new();
    expect("missing_input", from_file.run(none).map(|_| ()));
    let wrong = Tensor::from_array(([3usize, 4], vec![1.0f64; 12]))?;
    expect(
        "wrong_type",
        from_file.run(ort::inputs!["x" => wrong]).map(|_| ()),
    );
    let flat = Tensor::from_array(([12usize], x.clone()))?;
    expect(
        "wrong_rank",
        from_file.run(ort::inputs!["x" => flat]).map(|_| ()),
    );
    let options = RunOptions::new()?;
    options.terminate()?;
    let input = Tensor::from_array(([3usize, 4], x.clone()))?;
    expect(
        "terminated",
        from_file
            .run_with_options(ort::inputs!["x" => input], &options)
            .map(|_| ()),
    );

    let mut strings = Session::builder(&env)?.commit_from_file(format!("{dir}/strings.onnx"))?;
    info(&strings);
    let text = Tensor::from_string_array(([3usize], &["Hello", "wOrLd", ""][..]))?;
    let out = strings.run(ort::inputs!["text" => text])?;
    let (shape, words) = out["picked"].try_extract_strings()?;
    println!("value strings {shape:?} {words:?}");
    drop(out);

    let mut zipmap = Session::builder(&env)?.commit_from_file(format!("{dir}/zipmap.onnx"))?;
    info(&zipmap);
    let p = Tensor::from_array(([2usize, 3], vec![0.1f32, 0.2, 0.7, 0.5, 0.25, 0.25]))?;
    let out = zipmap.run(ort::inputs!["probabilities" => p])?;
    let maps = out["labels"].try_extract_sequence::<ort::value::DynMapValueType>()?;
    for (i, m) in maps.iter().enumerate() {
        let m: &DynMap = m;
        let mut kv = m.try_extract_key_values::<i64, f32>()?;
        kv.sort_by_key(|(k, _)| *k);
        println!("zipmap {i} {kv:?}");
    }
    drop(out);

    let mut sequence = Session::builder(&env)?.commit_from_file(format!("{dir}/sequence.onnx"))?;
    let input = Tensor::from_array(([3usize, 2], vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]))?;
    let out = sequence.run(ort::inputs!["x" => input])?;
    let parts = out["parts"].try_extract_sequence::<ort::value::DynTensorValueType>()?;
    for p in &parts {
        let (shape, data) = p.try_extract_tensor::<f32>()?;
        floats("sequence_part", shape, data);
    }
    drop(out);

    expect(
        "missing_file",
        Session::builder(&env)?.commit_from_file(format!("{dir}/no_such.onnx")),
    );
    expect(
        "junk_bytes",
        Session::builder(&env)?.commit_from_memory(b"not a model"),
    );
    expect(
        "unknown_op",
        Session::builder(&env)?.commit_from_file(format!("{dir}/unknown_op.onnx")),
    );
    println!("done");
    Ok(())
}
