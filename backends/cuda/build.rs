//! Compiles the host build of the kernel bodies (`kernels/host.c`) with multiply-adds unfused,
//! as NVRTC compiles the device build with `--fmad=false`.

fn main() {
    println!("cargo:rerun-if-changed=kernels/host.c");
    println!("cargo:rerun-if-changed=kernels/yee_cell.h");
    cc::Build::new()
        .file("kernels/host.c")
        .flag_if_supported("-ffp-contract=off")
        .flag_if_supported("-fno-fast-math")
        .opt_level(2)
        .compile("yee_cuda_host");
}
