//! The device kernels' sources (`kernels/*.cu`) and the NVRTC program of each for one value
//! type: the complex value of `kernels/yee_complex.h`, the cell bodies of `kernels/yee_cell.h`
//! defined for that type, the thread helpers of `kernels/thread.cuh`, then the kernel file.
//! NVRTC gets one self-contained text (no include paths); the entry points are named
//! `<kernel>_<type>` (`yee_curl_f32`, `yee_curl_c64`).

/// The source of the kernel bodies (shared by the device kernels and the host build).
pub const CELL_SOURCE: &str = include_str!("../kernels/yee_cell.h");

/// The complex field value (`yee_complex<R>`: the scalar backend's complex arithmetic, part by
/// part), C++.
pub const COMPLEX_SOURCE: &str = include_str!("../kernels/yee_complex.h");

/// The device helpers every box kernel starts with (a thread's node).
pub const THREAD_SOURCE: &str = include_str!("../kernels/thread.cuh");

/// The NVRTC options of every kernel: multiply-adds unfused, so the fields are the scalar
/// oracle's bits (`--fmad=true` changed 95 % of f32 values after 40 steps on an H100).
pub const NVRTC_OPTIONS: &[&str] = &["--fmad=false"];

/// A field value type the device kernels are built for: real fields, or complex fields
/// (Bloch-periodic scenes, band diagrams) whose coefficients are real.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Precision {
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `yee_complex<float>`.
    C32,
    /// `yee_complex<double>`.
    C64,
}

impl Precision {
    /// The real types.
    pub const BOTH: [Precision; 2] = [Precision::F32, Precision::F64];

    /// Every type.
    pub const ALL: [Precision; 4] = [
        Precision::F32,
        Precision::F64,
        Precision::C32,
        Precision::C64,
    ];

    /// The C type of the coefficients (and of real fields).
    pub fn c_type(self) -> &'static str {
        match self {
            Precision::F32 | Precision::C32 => "float",
            Precision::F64 | Precision::C64 => "double",
        }
    }

    /// The C type of the field values.
    pub fn value_type(self) -> &'static str {
        match self {
            Precision::F32 => "float",
            Precision::F64 => "double",
            Precision::C32 => "yee_complex<float>",
            Precision::C64 => "yee_complex<double>",
        }
    }

    /// Bytes of a field value.
    pub fn value_bytes(self) -> u64 {
        match self {
            Precision::F32 => 4,
            Precision::F64 | Precision::C32 => 8,
            Precision::C64 => 16,
        }
    }

    /// Bytes of a coefficient (a real).
    pub fn real_bytes(self) -> u64 {
        match self {
            Precision::F32 | Precision::C32 => 4,
            Precision::F64 | Precision::C64 => 8,
        }
    }

    /// The type of a scene's `value_type` name (`f32`, `f64`, `c32`, `c64`).
    pub fn of_name(name: &str) -> Option<Precision> {
        Precision::ALL.into_iter().find(|p| p.suffix() == name)
    }

    /// Whether the fields are complex.
    pub fn is_complex(self) -> bool {
        matches!(self, Precision::C32 | Precision::C64)
    }

    /// The suffix of the entry points (the scene's `value_type`).
    pub fn suffix(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
            Precision::C32 => "c32",
            Precision::C64 => "c64",
        }
    }
}

/// One kernel file: its name, its source and the entry points it defines (before the type
/// suffix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelFile {
    /// The file name.
    pub name: &'static str,
    /// Its text.
    pub source: &'static str,
    /// The `extern "C" __global__` functions it defines, without the type suffix.
    pub entries: &'static [&'static str],
}

/// The curl update (Yee 1966), uniform or per-node materials, with the divergence flag.
pub const CURL: KernelFile = KernelFile {
    name: "curl.cu",
    source: include_str!("../kernels/curl.cu"),
    entries: &["yee_curl"],
};

/// The CPML ψ update and correction (Roden & Gedney 2000).
pub const CPML: KernelFile = KernelFile {
    name: "cpml.cu",
    source: include_str!("../kernels/cpml.cu"),
    entries: &["yee_cpml"],
};

/// Soft and hard point sources.
pub const SOURCE: KernelFile = KernelFile {
    name: "source.cu",
    source: include_str!("../kernels/source.cu"),
    entries: &["yee_source"],
};

/// Box packs and unpacks: halos, probes and read-backs.
pub const BOX: KernelFile = KernelFile {
    name: "box.cu",
    source: include_str!("../kernels/box.cu"),
    entries: &["yee_box_copy"],
};

/// The first non-finite node of a box (the divergence report).
pub const FINITE: KernelFile = KernelFile {
    name: "finite.cu",
    source: include_str!("../kernels/finite.cu"),
    entries: &["yee_non_finite"],
};

