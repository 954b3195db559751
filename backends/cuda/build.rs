//! Compiles the host build of the kernel bodies (`kernels/host.c`) with multiply-adds unfused,
//! as NVRTC compiles the device build with `--fmad=false`; with the `cuda` feature also the
//! emulated device's build of the kernel files themselves (`kernels/emulated.cpp`).

fn main() {
    for file in [
        "host.c",
        "yee_cell.h",
        "thread.cuh",
        "emulated.cuh",
        "emulated.cpp",
        "box.cu",
        "cpml.cu",
        "curl.cu",
        "dft.cu",
        "finite.cu",
        "gather.cu",
        "incident.cu",
        "poles.cu",
        "source.cu",
        "tensor.cu",
        "triad.cu",
    ] {
        println!("cargo:rerun-if-changed=kernels/{file}");
    }
    cc::Build::new()
        .file("kernels/host.c")
        .flag_if_supported("-ffp-contract=off")
        .flag_if_supported("-fno-fast-math")
        .opt_level(2)
        .compile("yee_cuda_host");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_some() {
        cc::Build::new()
            .cpp(true)
            .file("kernels/emulated.cpp")
            .include("kernels")
            .flag("-std=c++14")
            .flag_if_supported("-ffp-contract=off")
            .flag_if_supported("-fno-fast-math")
            .opt_level(2)
            .compile("yee_cuda_emulated");
    }
}
