//! Field values of any of the four element types behind one type, for callers that do not
//! know the scene's element type at compile time (the Python package).

use num_complex::Complex;
use yee_core::{Box3, Scalar};
use yee_runtime::piece::Assembled;

/// Values in the scene's element type, x fastest.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// Real single precision.
    F32(Vec<f32>),
    /// Real double precision.
    F64(Vec<f64>),
    /// Complex single precision.
    C32(Vec<Complex<f32>>),
    /// Complex double precision.
    C64(Vec<Complex<f64>>),
}

impl Values {
    /// How many values there are.
    pub fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::F64(v) => v.len(),
            Values::C32(v) => v.len(),
            Values::C64(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The real parts as f64 (each value's real part; exact for f32 and f64).
    pub fn real_f64(&self) -> Vec<f64> {
        match self {
            Values::F32(v) => v.iter().map(|&x| f64::from(x)).collect(),
            Values::F64(v) => v.clone(),
            Values::C32(v) => v.iter().map(|x| f64::from(x.re)).collect(),
            Values::C64(v) => v.iter().map(|x| x.re).collect(),
        }
    }
}

/// Every component at one step, as a run hands it back.
#[derive(Clone, Debug)]
pub struct FieldsAt {
    /// The step.
    pub step: u64,
    /// The grid.
    pub grid: [usize; 3],
    /// Each component over the grid (x fastest), `None` where the mode lacks it.
    pub components: [Option<Values>; 6],
}

impl FieldsAt {
    /// `fields` after `step`, behind [`Values`].
    pub fn of<T: Erase>(step: u64, fields: &Assembled<T>) -> Self {
        FieldsAt {
            step,
            grid: fields.grid,
            components: fields.fields.clone().map(|c| c.map(T::erase)),
        }
    }
}

impl Values {
    /// The values inside `region` of these (over a grid of extent `grid`, x fastest).
    pub fn cut(&self, grid: [usize; 3], region: Box3) -> Values {
        match self {
            Values::F32(v) => Values::F32(cut(v, grid, region)),
            Values::F64(v) => Values::F64(cut(v, grid, region)),
            Values::C32(v) => Values::C32(cut(v, grid, region)),
            Values::C64(v) => Values::C64(cut(v, grid, region)),
        }
    }
}

/// Why `region` cannot be read from a grid of extent `grid`: it is empty or reaches outside.
pub fn region_error(grid: [usize; 3], region: Box3) -> Option<String> {
    (!Box3::from_extent(grid).contains_box(&region) || region.is_empty()).then(|| {
        format!(
            "the box {:?}..{:?} is not a non-empty box inside the grid {:?}",
            region.lo, region.hi, grid
        )
    })
}

/// An element type whose values can be put behind [`Values`].
pub trait Erase: Scalar {
    /// `values` behind [`Values`].
    fn erase(values: Vec<Self>) -> Values;
}

impl Erase for f32 {
    fn erase(values: Vec<Self>) -> Values {
        Values::F32(values)
    }
}

impl Erase for f64 {
    fn erase(values: Vec<Self>) -> Values {
        Values::F64(values)
    }
}

impl Erase for Complex<f32> {
    fn erase(values: Vec<Self>) -> Values {
        Values::C32(values)
    }
}

impl Erase for Complex<f64> {
    fn erase(values: Vec<Self>) -> Values {
        Values::C64(values)
    }
}

/// The values of `whole` (over a grid of extent `grid`, x fastest) inside `region`, x fastest.
pub fn cut<T: Copy>(whole: &[T], grid: [usize; 3], region: Box3) -> Vec<T> {
    let all = Box3::from_extent(grid);
    let mut out = Vec::with_capacity(region.cells());
    for z in region.lo[2]..region.hi[2] {
        for y in region.lo[1]..region.hi[1] {
            let row = all.linear_index([region.lo[0], y, z]);
            out.extend_from_slice(&whole[row..row + region.extent()[0]]);
        }
    }
    out
}
