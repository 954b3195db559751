//! The device kernels compile: every kernel file, for f32, f64, c32 and c64, through NVRTC with
//! `--fmad=false` (no GPU needed: NVRTC only compiles); each entry point the crate launches is
//! in the PTX as a `.entry`, with no fused multiply-add and no per-thread local memory. When
//! libnvrtc cannot be loaded the test prints why and how to provide it, and passes without
//! checking (it says so); without the `cuda` feature there is nothing to compile with, and it
//! says that.

#[cfg(feature = "cuda")]
#[test]
fn every_kernel_compiles_with_nvrtc_for_every_value_type() {
    use yee_cuda::device::nvrtc::{compile, nvrtc_present};
    use yee_cuda::kernels::{ALL, Precision, entry_name};
    if !nvrtc_present() {
        eprintln!(
            "SKIPPED: libnvrtc was not found, so the .cu files were NOT compiled. Install it \
             with `pip install nvidia-cuda-nvrtc-cu12` and set LD_LIBRARY_PATH to \
             site-packages/nvidia/cuda_nvrtc/lib (.ci/run does)."
        );
        return;
    }
    for file in ALL {
        for precision in Precision::ALL {
            let ptx = compile(file, precision)
                .unwrap_or_else(|e| panic!("{e}"))
                .to_src();
            for entry in file.entries {
                let name = entry_name(entry, precision);
                assert!(
                    ptx.lines()
                        .any(|l| l.contains(".entry") && l.contains(name.as_str())),
                    "{} for {precision:?}: no entry {name} in the PTX",
                    file.name
                );
            }
            // No fused multiply-add in the PTX: the oracle's bits need none.
            assert!(
                !ptx.contains("fma.rn"),
                "{} fused a multiply-add",
                file.name
            );
            // No per-thread local memory (a stack frame): a kernel that indexes an array
            // of its arguments or of its node's coordinates by a variable gets one, and its
            // loads went through L1 beside every field load (the curl kernel's 96-byte frame
            // bound it at about 15 % of the device's roofline on an H200, docs/cuda.md).
            assert!(
                !ptx.contains(".local"),
                "{} for {precision:?} keeps per-thread local memory (`.local` in its PTX)",
                file.name
            );
        }
    }
}

#[cfg(not(feature = "cuda"))]
#[test]
fn every_kernel_compiles_with_nvrtc_for_every_value_type() {
    eprintln!(
        "SKIPPED: built without the `cuda` feature, so the .cu files were NOT compiled; run \
         `cargo test -p yee-cuda --features cuda --test it nvrtc_compile::`."
    );
}