/// The DFT pass of a monitor's nodes (Oskooi et al. 2010, §4.3).
pub const DFT: KernelFile = KernelFile {
    name: "dft.cu",
    source: include_str!("../kernels/dft.cu"),
    entries: &["yee_dft"],
};

/// The TF/SF surface corrections of plane waves (Taflove & Hagness, eqs. (5.46)–(5.49)).
pub const INCIDENT: KernelFile = KernelFile {
    name: "incident.cu",
    source: include_str!("../kernels/incident.cu"),
    entries: &["yee_incident"],
};

/// The passes of a dispersive E phase (the ADE polarisations of each pole).
pub const POLES: KernelFile = KernelFile {
    name: "poles.cu",
    source: include_str!("../kernels/poles.cu"),
    entries: &["yee_poles"],
};

/// Indexed packs and unpacks: the slabs and resizes of the polarisations.
pub const GATHER: KernelFile = KernelFile {
    name: "gather.cu",
    source: include_str!("../kernels/gather.cu"),
    entries: &["yee_gather"],
};

/// The off-diagonal pass at tensor nodes (Kottke, Farjadpour & Johnson 2008).
pub const TENSOR: KernelFile = KernelFile {
    name: "tensor.cu",
    source: include_str!("../kernels/tensor.cu"),
    entries: &["yee_tensor"],
};

/// The Bloch phase of the ghosts a halo filled across a Bloch-periodic wrap.
pub const BLOCH: KernelFile = KernelFile {
    name: "bloch.cu",
    source: include_str!("../kernels/bloch.cu"),
    entries: &["yee_bloch"],
};

/// The STREAM triad the device's roofline is measured with (`yee bench --backend cuda`).
pub const TRIAD: KernelFile = KernelFile {
    name: "triad.cu",
    source: include_str!("../kernels/triad.cu"),
    entries: &["yee_triad"],
};

/// Every kernel file (each built for every [`Precision`]; `kernels/emulated.cpp` and
/// `kernels/emulated_kernels.h` list the same).
pub const ALL: [KernelFile; 12] = [
    CURL, CPML, SOURCE, BOX, FINITE, DFT, INCIDENT, POLES, GATHER, TENSOR, BLOCH, TRIAD,
];

/// The entry point of `entry` for `precision` (`yee_curl_f32`).
pub fn entry_name(entry: &str, precision: Precision) -> String {
    format!("{entry}_{}", precision.suffix())
}

/// The NVRTC program text of `file` for `precision`: the complex value, the cell bodies and
/// thread helpers for that type, then the kernels.
pub fn program(file: KernelFile, precision: Precision) -> String {
    let complex = match precision.is_complex() {
        true => "#define YEE_COMPLEX 1\n",
        false => "",
    };
    format!(
        "// {name} for {suffix} (yee-cuda)\n\
         #define YEE_DEVICE __device__\n\
         {COMPLEX_SOURCE}\n\
         {complex}\
         #define YEE_REAL {ty}\n\
         #define YEE_VALUE {value}\n\
         #define YEE_NAME(name) name##_{suffix}\n\
         {CELL_SOURCE}\n{THREAD_SOURCE}\n{source}",
        name = file.name,
        ty = precision.c_type(),
        value = precision.value_type(),
        suffix = precision.suffix(),
        source = file.source,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry point a kernel file lists is defined there as an `extern "C"` kernel, and
    /// the program for a type names it with that type's suffix once the macro expands.
    #[test]
    fn each_listed_entry_is_a_kernel_of_its_file() {
        for file in ALL {
            for entry in file.entries {
                let declared = format!("__global__ void YEE_NAME({entry})(");
                assert!(file.source.contains(&declared), "{} {entry}", file.name);
            }
            let kernels = file.source.matches("__global__").count();
            assert_eq!(kernels, file.entries.len(), "{}", file.name);
            for p in Precision::ALL {
                let text = program(file, p);
                assert!(text.contains(&format!("#define YEE_REAL {}", p.c_type())));
                assert!(text.contains(&format!("#define YEE_VALUE {}", p.value_type())));
                assert_eq!(text.contains("#define YEE_COMPLEX 1"), p.is_complex());
                assert!(text.contains("yee_curl_node"));
            }
        }
        assert_eq!(entry_name("yee_curl", Precision::F64), "yee_curl_f64");
        assert_eq!(entry_name("yee_bloch", Precision::C32), "yee_bloch_c32");
        // The emulated device's build includes every kernel file.
        let emulated = include_str!("../kernels/emulated_kernels.h");
        for file in ALL {
            assert!(
                emulated.contains(&format!("#include \"{}\"", file.name)),
                "{}",
                file.name
            );
        }
    }
}
