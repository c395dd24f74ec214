//! GNN inference against PyTorch: for every model and dataset with
//! committed weights, the CPU backend's predictions equal the ones
//! `scripts/gnn-train.py` exported, the logits agree within a tolerance,
//! the binary or k-bit hidden layer agrees bit for bit where its inputs are
//! integers, and the test accuracy equals PyTorch's. Bad weights and
//! datasets give errors naming the tensor or file.

use bitgraphblas::io::{data_path, ReadOptions};
use bitgraphblas::{BackendExt, Cpu, Format};
use bitgraphblas_algorithms::gnn::{Dataset, GnnGraph, Hidden, Model, Network, Weights};

/// Logits: |ours - torch| <= ABS + REL * |torch| (f32 sums in another order).
const ABS: f32 = 1e-3;
const REL: f32 = 1e-4;

/// Runs `model` on `data` with backend `cpu` (any backend), checks it
/// against PyTorch's export, and returns the logits.
fn check<B: BackendExt>(cpu: &B, model: Model, data: &Dataset) -> bitgraphblas::DenseMatrix<f32> {
    let path = data_path(format!(
        "weights/{}-{}.safetensors",
        model.name(),
        data.name
    ));
    let w = Weights::load(&path, &ReadOptions::default()).unwrap();
    let net = Network::load(cpu, model, &w, data.features.ncols(), data.classes()).unwrap();
    let g = GnnGraph::upload(cpu, data, model.needs(), Format::Auto).unwrap();
    let out = net.forward(cpu, &g).unwrap();
    let n = data.nodes();
    let c = data.classes();
    let want = w.f32_matrix("reference.logits", n, c).unwrap();
    let logits = cpu.download_dense(&out.logits).unwrap();
    let mut worst = 0.0f32;
    for (a, b) in logits.as_slice().iter().zip(want.as_slice()) {
        let err = (a - b).abs();
        assert!(
            err <= ABS + REL * b.abs(),
            "{}: logit {a} against torch {b}",
            model.name()
        );
        worst = worst.max(err);
    }
    let preds = net.predict(cpu, &out.logits).unwrap();
    let torch: Vec<u32> = w
        .i32_vector("reference.predictions", n)
        .unwrap()
        .iter()
        .map(|&p| p as u32)
        .collect();
    let differ = (0..n).filter(|&i| preds[i] != torch[i]).count();
    assert_eq!(
        differ,
        0,
        "{} on {}: {differ} predictions differ",
        model.name(),
        data.name
    );
    let acc = data.accuracy(&preds, &data.split.test);
    let torch_acc: f64 = w.meta("test_accuracy").unwrap().parse().unwrap();
    assert!(
        (acc - torch_acc).abs() < 5e-5,
        "accuracy {acc} against torch {torch_acc}"
    );
    match out.hidden {
        Some(Hidden::Bits(h)) => {
            let h = cpu.download_bits(&h).unwrap();
            let k = h.ncols();
            let packed = w
                .packed_bits("reference.hidden_bits", n, k, h.layout())
                .unwrap();
            let differ = h
                .words()
                .iter()
                .zip(packed.words())
                .filter(|(a, b)| a != b)
                .count();
            // BSpMM.BBB and BMM.BBB outputs are integer comparisons: exact;
            // bits thresholded from f32 aggregations may flip at a tie
            let exact = matches!(model, Model::BiGcnBin);
            if exact {
                assert_eq!(
                    differ,
                    0,
                    "{}: hidden bits differ in {differ} words",
                    model.name()
                );
            } else {
                assert!(
                    differ * 1000 <= h.words().len(),
                    "{}: {differ} words differ",
                    model.name()
                );
            }
        }
        Some(Hidden::Codes(p)) => {
            let k = p.ncols();
            let want = w.u8_matrix("reference.hidden_codes", n, k).unwrap();
            let planes: Vec<_> = p
                .planes()
                .iter()
                .map(|b| cpu.download_bits(b).unwrap())
                .collect();
            let mut differ = 0;
            for i in 0..n {
                for j in 0..k {
                    let code: u8 = planes
                        .iter()
                        .enumerate()
                        .map(|(b, pl)| (pl.get(i, j).unwrap() as u8) << b)
                        .sum();
                    differ += (code != want[i * k + j]) as usize;
                }
            }
            // codes of f32 activations: a value at a rounding boundary may differ
            assert!(
                differ * 1000 <= n * k,
                "{}: {differ} codes differ",
                model.name()
            );
        }
        None => {}
    }
    eprintln!(
        "{:10} {:9} {}: accuracy {acc:.4} (torch {torch_acc:.4}), worst logit error {worst:.2e}",
        model.name(),
        data.name,
        cpu.name()
    );
    logits
}

