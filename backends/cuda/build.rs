//! Compiles the host build of the kernel bodies (`kernels/host.c`) with multiply-adds unfused,
//! as NVRTC compiles the device build with `--fmad=false`; with the `cuda` feature also the
//! emulated device's build of the kernel files themselves (`kernels/emulated.cpp`), for f32,
//! f64, c32 and c64.

fn main() {
    // Every kernel source (a directory: cargo rescans it for any change).
    println!("cargo:rerun-if-changed=kernels");
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
