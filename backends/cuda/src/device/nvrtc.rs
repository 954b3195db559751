//! Compiling the kernel files with NVRTC (loaded at run time by cudarc): every program with
//! `--fmad=false`, after checking that libnvrtc can be loaded at all (cudarc panics when it
//! cannot: the check turns that into an error).

use cudarc::nvrtc::{CompileOptions, Ptx, compile_ptx_with_opts};

use crate::kernels::{KernelFile, NVRTC_OPTIONS, Precision, program};

/// Whether libnvrtc can be loaded (by cudarc's names, through the loader's search path:
/// `LD_LIBRARY_PATH` must name the folder of a pip-installed `nvidia-cuda-nvrtc-cu12`).
pub fn nvrtc_present() -> bool {
    // SAFETY: only tries to open the library by its names; nothing in it is called.
    #[allow(unsafe_code)]
    unsafe {
        cudarc::nvrtc::sys::is_culib_present()
    }
}

/// Why a kernel file did not compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompileFailure {
    /// libnvrtc cannot be loaded.
    NoNvrtc,
    /// NVRTC refused the program: the file, the type and its log.
    Rejected {
        /// The kernel file.
        file: &'static str,
        /// The value type.
        precision: Precision,
        /// NVRTC's message.
        log: String,
    },
}

impl core::fmt::Display for CompileFailure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CompileFailure::NoNvrtc => write!(
                f,
                "no NVRTC found (libnvrtc): install it (pip install nvidia-cuda-nvrtc-cu12) and \
                 put its lib folder on LD_LIBRARY_PATH"
            ),
            CompileFailure::Rejected {
                file,
                precision,
                log,
            } => write!(f, "NVRTC rejected {file} for {precision:?}: {log}"),
        }
    }
}

impl std::error::Error for CompileFailure {}

/// Compiles `file` for `precision` to PTX with [`NVRTC_OPTIONS`].
pub fn compile(file: KernelFile, precision: Precision) -> Result<Ptx, CompileFailure> {
    if !nvrtc_present() {
        return Err(CompileFailure::NoNvrtc);
    }
    let options = CompileOptions {
        fmad: Some(false),
        options: NVRTC_OPTIONS
            .iter()
            .filter(|o| !o.starts_with("--fmad"))
            .map(|o| o.to_string())
            .collect(),
        name: Some(file.name.into()),
        ..Default::default()
    };
    compile_ptx_with_opts(program(file, precision), options).map_err(|e| CompileFailure::Rejected {
        file: file.name,
        precision,
        log: match e {
            cudarc::nvrtc::CompileError::CompileError { log, .. } => {
                log.to_string_lossy().into_owned()
            }
            other => format!("{other:?}"),
        },
    })
}