fn dataset(name: &str) -> Dataset {
    Dataset::load(data_path(name), &ReadOptions::default()).unwrap()
}

#[test]
fn every_model_matches_pytorch_on_cora() {
    let d = dataset("cora");
    for m in Model::ALL {
        check(&Cpu::new(), m, &d);
    }
}

#[test]
fn every_model_matches_pytorch_on_citeseer() {
    let d = dataset("citeseer");
    for m in Model::ALL {
        check(&Cpu::new(), m, &d);
    }
}

/// The same checks on the CUDA backend, and its logits against the CPU's
/// (skipped without a GPU unless BITGRAPHBLAS_REQUIRE_GPU=1).
#[cfg(feature = "cuda")]
#[test]
fn every_model_on_the_gpu_matches_the_cpu_and_pytorch() {
    use bitgraphblas::ext::Replay;
    use bitgraphblas::Backend;
    let Some(gpu) = bitgraphblas::backend::cuda::own_cuda_or_skip("every_model_on_the_gpu") else {
        return;
    };
    gpu.set_poison(true);
    for name in ["cora", "citeseer"] {
        let d = dataset(name);
        for m in Model::ALL {
            let ours = check(&gpu, m, &d);
            let cpu = check(&Cpu::new(), m, &d);
            for (a, b) in ours.as_slice().iter().zip(cpu.as_slice()) {
                assert!(
                    (a - b).abs() <= ABS + REL * b.abs(),
                    "{}: CUDA {a}, CPU {b}",
                    m.name()
                );
            }
        }
    }
    // the forward pass recorded as one CUDA graph and replayed: the logits
    // of the plain calls, within the CUDA-against-CPU tolerance (a product
    // may fold in another order); every model and dataset before the verdict
    gpu.set_poison(false);
    let mut failures = Vec::new();
    for name in ["cora", "citeseer"] {
        let d = dataset(name);
        for m in Model::ALL {
            let path = data_path(format!("weights/{}-{}.safetensors", m.name(), d.name));
            let w = Weights::load(&path, &ReadOptions::default()).unwrap();
            let net = Network::load(&gpu, m, &w, d.features.ncols(), d.classes()).unwrap();
            let g = GnnGraph::upload(&gpu, &d, m.needs(), Format::Auto).unwrap();
            let plain = gpu
                .download_dense(&net.forward(&gpu, &g).unwrap().logits)
                .unwrap();
            let mut replay =
                Replay::record(&gpu, |b: &bitgraphblas::CudaBackend| net.forward(b, &g)).unwrap();
            if !replay.is_recorded() {
                failures.push(format!("{} on {name}: not recorded", m.name()));
                continue;
            }
            for run in 0..2 {
                let out = replay.run(&gpu).unwrap();
                let replayed = gpu.download_dense(&out.logits).unwrap();
                let bad = plain
                    .as_slice()
                    .iter()
                    .zip(replayed.as_slice())
                    .position(|(a, b)| {
                        (a - b).abs() > ABS + REL * a.abs() || a.is_nan() != b.is_nan()
                    });
                if let Some(i) = bad {
                    failures.push(format!(
                        "{} on {name}, replay {run}: logit {i} is {} where the plain calls gave {}",
                        m.name(),
                        replayed.as_slice()[i],
                        plain.as_slice()[i]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A temporary directory holding a copy of `data/cora` with `edit` applied.
fn edited_cora(tag: &str, edit: impl Fn(&std::path::Path)) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("bitgraphblas-gnn-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["adj.mtx", "features.mtx", "labels.txt", "split.json"] {
        std::fs::copy(data_path("cora").join(f), dir.join(f)).unwrap();
    }
    edit(&dir);
    dir
}

#[test]
fn bad_datasets_name_the_file() {
    let opts = ReadOptions::default();
    // 10 labels for 2708 nodes
    let d = edited_cora("labels", |d| {
        std::fs::write(d.join("labels.txt"), "0\n".repeat(10)).unwrap()
    });
    let e = Dataset::load(&d, &opts).unwrap_err().to_string();
    assert!(
        e.contains("labels.txt") && e.contains("10 labels for 2708 nodes"),
        "{e}"
    );
    // a feature matrix with another row count
    let d = edited_cora("features", |d| {
        std::fs::write(
            d.join("features.mtx"),
            "%%MatrixMarket matrix coordinate real general\n5 3 1\n1 1 1.0\n",
        )
        .unwrap()
    });
    let e = Dataset::load(&d, &opts).unwrap_err().to_string();
    assert!(
        e.contains("features.mtx") && e.contains("5 feature rows"),
        "{e}"
    );
    // a split naming a node that does not exist, and a label that is not a class
    let d = edited_cora("split", |d| {
        std::fs::write(
            d.join("split.json"),
            r#"{"train": [0], "val": [1], "test": [2708]}"#,
        )
        .unwrap()
    });
    let e = Dataset::load(&d, &opts).unwrap_err().to_string();
    assert!(e.contains("split.json") && e.contains("2708"), "{e}");
    let d = edited_cora("label", |d| {
        let mut l = std::fs::read_to_string(d.join("labels.txt")).unwrap();
        l.replace_range(0..1, "x");
        std::fs::write(d.join("labels.txt"), l).unwrap()
    });
    let e = Dataset::load(&d, &opts).unwrap_err().to_string();
    assert!(e.contains("line 1"), "{e}");
    let e = Dataset::load(std::env::temp_dir().join("no-such-dataset"), &opts).unwrap_err();
    assert!(e.to_string().contains("adj.mtx"), "{e}");
}

/// A safetensors file's tensors by name: type, shape, little-endian bytes.
type Tensors = std::collections::BTreeMap<String, (safetensors::Dtype, Vec<usize>, Vec<u8>)>;
/// A change to a file's tensors.
type Edit = fn(&mut Tensors);

/// Writes `graph.safetensors` for `data` into `dir` (as the benchmark's
/// generator does), with `edit` applied to the tensors first.
fn write_graph_file(dir: &std::path::Path, data: &Dataset, edit: Edit) {
    use safetensors::tensor::TensorView;
    use safetensors::Dtype;
    let a = data.adjacency.as_csr();
    let f = data.features.as_csr();
    let i64s = |v: &[usize]| v.iter().flat_map(|&x| (x as i64).to_le_bytes()).collect();
    let i32s = |v: &[u32]| v.iter().flat_map(|&x| (x as i32).to_le_bytes()).collect();
    let mut t = Tensors::new();
    let mut put = |name: &str, d: Dtype, len: usize, bytes: Vec<u8>| {
        t.insert(name.to_string(), (d, vec![len], bytes));
    };
    put("adj_row_ptr", Dtype::I64, a.nrows() + 1, i64s(a.row_ptr()));
    put("adj_col_idx", Dtype::I32, a.nnz(), i32s(a.col_idx()));
    put("feat_row_ptr", Dtype::I64, f.nrows() + 1, i64s(f.row_ptr()));
    put("feat_col_idx", Dtype::I32, f.nnz(), i32s(f.col_idx()));
    let vals = f.values().iter().flat_map(|v| v.to_le_bytes()).collect();
    put("feat_values", Dtype::F32, f.nnz(), vals);
    edit(&mut t);
    let views: Vec<(&str, TensorView)> = t
        .iter()
        .map(|(k, (d, s, b))| (k.as_str(), TensorView::new(*d, s.clone(), b).unwrap()))
        .collect();
    let meta = std::collections::HashMap::from([("features".to_string(), f.ncols().to_string())]);
    safetensors::serialize_to_file(views, &Some(meta), &dir.join("graph.safetensors")).unwrap();
}

/// `graph.safetensors` in place of the Matrix Market files: the same
/// dataset; and bad tensors name the file and the tensor.
#[test]
fn binary_graph_file_reads_as_the_text_files() {
    let opts = ReadOptions::default();
    let cora = dataset("cora");
    let binary = |tag: &str, edit: Edit| {
        edited_cora(tag, |d| {
            std::fs::remove_file(d.join("adj.mtx")).unwrap();
            std::fs::remove_file(d.join("features.mtx")).unwrap();
            write_graph_file(d, &cora, edit);
        })
    };
    let got = Dataset::load(binary("graph", |_| {}), &opts).unwrap();
    assert_eq!(got.adjacency.as_csr(), cora.adjacency.as_csr());
    assert_eq!(got.features.as_csr(), cora.features.as_csr());
    assert_eq!(
        (got.labels, got.split),
        (cora.labels.clone(), cora.split.clone())
    );
    // a negative column, a row pointer past the columns, a missing tensor
    let edits: [(&str, &str, Edit); 3] = [
        ("neg", "adj_col_idx", |t| {
            let c = &mut t.get_mut("adj_col_idx").unwrap().2;
            c[..4].copy_from_slice(&(-3i32).to_le_bytes())
        }),
        ("ptr", "adj_row_ptr", |t| {
            let p = &mut t.get_mut("adj_row_ptr").unwrap().2;
            let k = p.len() - 8;
            p[k..].copy_from_slice(&(1i64 << 40).to_le_bytes())
        }),
        ("missing", "feat_values", |t| {
            t.remove("feat_values");
        }),
    ];
    for (tag, tensor, edit) in edits {
        let e = Dataset::load(binary(tag, edit), &opts)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("graph.safetensors") && e.contains(tensor),
            "{tag}: {e}"
        );
    }
}

#[test]
fn bad_weights_name_the_tensor() {
    let cpu = Cpu::new();
    let opts = ReadOptions::default();
    let cora = dataset("cora");
    let path = data_path("weights/gcn-cora.safetensors");
    let bytes = std::fs::read(&path).unwrap();
    // truncated anywhere: an error, no panic
    for cut in [0, 7, 8, 100, bytes.len() / 2, bytes.len() - 1] {
        let e = Weights::from_bytes(&bytes[..cut], "cut.safetensors")
            .unwrap_err()
            .to_string();
        assert!(e.contains("cut.safetensors"), "{e}");
    }
    let w = Weights::load(&path, &opts).unwrap();
    // the CiteSeer dataset's width: the first weight does not fit
    let e = Network::load(&cpu, Model::Gcn, &w, 3703, 6)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("conv1.weight") && e.contains("[3703, 16]"),
        "{e}"
    );
    // another model's file
    let e = Network::load(&cpu, Model::BiGcn, &w, 1433, 7)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("model gcn, not bigcn"), "{e}");
    // a binary model with a tensor missing, and one with a batch norm of negative scale
    let bw = std::fs::read(data_path("weights/bigcn-bin-cora.safetensors")).unwrap();
    let w = Weights::from_bytes(&bw, "bigcn-bin.safetensors").unwrap();
    assert!(w.has("bn1a.running_mean"));
    let net = Network::load(
        &cpu,
        Model::BiGcnBin,
        &w,
        cora.features.ncols(),
        cora.classes(),
    );
    assert!(net.is_ok());
    let e = Network::load(&cpu, Model::BiGcnBin, &w, cora.features.ncols(), 9)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("conv2"), "{e}");
    let e = w.f32_vector("bn9.bias", 64).unwrap_err().to_string();
    assert!(e.contains("bn9.bias") && e.contains("missing"), "{e}");
    let e = Model::parse("gat").unwrap_err().to_string();
    assert!(e.contains("gcn") && e.contains("bigcn-bin"), "{e}");
}
